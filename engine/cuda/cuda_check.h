#pragma once
// CUDA and cuBLAS status codes as flowlens::Error, naming the call that
// failed: a failing GPU call becomes a failed node or run, never an abort.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

namespace flowlens::cuda {

void check_cuda(cudaError_t status, const char* what);
void check_cublas(cublasStatus_t status, const char* what);

}  // namespace flowlens::cuda
