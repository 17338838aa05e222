#include "cuda/cudnn_library.h"

#include <dlfcn.h>

#include <map>
#include <mutex>

#include "common/error.h"

namespace flowlens::cuda {
namespace {

template <typename Function>
void resolve(void* library, const char* symbol, Function& out, std::string& missing) {
  out = reinterpret_cast<Function>(dlsym(library, symbol));
  if (!out) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
}

struct Loaded {
  CudnnLibrary api{};
  std::string error;
};

const Loaded& loaded() {
  // A function-local static is initialized once, even under concurrent calls.
  static const Loaded result = [] {
    Loaded r;
    try {
      r.api = load_cudnn_library({FLOWLENS_CUDNN_SONAME, FLOWLENS_CUDA_LIBRARY_DIR "/" FLOWLENS_CUDNN_SONAME});
    } catch (const Error& e) {
      r.error = e.what();
    }
    return r;
  }();
  return result;
}

}  // namespace

CudnnLibrary load_cudnn_library(const std::vector<std::string>& candidates) {
  std::string failures;
  for (const std::string& candidate : candidates) {
    if (!failures.empty()) failures += "; ";
    void* library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* why = dlerror();
      failures += why ? why : candidate + ": cannot be loaded";
      continue;
    }
    CudnnLibrary api{};
    std::string missing;
    resolve(library, "cudnnGetVersion", api.get_version, missing);
    resolve(library, "cudnnGetErrorString", api.error_string, missing);
    resolve(library, "cudnnCreate", api.create, missing);
    resolve(library, "cudnnSetStream", api.set_stream, missing);
    resolve(library, "cudnnCreateTensorDescriptor", api.create_tensor, missing);
    resolve(library, "cudnnSetTensorNdDescriptor", api.set_tensor_nd, missing);
    resolve(library, "cudnnDestroyTensorDescriptor", api.destroy_tensor, missing);
    resolve(library, "cudnnCreateFilterDescriptor", api.create_filter, missing);
    resolve(library, "cudnnSetFilter4dDescriptor", api.set_filter_4d, missing);
    resolve(library, "cudnnDestroyFilterDescriptor", api.destroy_filter, missing);
    resolve(library, "cudnnCreateConvolutionDescriptor", api.create_convolution, missing);
    resolve(library, "cudnnSetConvolution2dDescriptor", api.set_convolution_2d, missing);
    resolve(library, "cudnnSetConvolutionGroupCount", api.set_group_count, missing);
    resolve(library, "cudnnSetConvolutionMathType", api.set_math_type, missing);
    resolve(library, "cudnnDestroyConvolutionDescriptor", api.destroy_convolution, missing);
    resolve(library, "cudnnGetConvolutionForwardAlgorithm_v7", api.forward_algorithms, missing);
    resolve(library, "cudnnGetConvolutionForwardWorkspaceSize", api.forward_workspace, missing);
    resolve(library, "cudnnConvolutionForward", api.forward, missing);
    resolve(library, "cudnnGetConvolutionBackwardDataAlgorithm_v7", api.backward_data_algorithms, missing);
    resolve(library, "cudnnGetConvolutionBackwardDataWorkspaceSize", api.backward_data_workspace, missing);
    resolve(library, "cudnnConvolutionBackwardData", api.backward_data, missing);
    resolve(library, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", api.backward_filter_algorithms, missing);
    resolve(library, "cudnnGetConvolutionBackwardFilterWorkspaceSize", api.backward_filter_workspace, missing);
    resolve(library, "cudnnConvolutionBackwardFilter", api.backward_filter, missing);
    resolve(library, "cudnnBatchNormalizationForwardTraining", api.batch_norm_training, missing);
    resolve(library, "cudnnBatchNormalizationForwardInference", api.batch_norm_inference, missing);
    resolve(library, "cudnnBatchNormalizationBackward", api.batch_norm_backward, missing);
    if (missing.empty()) {
      // The soname pins the major version; an older minor could lack fixes
      // the calls rely on, but never the functions, which resolved above.
      return api;
    }
    failures += candidate + ": lacks " + missing;
    dlclose(library);
  }
  throw Error("cuDNN could not be loaded (" + failures + ")");
}

const CudnnLibrary* cudnn_library() {
  const Loaded& l = loaded();
  return l.error.empty() ? &l.api : nullptr;
}

const std::string& cudnn_unavailable_reason() { return loaded().error; }

cudnnHandle_t cudnn_handle(int gpu_id, cudaStream_t stream) {
  const CudnnLibrary* api = cudnn_library();
  if (!api) throw Error("cuDNN is not loaded: " + cudnn_unavailable_reason());
  static std::mutex mu;
  static std::map<int, cudnnHandle_t> handles;
  std::lock_guard<std::mutex> lock(mu);
  cudnnHandle_t& h = handles[gpu_id];
  if (!h) {
    check_cudnn(api->create(&h), "cudnnCreate");
    check_cudnn(api->set_stream(h, stream), "cudnnSetStream");
  }
  return h;
}

int cudnn_int(int64_t v, const char* what) {
  if (v < 0 || v > INT32_MAX)
    throw Error(std::string(what) + ": " + std::to_string(v) + " does not fit cuDNN's int sizes");
  return static_cast<int>(v);
}

CudnnTensor::CudnnTensor(const CudnnLibrary& api, const std::vector<int64_t>& dims,
                         const std::vector<int64_t>& strides)
    : api_(api) {
  std::vector<int> d, s;
  for (int64_t v : dims) d.push_back(cudnn_int(v, "tensor dimension"));
  for (int64_t v : strides) s.push_back(cudnn_int(v, "tensor stride"));
  check_cudnn(api.create_tensor(&desc_), "cudnnCreateTensorDescriptor");
  const cudnnStatus_t status =
      api.set_tensor_nd(desc_, CUDNN_DATA_FLOAT, static_cast<int>(d.size()), d.data(), s.data());
  if (status != CUDNN_STATUS_SUCCESS) {
    api.destroy_tensor(desc_);
    check_cudnn(status, "cudnnSetTensorNdDescriptor");
  }
}

void check_cudnn(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const CudnnLibrary* api = cudnn_library();
  const char* words = api ? api->error_string(status) : nullptr;
  throw Error(std::string(what) + " failed: " + (words ? words : "cuDNN status " + std::to_string(status)));
}

}  // namespace flowlens::cuda
