// add_math_gradients: the element-wise family's gradients (unary_, binary_
// and select_gradients.cpp, sharing elementwise_grad_util.h). Reductions,
// scans and MatMul are in reduction_gradients.cpp.
#include "transform/elementwise_grad_util.h"

namespace flowlens::grad {

void add_math_gradients(GradTable& t) {
  add_unary_gradients(t);
  add_binary_gradients(t);
  add_select_gradients(t);
}

}  // namespace flowlens::grad
