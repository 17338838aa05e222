#pragma once
// Every op family's registry-walk cases, for the registry walk and the
// hostile-input walk.
#include "engine/op_cases/accumulators.h"
#include "engine/op_cases/activations.h"
#include "engine/op_cases/array.h"
#include "engine/op_cases/control_flow.h"
#include "engine/op_cases/conv.h"
#include "engine/op_cases/core.h"
#include "engine/op_cases/data.h"
#include "engine/op_cases/function.h"
#include "engine/op_cases/math.h"
#include "engine/op_cases/pool_norm.h"
#include "engine/op_cases/queues.h"
#include "engine/op_cases/reduce.h"
#include "engine/op_cases/sparse.h"
#include "engine/op_cases/state.h"
#include "engine/op_cases/strings.h"
#include "engine/op_cases/tensor_array.h"

namespace flowlens::testing {

inline OpCases all_op_cases() {
  OpCases c;
  add_core_cases(c);
  add_function_cases(c);
  add_data_cases(c);
  add_array_cases(c);
  add_control_flow_cases(c);
  add_conv_cases(c);
  add_math_cases(c);
  add_pool_norm_cases(c);
  add_queue_cases(c);
  add_accumulator_cases(c);
  add_reduce_cases(c);
  add_sparse_cases(c);
  add_state_cases(c);
  add_strings_cases(c);
  add_activation_cases(c);
  add_tensor_array_cases(c);
  return c;
}

}  // namespace flowlens::testing
