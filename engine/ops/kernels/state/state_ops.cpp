// Sources, variables and pass-through ops: Const, Placeholder,
// PlaceholderWithDefault, Variable, VariableV2, IsVariableInitialized, Assign,
// AssignAdd, AssignSub, Identity, StopGradient, NoOp. Resource variables are
// in resource_ops.cpp.
#include <mutex>

#include "ops/framework/kernel_checks.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

// ---- Const ------------------------------------------------------------------

const Tensor& const_value(const Node& n) {
  const AttrValue& v = n.attr("value");
  const Tensor* t = v.get_if<Tensor>();
  if (!t || !t->valid()) fail("Const: attr 'value' must hold a tensor");
  return *t;
}

void const_shape(ShapeContext& ctx) {
  const Tensor& t = const_value(ctx.node());
  ctx.set_output(0, t.dtype(), t.shape());
}

void const_kernel(KernelContext& ctx) {
  const Node& n = ctx.node();
  const Tensor& t = const_value(n);
  DType want = dtype_base(n.attr_type("dtype", t.dtype()));
  if (want != t.dtype())
    fail("Const: type mismatch between value (" + dtype_name(t.dtype()) + ") and dtype (" + dtype_name(want) + ")");
  ctx.set_output(0, t);
}

// ---- Placeholder ------------------------------------------------------------

Shape shape_attr(const Node& n) {
  const AttrValue* v = n.find_attr("shape");
  if (v)
    if (const Shape* s = v->get_if<Shape>()) return *s;
  return Shape::unknown_rank();
}

void placeholder_shape(ShapeContext& ctx) {
  ctx.set_output(0, dtype_base(ctx.node().attr_type("dtype", DType::Invalid)), shape_attr(ctx.node()));
}

void placeholder_kernel(KernelContext& ctx) {
  const Node& n = ctx.node();
  fail("You must feed a value for placeholder tensor '" + n.name + "' with dtype " +
       dtype_name(dtype_base(n.attr_type("dtype", DType::Invalid))));
}

void placeholder_with_default_shape(ShapeContext& ctx) {
  const Node& n = ctx.node();
  Shape s = shape_attr(n);
  if (!s.rank_known() && ctx.num_inputs() > 0) s = ctx.input(0).shape;
  ctx.set_output(0, attr_or_input_dtype(ctx, "dtype", 0), std::move(s));
}

void pass_through_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  ctx.set_output(0, input(ctx, 0));
}

void noop_kernel(KernelContext&) {}
void noop_shape(ShapeContext&) {}

// ---- Variables ----------------------------------------------------------------

void variable_shape(ShapeContext& ctx) {
  ctx.set_output(0, dtype_base(ctx.node().attr_type("dtype", DType::Invalid)), shape_attr(ctx.node()));
}

void variable_kernel(KernelContext& ctx) {
  Variable* v = ctx.own_variable();
  if (!v) fail(ctx.node().op + ": no variable storage is bound to this node");
  std::lock_guard<std::mutex> lock(v->mu);
  // Uninitialized: an empty tensor; the executor reports use-before-init to
  // consumers that read it (Assign's ref input does not).
  ctx.set_output(0, v->value);
}

Variable* ref_variable(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  Variable* v = ctx.ref_input(0);
  if (!v) fail(ctx.node().op + ": input 0 must be a reference to a variable");
  return v;
}

// Reads the ref input whether or not it was assigned (TensorFlow's
// SetAllowsUninitializedInput).
void is_variable_initialized_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  Variable* v = ref_variable_input(ctx, 0);
  bool initialized;
  {
    std::lock_guard<std::mutex> lock(v->mu);
    initialized = v->value.valid();
  }
  ctx.set_output(0, Tensor::scalar<bool>(initialized));
}

void scalar_bool_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Bool, Shape{}); }

void assign_shape(ShapeContext& ctx) {
  const Shape& lhs = ctx.input(0).shape;
  const Shape& rhs = ctx.input(1).shape;
  Shape out = rhs;
  if (ctx.node().attr_bool("validate_shape", true)) {
    bool bad = lhs.rank_known() && rhs.rank_known() && lhs.rank() != rhs.rank();
    for (int i = 0; !bad && lhs.rank_known() && rhs.rank_known() && i < lhs.rank(); ++i)
      bad = lhs.dim(i) >= 0 && rhs.dim(i) >= 0 && lhs.dim(i) != rhs.dim(i);
    if (bad)
      fail("Assign requires shapes of both tensors to match. lhs shape= " + shape_str(lhs) +
           " rhs shape= " + shape_str(rhs));
    out = merge_shapes(lhs, rhs, "Assign requires shapes of both tensors to match");
  }
  DType t = attr_or_input_dtype(ctx, "T", 1);
  if (t == DType::Invalid) t = dtype_base(ctx.input(0).dtype);
  ctx.set_output(0, t, std::move(out));
}

void assign_kernel(KernelContext& ctx) {
  Variable* v = ref_variable(ctx);
  const Tensor& value = input(ctx, 1);
  const bool validate = ctx.node().attr_bool("validate_shape", true);
  Tensor fresh = value.clone();  // own storage: later in-place updates never alias the source
  {
    std::lock_guard<std::mutex> lock(v->mu);
    if (v->value.valid()) {
      if (validate && !(v->value.shape() == value.shape()))
        fail("Assign requires shapes of both tensors to match. lhs shape= " + shape_str(v->value.shape()) +
             " rhs shape= " + shape_str(value.shape()));
      if (v->value.dtype() != value.dtype())
        fail("Assign: cannot assign a " + dtype_name(value.dtype()) + " tensor to a " +
             dtype_name(v->value.dtype()) + " variable");
    }
    v->value = fresh;
  }
  ctx.set_output(0, std::move(fresh));
}

void assign_update_shape(ShapeContext& ctx) {
  Shape s = merge_shapes(ctx.input(0).shape, ctx.input(1).shape,
                         (ctx.node().op + ": shapes of the variable and the update must be equal").c_str());
  DType t = attr_or_input_dtype(ctx, "T", 1);
  if (t == DType::Invalid) t = dtype_base(ctx.input(0).dtype);
  ctx.set_output(0, t, std::move(s));
}

template <bool kAdd>
void assign_update_kernel(KernelContext& ctx) {
  Variable* v = ref_variable(ctx);
  const Tensor& delta = input(ctx, 1);
  std::lock_guard<std::mutex> lock(v->mu);
  const Tensor& old = v->value;
  check_initialized(v);
  check_assign_update(ctx, old, delta);
  // A fresh tensor rather than an in-place update: tensors already handed out
  // (earlier reads of the variable) keep the value they had.
  Tensor out(old.dtype(), old.shape());
  dispatch_numeric(old.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = old.data<T>();
    const T* b = delta.data<T>();
    T* o = out.data<T>();
    const int64_t n = out.num_elements();
    for (int64_t i = 0; i < n; ++i) o[i] = kAdd ? T(a[i] + b[i]) : T(a[i] - b[i]);
  });
  v->value = out;
  ctx.set_output(0, std::move(out));
}

}  // namespace

void register_state_ops(OpRegistry& r) {
  r.add(OpBuilder("Const")
            .output("output: dtype")
            .attr("value: tensor")
            .attr("dtype: type")
            .shape(const_shape)
            .cpu(const_kernel)
            .moves_bytes_only()
            .not_differentiable("a constant")
            .category("array")
            .doc("A constant tensor, the value attr."));
  r.add(OpBuilder("Placeholder")
            .output("output: dtype")
            .attr("dtype: type")
            .attr("shape: shape = { unknown_rank: true }")
            .shape(placeholder_shape)
            .cpu(placeholder_kernel)
            .moves_bytes_only()
            .not_differentiable("a fed value")
            .category("array")
            .doc("A value that must be fed at run time."));
  r.add(OpBuilder("PlaceholderV2")
            .output("output: dtype")
            .attr("dtype: type")
            .attr("shape: shape")
            .shape(placeholder_shape)
            .cpu(placeholder_kernel)
            .moves_bytes_only()
            .not_differentiable("a fed value")
            .category("array")
            .doc("A value that must be fed at run time (deprecated form of Placeholder)."));
  r.add(OpBuilder("PlaceholderWithDefault")
            .input("input: dtype")
            .output("output: dtype")
            .attr("dtype: type")
            .attr("shape: shape")
            .shape(placeholder_with_default_shape)
            .cpu(pass_through_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Passes its input through unless a value is fed."));
  for (const char* name : {"Variable", "VariableV2"})
    r.add(OpBuilder(name)
              .output("ref: Ref(dtype)")
              .attr("shape: shape")
              .attr("dtype: type")
              .attr("container: string = ''")
              .attr("shared_name: string = ''")
              .keeps_state()
              .shape(variable_shape)
              .cpu(variable_kernel)
              .not_differentiable("a variable: gradients are taken with respect to it, not through it")
              .category("state")
              .doc("A mutable tensor kept across runs, used by reference."));
  r.add(OpBuilder("IsVariableInitialized")
            .input("ref: Ref(dtype)")
            .output("is_initialized: bool")
            .attr("dtype: type")
            .shape(scalar_bool_shape)
            .cpu(is_variable_initialized_kernel)
            .not_differentiable("a boolean about a variable")
            .no_gpu("answers from the variable's storage on the host; soft placement runs it on the CPU")
            .category("state")
            .doc("Whether a ref variable has been assigned."));
  r.add(OpBuilder("Assign")
            .input("ref: Ref(T)")
            .input("value: T")
            .output("output_ref: Ref(T)")
            .attr("T: type")
            .attr("validate_shape: bool = true")
            .attr("use_locking: bool = true")
            .stateful()
            .shape(assign_shape)
            .cpu(assign_kernel)
            .not_differentiable("a variable update")
            .category("state")
            .doc("Sets a variable to a value."));
  for (bool add : {true, false})
    r.add(OpBuilder(add ? "AssignAdd" : "AssignSub")
              .input("ref: Ref(T)")
              .input("value: T")
              .output("output_ref: Ref(T)")
              .attr("T: numbertype")
              .attr("use_locking: bool = false")
              .stateful()
              .shape(assign_update_shape)
              .cpu(add ? assign_update_kernel<true> : assign_update_kernel<false>)
              .not_differentiable("a variable update")
              .category("state")
              .doc(add ? "Adds a value to a variable." : "Subtracts a value from a variable."));
  r.add(OpBuilder("Identity")
            .input("input: T")
            .output("output: T")
            .attr("T: type")
            .shape(unchanged_shape)
            .cpu(pass_through_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Returns its input."));
  r.add(OpBuilder("StopGradient")
            .input("input: T")
            .output("output: T")
            .attr("T: type")
            .shape(unchanged_shape)
            .cpu(pass_through_kernel)
            .moves_bytes_only()
            .not_differentiable("stops gradients by definition")
            .category("array")
            .doc("Returns its input; no gradient flows through it."));
  r.add(OpBuilder("NoOp")
            .shape(noop_shape)
            .cpu(noop_kernel)
            .reads_no_values()
            .not_differentiable("has no data inputs")
            .category("control")
            .doc("Does nothing; groups control dependencies."));
}

}  // namespace flowlens::ops
