// Convolutions through cuDNN (see gpu_dnn.h), the way TensorFlow's GPU
// kernels call it (conv_ops_gpu.cc, conv_grad_*_ops.cc):
// - data stays in its layout (NHWC or NCHW, told to cuDNN by strides); the
//   HWIO filter is transposed to the layout cuDNN takes with it (OHWI for
//   NHWC, OIHW for NCHW), and a filter gradient back;
// - cuDNN pads evenly only, so uneven SAME padding pads the input explicitly
//   by the difference (and a data gradient is sliced back), as TensorFlow does;
// - the algorithm is cuDNN's heuristic first choice that fits the workspace
//   limit, chosen once per GPU, pass, geometry and math mode; the workspace
//   comes from the GPU's caching allocator;
// - math: FMA only (exact float32) unless the device allows TF32
//   (--gpu-math tf32/bf16), as for MatMul.
#include <climits>
#include <map>
#include <mutex>
#include <tuple>

#include "cuda/cudnn_library.h"
#include "cuda/gpu_dnn.h"
#include "cuda/gpu_layout.h"

namespace flowlens::cuda {
namespace {

using ops::conv::Geometry;

// The most workspace one convolution may take (TensorFlow's default limit is 4 GiB).
constexpr std::size_t kWorkspaceLimit = std::size_t{1} << 30;

int as_int(int64_t v) { return cudnn_int(v, "convolution size"); }

// A 4-D tensor of [n, c, h, w] sizes in `format`'s memory order.
CudnnTensor tensor_desc(const CudnnLibrary& api, ops::DataFormat format, int64_t n, int64_t c, int64_t h, int64_t w) {
  const std::vector<int64_t> strides = format == ops::DataFormat::NHWC
                                           ? std::vector<int64_t>{h * w * c, 1, w * c, c}
                                           : std::vector<int64_t>{c * h * w, h * w, w, 1};
  return CudnnTensor(api, {n, c, h, w}, strides);
}

class FilterDesc {
 public:
  FilterDesc(const CudnnLibrary& api, ops::DataFormat format, const Geometry& g) : api_(api) {
    check_cudnn(api.create_filter(&desc_), "cudnnCreateFilterDescriptor");
    check_cudnn(api.set_filter_4d(desc_, CUDNN_DATA_FLOAT,
                                  format == ops::DataFormat::NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                  as_int(g.out_depth), as_int(g.filter_depth), as_int(g.filter_rows),
                                  as_int(g.filter_cols)),
                "cudnnSetFilter4dDescriptor");
  }
  ~FilterDesc() { api_.destroy_filter(desc_); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  cudnnFilterDescriptor_t get() const { return desc_; }

 private:
  const CudnnLibrary& api_;
  cudnnFilterDescriptor_t desc_ = nullptr;
};

class ConvDesc {
 public:
  ConvDesc(const CudnnLibrary& api, const Geometry& g, int64_t pad_rows, int64_t pad_cols, bool fma_only) : api_(api) {
    check_cudnn(api.create_convolution(&desc_), "cudnnCreateConvolutionDescriptor");
    check_cudnn(api.set_convolution_2d(desc_, as_int(pad_rows), as_int(pad_cols), as_int(g.stride_rows),
                                       as_int(g.stride_cols), as_int(g.dilation_rows), as_int(g.dilation_cols),
                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    check_cudnn(api.set_group_count(desc_, as_int(g.groups)), "cudnnSetConvolutionGroupCount");
    check_cudnn(api.set_math_type(desc_, fma_only ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH),
                "cudnnSetConvolutionMathType");
  }
  ~ConvDesc() { api_.destroy_convolution(desc_); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  cudnnConvolutionDescriptor_t get() const { return desc_; }

 private:
  const CudnnLibrary& api_;
  cudnnConvolutionDescriptor_t desc_ = nullptr;
};


struct Choice {
  int algo = 0;
  std::size_t workspace = 0;
};

// cuDNN's heuristic ranking, first entry that works within the limit.
template <typename Perf>
Choice first_fitting(const Perf* perf, int count, const char* what) {
  for (int i = 0; i < count; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kWorkspaceLimit)
      return {static_cast<int>(perf[i].algo), perf[i].memory};
  ops::fail(std::string(what) + ": cuDNN offers no algorithm within " + std::to_string(kWorkspaceLimit >> 20) +
            " MiB of workspace for this convolution");
}

// Algorithm choices, per (GPU, pass, geometry, math).
Choice cached_choice(int gpu, ConvPass pass, const std::string& key, bool fma_only, const auto& choose) {
  static std::mutex mu;
  static std::map<std::tuple<int, int, std::string, bool>, Choice> cache;
  const auto k = std::make_tuple(gpu, static_cast<int>(pass), key, fma_only);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(k); it != cache.end()) return it->second;
  }
  const Choice c = choose();
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(k, c);
  return c;
}

std::vector<int64_t> dims_of(ops::DataFormat f, int64_t n, int64_t c, int64_t h, int64_t w) {
  return f == ops::DataFormat::NHWC ? std::vector<int64_t>{n, h, w, c} : std::vector<int64_t>{n, c, h, w};
}

}  // namespace

bool dnn_convolution(ConvPass pass, GpuLaunch& gpu, const Geometry& g, const float* a, const float* b, float* out) {
  const CudnnLibrary* loaded = cudnn_library();
  if (!loaded) return false;
  const CudnnLibrary& api = *loaded;
  const ops::DataFormat f = g.format;
  const bool nhwc = f == ops::DataFormat::NHWC;
  const bool fma_only = gpu.device.matmul_math() == MatmulMath::Fp32;
  cudnnHandle_t handle = cudnn_handle(gpu.device.gpu().id(), gpu.stream);

  // Even padding for cuDNN; the rest added to the input explicitly.
  const int64_t pad_rows = std::min(g.pad_top, g.pad_bottom), pad_cols = std::min(g.pad_left, g.pad_right);
  const int64_t extra_top = g.pad_top - pad_rows, extra_bottom = g.pad_bottom - pad_rows;
  const int64_t extra_left = g.pad_left - pad_cols, extra_right = g.pad_right - pad_cols;
  const bool uneven = extra_top || extra_bottom || extra_left || extra_right;
  const int64_t rows = g.in_rows + extra_top + extra_bottom, cols = g.in_cols + extra_left + extra_right;
  const std::vector<int64_t> in_dims = dims_of(f, g.batch, g.in_depth, g.in_rows, g.in_cols);
  const std::vector<int64_t> before = dims_of(f, 0, 0, extra_top, extra_left);
  const std::vector<int64_t> after = dims_of(f, 0, 0, extra_bottom, extra_right);
  const std::size_t padded_bytes = static_cast<std::size_t>(g.batch * g.in_depth * rows * cols) * sizeof(float);

  const CudnnTensor x_desc = tensor_desc(api, f, g.batch, g.in_depth, rows, cols);
  const CudnnTensor y_desc = tensor_desc(api, f, g.batch, g.out_depth, g.out_rows, g.out_cols);
  FilterDesc w_desc(api, f, g);
  ConvDesc conv(api, g, pad_rows, pad_cols, fma_only);
  // HWIO <-> cuDNN's filter layout (OHWI with NHWC data, OIHW with NCHW).
  const std::vector<int64_t> hwio = {g.filter_rows, g.filter_cols, g.filter_depth, g.out_depth};
  const std::vector<int64_t> dnn_filter = nhwc ? std::vector<int64_t>{g.out_depth, g.filter_rows, g.filter_cols,
                                                                      g.filter_depth}
                                               : std::vector<int64_t>{g.out_depth, g.filter_depth, g.filter_rows,
                                                                      g.filter_cols};
  const std::vector<int> to_dnn = nhwc ? std::vector<int>{3, 0, 1, 2} : std::vector<int>{3, 2, 0, 1};
  const std::vector<int> to_hwio = nhwc ? std::vector<int>{1, 2, 3, 0} : std::vector<int>{2, 3, 1, 0};
  DeviceBuffer filter(gpu, static_cast<std::size_t>(g.filter_elements()) * sizeof(float));
  const float one = 1.f, zero = 0.f;
  const int id = gpu.device.gpu().id();
  const std::string key = g.key();

  switch (pass) {
    case ConvPass::Forward: {
      DeviceBuffer padded(gpu, uneven ? padded_bytes : 0);
      const float* x = a;
      if (uneven) pad(gpu.stream, 4, a, in_dims, before, after, padded.as<float>()), x = padded.as<float>();
      permute(gpu.stream, 4, b, hwio, to_dnn, filter.as<float>());
      const Choice c = cached_choice(id, pass, key, fma_only, [&] {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int n = 0;
        check_cudnn(api.forward_algorithms(handle, x_desc.get(), w_desc.get(), conv.get(), y_desc.get(),
                                           CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf),
                    "cudnnGetConvolutionForwardAlgorithm_v7");
        return first_fitting(perf, n, "Conv2D");
      });
      DeviceBuffer workspace(gpu, c.workspace);
      check_cudnn(api.forward(handle, &one, x_desc.get(), x, w_desc.get(), filter.as<float>(), conv.get(),
                              static_cast<cudnnConvolutionFwdAlgo_t>(c.algo), workspace.as<void>(), c.workspace,
                              &zero, y_desc.get(), out),
                  "cudnnConvolutionForward");
      return true;
    }
    case ConvPass::BackwardData: {
      permute(gpu.stream, 4, a, hwio, to_dnn, filter.as<float>());
      DeviceBuffer padded(gpu, uneven ? padded_bytes : 0);
      float* dx = uneven ? padded.as<float>() : out;
      const Choice c = cached_choice(id, pass, key, fma_only, [&] {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        int n = 0;
        check_cudnn(api.backward_data_algorithms(handle, w_desc.get(), y_desc.get(), conv.get(), x_desc.get(),
                                                 CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf),
                    "cudnnGetConvolutionBackwardDataAlgorithm_v7");
        return first_fitting(perf, n, "Conv2DBackpropInput");
      });
      DeviceBuffer workspace(gpu, c.workspace);
      check_cudnn(api.backward_data(handle, &one, w_desc.get(), filter.as<float>(), y_desc.get(), b, conv.get(),
                                    static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo), workspace.as<void>(),
                                    c.workspace, &zero, x_desc.get(), dx),
                  "cudnnConvolutionBackwardData");
      if (uneven) slice(gpu.stream, 4, dx, dims_of(f, g.batch, g.in_depth, rows, cols), before, in_dims, out);
      return true;
    }
    case ConvPass::BackwardFilter: {
      DeviceBuffer padded(gpu, uneven ? padded_bytes : 0);
      const float* x = a;
      if (uneven) pad(gpu.stream, 4, a, in_dims, before, after, padded.as<float>()), x = padded.as<float>();
      const Choice c = cached_choice(id, pass, key, fma_only, [&] {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        int n = 0;
        check_cudnn(api.backward_filter_algorithms(handle, x_desc.get(), y_desc.get(), conv.get(), w_desc.get(),
                                                   CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, perf),
                    "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
        return first_fitting(perf, n, "Conv2DBackpropFilter");
      });
      DeviceBuffer workspace(gpu, c.workspace);
      check_cudnn(api.backward_filter(handle, &one, x_desc.get(), x, y_desc.get(), b, conv.get(),
                                      static_cast<cudnnConvolutionBwdFilterAlgo_t>(c.algo), workspace.as<void>(),
                                      c.workspace, &zero, w_desc.get(), filter.as<float>()),
                  "cudnnConvolutionBackwardFilter");
      permute(gpu.stream, 4, filter.as<float>(), dnn_filter, to_hwio, out);
      return true;
    }
  }
  return false;
}

}  // namespace flowlens::cuda
