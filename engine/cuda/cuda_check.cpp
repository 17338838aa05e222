#include "cuda/cuda_check.h"

#include "common/error.h"
#include "cuda/cublas_library.h"

namespace flowlens::cuda {

void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a sticky-free error so the next call starts clean
  throw Error(std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  // A status comes from a cuBLAS call, so the library is loaded by now.
  throw Error(std::string(what) + ": " + cublas_library().status_string(status));
}

}  // namespace flowlens::cuda
