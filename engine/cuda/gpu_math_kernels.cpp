// GPU kernels of the element-wise ops: unary math, binary arithmetic with
// broadcasting, activation gradients, AddN, BiasAdd, Fill/ZerosLike/OnesLike,
// on float32, float16 and bfloat16 (elementwise.cu), and Cast between them.
// Validation and messages follow the CPU kernels (math_ops.cpp, unary_ops.cpp).
#include "cuda/gpu_kernels.h"
#include "cuda/gpu_kernel_util.h"
#include "ops/framework/attr_reader.h"
#include "ops/framework/broadcast.h"
#include "ops/framework/kernel_checks.h"

namespace flowlens::cuda {
namespace {

using ops::fail;
using ops::input;
using ops::shape_str;

template <UnaryOp Op>
void unary_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  ops::check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  const FloatKind kind = kind_of(ctx, x);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  launch_unary(gpu.stream, kind, Op, x.device_data(), out.device_data(), x.num_elements());
  check_launch(ctx);
}

void launch_broadcast(KernelContext& ctx, BinaryOp op, const Tensor& a, const Tensor& b) {
  GpuLaunch gpu(ctx);
  Shape shape;
  const BroadcastIndex index = broadcast_index(a.shape(), b.shape(), shape);
  Tensor& out = ctx.allocate_output(0, a.dtype(), std::move(shape));
  launch_binary(gpu.stream, kind_of(ctx, a), op, a.device_data(), b.device_data(), out.device_data(),
                out.num_elements(), index);
  check_launch(ctx);
}

template <BinaryOp Op>
void binary_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  ops::check_num_inputs(ctx, 2);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  ops::check_same_dtype(ctx.node().op, a.dtype(), b.dtype());
  launch_broadcast(ctx, Op, a, b);
}

// The activation and unary-op gradients: same shapes, no broadcasting.
template <BinaryOp Op>
void activation_grad_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 2);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  if (!(a.shape() == b.shape()) || a.dtype() != b.dtype())
    fail(ctx.node().op + ": inputs must have the same shape and dtype, got " + shape_str(a.shape()) + " " +
         dtype_name(a.dtype()) + " and " + shape_str(b.shape()) + " " + dtype_name(b.dtype()));
  launch_broadcast(ctx, Op, a, b);
}

void addn_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  ops::check_add_n_inputs(ctx);
  const Tensor& first = ctx.input(0);
  const int n = ctx.num_inputs();
  const FloatKind kind = kind_of(ctx, first);
  if (n == 1) {
    ctx.set_output(0, first);
    return;
  }
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, first.dtype(), first.shape());
  const int64_t m = out.num_elements();
  launch_binary(gpu.stream, kind, BinaryOp::Add, first.device_data(), ctx.input(1).device_data(), out.device_data(),
                m, BroadcastIndex{});
  for (int i = 2; i < n; ++i) launch_accumulate(gpu.stream, kind, out.device_data(), ctx.input(i).device_data(), m);
  check_launch(ctx);
}

void bias_add_kernel(KernelContext& ctx) {
  const int64_t c = ops::bias_add_channels(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const FloatKind kind = kind_of(ctx, x);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  launch_bias_add(gpu.stream, kind, x.device_data(), b.device_data(), out.device_data(), x.num_elements(), c);
  check_launch(ctx);
}

void fill_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  ops::check_num_inputs(ctx, 2);
  const Tensor& dims_t = input(ctx, 0);
  const Tensor& value = input(ctx, 1);
  if (dims_t.shape().rank() != 1) fail("dims must be a vector, got shape " + shape_str(dims_t.shape()));
  if (value.shape().rank() != 0) fail("value must be a scalar, got shape " + shape_str(value.shape()));
  const FloatKind kind = kind_of(ctx, value);
  std::vector<int64_t> dims = ops::read_ints("Fill", "dims", dims_t);
  for (int64_t d : dims)
    if (d < 0) fail("Fill: dims must be non-negative, got " + shape_str(Shape(dims)));
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, value.dtype(), Shape(std::move(dims)));
  launch_fill(gpu.stream, kind, out.device_data(), out.num_elements(), 0.f, value.device_data());
  check_launch(ctx);
}

template <int kValue>
void fill_like_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  ops::check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  const FloatKind kind = kind_of(ctx, x);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  launch_fill(gpu.stream, kind, out.device_data(), out.num_elements(), static_cast<float>(kValue), nullptr);
  check_launch(ctx);
}

// Cast between the floating types that live in device memory.
bool is_float_cast_node(const Node& n) {
  FloatKind k;
  const DType src = dtype_base(n.attr_type("SrcT", DType::Invalid)), dst = dtype_base(n.attr_type("DstT", DType::Invalid));
  return src != dst && float_kind(src, k) && float_kind(dst, k);
}

void cast_float_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  const AttrReader attrs = ctx.attrs();
  const DType src = dtype_base(attrs.type_or("SrcT", x.dtype()));
  const DType dst = dtype_base(attrs.type("DstT"));
  if (src != x.dtype()) fail("Cast: input has dtype " + dtype_name(x.dtype()) + " but SrcT is " + dtype_name(src));
  FloatKind from, to;
  if (!float_kind(src, from) || !float_kind(dst, to))
    fail("Cast on a GPU: " + dtype_name(src) + " to " + dtype_name(dst) + " is not between float32, float16 and bfloat16");
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, dst, x.shape());
  launch_cast_float(gpu.stream, from, to, attrs.boolean("Truncate"), x.device_data(), out.device_data(),
                    x.num_elements());
  check_launch(ctx);
}

}  // namespace

void register_gpu_math_kernels(OpRegistry& r) {
  // Float32, float16 and bfloat16, except where the CPU kernel rounds a
  // constant to the type (Selu's scales, Softplus's threshold): float32 only.
  auto both = is_floating_or_host_memory_node;
  add_gpu_kernel(r, "Relu", unary_kernel<UnaryOp::Relu>, both);
  add_gpu_kernel(r, "Sigmoid", unary_kernel<UnaryOp::Sigmoid>, is_floating_node);
  add_gpu_kernel(r, "Tanh", unary_kernel<UnaryOp::Tanh>, is_floating_node);
  add_gpu_kernel(r, "Square", unary_kernel<UnaryOp::Square>, both);
  add_gpu_kernel(r, "Neg", unary_kernel<UnaryOp::Neg>, both);
  add_gpu_kernel(r, "Exp", unary_kernel<UnaryOp::Exp>, is_floating_node);
  add_gpu_kernel(r, "Log", unary_kernel<UnaryOp::Log>, is_floating_node);
  add_gpu_kernel(r, "Sqrt", unary_kernel<UnaryOp::Sqrt>, is_floating_node);
  add_gpu_kernel(r, "Abs", unary_kernel<UnaryOp::Abs>, both);
  add_gpu_kernel(r, "Sign", unary_kernel<UnaryOp::Sign>, both);
  add_gpu_kernel(r, "Round", unary_kernel<UnaryOp::Rint>, both);  // TensorFlow's Round: half to even
  add_gpu_kernel(r, "Rint", unary_kernel<UnaryOp::Rint>, is_floating_node);
  add_gpu_kernel(r, "Ceil", unary_kernel<UnaryOp::Ceil>, is_floating_node);
  add_gpu_kernel(r, "Floor", unary_kernel<UnaryOp::Floor>, is_floating_node);
  add_gpu_kernel(r, "Sin", unary_kernel<UnaryOp::Sin>, is_floating_node);
  add_gpu_kernel(r, "Cos", unary_kernel<UnaryOp::Cos>, is_floating_node);
  add_gpu_kernel(r, "Erf", unary_kernel<UnaryOp::Erf>, is_floating_node);
  add_gpu_kernel(r, "Expm1", unary_kernel<UnaryOp::Expm1>, is_floating_node);
  add_gpu_kernel(r, "Log1p", unary_kernel<UnaryOp::Log1p>, is_floating_node);
  add_gpu_kernel(r, "Rsqrt", unary_kernel<UnaryOp::Rsqrt>, is_floating_node);
  for (const char* inv : {"Reciprocal", "Inv"}) add_gpu_kernel(r, inv, unary_kernel<UnaryOp::Reciprocal>, both);
  add_gpu_kernel(r, "Relu6", unary_kernel<UnaryOp::Relu6>, both);
  add_gpu_kernel(r, "Elu", unary_kernel<UnaryOp::Elu>, is_floating_node);
  add_gpu_kernel(r, "Selu", unary_kernel<UnaryOp::Selu>, is_float_node);
  add_gpu_kernel(r, "Softplus", unary_kernel<UnaryOp::Softplus>, is_float_node);
  add_gpu_kernel(r, "Softsign", unary_kernel<UnaryOp::Softsign>, is_floating_node);
  for (const char* add : {"Add", "AddV2"}) add_gpu_kernel(r, add, binary_kernel<BinaryOp::Add>, both);
  add_gpu_kernel(r, "Sub", binary_kernel<BinaryOp::Sub>, both);
  add_gpu_kernel(r, "Mul", binary_kernel<BinaryOp::Mul>, both);
  add_gpu_kernel(r, "RealDiv", binary_kernel<BinaryOp::Div>, both);
  add_gpu_kernel(r, "Maximum", binary_kernel<BinaryOp::Max>, both);
  add_gpu_kernel(r, "Minimum", binary_kernel<BinaryOp::Min>, both);
  add_gpu_kernel(r, "SquaredDifference", binary_kernel<BinaryOp::SquaredDifference>, both);
  add_gpu_kernel(r, "Pow", binary_kernel<BinaryOp::Pow>, both);
  add_gpu_kernel(r, "DivNoNan", binary_kernel<BinaryOp::DivNoNan>, is_floating_node);
  add_gpu_kernel(r, "ReluGrad", activation_grad_kernel<BinaryOp::ReluGrad>, is_floating_node);
  add_gpu_kernel(r, "SigmoidGrad", activation_grad_kernel<BinaryOp::SigmoidGrad>, is_floating_node);
  add_gpu_kernel(r, "TanhGrad", activation_grad_kernel<BinaryOp::TanhGrad>, is_floating_node);
  add_gpu_kernel(r, "SqrtGrad", activation_grad_kernel<BinaryOp::SqrtGrad>, is_floating_node);
  add_gpu_kernel(r, "RsqrtGrad", activation_grad_kernel<BinaryOp::RsqrtGrad>, is_floating_node);
  for (const char* grad : {"ReciprocalGrad", "InvGrad"})
    add_gpu_kernel(r, grad, activation_grad_kernel<BinaryOp::ReciprocalGrad>, is_floating_node);
  add_gpu_kernel(r, "Relu6Grad", activation_grad_kernel<BinaryOp::Relu6Grad>, is_floating_node);
  add_gpu_kernel(r, "EluGrad", activation_grad_kernel<BinaryOp::EluGrad>, is_floating_node);
  add_gpu_kernel(r, "SeluGrad", activation_grad_kernel<BinaryOp::SeluGrad>, is_float_node);
  add_gpu_kernel(r, "SoftplusGrad", activation_grad_kernel<BinaryOp::SoftplusGrad>, is_floating_node);
  add_gpu_kernel(r, "SoftsignGrad", activation_grad_kernel<BinaryOp::SoftsignGrad>, is_floating_node);
  add_gpu_kernel(r, "AddN", addn_kernel, both);
  for (const char* bias : {"BiasAdd", "BiasAddV1"}) add_gpu_kernel(r, bias, bias_add_kernel, is_floating_nhwc_node);
  add_gpu_kernel(r, "Cast", cast_float_kernel, is_float_cast_node, "casts between float32, float16 and bfloat16");
  add_gpu_kernel(r, "Fill", fill_kernel, both);
  add_gpu_kernel(r, "ZerosLike", fill_like_kernel<0>, both);
  add_gpu_kernel(r, "OnesLike", fill_like_kernel<1>, both);
}

}  // namespace flowlens::cuda
