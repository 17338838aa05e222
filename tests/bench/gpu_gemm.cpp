// The engine's GPU MatMul against cuBLAS called directly, in one run: a
// session step (executor dispatch, stream work, the end-of-run sync) against
// cublasSgemm/cublasGemmEx plus a stream sync on the same-sized buffers.
// Ratio = direct time / engine time (target >= 0.95 from 4096 up). Also
// prints TF32 and BF16 throughput; BF16 8192^3 is the headline number.
// Without a GPU it says so and exits 0.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "bench_util.h"
#include "exec/session.h"
#include "transform/graph_builder.h"

using namespace flowlens;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(std::string(what) + ": " + cublasGetStatusString(s));
}

// bfloat16 by truncation: enough for benchmark inputs.
uint16_t to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return static_cast<uint16_t>(bits >> 16);
}

Tensor host_matrix(DType dtype, int64_t n) {
  Tensor t(dtype, Shape{n, n});
  const int64_t count = n * n;
  if (dtype == DType::Float) {
    float* p = t.data<float>();
    for (int64_t i = 0; i < count; ++i) p[i] = static_cast<float>((i * 7919) % 1000) / 1000.f - 0.5f;
  } else {
    auto* p = static_cast<uint16_t*>(t.raw_data());
    for (int64_t i = 0; i < count; ++i) p[i] = to_bf16(static_cast<float>((i * 7919) % 1000) / 1000.f - 0.5f);
  }
  return t;
}

// c = a x b with a, b variables resident on /gpu:0; running the target "c"
// leaves the product on the device (nothing is fetched).
struct EngineMatmul {
  std::unique_ptr<Session> session;
  EngineMatmul(DType dtype, int64_t n, const std::string& math) {
    Graph g;
    GraphBuilder b(g, "", "/gpu:0");
    for (const char* v : {"a", "b"}) {
      b.add("VariableV2", v, {}, {{"dtype", AttrValue(dtype)}, {"shape", AttrValue(Shape{n, n})}});
      b.add("Placeholder", std::string(v) + "_init", {}, {{"dtype", AttrValue(dtype)}});
      b.add("Assign", std::string(v) + "/Assign", {v, std::string(v) + "_init"}, {{"T", AttrValue(dtype)}});
    }
    b.add("MatMul", "c", {"a", "b"}, {{"T", AttrValue(dtype)}});
    SessionOptions options;
    options.allow_soft_placement = false;
    options.gpu_math = math;
    session = std::make_unique<Session>(std::move(g), options);
    session->run({{"a_init", host_matrix(dtype, n)}, {"b_init", host_matrix(dtype, n)}}, {}, {"a/Assign", "b/Assign"});
  }
  void step() { session->run({}, {}, {"c"}); }
};

struct DirectGemm {
  cublasHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  int n;
  cudaDataType_t type;
  cublasComputeType_t compute;
  DirectGemm(DType dtype, int n_, cublasComputeType_t compute_) : n(n_), compute(compute_) {
    type = dtype == DType::Float ? CUDA_R_32F : CUDA_R_16BF;
    const size_t bytes = static_cast<size_t>(n) * n * (dtype == DType::Float ? 4 : 2);
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cublasCreate(&handle), "cublasCreate");
    check(cublasSetStream(handle, stream), "cublasSetStream");
    for (void** p : {&a, &b, &c}) check(cudaMalloc(p, bytes), "cudaMalloc");
    Tensor host = host_matrix(dtype, n);
    check(cudaMemcpy(a, host.raw_data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(b, host.raw_data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DirectGemm() {
    for (void* p : {a, b, c}) cudaFree(p);
    cublasDestroy(handle);
    cudaStreamDestroy(stream);
  }
  void step() {
    const float alpha = 1.f, beta = 0.f;
    check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b, type, n, a, type, n, &beta, c, type, n,
                       compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
};

double tflops(int64_t n, double seconds) { return 2.0 * static_cast<double>(n) * n * n / seconds / 1e12; }

void compare_gemm(const char* label, DType dtype, int64_t n, const std::string& math, cublasComputeType_t compute, int reps,
             int steps) {
  EngineMatmul engine(dtype, n, math);
  DirectGemm direct(dtype, static_cast<int>(n), compute);
  const bench::Comparison c = bench::compare(reps, [&] { for (int i = 0; i < steps; ++i) direct.step(); },
                                             [&] { for (int i = 0; i < steps; ++i) engine.step(); });
  std::printf("gpu_gemm_%s_%lld: %s   (engine %.1f TFLOP/s, cuBLAS %.1f TFLOP/s, %d pairs)\n", label,
              static_cast<long long>(n), bench::speed_text(c).c_str(), tflops(n, c.candidate_median() / steps),
              tflops(n, c.baseline_median() / steps), c.pairs());
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = bench::smoke_mode(argc, argv);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("gpu_gemm: skipped (%s)\n", DeviceSet::local()->gpu_status().c_str());
    return 0;
  }
  try {
    if (smoke) {
      compare_gemm("fp32", DType::Float, 256, "fp32", CUBLAS_COMPUTE_32F, 1, 2);
      return 0;
    }
    for (int64_t n : {1024, 4096, 8192}) compare_gemm("fp32", DType::Float, n, "fp32", CUBLAS_COMPUTE_32F, 7, 10);
    compare_gemm("tf32", DType::Float, 8192, "tf32", CUBLAS_COMPUTE_32F_FAST_TF32, 5, 10);
    compare_gemm("bf16", DType::BFloat16, 8192, "fp32", CUBLAS_COMPUTE_32F, 5, 20);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_gemm: %s\n", e.what());
    return 1;
  }
  return 0;
}
