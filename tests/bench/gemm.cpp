// MatMul through the whole engine (plan, dispatch, output allocation) versus
// a direct cblas_sgemm on the same buffers. Prints `gemm_N: ratio` where
// ratio = direct time / engine time within each interleaved pair, median and
// spread (bench_util.h; 1.0 = no overhead; target >= 0.95).
#include <cblas.h>

#include <cstdio>
#include <random>

#include "bench_util.h"
#include "exec/session.h"

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

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = bench::smoke_mode(argc, argv);
  const std::vector<int> sizes = smoke ? std::vector<int>{64} : std::vector<int>{512, 1024, 2048};
  Session session(matmul_graph());
  for (int n : sizes) {
    Tensor a = random_matrix(n, 1), b = random_matrix(n, 2);
    Tensor direct_out(DType::Float, Shape{n, n});
    auto direct = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data<float>(), n, b.data<float>(), n,
                  0.0f, direct_out.data<float>(), n);
    };
    Tensor engine_out;
    auto engine = [&] { engine_out = session.run({{"a", a}, {"b", b}}, {"c"})[0]; };
    // One warm-up round each (plan compile, page faults), then pairs.
    const int pairs = smoke ? 1 : (n >= 2048 ? 7 : 21);
    const bench::Comparison c = bench::compare(pairs, direct, engine);
    if (!engine_out.equals(direct_out)) {
      std::fprintf(stderr, "gemm_%d: engine result differs from cblas_sgemm\n", n);
      return 1;
    }
    std::printf("gemm_%d: %s   (direct %.2f ms, engine %.2f ms, medians of %d pairs; target >= 0.95)\n", n,
                bench::speed_text(c).c_str(), c.baseline_median() * 1e3, c.candidate_median() * 1e3, c.pairs());
  }
  return 0;
}
