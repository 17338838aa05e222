// Gradients that route the incoming gradient by a mask: Select, SelectV2,
// Maximum, Minimum (math_grad.py) and ClipByValue (clip_ops.py), built as
// TensorFlow builds them in graph mode.
#include "transform/elementwise_grad_util.h"

namespace flowlens::grad {
namespace {

std::string select(GradContext& c, const char* op, const std::string& cond, const std::string& a,
                   const std::string& b) {
  return c.b.add(op, op, {cond, a, b}, {{"T", AttrValue(c.dtype)}});
}

// zeros(shape(grad)): the gradient has the output's shape.
std::string zeros_shaped_like_grad(GradContext& c) {
  return fill(c, shape_tensor(c, g0(c), c.output_info[0]), c.dtype, 0.0);
}

// (None, where(c, grad, zeros_like(t)), where(c, zeros_like(t), grad)); no reduction.
Grads select_grad(GradContext& c) {
  const std::string zeros = zeros_like(c, c.inputs[1], c.input_info[1]);
  return {"", select(c, "Select", c.inputs[0], g0(c), zeros), select(c, "Select", c.inputs[0], zeros, g0(c))};
}

// SelectV2 broadcasts, so each branch's gradient is summed (keep_dims) over
// BroadcastGradientArgs(branch shape, output shape)[0] and reshaped back.
Grads select_v2_grad(GradContext& c) {
  const std::string zeros = scalar_const(c, "zeros", c.dtype, 0.0);
  const std::string output_shape = shape_tensor(c, c.outputs[0], c.output_info[0]);
  auto branch = [&](int i, const std::string& picked) {
    const std::string shape = shape_tensor(c, c.inputs[static_cast<size_t>(i)], c.input_info[static_cast<size_t>(i)]);
    const std::string args =
        c.b.add("BroadcastGradientArgs", "BroadcastGradientArgs", {shape, output_shape}, {{"T", AttrValue(DType::Int32)}});
    return c.b.reshape(c.b.sum(picked, args, c.dtype, true), shape, c.dtype);
  };
  const std::string gx = branch(1, select(c, "SelectV2", c.inputs[0], g0(c), zeros));
  const std::string gy = branch(2, select(c, "SelectV2", c.inputs[0], zeros, g0(c)));
  return {"", gx, gy};
}

// Maximum (GreaterEqual) and Minimum (LessEqual): ties go to x.
Grads max_min_grad(GradContext& c, const char* selector) {
  const std::string zeros = zeros_shaped_like_grad(c);
  const std::string xmask = c.b.binary(selector, c.inputs[0], c.inputs[1], c.dtype);
  const BroadcastReduction r = broadcast_gradient_args(c);
  const std::string gx = reduce_to_input(c, r, 0, select(c, "SelectV2", xmask, g0(c), zeros));
  return {gx, reduce_to_input(c, r, 1, select(c, "SelectV2", xmask, zeros, g0(c)))};
}
Grads maximum_grad(GradContext& c) { return max_min_grad(c, "GreaterEqual"); }
Grads minimum_grad(GradContext& c) { return max_min_grad(c, "LessEqual"); }

// ClipByValue(t, lo, hi): t gets the gradient where lo <= t <= hi, each
// bound where t is beyond it, summed over the axes it was broadcast along.
Grads clip_by_value_grad(GradContext& c) {
  const std::string& x = c.inputs[0];
  std::string shapes[3];
  for (int i = 0; i < 3; ++i)
    shapes[i] = shape_tensor(c, c.inputs[static_cast<size_t>(i)], c.input_info[static_cast<size_t>(i)]);
  const std::string zeros = zeros_shaped_like_grad(c);
  const std::string below = c.b.binary("Less", x, c.inputs[1], c.dtype);
  const std::string above = c.b.binary("Greater", x, c.inputs[2], c.dtype);
  auto bound_axes = [&](int i) {
    return tensor_name(c.b.add("BroadcastGradientArgs", "BroadcastGradientArgs", {shapes[0], shapes[i]},
                               {{"T", AttrValue(DType::Int32)}}),
                       1);
  };
  const std::string ry = bound_axes(1);
  const std::string rz = bound_axes(2);
  const std::string outside = c.b.add("LogicalOr", "LogicalOr", {below, above});
  const std::string xgrad = select(c, "Select", outside, zeros, g0(c));
  const std::string ygrad = select(c, "Select", below, g0(c), zeros);
  const std::string zgrad = select(c, "Select", above, g0(c), zeros);
  return {xgrad, c.b.reshape(c.b.sum(ygrad, ry, c.dtype), shapes[1], c.dtype),
          c.b.reshape(c.b.sum(zgrad, rz, c.dtype), shapes[2], c.dtype)};
}

}  // namespace

void add_select_gradients(GradTable& t) {
  t.insert(t.end(), {{"Select", select_grad},
                     {"SelectV2", select_v2_grad},
                     {"Maximum", maximum_grad},
                     {"Minimum", minimum_grad},
                     {"ClipByValue", clip_by_value_grad}});
}

}  // namespace flowlens::grad
