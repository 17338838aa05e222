// TensorFlow 1 control flow, as tensorflow/core/ops/control_flow_ops.cc
// registers it: Switch and Merge (tf.cond), Enter, Exit, NextIteration and
// LoopCond (tf.while_loop), their Ref variants, and ControlTrigger.
//
// The kernels only move values, like TensorFlow's
// (tensorflow/core/kernels/control_flow_ops.cc): the executor does the rest.
// Switch leaves the untaken output empty, which the executor reads as a dead
// tensor; Merge is handed empty tensors for its dead inputs and forwards the
// first live one; Enter, Exit and NextIteration forward their input, and the
// executor moves it into the child frame, out to the parent frame or on to
// the next iteration (exec/executor.cpp).
#include <optional>

#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

const char* const kGradientNote = "control flow gradients are built by tf.while_loop's and tf.cond's gradient code "
                                  "(control_flow_grad.py), not per op";

// Enter, Exit, NextIteration, LoopCond: the input, unchanged. A ref input
// (RefEnter ...) is the variable's value as it is now, possibly not yet
// initialized, which TensorFlow allows too.
void forward_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  ctx.set_output(0, ctx.input(0));
}

void forward_shape(ShapeContext& ctx) {
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), ctx.input(0).shape);
}

// SwitchOp: the data on output_true when pred holds, else on output_false;
// the other output stays empty (dead).
void switch_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& pred = input(ctx, 1);
  if (pred.dtype() != DType::Bool || pred.shape().rank() != 0)
    fail("The second input must be a scalar, but it has shape " + pred.shape().to_string());
  ctx.set_output(pred.data<bool>()[0] ? 1 : 0, ctx.input(0));
}

void switch_shape(ShapeContext& ctx) {
  const Shape& pred = ctx.input(1).shape;
  if (pred.rank_known() && pred.rank() != 0)
    fail("Shape must be rank 0 but is rank " + std::to_string(pred.rank()) + " for '" + ctx.node().name + "' (" +
         ctx.node().op + ") with input shapes: " + ctx.input(0).shape.to_string() + ", " + pred.to_string());
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  ctx.set_output(0, t, ctx.input(0).shape);
  ctx.set_output(1, t, ctx.input(0).shape);
}

// MergeOp: the first live input and its index. The executor runs a Merge as
// soon as one live input arrived, so the others are normally dead (empty).
void merge_kernel(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.input(i).valid()) continue;
    ctx.set_output(0, ctx.input(i));
    ctx.set_output(1, Tensor::scalar<int32_t>(static_cast<int32_t>(i)));
    return;
  }
  fail("Merge can not be run without a live input");
}

// control_flow_ops.cc's MergeShape: the inputs' shape where they agree, an
// unknown dimension where they differ, an unknown rank where ranks differ.
// An input whose dtype is not known yet is skipped: shape inference reaches
// a loop's Merge before its NextIteration back edge, as TensorFlow's Python
// builds it (Merge(enter, enter) first, the back edge added afterwards).
void merge_shape(ShapeContext& ctx) {
  DType t = ctx.node().attr_type("T", DType::Invalid);
  std::optional<Shape> out;
  bool unknown_rank = false;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const TensorInfo& in = ctx.input(i);
    if (in.dtype == DType::Invalid) continue;
    if (t == DType::Invalid) t = in.dtype;
    if (!out) {
      out = in.shape;
      continue;
    }
    if (!out->rank_known() || !in.shape.rank_known() || out->rank() != in.shape.rank()) {
      unknown_rank = true;
      continue;
    }
    for (int d = 0; d < out->rank(); ++d)
      if (out->dim(d) != in.shape.dim(d)) out->dim(d) = -1;
  }
  ctx.set_output(0, dtype_base(t), unknown_rank || !out ? Shape::unknown_rank() : *out);
  ctx.set_output(1, DType::Int32, Shape{});
}

void loop_cond_shape(ShapeContext& ctx) {
  const Shape& s = ctx.input(0).shape;
  if (s.rank_known() && s.rank() != 0)
    fail("Shape must be rank 0 but is rank " + std::to_string(s.rank()) + " for '" + ctx.node().name +
         "' (LoopCond) with input shapes: " + s.to_string());
  ctx.set_output(0, DType::Bool, Shape{});
}

void loop_cond_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& pred = input(ctx, 0);
  if (pred.dtype() != DType::Bool || pred.shape().rank() != 0)
    fail("LoopCond: input must be a scalar bool, got " + dtype_name(pred.dtype()) + " " + pred.shape().to_string());
  ctx.set_output(0, pred);
}

void no_outputs_shape(ShapeContext&) {}
void control_trigger_kernel(KernelContext&) {}

OpBuilder enter(const char* name, bool ref) {
  return std::move(OpBuilder(name)
                       .input(ref ? "data: Ref(T)" : "data: T")
                       .output(ref ? "output: Ref(T)" : "output: T")
                       .attr("T: type")
                       .attr("frame_name: string")
                       .attr("is_constant: bool = false")
                       .attr("parallel_iterations: int = 10")
                       .shape(forward_shape)
                       .cpu(forward_kernel)
                       .moves_bytes_only()
                       .no_gradient(kGradientNote)
                       .category("control"));
}

OpBuilder forward(const char* name, bool ref) {
  return std::move(OpBuilder(name)
                       .input(ref ? "data: Ref(T)" : "data: T")
                       .output(ref ? "output: Ref(T)" : "output: T")
                       .attr("T: type")
                       .shape(forward_shape)
                       .cpu(forward_kernel)
                       .moves_bytes_only()
                       .no_gradient(kGradientNote)
                       .category("control"));
}

}  // namespace

void register_control_flow_ops(OpRegistry& r) {
  r.add(enter("Enter", false).doc("Makes its input available to the child frame frame_name (tf.while_loop)."));
  r.add(enter("RefEnter", true).doc("Makes its ref input available to the child frame frame_name."));
  r.add(forward("Exit", false).doc("Makes its input available to the parent frame (a loop's result)."));
  r.add(forward("RefExit", true).doc("Makes its ref input available to the parent frame."));
  r.add(forward("NextIteration", false).doc("Makes its input available to the next iteration of its frame."));
  r.add(forward("RefNextIteration", true).doc("Makes its ref input available to the next iteration."));
  r.add(OpBuilder("Switch")
            .input("data: T")
            .input("pred: bool")
            .output("output_false: T")
            .output("output_true: T")
            .attr("T: type")
            .shape(switch_shape)
            .cpu(switch_kernel)
            .moves_bytes_only()
            .no_gradient(kGradientNote)
            .category("control")
            .doc("Forwards data to output_true if pred holds, else to output_false; the other output is dead."));
  r.add(OpBuilder("RefSwitch")
            .input("data: Ref(T)")
            .input("pred: bool")
            .output("output_false: Ref(T)")
            .output("output_true: Ref(T)")
            .attr("T: type")
            .shape(switch_shape)
            .cpu(switch_kernel)
            .moves_bytes_only()
            .no_gradient(kGradientNote)
            .category("control")
            .doc("Forwards the ref data to output_true if pred holds, else to output_false."));
  r.add(OpBuilder("Merge")
            .input("inputs: N * T")
            .output("output: T")
            .output("value_index: int32")
            .attr("T: type")
            .attr("N: int >= 1")
            .shape(merge_shape)
            .cpu(merge_kernel)
            .moves_bytes_only()
            .no_gradient(kGradientNote)
            .category("control")
            .doc("Forwards the first of its inputs to become available, and its index."));
  r.add(OpBuilder("RefMerge")
            .input("inputs: Ref(N * T)")
            .output("output: Ref(T)")
            .output("value_index: int32")
            .attr("T: type")
            .attr("N: int >= 1")
            .shape(merge_shape)
            .cpu(merge_kernel)
            .moves_bytes_only()
            .no_gradient(kGradientNote)
            .category("control")
            .doc("Forwards the first of its ref inputs to become available, and its index."));
  r.add(OpBuilder("LoopCond")
            .input("input: bool")
            .output("output: bool")
            .shape(loop_cond_shape)
            .cpu(loop_cond_kernel)
            .moves_bytes_only()
            .no_gradient(kGradientNote)
            .category("control")
            .doc("Forwards the loop condition of a tf.while_loop to its Switch nodes."));
  r.add(OpBuilder("ControlTrigger")
            .shape(no_outputs_shape)
            .cpu(control_trigger_kernel)
            .reads_no_values()
            .not_differentiable("has no data inputs")
            .category("control")
            .doc("Does nothing; runs even when its control inputs are dead."));
}

}  // namespace flowlens::ops
