// GPU kernels of MatMul (cuBLAS), Softmax and the softmax cross-entropy
// losses. Validation and messages follow matmul_ops.cpp and nn_ops.cpp.
#include "cuda/cuda_check.h"
#include "cuda/gpu_gemm.h"
#include "cuda/gpu_kernels.h"
#include "cuda/gpu_kernel_util.h"
#include "ops/framework/kernel_checks.h"

namespace flowlens::cuda {
namespace {

using ops::fail;
using ops::input;
using ops::shape_str;

void matmul_kernel(KernelContext& ctx) {
  const ops::MatmulDims d = ops::matmul_dims(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const bool ta = d.transpose_a, tb = d.transpose_b;
  const int64_t m = d.m, k = d.k, n = d.n;
  const DType dt = a.dtype();
  if (dt != DType::Float && dt != DType::BFloat16) ops::unsupported_dtype("MatMul", dt);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, dt, Shape{m, n});
  if (m == 0 || n == 0) return;
  if (k == 0) {
    check_cuda(cudaMemsetAsync(out.device_data(), 0, out.byte_size(), gpu.stream), "cudaMemsetAsync");
    return;
  }
  row_major_gemm(gpu, dt, ta, tb, m, n, k, a.device_data(), sa.dim(1), b.device_data(), sb.dim(1), 0.f,
                 out.device_data(), n, "MatMul");
}

void softmax_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  if (x.shape().rank() < 1) fail("logits must have >= 1 dimension, got shape " + shape_str(x.shape()));
  if (x.dtype() != DType::Float) ops::unsupported_dtype("Softmax", x.dtype());
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  const int64_t c = x.shape().dim(x.shape().rank() - 1);
  launch_softmax(gpu.stream, f32(x), f32(out), c == 0 ? 0 : x.num_elements() / c, c);
  check_launch(ctx);
}

void xent_kernel(KernelContext& ctx) {
  ops::check_dense_xent_inputs(ctx);
  const Tensor& f = ctx.input(0);
  const Tensor& l = ctx.input(1);
  if (f.dtype() != DType::Float) ops::unsupported_dtype("SoftmaxCrossEntropyWithLogits", f.dtype());
  const int64_t batch = f.shape().dim(0), classes = f.shape().dim(1);
  GpuLaunch gpu(ctx);
  Tensor& loss = ctx.allocate_output(0, f.dtype(), Shape{batch});
  Tensor& back = ctx.allocate_output(1, f.dtype(), f.shape());
  if (classes == 0 && batch > 0) {  // no classes: zero loss, as on the CPU
    check_cuda(cudaMemsetAsync(loss.device_data(), 0, loss.byte_size(), gpu.stream), "cudaMemsetAsync");
    return;
  }
  launch_softmax_xent(gpu.stream, f32(f), f32(l), nullptr, f32(loss), f32(back), batch, classes);
  check_launch(ctx);
}

void sparse_xent_kernel(KernelContext& ctx) {
  const std::vector<int64_t> labels = ops::sparse_xent_labels(ctx);  // int labels: host memory
  const Tensor& f = ctx.input(0);
  if (f.dtype() != DType::Float) ops::unsupported_dtype("SparseSoftmaxCrossEntropyWithLogits", f.dtype());
  const int64_t batch = f.shape().dim(0), classes = f.shape().dim(1);
  GpuLaunch gpu(ctx);
  Tensor& loss = ctx.allocate_output(0, f.dtype(), Shape{batch});
  Tensor& back = ctx.allocate_output(1, f.dtype(), f.shape());
  if (batch == 0) return;
  const DeviceBuffer device_labels(gpu, labels.data(), labels.size() * sizeof(int64_t));
  launch_softmax_xent(gpu.stream, f32(f), nullptr, device_labels.as<int64_t>(), f32(loss), f32(back), batch,
                      classes);
  check_launch(ctx);
}

bool is_matmul_node(const Node& n) {
  const DType t = dtype_base(n.attr_type("T", DType::Invalid));
  return t == DType::Float || t == DType::BFloat16;
}

}  // namespace

void register_gpu_nn_kernels(OpRegistry& r) {
  add_gpu_kernel(r, "MatMul", matmul_kernel, is_matmul_node, "float32 and bfloat16 tensors");
  add_gpu_kernel(r, "Softmax", softmax_kernel, is_float_node);
  add_gpu_kernel(r, "SoftmaxCrossEntropyWithLogits", xent_kernel, is_float_node);
  add_gpu_kernel(r, "SparseSoftmaxCrossEntropyWithLogits", sparse_xent_kernel, is_float_node);
}

}  // namespace flowlens::cuda
