// MatMul through the whole engine (plan, dispatch, output allocation, the
// GEMM split over the default intra-op budget) versus a direct cblas_sgemm on
// the same buffers with OpenBLAS's own threads, one per core. Prints
// `gemm_N: ratio` where ratio = direct time / engine time within each
// interleaved pair, median and spread (bench_util.h; 1.0 = no overhead;
// target >= 0.95).
//
// The engine's blocks (ops/framework/blas_gemm.h) may differ from one multi-threaded
// sgemm in the last bits, as OpenBLAS at different thread counts does, so the
// results must agree within the float error bound of a K-term dot product.
//
// It re-executes itself with OPENBLAS_THREAD_TIMEOUT=4 (read only when the
// library loads): OpenBLAS's threads otherwise spin about 0.1 s after each
// direct call and take a core from the engine run that follows it.
#include <cblas.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "bench_util.h"
#include "exec/session.h"
#include "exec/thread_budget.h"

using namespace flowlens;

namespace {

Graph matmul_graph() {
  Graph g;
  for (const char* name : {"a", "b"}) {
    Node p;
    p.name = name;
    p.op = "Placeholder";
    p.attrs["dtype"] = DType::Float;
    g.add_node(p);
  }
  Node m;
  m.name = "c";
  m.op = "MatMul";
  m.inputs = {"a", "b"};
  m.attrs["T"] = DType::Float;
  g.add_node(m);
  return g;
}

Tensor random_matrix(int n, unsigned seed) {
  Tensor t(DType::Float, Shape{n, n});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float& x : t.values<float>()) x = dist(rng);
  return t;
}

// |engine - direct| <= 2 K eps (|a| |b|) elementwise; counts differing elements.
bool agree(int n, const Tensor& a, const Tensor& b, const Tensor& engine, const Tensor& direct, int* differing) {
  std::vector<float> abs_a(a.values<float>().begin(), a.values<float>().end()),
      abs_b(b.values<float>().begin(), b.values<float>().end()), bound(static_cast<size_t>(n) * n);
  for (float& x : abs_a) x = std::fabs(x);
  for (float& x : abs_b) x = std::fabs(x);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, abs_a.data(), n, abs_b.data(), n, 0.0f,
              bound.data(), n);
  const float* e = engine.data<float>();
  const float* d = direct.data<float>();
  *differing = 0;
  for (size_t i = 0; i < bound.size(); ++i) {
    if (e[i] != d[i]) ++*differing;
    if (std::fabs(e[i] - d[i]) > 2.0f * static_cast<float>(n) * FLT_EPSILON * bound[i]) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
    execv("/proc/self/exe", argv);
    std::perror("bench_gemm: re-exec with OPENBLAS_THREAD_TIMEOUT=4 failed");
    return 1;
  }
  const bool smoke = bench::smoke_mode(argc, argv);
  const std::vector<int> sizes = smoke ? std::vector<int>{64} : std::vector<int>{512, 1024, 2048};
  Session session(matmul_graph());  // the default budget; OpenBLAS now runs on one thread
  const int cores = available_cores();
  for (int n : sizes) {
    Tensor a = random_matrix(n, 1), b = random_matrix(n, 2);
    Tensor direct_out(DType::Float, Shape{n, n});
    auto direct = [&] {
      openblas_set_num_threads(cores);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data<float>(), n, b.data<float>(), n,
                  0.0f, direct_out.data<float>(), n);
      openblas_set_num_threads(1);
    };
    Tensor engine_out;
    auto engine = [&] { engine_out = session.run({{"a", a}, {"b", b}}, {"c"})[0]; };
    // One warm-up round each (plan compile, page faults), then pairs.
    const int pairs = smoke ? 1 : (n >= 2048 ? 7 : 21);
    const bench::Comparison c = bench::compare(pairs, direct, engine);
    int differing = 0;
    if (!agree(n, a, b, engine_out, direct_out, &differing)) {
      std::fprintf(stderr, "gemm_%d: engine result differs from cblas_sgemm beyond float rounding\n", n);
      return 1;
    }
    std::printf("gemm_%d: %s   (direct %.2f ms, engine %.2f ms, medians of %d pairs; %d of %d elements differ in the "
                "last bits; target >= 0.95)\n",
                n, bench::speed_text(c).c_str(), c.baseline_median() * 1e3, c.candidate_median() * 1e3, c.pairs(),
                differing, n * n);
  }
  return 0;
}
