#pragma once
// cuDNN, loaded with dlopen the first time a GPU convolution or batch norm
// needs it, like cuBLAS (cublas_library.h): libcudnn.so.9 and the engines it
// loads map hundreds of MB, and most programs never touch a GPU. Only its
// header is needed at build time; a build without the header (no
// FLOWLENS_WITH_CUDNN) leaves this file out, and convolutions then run
// through im2col + cuBLAS (gpu_conv_kernels.cpp).
//
// The functions are cuDNN's descriptor API (cudnn_cnn.h, cudnn_ops.h), which
// cuDNN 9 keeps beside its graph API and which TensorFlow's and PyTorch's
// convolution paths have called for years.
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

namespace flowlens::cuda {

// Each member has the exact type of the cuDNN function it holds (decltype
// of the header's declaration, unevaluated: nothing is linked).
struct CudnnLibrary {
  decltype(&cudnnGetVersion) get_version;
  decltype(&cudnnGetErrorString) error_string;
  decltype(&cudnnCreate) create;
  decltype(&cudnnSetStream) set_stream;

  decltype(&cudnnCreateTensorDescriptor) create_tensor;
  decltype(&cudnnSetTensorNdDescriptor) set_tensor_nd;
  decltype(&cudnnDestroyTensorDescriptor) destroy_tensor;
  decltype(&cudnnCreateFilterDescriptor) create_filter;
  decltype(&cudnnSetFilter4dDescriptor) set_filter_4d;
  decltype(&cudnnDestroyFilterDescriptor) destroy_filter;
  decltype(&cudnnCreateConvolutionDescriptor) create_convolution;
  decltype(&cudnnSetConvolution2dDescriptor) set_convolution_2d;
  decltype(&cudnnSetConvolutionGroupCount) set_group_count;
  decltype(&cudnnSetConvolutionMathType) set_math_type;
  decltype(&cudnnDestroyConvolutionDescriptor) destroy_convolution;

  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) forward_algorithms;
  decltype(&cudnnGetConvolutionForwardWorkspaceSize) forward_workspace;
  decltype(&cudnnConvolutionForward) forward;
  decltype(&cudnnGetConvolutionBackwardDataAlgorithm_v7) backward_data_algorithms;
  decltype(&cudnnGetConvolutionBackwardDataWorkspaceSize) backward_data_workspace;
  decltype(&cudnnConvolutionBackwardData) backward_data;
  decltype(&cudnnGetConvolutionBackwardFilterAlgorithm_v7) backward_filter_algorithms;
  decltype(&cudnnGetConvolutionBackwardFilterWorkspaceSize) backward_filter_workspace;
  decltype(&cudnnConvolutionBackwardFilter) backward_filter;

  decltype(&cudnnBatchNormalizationForwardTraining) batch_norm_training;
  decltype(&cudnnBatchNormalizationForwardInference) batch_norm_inference;
  decltype(&cudnnBatchNormalizationBackward) batch_norm_backward;
};

// Opens the first of `candidates` (sonames or paths, as dlopen takes them)
// that loads and resolves every function; never unloaded. Throws Error naming
// each candidate and why it failed.
CudnnLibrary load_cudnn_library(const std::vector<std::string>& candidates);

// The process's cuDNN: this build's soname (libcudnn.so.<major>, through
// LD_LIBRARY_PATH and the loader's paths), then the toolkit's library
// directory known at configure time. Loaded on the first call, once;
// nullptr when it could not be loaded, with the reason in
// cudnn_unavailable_reason().
const CudnnLibrary* cudnn_library();
const std::string& cudnn_unavailable_reason();

// The cuDNN handle of logical GPU `gpu_id`, bound to its stream, made on
// first use (with that GPU current) and kept, as the GPUs are, for the
// process's life. Requires cudnn_library() to be loaded.
cudnnHandle_t cudnn_handle(int gpu_id, cudaStream_t stream);

// Throws Error naming `what` and cuDNN's own words when status is not success.
void check_cudnn(cudnnStatus_t status, const char* what);

// A size as cuDNN's int, or Error naming `what` when it does not fit.
int cudnn_int(int64_t v, const char* what);

// An N-d tensor descriptor (dims and element strides, N >= 4), float32,
// destroyed with its owner.
class CudnnTensor {
 public:
  CudnnTensor(const CudnnLibrary& api, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides);
  ~CudnnTensor() { api_.destroy_tensor(desc_); }
  CudnnTensor(const CudnnTensor&) = delete;
  CudnnTensor& operator=(const CudnnTensor&) = delete;
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  const CudnnLibrary& api_;
  cudnnTensorDescriptor_t desc_ = nullptr;
};

}  // namespace flowlens::cuda
