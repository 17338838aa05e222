// GPU kernels of MaxPool(V2), AvgPool, MaxPoolGrad(V2) and AvgPoolGrad,
// float32, NHWC and NCHW: arguments checked by ops/kernels/nn/pool_args.h (the CPU
// kernels' words), the work in pool.cu (why not cuDNN: see there).
#include "cuda/gpu_kernel_util.h"
#include "cuda/gpu_kernels.h"
#include "ops/kernels/nn/pool_args.h"

namespace flowlens::cuda {
namespace {

using ops::pool::Family;
using ops::pool::Pool;

PoolGeometry device_geometry(const Pool& p) {
  PoolGeometry g;
  g.n = p.n, g.h = p.h, g.w = p.w, g.c = p.c;
  g.kh = p.kh, g.kw = p.kw, g.sh = p.sh, g.sw = p.sw;
  g.oh = p.oh, g.ow = p.ow, g.pt = p.pt, g.pl = p.pl;
  g.nchw = p.format == ops::DataFormat::NCHW;
  return g;
}

void check_float(const KernelContext& ctx, const Tensor& t) {
  if (t.dtype() != DType::Float) ops::unsupported_dtype(ctx.node().op.c_str(), t.dtype());
}

void pool_kernel(KernelContext& ctx, Family family) {
  const Pool p = ops::pool::forward_geometry(ctx, family);
  const Tensor& x = ctx.input(0);
  check_float(ctx, x);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), ops::pool::output_shape(p));
  if (out.num_elements() == 0) return;
  if (family == Family::Max)
    launch_max_pool(gpu.stream, device_geometry(p), f32(x), f32(out));
  else
    launch_avg_pool(gpu.stream, device_geometry(p), f32(x), f32(out));
  check_launch(ctx);
}

void max_pool_kernel(KernelContext& ctx) { pool_kernel(ctx, Family::Max); }
void avg_pool_kernel(KernelContext& ctx) { pool_kernel(ctx, Family::Avg); }

void avg_pool_grad_kernel(KernelContext& ctx) {
  const Pool p = ops::pool::avg_pool_grad_geometry(ctx);
  const Tensor& grad = ctx.input(1);
  check_float(ctx, grad);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, grad.dtype(), ops::pool::make_shape(p.format, p.n, p.h, p.w, p.c));
  if (out.num_elements() == 0) return;
  launch_avg_pool_grad(gpu.stream, device_geometry(p), f32(grad), f32(out));
  check_launch(ctx);
}

void max_pool_grad_kernel(KernelContext& ctx) {
  const Pool p = ops::pool::max_pool_grad_geometry(ctx, "out_backprop");
  const Tensor& in = ctx.input(0);
  const Tensor& grad = ctx.input(2);
  if (!(grad.shape() == ops::pool::output_shape(p)))
    ops::fail("Expected grad shape to be " + ops::shape_str(ops::pool::output_shape(p)) + ", but got " +
              ops::shape_str(grad.shape()));
  check_float(ctx, in);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (out.num_elements() == 0) return;
  DeviceBuffer argmax(gpu, static_cast<std::size_t>(grad.num_elements()) * sizeof(int64_t));
  launch_max_pool_grad(gpu.stream, device_geometry(p), f32(in), f32(grad), argmax.as<int64_t>(), f32(out));
  check_launch(ctx);
}

}  // namespace

void register_gpu_pool_kernels(OpRegistry& r) {
  add_gpu_kernel(r, "MaxPool", max_pool_kernel, is_float_node);
  add_gpu_kernel(r, "MaxPoolV2", max_pool_kernel, is_float_node);
  add_gpu_kernel(r, "AvgPool", avg_pool_kernel, is_float_node);
  add_gpu_kernel(r, "AvgPoolGrad", avg_pool_grad_kernel, is_float_node);
  add_gpu_kernel(r, "MaxPoolGrad", max_pool_grad_kernel, is_float_node);
  add_gpu_kernel(r, "MaxPoolGradV2", max_pool_grad_kernel, is_float_node);
}

}  // namespace flowlens::cuda
