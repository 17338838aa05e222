#pragma once
// Row-major matrix products through cuBLAS, for every GPU kernel that needs
// one (MatMul, the im2col convolutions): C[m, n] = op(A) op(B) + beta C, with
// leading dimensions in row-major terms. Row-major C = op(A) op(B) is
// column-major C^T = op(B)^T op(A)^T, so the operands swap places and no data
// moves. The device's --gpu-math decides float32's compute mode.
#include <cstdint>

#include "cuda/gpu_kernel_util.h"

namespace flowlens::cuda {

// `dt`: float32 or bfloat16 (A, B and C alike). Sizes beyond cuBLAS's int
// fail, the message starting with `what`.
void row_major_gemm(GpuLaunch& gpu, DType dt, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
                    const void* a, int64_t lda, const void* b, int64_t ldb, float beta, void* c, int64_t ldc,
                    const char* what);

}  // namespace flowlens::cuda
