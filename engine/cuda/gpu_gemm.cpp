#include "cuda/gpu_gemm.h"

#include <climits>
#include <string>

#include "cuda/cublas_library.h"
#include "cuda/cuda_check.h"

namespace flowlens::cuda {
namespace {

int as_int(int64_t v, const char* what, const char* name) {
  if (v > INT_MAX)
    ops::fail(std::string(what) + ": " + name + " of " + std::to_string(v) + " exceeds cuBLAS's int range");
  return static_cast<int>(v);
}

cublasComputeType_t compute_type(DType dt, MatmulMath math) {
  if (dt == DType::BFloat16) return CUBLAS_COMPUTE_32F;
  switch (math) {
    case MatmulMath::Tf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case MatmulMath::Bf16: return CUBLAS_COMPUTE_32F_FAST_16BF;
    case MatmulMath::Fp32: break;
  }
  return CUBLAS_COMPUTE_32F;
}

}  // namespace

void row_major_gemm(GpuLaunch& gpu, DType dt, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
                    const void* a, int64_t lda, const void* b, int64_t ldb, float beta, void* c, int64_t ldc,
                    const char* what) {
  const cudaDataType_t type = dt == DType::Float ? CUDA_R_32F : CUDA_R_16BF;
  const float alpha = 1.f;
  check_cublas(cublas_library().gemm_ex(gpu.device.gpu().cublas(), transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                        transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, as_int(n, what, "n"),
                                        as_int(m, what, "m"), as_int(k, what, "k"), &alpha, b, type,
                                        as_int(ldb, what, "ldb"), a, type, as_int(lda, what, "lda"), &beta, c, type,
                                        as_int(ldc, what, "ldc"), compute_type(dt, gpu.device.matmul_math()),
                                        CUBLAS_GEMM_DEFAULT),
               (std::string("cublasGemmEx (") + what + ")").c_str());
}

}  // namespace flowlens::cuda
