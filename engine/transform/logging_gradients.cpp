// Gradients of the logging ops, as TensorFlow's Python registers them:
// CheckNumerics checks the incoming gradient too (_CheckNumericsGrad), Print
// passes the gradient of its first input through and none to its data
// (_PrintGrad).
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

Grads check_numerics_grad(GradContext& c) {
  const std::string& g = c.grads[0];
  if (g.empty()) return {""};
  const std::string message = "Not a number (NaN) or infinity (Inf) values detected in gradient. " +
                              c.node.attr_string("message", "");
  return {c.b.add("CheckNumerics", "CheckNumerics", {g}, {{"T", AttrValue(c.dtype)}, {"message", AttrValue(message)}})};
}

Grads print_grad(GradContext& c) {
  Grads grads(c.inputs.size());
  grads[0] = c.grads[0];
  return grads;
}

}  // namespace

void add_logging_gradients(GradTable& t) {
  t.insert(t.end(), {{"CheckNumerics", check_numerics_grad}, {"Print", print_grad}});
}

}  // namespace flowlens::grad
