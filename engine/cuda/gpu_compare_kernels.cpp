// GPU kernels of the comparisons (Equal, NotEqual, Less, LessEqual,
// Greater, GreaterEqual), Select, SelectV2 and ClipByValue, float32 data.
//
// Bools live in host memory here (tensor/accelerator_memory.h), unlike in
// TensorFlow, so that predicates feeding control flow (Switch, Assert,
// LoopCond) never wait on a device. So a comparison computes on the GPU and
// copies its bytes back, waiting for the stream once; that is still less
// than the CPU fallback would move (both float inputs down). Select's
// condition goes up through pinned staging and does not wait.
#include "cuda/cuda_check.h"
#include "cuda/gpu_kernel_util.h"
#include "cuda/gpu_kernels.h"
#include "ops/framework/attr_reader.h"
#include "ops/framework/broadcast.h"
#include "ops/framework/kernel_checks.h"
#include "ops/kernels/math/select_args.h"

namespace flowlens::cuda {
namespace {

template <CompareOp Op>
void compare_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  ops::check_num_inputs(ctx, 2);
  const Tensor& a = ops::input(ctx, 0);
  const Tensor& b = ops::input(ctx, 1);
  ops::check_same_dtype(ctx.node().op, a.dtype(), b.dtype());
  if (a.dtype() != DType::Float) ops::unsupported_dtype(ctx.node().op.c_str(), a.dtype());
  constexpr bool kEquality = Op == CompareOp::Equal || Op == CompareOp::NotEqual;
  if constexpr (kEquality) {
    // incompatible_shape_error = false: shapes that do not broadcast give a
    // scalar (false for Equal, true for NotEqual), as on the CPU.
    if (!ctx.attrs().boolean("incompatible_shape_error")) {
      bool broadcasts = true;
      try {
        ops::broadcast_shape(a.shape(), b.shape());
      } catch (const Error&) {
        broadcasts = false;
      }
      if (!broadcasts) {
        ctx.allocate_output(0, DType::Bool, Shape{}).data<bool>()[0] = Op == CompareOp::NotEqual;
        return;
      }
    }
  }
  GpuLaunch gpu(ctx);
  Shape shape;
  const BroadcastIndex index = broadcast_index(a.shape(), b.shape(), shape);
  Tensor& out = ctx.allocate_output(0, DType::Bool, std::move(shape));  // host memory
  const int64_t n = out.num_elements();
  if (n == 0) return;
  DeviceBuffer bools(gpu, static_cast<std::size_t>(n));
  launch_compare(gpu.stream, Op, f32(a), f32(b), bools.as<bool>(), n, index);
  check_launch(ctx);
  gpu.device.gpu().memory().copy_to_host(bools.as<void>(), out.data<bool>(), static_cast<std::size_t>(n));
}

template <ops::SelectPlan (*Plan)(const KernelContext&)>
void select_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  const ops::SelectPlan plan = Plan(ctx);
  if (plan.whole) {
    ctx.set_output(0, ctx.input(plan.whole));
    return;
  }
  const Tensor& cond = ctx.input(0);
  const Tensor& then = ctx.input(1);
  const int bytes = word_bytes(ctx, then);
  if (plan.dims.size() > static_cast<std::size_t>(kMaxDims))
    ops::fail(ctx.node().op + " on a GPU: the selection needs " + std::to_string(plan.dims.size()) +
              " dimensions after merging, more than " + std::to_string(kMaxDims));
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, then.dtype(), plan.shape);
  const int64_t n = out.num_elements();
  if (n == 0) return;
  SelectIndex index;
  index.rank = static_cast<int>(plan.dims.size());
  for (int d = 0; d < index.rank; ++d) {
    const auto i = static_cast<std::size_t>(d);
    index.dims[d] = plan.dims[i];
    index.cond_strides[d] = plan.cond_strides[i];
    index.then_strides[d] = plan.then_strides[i];
    index.else_strides[d] = plan.else_strides[i];
  }
  // The condition's bytes go up for the kernel queued next; the block is
  // reused only by work queued after it.
  const DeviceBuffer device_cond(gpu, cond.data<bool>(), static_cast<std::size_t>(cond.num_elements()));
  launch_select(gpu.stream, bytes, device_cond.as<bool>(), then.device_data(),
                ctx.input(2).device_data(), out.device_data(), n, index);
  check_launch(ctx);
}

void clip_by_value_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  const ops::ClipArgs args = ops::clip_by_value_args(ctx);
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DType::Float) ops::unsupported_dtype("ClipByValue", x.dtype());
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  launch_clip(gpu.stream, f32(x), f32(ctx.input(1)), args.min_step, f32(ctx.input(2)), args.max_step, f32(out),
              out.num_elements());
  check_launch(ctx);
}

}  // namespace

void register_gpu_compare_kernels(OpRegistry& r) {
  const char* compare = "float32 inputs (the bool result is copied to host memory, where bools live), "
                        "or int32/int64/bool in host memory";
  add_gpu_kernel(r, "Equal", compare_kernel<CompareOp::Equal>, is_float_or_host_memory_node, compare);
  add_gpu_kernel(r, "NotEqual", compare_kernel<CompareOp::NotEqual>, is_float_or_host_memory_node, compare);
  add_gpu_kernel(r, "Less", compare_kernel<CompareOp::Less>, is_float_or_host_memory_node, compare);
  add_gpu_kernel(r, "LessEqual", compare_kernel<CompareOp::LessEqual>, is_float_or_host_memory_node, compare);
  add_gpu_kernel(r, "Greater", compare_kernel<CompareOp::Greater>, is_float_or_host_memory_node, compare);
  add_gpu_kernel(r, "GreaterEqual", compare_kernel<CompareOp::GreaterEqual>, is_float_or_host_memory_node, compare);
  const char* select = "t and e of a dtype that lives in device memory (the bool condition is copied up), "
                       "or int32/int64/bool in host memory";
  add_gpu_kernel(r, "Select", select_kernel<ops::select_plan>, is_device_or_host_memory_node, select);
  add_gpu_kernel(r, "SelectV2", select_kernel<ops::select_v2_plan>, is_device_or_host_memory_node, select);
  add_gpu_kernel(r, "ClipByValue", clip_by_value_kernel, is_float_or_host_memory_node);
}

}  // namespace flowlens::cuda
