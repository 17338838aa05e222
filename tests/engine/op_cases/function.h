#pragma once
// Registry-walk cases for a function body's arguments and return values
// (_Arg, _Retval and their device forms): an argument's value is its node's
// own state, as the session binds it (exec/function_body.h).
#include "engine/op_cases/op_case.h"
#include "engine/op_cases/state.h"

namespace flowlens::testing {

// A list(shape) attr value with one shape.
inline AttrList shape_list(Shape s) {
  AttrList l;
  l.shape = {std::move(s)};
  return l;
}

inline void add_function_cases(OpCases& c) {
  const DType f = DType::Float;
  const Tensor v23 = gen(f, {2, 3});
  for (DType t : {DType::Float, DType::Int32, DType::Int64, DType::Bool})
    c.add({"_Arg", {{"T", AttrValue(t)}, {"index", 0}, {"_output_shapes", shape_list(Shape{2, 3})}}, {}, {},
           gen(t, {2, 3}, 0, 1)});
  c.add({"_Arg", {{"T", AttrValue(DType::String)}, {"index", 3}, {"_output_shapes", shape_list(Shape{2})}}, {}, {},
         S({2}, {"a", "b"})});
  c.add({"_Arg",
         {{"T", AttrValue(DType::Resource)},
          {"index", 1},
          {"_handle_dtypes", type_list({f})},
          {"_handle_shapes", shape_list(Shape{2, 3})}},
         {},
         {},
         resource_handle(v23)});
  c.skip("_DeviceArg",
         "TensorFlow's shape function is UnknownShape, so no case can be fully inferred; its kernel is _Arg's");
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "Case", "StatelessCase",
                         "While", "StatelessWhile"})
    c.skip(op, "its kernel runs library functions through a session's function library (KernelContext::functions()); "
               "test_functions runs it on TensorFlow-exported FunctionDefs");
  for (const char* op : {"_Retval", "_DeviceRetval"}) {
    c.add({op, {{"T", AttrValue(f)}, {"index", 0}}, {v23}});
    c.add({op, {{"T", AttrValue(DType::Resource)}, {"index", 2}}, {resource_handle(v23)}});
  }
}

}  // namespace flowlens::testing
