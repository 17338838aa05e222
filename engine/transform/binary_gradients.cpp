// Gradients of the broadcasting binary arithmetic (Add, AddV2, Sub, Mul,
// SquaredDifference, Pow), the division family (Div, RealDiv, DivNoNan,
// FloorMod) and AddN, node for node as TensorFlow's math_grad.py builds them
// in graph mode for real dtypes.
#include "transform/elementwise_grad_util.h"

namespace flowlens::grad {
namespace {

// ---- SmartBroadcastGradientArgs family --------------------------------------------------

Grads add_grad(GradContext& c) {
  if (shapes_fully_specified_and_equal(c)) return {g0(c), g0(c)};
  const BroadcastReduction r = smart_broadcast_gradient_args(c);
  return {reduce_to_input(c, r, 0, g0(c)), reduce_to_input(c, r, 1, g0(c))};
}

Grads sub_grad(GradContext& c) {
  if (shapes_fully_specified_and_equal(c)) return {g0(c), unary(c, "Neg", g0(c))};
  const BroadcastReduction r = smart_broadcast_gradient_args(c);
  const std::string gx = reduce_to_input(c, r, 0, g0(c));
  return {gx, reduce_to_input(c, r, 1, unary(c, "Neg", g0(c)))};
}

// TensorFlow's shortcut for equal static shapes covers int32 and float32
// only; other dtypes take the general path (note its Mul(x, grad) order).
Grads mul_grad(GradContext& c) {
  const std::string& x = c.inputs[0];
  const std::string& y = c.inputs[1];
  if (shapes_fully_specified_and_equal(c) && (c.dtype == DType::Float || c.dtype == DType::Int32))
    return {binary(c, "Mul", g0(c), y), binary(c, "Mul", g0(c), x)};
  const BroadcastReduction r = smart_broadcast_gradient_args(c);
  const std::string gx = reduce_to_input(c, r, 0, binary(c, "Mul", g0(c), y));
  return {gx, reduce_to_input(c, r, 1, binary(c, "Mul", x, g0(c)))};
}

// x_grad = 2 * grad * (x - y); (x_grad, -x_grad), each reduced to its input.
Grads squared_difference_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  const std::string scaled = a.binary("Mul", a.scalar(2.0), g0(c));
  const std::string x_grad = a.binary("Mul", scaled, a.binary("Sub", c.inputs[0], c.inputs[1]));
  if (shapes_fully_specified_and_equal(c)) return {x_grad, unary(c, "Neg", x_grad)};
  const BroadcastReduction r = smart_broadcast_gradient_args(c);
  const std::string gx = reduce_to_input(c, r, 0, x_grad);
  return {gx, unary(c, "Neg", reduce_to_input(c, r, 1, x_grad))};
}

// (grad * y * x^(y - 1), grad * z * log(x) where x > 0 else 0), z = x^y.
Grads pow_grad(GradContext& c) {
  const std::string& x = c.inputs[0];
  const std::string& y = c.inputs[1];
  const BroadcastReduction r = smart_broadcast_gradient_args(c);
  const std::string grad_y = binary(c, "Mul", g0(c), y);
  const std::string y_minus_1 = binary(c, "Sub", y, scalar_const(c, "sub/y", c.dtype, 1.0));
  const std::string gx = reduce_to_input(c, r, 0, binary(c, "Mul", grad_y, binary(c, "Pow", x, y_minus_1)));

  const AttrMap select_t{{"T", AttrValue(c.dtype)}};
  const std::string mask = binary(c, "Greater", x, scalar_const(c, "Greater/y", c.dtype, 0.0));
  const std::string safe_x = c.b.add("Select", "Select", {mask, x, ones_like(c, x, c.input_info[0])}, select_t);
  const std::string log_x =
      c.b.add("Select", "Select", {mask, unary(c, "Log", safe_x), zeros_like(c, x, c.input_info[0])}, select_t);
  const std::string gy = binary(c, "Mul", binary(c, "Mul", g0(c), c.outputs[0]), log_x);
  return {gx, reduce_to_input(c, r, 1, gy)};
}

// ---- division: always Shape, Shape, BroadcastGradientArgs -----------------------------------

// (grad / y, grad * (-x / y / y)) with `div` the op's own division.
Grads quotient_grad(GradContext& c, const char* div) {
  const std::string& x = c.inputs[0];
  const std::string& y = c.inputs[1];
  const BroadcastReduction r = broadcast_gradient_args(c);
  const std::string gx = reduce_to_input(c, r, 0, binary(c, div, g0(c), y));
  const std::string q = binary(c, div, binary(c, div, unary(c, "Neg", x), y), y);
  return {gx, reduce_to_input(c, r, 1, binary(c, "Mul", g0(c), q))};
}
Grads real_div_grad(GradContext& c) { return quotient_grad(c, "RealDiv"); }  // Div and RealDiv
Grads div_no_nan_grad(GradContext& c) { return quotient_grad(c, "DivNoNan"); }

// (grad, -grad * floor_div(x, y)).
Grads floor_mod_grad(GradContext& c) {
  const BroadcastReduction r = broadcast_gradient_args(c);
  const std::string floor_xy = binary(c, "FloorDiv", c.inputs[0], c.inputs[1]);
  const std::string gx = reduce_to_input(c, r, 0, g0(c));
  return {gx, reduce_to_input(c, r, 1, binary(c, "Mul", g0(c), unary(c, "Neg", floor_xy)))};
}

// No broadcasting: every input gets the gradient.
Grads addn_grad(GradContext& c) { return Grads(c.inputs.size(), g0(c)); }

}  // namespace

void add_binary_gradients(GradTable& t) {
  t.insert(t.end(), {{"Add", add_grad},
                     {"AddV2", add_grad},
                     {"Sub", sub_grad},
                     {"Mul", mul_grad},
                     {"SquaredDifference", squared_difference_grad},
                     {"Pow", pow_grad},
                     {"Div", real_div_grad},
                     {"RealDiv", real_div_grad},
                     {"DivNoNan", div_no_nan_grad},
                     {"FloorMod", floor_mod_grad},
                     {"AddN", addn_grad}});
}

}  // namespace flowlens::grad
