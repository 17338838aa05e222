// A function body's arguments and return values at top level, as TensorFlow
// registers them (tensorflow/core/ops/function_ops.cc): _Arg and _DeviceArg
// (no inputs, one output of type T, attr index), _Retval and _DeviceRetval
// (one input of type T, no outputs). A graph exported from a function body
// (a Keras train step traced by tf.function) has these in place of
// Placeholders and fetches.
//
// TensorFlow's runtime hands an _Arg its value through the call frame; here
// the session does (exec/function_body.h): a data argument is fed like a
// Placeholder (the feed replaces the node's output, so its kernel does not
// run), and a DT_RESOURCE argument is bound, like VarHandleOp, to a
// session-owned variable whose handle is the node's own state. The kernel
// outputs that state, and fails naming the argument when there is none.
#include <mutex>

#include "ops/framework/op_helpers.h"
#include "ops/kernels/training/training_kernel.h"

namespace flowlens::ops {
namespace {

// The first entry of a list attr (TensorFlow reads entry 0 of
// _output_shapes, _handle_dtypes and _handle_shapes), failing as TensorFlow's
// shape function does for an empty list.
const AttrList* nonempty_list(const Node& n, const char* attr) {
  const AttrValue* v = n.find_attr(attr);
  if (!v) return nullptr;
  const AttrList* list = v->get_if<AttrList>();
  const bool empty = !list || (std::string_view(attr) == "_handle_dtypes" ? list->type.empty() : list->shape.empty());
  if (empty)
    fail("Invalid \"" + std::string(attr) + "\" attribute value for " + n.op + " node: " + v->to_string());
  return list;
}

// function_ops.cc's _Arg shape function: a resource argument is a scalar
// handle whose variable's dtype and shape come from _handle_dtypes and
// _handle_shapes (both or neither); any other argument has the shape its
// _output_shapes attr records, else an unknown one.
void arg_shape(ShapeContext& ctx) {
  const Node& n = ctx.node();
  const AttrValue* t = n.find_attr("T");
  if (!t || !t->get_if<DType>()) fail(n.op + " node does not have attribute \"T\"");
  const DType dtype = dtype_base(*t->get_if<DType>());
  if (dtype == DType::Resource) {
    if (n.find_attr("_handle_dtypes") && n.find_attr("_handle_shapes")) {
      const AttrList* dtypes = nonempty_list(n, "_handle_dtypes");
      const AttrList* shapes = nonempty_list(n, "_handle_shapes");
      ctx.set_output(0, DType::Resource, Shape{});
      ctx.set_output_handle(0, dtype_base(dtypes->type[0]), shapes->shape[0]);
    } else {
      ctx.set_output(0, DType::Resource, Shape::unknown_rank());
    }
    return;
  }
  const AttrValue* shapes = n.find_attr("_output_shapes");
  if (shapes && shapes->get_if<AttrList>()) {
    ctx.set_output(0, dtype, nonempty_list(n, "_output_shapes")->shape[0]);
    return;
  }
  ctx.set_output(0, dtype, Shape::unknown_rank());
}

// _DeviceArg's shape function is TensorFlow's UnknownShape.
void device_arg_shape(ShapeContext& ctx) {
  ctx.set_output(0, dtype_base(ctx.node().attr_type("T", DType::Invalid)), Shape::unknown_rank());
}

void retval_shape(ShapeContext&) {}

// ArgOp: the value the caller passed, which must be of type T.
void arg_kernel(KernelContext& ctx) {
  const Node& n = ctx.node();
  const DType dtype = dtype_base(ctx.attrs().type("T"));
  const int64_t index = ctx.attrs().integer("index");
  Tensor value;
  if (Variable* state = ctx.own_variable()) {
    std::lock_guard lock(state->mu);
    value = state->value;
  }
  if (!value.valid()) {
    if (dtype == DType::Resource)
      fail("no variable is bound to resource argument " + std::to_string(index) + " '" + n.name + "'");
    fail("no value was fed for argument " + std::to_string(index) + " '" + n.name + "' (" + tf_type_name(dtype) +
         "): feed '" + n.name + "' or 'arg:" + std::to_string(index) + "'");
  }
  if (value.dtype() != dtype)
    fail("Type mismatch: actual " + tf_type_name(value.dtype()) + " vs. expect " + tf_type_name(dtype));
  ctx.set_output(0, std::move(value));
}

// RetvalOp: checks the value's type; the session fetches the value from the
// node's input (exec/function_body.h), as the call frame would receive it.
void retval_kernel(KernelContext& ctx) {
  if (ctx.num_inputs() != 1) fail("expects 1 input, got " + std::to_string(ctx.num_inputs()));
  const DType dtype = dtype_base(ctx.attrs().type("T"));
  const Tensor& value = ctx.input(0);
  if (!value.valid()) fail("return value " + std::to_string(ctx.attrs().integer("index")) + " has no value");
  if (value.dtype() != dtype)
    fail("Type mismatch: actual " + tf_type_name(value.dtype()) + " vs. expect " + tf_type_name(dtype));
}

}  // namespace

void register_function_ops(OpRegistry& r) {
  const char* host = "the runtime passes a function's arguments and return values in host memory";
  for (const bool device : {false, true}) {
    r.add(OpBuilder(device ? "_DeviceArg" : "_Arg")
              .output("output: T")
              .attr("T: type")
              .attr("index: int >= 0")
              .stateful()
              .keeps_state()
              .shape(device ? device_arg_shape : arg_shape)
              .cpu(arg_kernel)
              .not_differentiable("a function's argument: gradients are taken with respect to it, not through it")
              .no_gpu(host)
              .category("internal")
              .doc(device ? "A function argument passed in device memory (feed it by name or as arg:N)."
                          : "A function argument: the index-th input of a function body (feed it by name or as "
                            "arg:N; a resource argument is a session-owned variable)."));
    r.add(OpBuilder(device ? "_DeviceRetval" : "_Retval")
              .input("input: T")
              .attr("T: type")
              .attr("index: int >= 0")
              .stateful()
              .shape(retval_shape)
              .cpu(retval_kernel)
              .not_differentiable("a function's return value: it has no outputs")
              .no_gpu(host)
              .category("internal")
              .doc(device ? "A function return value in device memory (fetch it by name or as retval:N)."
                          : "A function return value: the index-th output of a function body (fetch it by name or "
                            "as retval:N)."));
  }
}

}  // namespace flowlens::ops
