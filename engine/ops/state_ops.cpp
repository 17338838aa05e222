// Sources, variables and pass-through ops: Const, Placeholder,
// PlaceholderWithDefault, Variable, VariableV2, Assign, AssignAdd, AssignSub,
// Identity, StopGradient, NoOp.
#include <mutex>

#include "ops/kernel_checks.h"
#include "ops/op_helpers.h"

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

std::vector<AttrSpec> variable_attrs() {
  return {attr("shape", AttrKind::Shape), attr("dtype", AttrKind::Type, true), attr("container", AttrKind::String),
          attr("shared_name", AttrKind::String)};
}

}  // namespace

void register_state_ops(OpRegistry& r) {
  r.add(make_def("Const", 0, 0, 1, {attr("value", AttrKind::Tensor, true), attr("dtype", AttrKind::Type)},
                 const_shape, const_kernel));
  r.add(make_def("Placeholder", 0, 0, 1, {attr("dtype", AttrKind::Type, true), attr("shape", AttrKind::Shape)},
                 placeholder_shape, placeholder_kernel));
  r.add(make_def("PlaceholderWithDefault", 1, 1, 1,
                 {attr("dtype", AttrKind::Type), attr("shape", AttrKind::Shape)}, placeholder_with_default_shape,
                 pass_through_kernel));
  for (const char* name : {"Variable", "VariableV2"}) {
    OpDef d = make_def(name, 0, 0, 1, variable_attrs(), variable_shape, variable_kernel);
    d.stateful = true;
    d.keeps_state = true;
    r.add(std::move(d));
  }
  {
    OpDef d = make_def("Assign", 2, 2, 1,
                       {attr("T", AttrKind::Type), attr("validate_shape", AttrKind::Bool),
                        attr("use_locking", AttrKind::Bool)},
                       assign_shape, assign_kernel);
    d.ref_inputs = {0};
    d.stateful = true;
    r.add(std::move(d));
  }
  for (bool add : {true, false}) {
    OpDef d = make_def(add ? "AssignAdd" : "AssignSub", 2, 2, 1,
                       {attr("T", AttrKind::Type), attr("use_locking", AttrKind::Bool)}, assign_update_shape,
                       add ? assign_update_kernel<true> : assign_update_kernel<false>);
    d.ref_inputs = {0};
    d.stateful = true;
    r.add(std::move(d));
  }
  r.add(make_def("Identity", 1, 1, 1, {attr("T", AttrKind::Type)}, unchanged_shape, pass_through_kernel));
  r.add(make_def("StopGradient", 1, 1, 1, {attr("T", AttrKind::Type)}, unchanged_shape, pass_through_kernel));
  r.add(make_def("NoOp", 0, 0, 0, {}, noop_shape, noop_kernel));
}

}  // namespace flowlens::ops
