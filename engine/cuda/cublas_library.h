#pragma once
// cuBLAS, loaded with dlopen the first time a GPU needs it instead of linked.
// Linking it made every CUDA-built program map libcublasLt (~150 MB of RSS)
// at start, on machines without a GPU too; TensorFlow's dso_loader defers
// cuBLAS the same way. Only the functions the backend calls are resolved.
#include <cublas_v2.h>

#include <string>
#include <vector>

namespace flowlens::cuda {

struct CublasLibrary {
  cublasStatus_t (*create)(cublasHandle_t* handle);
  cublasStatus_t (*set_stream)(cublasHandle_t handle, cudaStream_t stream);
  // cublas_api.h overloads cublasGemmEx in C++, so the type is spelled out.
  cublasStatus_t (*gemm_ex)(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void* alpha, const void* a, cudaDataType a_type, int lda, const void* b,
                            cudaDataType b_type, int ldb, const void* beta, void* c, cudaDataType c_type, int ldc,
                            cublasComputeType_t compute_type, cublasGemmAlgo_t algo);
  const char* (*status_string)(cublasStatus_t status);
};

// Opens the first of `candidates` (sonames or paths, as dlopen takes them)
// that loads and resolves every function; never unloaded. Throws Error naming
// each candidate and why it failed.
CublasLibrary load_cublas_library(const std::vector<std::string>& candidates);

// The process's cuBLAS: this toolkit's soname (found through LD_LIBRARY_PATH
// and the system's loader paths), then the toolkit's library directory known
// at configure time. Loaded on the first call, once, thread-safe; if loading
// failed, every call throws that Error.
const CublasLibrary& cublas_library();

}  // namespace flowlens::cuda
