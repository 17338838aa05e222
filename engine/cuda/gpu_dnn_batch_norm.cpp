// FusedBatchNorm{,V2,V3} and their gradients through cuDNN's spatial batch
// normalization, float32 x, 4-D and 5-D, channels first or last (told to
// cuDNN by strides). The outputs mean what the CPU kernel's mean
// (batch_norm_ops.cpp), so a forward pass on one device and its gradient on
// the other agree: reserve_space_2 is the biased batch variance, not cuDNN's
// inverse standard deviation, which is converted on the way out and back in
// (batch_norm.cu). The running statistics come from cuDNN's own update:
// (1 - factor) * input + factor * batch, with the Bessel-corrected variance,
// which is TensorFlow's formula.
//
// The gradient runs here in training mode only (cuDNN's backward pass
// recomputes nothing else); an inference-mode gradient takes the CPU kernel.
#include <cmath>
#include <climits>
#include <limits>

#include "cuda/cuda_check.h"
#include "cuda/cudnn_library.h"
#include "cuda/gpu_dnn.h"
#include "ops/kernels/nn/batch_norm_args.h"

namespace flowlens::cuda {
namespace {

using ops::bn::Layout;

// x as cuDNN sees it: dims N, C, spatial... with the strides of its layout.
CudnnTensor x_desc(const CudnnLibrary& api, const Layout& l) {
  const std::size_t rank = l.logical.size();
  std::vector<int64_t> strides(rank);
  if (l.channels_last) {
    int64_t s = l.c;  // C is innermost; the spatial dims run outward from W
    strides[1] = 1;
    for (std::size_t d = rank - 1; d >= 2; --d) strides[d] = s, s *= l.logical[d];
    strides[0] = s;
  } else {
    int64_t s = 1;
    for (std::size_t d = rank; d-- > 0;) strides[d] = s, s *= l.logical[d];
  }
  return CudnnTensor(api, l.logical, strides);
}

// The per-channel vectors: [1, C, 1, ...] of x's rank.
CudnnTensor param_desc(const CudnnLibrary& api, const Layout& l) {
  std::vector<int64_t> dims(l.logical.size(), 1), strides(l.logical.size(), 1);
  dims[1] = l.c;
  strides[0] = l.c;
  return CudnnTensor(api, dims, strides);
}

const CudnnLibrary& require_cudnn(const KernelContext& ctx) {
  const CudnnLibrary* api = cudnn_library();
  if (!api) ops::fail(ctx.node().op + " on a GPU needs cuDNN: " + cudnn_unavailable_reason());
  return *api;
}

void copy(GpuLaunch& gpu, Tensor& to, const Tensor& from) {
  check_cuda(cudaMemcpyAsync(to.device_data(), from.device_data(), from.byte_size(), cudaMemcpyDeviceToDevice,
                             gpu.stream),
             "cudaMemcpyAsync");
}

void fill(GpuLaunch& gpu, Tensor& t, float value) {
  launch_fill(gpu.stream, FloatKind::F32, f32(t), t.num_elements(), value, nullptr);
}

void batch_norm_kernel(KernelContext& ctx) {
  const ops::bn::Forward args = ops::bn::check_forward(ctx);
  const Layout& l = args.layout;
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor& offset = ctx.input(2);
  const Tensor& mean_in = ctx.input(3);
  const Tensor& var_in = ctx.input(4);
  if (x.dtype() != DType::Float) ops::unsupported_dtype(ctx.node().op.c_str(), x.dtype());
  GpuLaunch gpu(ctx);
  Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
  Tensor& batch_mean = ctx.allocate_output(1, DType::Float, Shape{l.c});
  Tensor& batch_var = ctx.allocate_output(2, DType::Float, Shape{l.c});
  Tensor& saved_mean = ctx.allocate_output(3, DType::Float, Shape{l.c});
  Tensor& saved_var = ctx.allocate_output(4, DType::Float, Shape{l.c});
  if (args.v3) {
    Tensor& r3 = ctx.allocate_output(5, DType::Float, Shape{});
    fill(gpu, r3, 0.f);
  }
  if (l.c == 0) return;
  if (!args.training) {
    for (Tensor* t : {&batch_mean, &saved_mean}) copy(gpu, *t, mean_in);
    for (Tensor* t : {&batch_var, &saved_var}) copy(gpu, *t, var_in);
  }
  if (l.rest() == 0) {  // no elements: no statistics (TensorFlow's GPU kernel gives NaN)
    if (args.training)
      for (Tensor* t : {&batch_mean, &batch_var, &saved_mean, &saved_var})
        fill(gpu, *t, std::numeric_limits<float>::quiet_NaN());
    return;
  }
  const CudnnLibrary& api = require_cudnn(ctx);
  cudnnHandle_t handle = cudnn_handle(gpu.device.gpu().id(), gpu.stream);
  const CudnnTensor xd = x_desc(api, l);
  const CudnnTensor pd = param_desc(api, l);
  const float one = 1.f, zero = 0.f;
  if (!args.training) {
    check_cudnn(api.batch_norm_inference(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd.get(), f32(x), xd.get(),
                                         f32(y), pd.get(), f32(scale), f32(offset), f32(mean_in), f32(var_in),
                                         args.epsilon),
                "cudnnBatchNormalizationForwardInference");
    check_launch(ctx);
    return;
  }
  // cuDNN updates the running statistics in place: start them from the
  // inputs, or from zeros when the factor is 1 (0 * garbage could be NaN).
  if (args.uses_input_stats) {
    copy(gpu, batch_mean, mean_in);
    copy(gpu, batch_var, var_in);
  } else {
    fill(gpu, batch_mean, 0.f);
    fill(gpu, batch_var, 0.f);
  }
  DeviceBuffer inv_std(gpu, static_cast<std::size_t>(l.c) * sizeof(float));
  check_cudnn(api.batch_norm_training(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd.get(), f32(x), xd.get(),
                                      f32(y), pd.get(), f32(scale), f32(offset), args.exponential_avg_factor,
                                      f32(batch_mean), f32(batch_var), args.epsilon, f32(saved_mean),
                                      inv_std.as<float>()),
              "cudnnBatchNormalizationForwardTraining");
  launch_inv_std_to_variance(gpu.stream, inv_std.as<float>(), args.epsilon, f32(saved_var), l.c);
  check_launch(ctx);
}

void batch_norm_grad_kernel(KernelContext& ctx) {
  const ops::bn::Backward args = ops::bn::check_backward(ctx);
  const Layout& l = args.layout;
  const Tensor& dy = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& scale = ctx.input(2);
  const Tensor& mean = ctx.input(3);
  const Tensor& var = ctx.input(4);
  if (x.dtype() != DType::Float) ops::unsupported_dtype(ctx.node().op.c_str(), x.dtype());
  if (!args.training) ops::fail(ctx.node().op + ": the GPU kernel computes training-mode gradients only");
  GpuLaunch gpu(ctx);
  Tensor& dx = ctx.allocate_output(0, x.dtype(), x.shape());
  Tensor& dscale = ctx.allocate_output(1, DType::Float, Shape{l.c});
  Tensor& doffset = ctx.allocate_output(2, DType::Float, Shape{l.c});
  ctx.allocate_output(3, DType::Float, Shape{0});
  ctx.allocate_output(4, DType::Float, Shape{0});
  if (l.c == 0) return;
  if (l.rest() == 0) {
    fill(gpu, dscale, 0.f);
    fill(gpu, doffset, 0.f);
    return;
  }
  const CudnnLibrary& api = require_cudnn(ctx);
  cudnnHandle_t handle = cudnn_handle(gpu.device.gpu().id(), gpu.stream);
  const CudnnTensor xd = x_desc(api, l);
  const CudnnTensor pd = param_desc(api, l);
  DeviceBuffer inv_std(gpu, static_cast<std::size_t>(l.c) * sizeof(float));
  launch_variance_to_inv_std(gpu.stream, f32(var), args.epsilon, inv_std.as<float>(), l.c);
  const float one = 1.f, zero = 0.f;
  check_cudnn(api.batch_norm_backward(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, xd.get(), f32(x),
                                      xd.get(), f32(dy), xd.get(), f32(dx), pd.get(), f32(scale), f32(dscale),
                                      f32(doffset), args.epsilon, f32(mean), inv_std.as<float>()),
              "cudnnBatchNormalizationBackward");
  check_launch(ctx);
}

bool is_float_dnn_node(const Node& n) { return is_float_node(n) && cudnn_library() != nullptr; }

bool is_float_training_grad_node(const Node& n) {
  const AttrValue* t = n.find_attr("is_training");
  const bool* training = t ? t->get_if<bool>() : nullptr;
  return is_float_dnn_node(n) && (!t || (training && *training));
}

}  // namespace

void register_gpu_dnn_batch_norm_kernels(OpRegistry& r) {
  const std::string forward = "float32 x, through cuDNN (loaded at first use)";
  const std::string backward = "float32 x, is_training=true, through cuDNN (loaded at first use)";
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})
    add_gpu_kernel(r, op, batch_norm_kernel, is_float_dnn_node, forward);
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"})
    add_gpu_kernel(r, op, batch_norm_grad_kernel, is_float_training_grad_node, backward);
}

}  // namespace flowlens::cuda
