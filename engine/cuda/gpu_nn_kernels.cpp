// GPU kernels of MatMul (cuBLAS), Softmax and the softmax cross-entropy
// losses. Validation and messages follow matmul_op.cpp and nn_ops.cpp.
#include <climits>

#include "cuda/cuda_check.h"
#include "cuda/gpu_kernels.h"
#include "cuda/gpu_kernel_util.h"

namespace flowlens::cuda {
namespace {

using ops::fail;
using ops::input;
using ops::shape_str;

int as_int(int64_t v, const char* what) {
  if (v > INT_MAX) fail(std::string("MatMul: ") + what + " of " + std::to_string(v) + " exceeds cuBLAS's int range");
  return static_cast<int>(v);
}

cublasComputeType_t compute_type(DType dt, MatmulMath math) {
  if (dt == DType::BFloat16) return CUBLAS_COMPUTE_32F;
  switch (math) {
    case MatmulMath::Tf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case MatmulMath::Bf16: return CUBLAS_COMPUTE_32F_FAST_16BF;
    case MatmulMath::Fp32: break;
  }
  return CUBLAS_COMPUTE_32F;
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the
// operands swap places and no data moves.
void matmul_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 2);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  const Node& node = ctx.node();
  const bool ta = node.attr_bool("transpose_a", false), tb = node.attr_bool("transpose_b", false);
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sa.rank() != 2) fail("MatMul: In[0] is not a matrix. Instead it has shape " + shape_str(sa));
  if (sb.rank() != 2) fail("MatMul: In[1] is not a matrix. Instead it has shape " + shape_str(sb));
  ops::check_same_dtype("MatMul", a.dtype(), b.dtype());
  const int64_t m = sa.dim(ta ? 1 : 0), k = sa.dim(ta ? 0 : 1);
  const int64_t k1 = sb.dim(tb ? 1 : 0), n = sb.dim(tb ? 0 : 1);
  if (k != k1) fail("Matrix size-incompatible: In[0]: " + shape_str(sa) + ", In[1]: " + shape_str(sb));
  const DType dt = a.dtype();
  if (dt != DType::Float && dt != DType::BFloat16) ops::unsupported_dtype("MatMul", dt);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, dt, Shape{m, n});
  if (m == 0 || n == 0) return;
  if (k == 0) {
    check_cuda(cudaMemsetAsync(out.device_data(), 0, out.byte_size(), gpu.stream), "cudaMemsetAsync");
    return;
  }
  const cudaDataType_t type = dt == DType::Float ? CUDA_R_32F : CUDA_R_16BF;
  const float alpha = 1.f, beta = 0.f;
  check_cublas(cublasGemmEx(gpu.device.gpu().cublas(), tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                            as_int(n, "n"), as_int(m, "m"), as_int(k, "k"), &alpha, b.device_data(), type,
                            as_int(sb.dim(1), "ldb"), a.device_data(), type, as_int(sa.dim(1), "lda"), &beta,
                            out.device_data(), type, as_int(n, "ldc"), compute_type(dt, gpu.device.matmul_math()),
                            CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx (MatMul)");
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
  ops::check_num_inputs(ctx, 2);
  const Tensor& f = input(ctx, 0);
  const Tensor& l = input(ctx, 1);
  if (f.shape().rank() != 2 || !(f.shape() == l.shape()))
    fail("logits and labels must be same size: logits_size=" + shape_str(f.shape()) +
         " labels_size=" + shape_str(l.shape()));
  if (f.dtype() != l.dtype())
    fail("SoftmaxCrossEntropyWithLogits: logits are " + dtype_name(f.dtype()) + " but labels are " +
         dtype_name(l.dtype()));
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
  ops::check_num_inputs(ctx, 2);
  const Tensor& f = input(ctx, 0);
  const Tensor& l = input(ctx, 1);  // int labels: host memory
  if (f.shape().rank() != 2) fail("logits must be 2-D, but got shape " + shape_str(f.shape()));
  if (l.shape().rank() != 1) fail("labels must be 1-D, but got shape " + shape_str(l.shape()));
  const int64_t batch = f.shape().dim(0), classes = f.shape().dim(1);
  if (l.shape().dim(0) != batch)
    fail("logits and labels must have the same first dimension, got logits shape " + shape_str(f.shape()) +
         " and labels shape " + shape_str(l.shape()));
  if (!ops::is_index_type(l.dtype()))
    fail("SparseSoftmaxCrossEntropyWithLogits: labels must be int32 or int64, got " + dtype_name(l.dtype()));
  if (f.dtype() != DType::Float) ops::unsupported_dtype("SparseSoftmaxCrossEntropyWithLogits", f.dtype());
  const std::vector<int64_t> labels = ops::read_ints("SparseSoftmaxCrossEntropyWithLogits", "labels", l);
  for (int64_t y : labels)
    if (y < 0 || y >= classes) {
      std::string all;
      for (int64_t v : labels) all += (all.empty() ? "" : " ") + std::to_string(v);
      fail("Received a label value of " + std::to_string(y) + " which is outside the valid range of [0, " +
           std::to_string(classes) + ").  Label values: " + all);
    }
  GpuLaunch gpu(ctx);
  Tensor& loss = ctx.allocate_output(0, f.dtype(), Shape{batch});
  Tensor& back = ctx.allocate_output(1, f.dtype(), f.shape());
  if (batch == 0) return;
  // The labels' device copy is freed right after the launch: the block is
  // only reused by work queued later on this stream.
  CachingDeviceAllocator& memory = gpu.device.gpu().memory();
  const std::size_t bytes = labels.size() * sizeof(int64_t);
  void* device_labels = memory.allocate(bytes);
  gpu.device.gpu().staging().copy_to_device(labels.data(), device_labels, bytes, gpu.stream);
  launch_softmax_xent(gpu.stream, f32(f), nullptr, static_cast<const int64_t*>(device_labels), f32(loss), f32(back),
                      batch, classes);
  memory.deallocate(device_labels, bytes);
  check_launch(ctx);
}

bool is_matmul_node(const Node& n) {
  const DType t = dtype_base(n.attr_type("T", DType::Invalid));
  return t == DType::Float || t == DType::BFloat16;
}

}  // namespace

void register_gpu_nn_kernels(OpRegistry& r) {
  r.add_kernel("MatMul", "GPU", matmul_kernel, is_matmul_node);
  r.add_kernel("Softmax", "GPU", softmax_kernel, is_float_node);
  r.add_kernel("SoftmaxCrossEntropyWithLogits", "GPU", xent_kernel, is_float_node);
  r.add_kernel("SparseSoftmaxCrossEntropyWithLogits", "GPU", sparse_xent_kernel, is_float_node);
}

}  // namespace flowlens::cuda
