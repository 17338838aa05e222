// GPU kernels of Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter,
// float32, NHWC and NCHW, any padding, stride, dilation and grouping, and of
// DepthwiseConv2dNative and its backprops as the grouped convolutions they
// are (one group per input channel). Arguments are checked by
// ops/kernels/nn/conv_common.h and ops/kernels/nn/depthwise_args.h (the CPU kernels' words). The
// work goes to cuDNN when it loads (gpu_dnn_conv.cpp), else to im2col + one
// cuBLAS GEMM per group and batch chunk (below): the path of builds without
// cuDNN's header and of machines without the library, slower but complete.
#include <algorithm>

#include "cuda/cuda_check.h"
#include "cuda/gpu_dnn.h"
#include "cuda/gpu_gemm.h"
#include "cuda/gpu_kernel_util.h"
#include "cuda/gpu_kernels.h"
#include "cuda/gpu_layout.h"
#include "ops/kernels/nn/depthwise_args.h"

namespace flowlens::cuda {
namespace {

using ops::conv::Geometry;

enum class Pass { Forward, BackwardData, BackwardFilter };

// The patch matrix of one batch chunk stays under this many floats (256 MiB).
constexpr int64_t kPatchBudget = int64_t{64} << 20;

// Row-major float32 products (gpu_gemm.h), named in errors as this path.
void gemm(GpuLaunch& gpu, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  row_major_gemm(gpu, DType::Float, ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc, "convolution (im2col path)");
}

// NCHW <-> NHWC of a [n, *, *, *] tensor.
void to_nhwc(GpuLaunch& gpu, const float* in, int64_t n, int64_t c, int64_t h, int64_t w, float* out) {
  permute(gpu.stream, 4, in, {n, c, h, w}, {0, 2, 3, 1}, out);
}
void to_nchw(GpuLaunch& gpu, const float* in, int64_t n, int64_t h, int64_t w, int64_t c, float* out) {
  permute(gpu.stream, 4, in, {n, h, w, c}, {0, 3, 1, 2}, out);
}

// The im2col path, on NHWC buffers.
void im2col_convolution(Pass pass, GpuLaunch& gpu, const Geometry& g, const float* x, const float* filter,
                        const float* dy, float* out) {
  const int64_t k = g.filter_rows * g.filter_cols * g.filter_depth;
  const int64_t group_out = g.out_depth / g.groups;
  const int64_t per_image = g.out_rows * g.out_cols * k;
  const int64_t chunk = std::max<int64_t>(1, std::min(g.batch, per_image > 0 ? kPatchBudget / per_image : g.batch));
  DeviceBuffer col(gpu, static_cast<std::size_t>(chunk * per_image) * sizeof(float));
  const int64_t in_image = g.in_rows * g.in_cols * g.in_depth, out_image = g.out_rows * g.out_cols * g.out_depth;
  for (int64_t b0 = 0; b0 < g.batch; b0 += chunk) {
    const int64_t nb = std::min(chunk, g.batch - b0);
    const int64_t rows = nb * g.out_rows * g.out_cols;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      PatchGeometry p;
      p.batch = nb, p.in_rows = g.in_rows, p.in_cols = g.in_cols, p.in_depth = g.in_depth;
      p.group_depth = g.filter_depth, p.channel_offset = gi * g.filter_depth;
      p.filter_rows = g.filter_rows, p.filter_cols = g.filter_cols, p.out_rows = g.out_rows, p.out_cols = g.out_cols;
      p.stride_rows = g.stride_rows, p.stride_cols = g.stride_cols;
      p.dilation_rows = g.dilation_rows, p.dilation_cols = g.dilation_cols;
      p.pad_top = g.pad_top, p.pad_left = g.pad_left;
      const int64_t oc = gi * group_out;  // this group's first output channel
      switch (pass) {
        case Pass::Forward:
          launch_im2col(gpu.stream, p, x + b0 * in_image, col.as<float>());
          gemm(gpu, false, false, rows, group_out, k, col.as<float>(), k, filter + oc, g.out_depth, 0.f,
               out + b0 * out_image + oc, g.out_depth);
          break;
        case Pass::BackwardData:
          gemm(gpu, false, true, rows, k, group_out, dy + b0 * out_image + oc, g.out_depth, filter + oc,
               g.out_depth, 0.f, col.as<float>(), k);
          launch_col2im(gpu.stream, p, col.as<float>(), out + b0 * in_image);
          break;
        case Pass::BackwardFilter:
          launch_im2col(gpu.stream, p, x + b0 * in_image, col.as<float>());
          gemm(gpu, true, false, k, group_out, rows, col.as<float>(), k, dy + b0 * out_image + oc, g.out_depth,
               b0 == 0 ? 0.f : 1.f, out + oc, g.out_depth);
          break;
      }
    }
  }
}

// The im2col path for either layout: NCHW tensors go through NHWC copies.
void im2col_pass(Pass pass, KernelContext& ctx, GpuLaunch& gpu, const Geometry& g, const float* a, const float* b,
                 float* out) {
  const bool nchw = g.format == ops::DataFormat::NCHW;
  const std::size_t in_bytes = static_cast<std::size_t>(g.input_elements()) * sizeof(float);
  const std::size_t out_bytes = static_cast<std::size_t>(g.output_elements()) * sizeof(float);
  if (!nchw) {
    switch (pass) {
      case Pass::Forward: im2col_convolution(pass, gpu, g, a, b, nullptr, out); break;
      case Pass::BackwardData: im2col_convolution(pass, gpu, g, nullptr, a, b, out); break;
      case Pass::BackwardFilter: im2col_convolution(pass, gpu, g, a, nullptr, b, out); break;
    }
    check_launch(ctx);
    return;
  }
  DeviceBuffer x_nhwc(gpu, pass == Pass::BackwardData ? 0 : in_bytes);
  DeviceBuffer y_nhwc(gpu, out_bytes);
  DeviceBuffer dx_nhwc(gpu, pass == Pass::BackwardData ? in_bytes : 0);
  switch (pass) {
    case Pass::Forward:
      to_nhwc(gpu, a, g.batch, g.in_depth, g.in_rows, g.in_cols, x_nhwc.as<float>());
      im2col_convolution(pass, gpu, g, x_nhwc.as<float>(), b, nullptr, y_nhwc.as<float>());
      to_nchw(gpu, y_nhwc.as<float>(), g.batch, g.out_rows, g.out_cols, g.out_depth, out);
      break;
    case Pass::BackwardData:
      to_nhwc(gpu, b, g.batch, g.out_depth, g.out_rows, g.out_cols, y_nhwc.as<float>());
      im2col_convolution(pass, gpu, g, nullptr, a, y_nhwc.as<float>(), dx_nhwc.as<float>());
      to_nchw(gpu, dx_nhwc.as<float>(), g.batch, g.in_rows, g.in_cols, g.in_depth, out);
      break;
    case Pass::BackwardFilter:
      to_nhwc(gpu, a, g.batch, g.in_depth, g.in_rows, g.in_cols, x_nhwc.as<float>());
      to_nhwc(gpu, b, g.batch, g.out_depth, g.out_rows, g.out_cols, y_nhwc.as<float>());
      im2col_convolution(pass, gpu, g, x_nhwc.as<float>(), nullptr, y_nhwc.as<float>(), out);
      break;
  }
  check_launch(ctx);
}

void run(Pass pass, KernelContext& ctx, const Geometry& g, const Tensor& a, const Tensor& b, Tensor& out) {
  GpuLaunch gpu(ctx);
  if (out.num_elements() == 0) return;
  // Nothing to sum over: the CPU kernels give zeros.
  const bool empty_sum = pass == Pass::BackwardFilter ? g.batch * g.out_rows * g.out_cols == 0
                                                       : (pass == Pass::Forward ? g.filter_elements() == 0
                                                                                : g.output_elements() == 0);
  if (empty_sum || a.num_elements() == 0 || b.num_elements() == 0) {
    check_cuda(cudaMemsetAsync(out.device_data(), 0, out.byte_size(), gpu.stream), "cudaMemsetAsync");
    return;
  }
#if FLOWLENS_WITH_CUDNN
  const ConvPass dnn_pass = pass == Pass::Forward        ? ConvPass::Forward
                            : pass == Pass::BackwardData ? ConvPass::BackwardData
                                                         : ConvPass::BackwardFilter;
  if (dnn_convolution(dnn_pass, gpu, g, f32(a), f32(b), f32(out))) {
    check_launch(ctx);
    return;
  }
#endif
  im2col_pass(pass, ctx, gpu, g, f32(a), f32(b), f32(out));
}

void check_float(const KernelContext& ctx, const Tensor& t) {
  if (t.dtype() != DType::Float) ops::unsupported_dtype(ctx.node().op.c_str(), t.dtype());
}

void conv2d_kernel(KernelContext& ctx) {
  const Geometry g = ops::conv::conv2d_args(ctx);
  check_float(ctx, ctx.input(0));
  Tensor& out = ctx.allocate_output(0, DType::Float, g.output_shape());
  run(Pass::Forward, ctx, g, ctx.input(0), ctx.input(1), out);
}

void conv2d_backprop_input_kernel(KernelContext& ctx) {
  const Geometry g = ops::conv::conv2d_backprop_input_args(ctx);
  check_float(ctx, ctx.input(1));
  Tensor& out = ctx.allocate_output(0, DType::Float, g.input_shape());
  run(Pass::BackwardData, ctx, g, ctx.input(1), ctx.input(2), out);
}

void conv2d_backprop_filter_kernel(KernelContext& ctx) {
  const Geometry g = ops::conv::conv2d_backprop_filter_args(ctx);
  check_float(ctx, ctx.input(0));
  Tensor& out = ctx.allocate_output(0, DType::Float, g.filter_shape());
  run(Pass::BackwardFilter, ctx, g, ctx.input(0), ctx.input(2), out);
}

// Depthwise: the [H, W, C, M] filter is the grouped HWIO filter
// [H, W, 1, C * M] byte for byte, so the passes above serve as they are.
void depthwise_kernel(KernelContext& ctx) {
  const ops::conv::DepthwiseArgs args = ops::conv::depthwise_args(ctx);
  check_float(ctx, ctx.input(0));
  Tensor& out = ctx.allocate_output(0, args.dtype, args.out_shape);
  run(Pass::Forward, ctx, args.geometry, ctx.input(0), ctx.input(1), out);
}

void depthwise_backprop_input_kernel(KernelContext& ctx) {
  const ops::conv::DepthwiseArgs args = ops::conv::depthwise_backprop_input_args(ctx);
  check_float(ctx, ctx.input(1));
  Tensor& out = ctx.allocate_output(0, args.dtype, args.out_shape);
  run(Pass::BackwardData, ctx, args.geometry, ctx.input(1), ctx.input(2), out);
}

void depthwise_backprop_filter_kernel(KernelContext& ctx) {
  const ops::conv::DepthwiseArgs args = ops::conv::depthwise_backprop_filter_args(ctx);
  check_float(ctx, ctx.input(0));
  Tensor& out = ctx.allocate_output(0, args.dtype, args.out_shape);
  run(Pass::BackwardFilter, ctx, args.geometry, ctx.input(0), ctx.input(2), out);
}

}  // namespace

void register_gpu_conv_kernels(OpRegistry& r) {
  const char* note = "float32 tensors; cuDNN when libcudnn loads, else im2col + cuBLAS";
  add_gpu_kernel(r, "Conv2D", conv2d_kernel, is_float_node, note);
  add_gpu_kernel(r, "Conv2DBackpropInput", conv2d_backprop_input_kernel, is_float_node, note);
  add_gpu_kernel(r, "Conv2DBackpropFilter", conv2d_backprop_filter_kernel, is_float_node, note);
  const char* depthwise = "float32 tensors; a grouped convolution (one group per channel) through cuDNN, "
                          "else im2col + cuBLAS per group";
  add_gpu_kernel(r, "DepthwiseConv2dNative", depthwise_kernel, is_float_node, depthwise);
  add_gpu_kernel(r, "DepthwiseConv2dNativeBackpropInput", depthwise_backprop_input_kernel, is_float_node, depthwise);
  add_gpu_kernel(r, "DepthwiseConv2dNativeBackpropFilter", depthwise_backprop_filter_kernel, is_float_node,
                 depthwise);
}

}  // namespace flowlens::cuda
