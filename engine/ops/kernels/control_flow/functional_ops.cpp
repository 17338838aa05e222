// TensorFlow's functional ops (tensorflow/core/ops/functional_ops.cc,
// kernels in tensorflow/core/kernels/functional_ops.cc and
// partitioned_function_ops.cc): calls of the graph's library functions,
// and the TF 2 control flow built on them. Each kernel runs its function
// through the session's function library (KernelContext::functions(),
// exec/function_library.h), so observers see the bodies' nodes.
//
//   PartitionedCall, StatefulPartitionedCall  f(args) -> output
//   If, StatelessIf          then_branch(input) or else_branch(input), by
//                            cond's truthiness (ToBool below)
//   Case, StatelessCase      branches[branch_index](input); an index out of
//                            range runs the last branch, as TensorFlow does
//   While, StatelessWhile    while cond(vars): vars = body(vars), at most
//                            kMaxWhileIterations times (the internal attr
//                            _max_iterations lowers the bound)
//
// A node whose op is a library function is rewritten into a
// (Stateful)PartitionedCall when a session loads it
// (exec/function_library.h lower_function_call_nodes).
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

// A While that has not ended after this many iterations fails rather than
// spinning for ever (TensorFlow has no bound).
constexpr int64_t kMaxWhileIterations = 10'000'000;

const char* kNoGradient =
    "TensorFlow differentiates function calls and functional control flow by building gradient functions "
    "(SymbolicGradient, If/While gradient graphs in cond_v2.py / while_v2.py); FlowLens's add_gradients does "
    "not build gradient functions";

const FuncRef& func_attr(const KernelContext& ctx, const char* name) {
  const AttrValue* v = ctx.node().find_attr(name);
  const auto* f = v ? v->get_if<std::shared_ptr<FuncRef>>() : nullptr;
  if (!f || !*f || (*f)->name.empty()) fail("attr '" + std::string(name) + "' must name a function");
  return **f;
}

std::vector<DType> type_list_attr(const KernelContext& ctx, const char* name) {
  const AttrValue* v = ctx.node().find_attr(name);
  const AttrList* l = v ? v->get_if<AttrList>() : nullptr;
  return l ? l->type : std::vector<DType>{};
}

std::vector<Tensor> inputs_from(const KernelContext& ctx, int first) {
  std::vector<Tensor> args;
  for (int i = first; i < ctx.num_inputs(); ++i) args.push_back(ctx.input(i));
  return args;
}

// The function's results must be what the node declares (TensorFlow's
// "Function returns N values, expected M" / type mismatch checks).
void check_results(const std::string& function, const std::vector<Tensor>& results, const std::vector<DType>& types,
                   const char* attr) {
  if (results.size() != types.size())
    fail("function '" + function + "' returns " + std::to_string(results.size()) + " value(s), " + attr +
         " declares " + std::to_string(types.size()));
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].dtype() != dtype_base(types[i]))
      fail("function '" + function + "' return value " + std::to_string(i) + " is " +
           dtype_name(results[i].dtype()) + ", " + attr + " declares " + dtype_name(types[i]));
}

void set_outputs(KernelContext& ctx, std::vector<Tensor> results) {
  for (size_t i = 0; i < results.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(results[i]));
}

// TensorFlow's ToBool (kernels/functional_ops.cc): a scalar is true when
// non-zero (a string: non-empty); any other tensor when it has elements.
bool to_bool(const Tensor& value, const std::string& what) {
  const Tensor t = value.to_host();
  if (t.shape().rank() != 0) return t.num_elements() > 0;
  switch (t.dtype()) {
    case DType::Float: return t.data<float>()[0] != 0;
    case DType::Double: return t.data<double>()[0] != 0;
    case DType::Int32: return t.data<int32_t>()[0] != 0;
    case DType::UInt8: return t.data<uint8_t>()[0] != 0;
    case DType::Int16: return t.data<int16_t>()[0] != 0;
    case DType::Int8: return t.data<int8_t>()[0] != 0;
    case DType::Int64: return t.data<int64_t>()[0] != 0;
    case DType::Bool: return t.data<bool>()[0];
    case DType::String: return !t.strings()[0].empty();
    default: fail(what + ": " + dtype_name(t.dtype()) + " cannot be converted to a boolean");
  }
}

void call_kernel(KernelContext& ctx) {
  const FuncRef& f = func_attr(ctx, "f");
  const std::vector<Tensor> args = inputs_from(ctx, 0);
  std::vector<Tensor> results = ctx.functions().call(ctx.node(), f.name, f.attrs, args);
  check_results(f.name, results, type_list_attr(ctx, "Tout"), "Tout");
  set_outputs(ctx, std::move(results));
}

void if_kernel(KernelContext& ctx) {
  if (ctx.num_inputs() < 1) fail("If needs its cond input");
  const bool cond = to_bool(ctx.input(0), "cond");
  const FuncRef& f = func_attr(ctx, cond ? "then_branch" : "else_branch");
  std::vector<Tensor> results = ctx.functions().call(ctx.node(), f.name, f.attrs, inputs_from(ctx, 1));
  check_results(f.name, results, type_list_attr(ctx, "Tout"), "Tout");
  set_outputs(ctx, std::move(results));
}

void case_kernel(KernelContext& ctx) {
  if (ctx.num_inputs() < 1) fail("Case needs its branch_index input");
  const Tensor& index_t = ctx.input(0);
  if (index_t.dtype() != DType::Int32 || index_t.shape().rank() != 0)
    fail("branch_index must be an int32 scalar, got " + dtype_name(index_t.dtype()) + " " +
         index_t.shape().to_string());
  const AttrValue* v = ctx.node().find_attr("branches");
  const AttrList* branches = v ? v->get_if<AttrList>() : nullptr;
  if (!branches || branches->func.empty()) fail("attr 'branches' must list at least one function");
  int64_t index = index_t.to_host().data<int32_t>()[0];
  // CaseOp: "if (branch < 0 || branch >= branches.size()) branch = branches.size() - 1".
  if (index < 0 || index >= static_cast<int64_t>(branches->func.size()))
    index = static_cast<int64_t>(branches->func.size()) - 1;
  const FuncRef& f = branches->func[static_cast<size_t>(index)];
  std::vector<Tensor> results = ctx.functions().call(ctx.node(), f.name, f.attrs, inputs_from(ctx, 1));
  check_results(f.name, results, type_list_attr(ctx, "Tout"), "Tout");
  set_outputs(ctx, std::move(results));
}

void while_kernel(KernelContext& ctx) {
  const FuncRef& cond = func_attr(ctx, "cond");
  const FuncRef& body = func_attr(ctx, "body");
  const std::vector<DType> types = type_list_attr(ctx, "T");
  const int64_t limit = ctx.node().attr_int("_max_iterations", kMaxWhileIterations);
  std::vector<Tensor> vars = inputs_from(ctx, 0);
  FunctionCaller& functions = ctx.functions();
  for (int64_t iteration = 0;; ++iteration) {
    const std::vector<Tensor> c = functions.call(ctx.node(), cond.name, cond.attrs, vars);
    if (c.size() != 1)
      fail("cond function '" + cond.name + "' must return a single scalar which can be converted to a boolean, got " +
           std::to_string(c.size()) + " tensors");
    if (!to_bool(c[0], "cond function '" + cond.name + "'")) break;
    if (iteration >= limit)
      fail("the loop ran " + std::to_string(limit) + " iterations without cond '" + cond.name +
           "' turning false; stopped (the bound on While iterations)");
    if (const RunContext* run = ctx.run_context(); run && run->is_cancelled()) fail("the run was cancelled");
    std::vector<Tensor> next = functions.call(ctx.node(), body.name, body.attrs, vars);
    check_results(body.name, next, types, "T");
    vars = std::move(next);
  }
  set_outputs(ctx, std::move(vars));
}

// Unknown shapes of the Tout dtypes (TensorFlow's UnknownShape).
void call_shape(ShapeContext& ctx) {
  const AttrValue* v = ctx.node().find_attr("Tout");
  const AttrList* l = v ? v->get_if<AttrList>() : nullptr;
  for (int i = 0; i < ctx.num_outputs(); ++i)
    ctx.set_output(i, l && static_cast<size_t>(i) < l->type.size() ? dtype_base(l->type[static_cast<size_t>(i)])
                                                                     : DType::Invalid,
                   Shape::unknown_rank());
}

// IfShapeInferenceFn / CaseShapeInferenceFn: output_shapes when given (one
// per output), else unknown shapes.
void if_shape(ShapeContext& ctx) {
  call_shape(ctx);
  const AttrValue* v = ctx.node().find_attr("output_shapes");
  const AttrList* shapes = v ? v->get_if<AttrList>() : nullptr;
  if (!shapes || shapes->shape.empty()) return;
  if (static_cast<int>(shapes->shape.size()) != ctx.num_outputs())
    fail("`output_shapes` must be the same length as num outputs (" + std::to_string(shapes->shape.size()) + " vs. " +
         std::to_string(ctx.num_outputs()) + ")");
  for (int i = 0; i < ctx.num_outputs(); ++i)
    ctx.set_output(i, ctx.outputs()[static_cast<size_t>(i)].dtype, shapes->shape[static_cast<size_t>(i)]);
}

// WhileShapeInferenceFn: output_shapes when given, else each output is its
// input (shape and handle data).
void while_shape(ShapeContext& ctx) {
  const AttrValue* v = ctx.node().find_attr("output_shapes");
  const AttrList* shapes = v ? v->get_if<AttrList>() : nullptr;
  if (shapes && !shapes->shape.empty()) {
    if (static_cast<int>(shapes->shape.size()) != ctx.num_outputs())
      fail("`output_shapes` must be the same length as num outputs (" + std::to_string(shapes->shape.size()) +
           " vs. " + std::to_string(ctx.num_outputs()) + ")");
    const AttrValue* t = ctx.node().find_attr("T");
    const AttrList* types = t ? t->get_if<AttrList>() : nullptr;
    for (int i = 0; i < ctx.num_outputs(); ++i)
      ctx.set_output(i,
                     types && static_cast<size_t>(i) < types->type.size() ? dtype_base(types->type[static_cast<size_t>(i)])
                                                                          : DType::Invalid,
                     shapes->shape[static_cast<size_t>(i)]);
    return;
  }
  for (int i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i) {
    const TensorInfo& in = ctx.input(i);
    ctx.set_output(i, in.dtype, in.shape);
    ctx.set_output_handle(i, in.handle_dtype, in.handle_shape);
  }
}

}  // namespace

void register_functional_ops(OpRegistry& r) {
  const char* no_gpu = "runs its function's body on the session's devices; the call itself does no device work";
  for (const bool stateful : {false, true}) {
    OpBuilder call(stateful ? "StatefulPartitionedCall" : "PartitionedCall");
    call.input("args: Tin")
        .output("output: Tout")
        .attr("Tin: list(type) >= 0")
        .attr("Tout: list(type) >= 0")
        .attr("f: func")
        .attr("config: string = ''")
        .attr("config_proto: string = ''")
        .attr("executor_type: string = ''")
        .shape(call_shape)
        .cpu(call_kernel)
        .no_gradient(kNoGradient)
        .no_gpu(no_gpu)
        .category("control")
        .doc(stateful ? "Calls function f with args (a function that may have side effects)."
                      : "Calls function f with args.");
    if (stateful) call.stateful();
    r.add(call);

    OpBuilder if_op(stateful ? "If" : "StatelessIf");
    if_op.input("cond: Tcond")
        .input("input: Tin")
        .output("output: Tout")
        .attr("Tcond: type")
        .attr("Tin: list(type) >= 0")
        .attr("Tout: list(type) >= 0")
        .attr("then_branch: func")
        .attr("else_branch: func")
        .attr("output_shapes: list(shape) = []")
        .shape(if_shape)
        .cpu(if_kernel)
        .no_gradient(kNoGradient)
        .no_gpu(no_gpu)
        .category("control")
        .doc("Runs then_branch(input) when cond is true (non-zero scalar, non-empty string or tensor), else "
             "else_branch(input).");
    if (stateful) if_op.stateful();
    r.add(if_op);

    OpBuilder case_op(stateful ? "Case" : "StatelessCase");
    case_op.input("branch_index: int32")
        .input("input: Tin")
        .output("output: Tout")
        .attr("Tin: list(type) >= 0")
        .attr("Tout: list(type) >= 0")
        .attr("branches: list(func) >= 1")
        .attr("output_shapes: list(shape) = []")
        .shape(if_shape)
        .cpu(case_kernel)
        .no_gradient(kNoGradient)
        .no_gpu(no_gpu)
        .category("control")
        .doc("Runs branches[branch_index](input); an index out of range runs the last branch.");
    if (stateful) case_op.stateful();
    r.add(case_op);

    OpBuilder while_op(stateful ? "While" : "StatelessWhile");
    while_op.input("input: T")
        .output("output: T")
        .attr("T: list(type) >= 0")
        .attr("cond: func")
        .attr("body: func")
        .attr("output_shapes: list(shape) = []")
        .attr("parallel_iterations: int = 10")
        .shape(while_shape)
        .cpu(while_kernel)
        .no_gradient(kNoGradient)
        .no_gpu(no_gpu)
        .category("control")
        .doc("output = input; while cond(output): output = body(output).");
    if (stateful) while_op.stateful();
    r.add(while_op);
  }
}

}  // namespace flowlens::ops
