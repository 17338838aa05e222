#pragma once
// Building blocks of the element-wise family's gradients, each the graph
// TensorFlow's Python helper of the same name builds (math_grad.py,
// array_ops.py), so an exported training graph matches TensorFlow's:
//   shape_tensor       array_ops.shape: a Const when the static shape is known
//   zeros_like         array_ops.zeros_like: a Const / Fill when the static
//                      shape is known, else ZerosLike
//   ones_like, fill    array_ops.ones_like / zeros(shape): Fill
//   smart_broadcast_gradient_args, broadcast_gradient_args, reduce_to_input
//   AfterGrad          `with ops.control_dependencies([grad])`
#include <string>
#include <vector>

#include "transform/gradient_functions.h"

namespace flowlens::grad {

// What the gradient files of the element-wise family write in every line:
// one gradient name per input, the incoming gradient, and the op's unary or
// binary node in the op's dtype.
using Grads = std::vector<std::string>;
inline const std::string& g0(GradContext& c) { return c.grads[0]; }
inline std::string unary(GradContext& c, const char* op, const std::string& x) { return c.b.unary(op, x, c.dtype); }
inline std::string binary(GradContext& c, const char* op, const std::string& a, const std::string& b) {
  return c.b.binary(op, a, b, c.dtype);
}

std::string shape_tensor(GradContext& c, const std::string& t, const TensorInfo& info);
// A scalar Const of `dtype` (any real type) holding `value`.
std::string scalar_const(GradContext& c, const std::string& base, DType dtype, double value);
// Fill(shape, value) of `dtype`.
std::string fill(GradContext& c, const std::string& shape, DType dtype, double value);
std::string zeros_like(GradContext& c, const std::string& t, const TensorInfo& info);
std::string ones_like(GradContext& c, const std::string& t, const TensorInfo& info);

// How each input of a broadcasting binary op gets its gradient back from
// one shaped like the output: reshape(reduce_sum(g, axes), shape) where
// must_reduce, g itself elsewhere.
struct BroadcastReduction {
  std::string shape[2];
  std::string axes[2];
  bool must_reduce[2] = {true, true};
};
// SmartBroadcastGradientArgs(x, y, grad): with both input shapes statically
// known, Const axes and shapes and a reduction only for an input whose shape
// differs from the gradient's; otherwise Shape, Shape, BroadcastGradientArgs.
BroadcastReduction smart_broadcast_gradient_args(GradContext& c);
// shape(x), shape(y), broadcast_gradient_args(sx, sy): the pattern of the
// gradients that always reduce (Div, RealDiv, DivNoNan, FloorMod, Maximum ...).
BroadcastReduction broadcast_gradient_args(GradContext& c);
std::string reduce_to_input(GradContext& c, const BroadcastReduction& r, int i, const std::string& g);
// x, y and the gradient statically known and of one shape (_ShapesFullySpecifiedAndEqual).
bool shapes_fully_specified_and_equal(const GradContext& c);

// Adds nodes the way TensorFlow does inside `with ops.control_dependencies([grad])`:
// each gets a control input on grad's producer unless it already reads it.
class AfterGrad {
 public:
  AfterGrad(GradContext& c, const std::string& grad);
  std::string add(const std::string& op, std::vector<std::string> inputs);
  std::string unary(const std::string& op, const std::string& x) { return add(op, {x}); }
  std::string binary(const std::string& op, const std::string& a, const std::string& b) { return add(op, {a, b}); }
  // A Const of the op's dtype.
  std::string scalar(double value);

 private:
  GradContext& c_;
  std::string grad_node_;
};

void add_unary_gradients(GradTable& table);   // unary_gradients.cpp
void add_binary_gradients(GradTable& table);  // binary_gradients.cpp
void add_select_gradients(GradTable& table);  // select_gradients.cpp: Select, SelectV2, ClipByValue, Maximum, Minimum

}  // namespace flowlens::grad
