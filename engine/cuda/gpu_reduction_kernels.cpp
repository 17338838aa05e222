// GPU kernels of Sum, Mean, Max, Min, Prod and BiasAddGrad (float32,
// float16 and bfloat16), ArgMax and ArgMin (float32).
// The host side parses the axes (host memory, int32/int64) exactly as
// reduction_ops.cpp does and describes the input as kept/reduced groups for
// reduce.cu; ArgMax/ArgMin take ops/kernels/math/arg_reduce_args.h's checks and
// arg_reduce.cu's scan.
#include "cuda/gpu_kernels.h"
#include "cuda/gpu_kernel_util.h"
#include "ops/kernels/math/arg_reduce_args.h"

namespace flowlens::cuda {
namespace {

using ops::fail;
using ops::input;
using ops::shape_str;

// Groups neighbouring dims of the same status, skipping size-1 dims.
ReduceGeometry geometry(const Shape& shape, const bool* reduced) {
  ReduceGeometry g;
  for (int d = 0; d < shape.rank(); ++d) {
    const int64_t s = shape.dim(d);
    if (s == 1) continue;
    if (g.groups > 0 && g.reduced[g.groups - 1] == reduced[d]) {
      g.sizes[g.groups - 1] *= s;
    } else {
      if (g.groups == kMaxDims) fail("reduction: too many alternating reduced and kept axes for the GPU kernel");
      g.sizes[g.groups] = s;
      g.reduced[g.groups] = reduced[d];
      ++g.groups;
    }
  }
  for (int k = 0; k < g.groups; ++k) (g.reduced[k] ? g.reduce_count : g.out_count) *= g.sizes[k];
  return g;
}

template <ReduceOp Op>
void reduce_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  ops::check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& axes = input(ctx, 1);
  const char* op = ctx.node().op.c_str();
  const FloatKind kind = kind_of(ctx, x);
  const int rank = x.shape().rank();
  if (rank > 64) fail(std::string(op) + ": rank above 64 is not supported");
  if (axes.shape().rank() > 1)
    fail(std::string(op) + ": reduction indices must be a scalar or vector, got shape " + shape_str(axes.shape()));
  bool reduced[64] = {};
  int count = 0;
  for (int64_t a : ops::read_ints(op, "reduction indices", axes)) {
    if (a < -rank || a >= rank)
      fail("Invalid reduction dimension (" + std::to_string(a) + " for input with " + std::to_string(rank) +
           " dimension(s)");
    const int d = static_cast<int>(a < 0 ? a + rank : a);
    if (!reduced[d]) ++count;
    reduced[d] = true;
  }
  if (count == 0) {
    ctx.set_output(0, x);
    return;
  }
  const bool keep = ctx.node().attr_bool("keep_dims", false);
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) dims.push_back(x.shape().dim(d));
    else if (keep) dims.push_back(1);
  }
  ReduceGeometry g = geometry(x.shape(), reduced);
  if (x.num_elements() == 0) g.reduce_count = 0;  // a zero-size dim: empty reduction
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(std::move(dims)));
  if (g.groups == 0) g.out_count = out.num_elements();  // all dims size 1
  launch_reduce(gpu.stream, kind, Op, x.device_data(), out.device_data(), g);
  check_launch(ctx);
}

void bias_add_grad_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 1);
  const Tensor& g = input(ctx, 0);
  if (g.shape().rank() < 2) fail("BiasAddGrad: input must be at least 2D: " + shape_str(g.shape()));
  const FloatKind kind = kind_of(ctx, g);
  const int64_t c = g.shape().dim(g.shape().rank() - 1);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, g.dtype(), Shape{c});
  if (c == 0) return;
  ReduceGeometry geo;
  geo.groups = 2;
  geo.sizes[0] = g.num_elements() / c;
  geo.reduced[0] = true;
  geo.sizes[1] = c;
  geo.reduced[1] = false;
  geo.reduce_count = geo.sizes[0];
  geo.out_count = c;
  launch_reduce(gpu.stream, kind, ReduceOp::Sum, g.device_data(), out.device_data(), geo);
  check_launch(ctx);
}

// The indices are computed on the GPU and copied to the int32/int64 output
// in host memory (where integer tensors live), waiting for the stream once.
template <bool kMax>
void arg_reduce_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  const ops::ArgReduceArgs args = ops::arg_reduce_args(ctx);
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DType::Float) ops::unsupported_dtype(ctx.node().op.c_str(), x.dtype());
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, args.out_type, Shape(args.out_dims));  // host memory
  const int64_t n = out.num_elements();
  if (n == 0) return;
  DeviceBuffer indices(gpu, static_cast<std::size_t>(n) * sizeof(int64_t));
  launch_arg_reduce(gpu.stream, kMax, f32(x), indices.as<int64_t>(), args.outer, args.n, args.inner);
  check_launch(ctx);
  if (args.out_type == DType::Int64) {
    gpu.device.gpu().memory().copy_to_host(indices.as<void>(), out.data<int64_t>(), indices.bytes());
    return;
  }
  std::vector<int64_t> host(static_cast<std::size_t>(n));
  gpu.device.gpu().memory().copy_to_host(indices.as<void>(), host.data(), indices.bytes());
  int32_t* o = out.data<int32_t>();
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<int32_t>(host[static_cast<std::size_t>(i)]);
}

}  // namespace

void register_gpu_reduction_kernels(OpRegistry& r) {
  add_gpu_kernel(r, "Sum", reduce_kernel<ReduceOp::Sum>, is_floating_or_host_memory_node);
  add_gpu_kernel(r, "Mean", reduce_kernel<ReduceOp::Mean>, is_floating_or_host_memory_node);
  add_gpu_kernel(r, "Max", reduce_kernel<ReduceOp::Max>, is_floating_or_host_memory_node);
  add_gpu_kernel(r, "Min", reduce_kernel<ReduceOp::Min>, is_floating_or_host_memory_node);
  add_gpu_kernel(r, "Prod", reduce_kernel<ReduceOp::Prod>, is_floating_or_host_memory_node);
  add_gpu_kernel(r, "BiasAddGrad", bias_add_grad_kernel, is_floating_nhwc_node);
  const char* arg = "float32 input (the indices are copied to host memory, where integers live), "
                    "or int32/int64 in host memory";
  add_gpu_kernel(r, "ArgMax", arg_reduce_kernel<true>, is_float_or_host_memory_node, arg);
  add_gpu_kernel(r, "ArgMin", arg_reduce_kernel<false>, is_float_or_host_memory_node, arg);
}

}  // namespace flowlens::cuda
