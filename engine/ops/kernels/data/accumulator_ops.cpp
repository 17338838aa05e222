// TensorFlow's gradient accumulator ops (tensorflow/core/ops/data_flow_ops.cc;
// kernels in conditional_accumulator_base_op.{h,cc},
// conditional_accumulator_op.cc, sparse_conditional_accumulator_op.cc), what
// tf.train.SyncReplicasOptimizer builds: ConditionalAccumulator and
// SparseConditionalAccumulator output a Ref(string) handle, the string pair
// [container, name]; ResourceConditionalAccumulator a resource handle. Either
// names an accumulator in the session's resources (shared_name, else one
// private to the node), which ops/resources/conditional_accumulator.h keeps.
//
// The Ref(string) handle is the node's own state (keeps_state), so the ops
// taking `handle: Ref(string)` are bound to it as to a variable and read the
// name pair from it.
//
// Unlike TensorFlow's defs, the ops acting on an accumulator are marked
// stateful: each run changes or reads the accumulator, so none may be
// constant-folded or merged with a twin (TensorFlow relies on the ref input,
// or on resource-op handling, for the same).
#include <type_traits>

#include "ops/framework/kernel_checks.h"
#include "ops/framework/op_helpers.h"
#include "ops/resources/conditional_accumulator.h"

namespace flowlens::ops {
namespace {

constexpr const char* kAccumulatorContainer = "localhost";  // the ResourceMgr's default container
const char* const accumulator_host_only = "an accumulator lives in host memory, in the session's resources";
const char* const accumulator_no_grad =
    "an accumulator gathers gradients through session state; TensorFlow registers no gradient for its ops";
const std::vector<DType> accumulator_types = {DType::Half, DType::Float, DType::Double};

std::string accumulator_label(const KernelContext& ctx) { return ctx.node().op + " '" + ctx.node().name + "'"; }

AccumulatorReduction accumulator_reduction_of(const KernelContext& ctx) {
  const std::string& r = ctx.attrs().string("reduction_type");
  if (r == "MEAN") return AccumulatorReduction::Mean;
  if (r == "SUM") return AccumulatorReduction::Sum;
  fail(accumulator_label(ctx) + ": reduction_type must be 'MEAN' or 'SUM', got '" + r + "'");
}

// cinfo_.Init: the container attr or the default one; shared_name, or a name
// private to this node (TensorFlow's private names start with '_' too).
std::pair<std::string, std::string> accumulator_key(const KernelContext& ctx) {
  const AttrReader a = ctx.attrs();
  std::string container = a.string("container");
  if (container.empty()) container = kAccumulatorContainer;
  std::string name = a.string("shared_name");
  if (name.empty()) name = "_" + ctx.node().name;
  return {container, name};
}

template <class A>
std::shared_ptr<A> make_accumulator_resource(const KernelContext& ctx, const std::string& container,
                                             const std::string& name) {
  const AttrReader a = ctx.attrs();
  const DType dtype = a.type("dtype");
  const Shape shape = a.shape("shape");
  const AccumulatorReduction reduction = accumulator_reduction_of(ctx);
  // TensorFlow's MatchesNodeDef accepts any node asking for a shared
  // accumulator: the first node's dtype, shape and reduction hold.
  return ctx.resources().lookup_or_create<A>(
      container, name, [&] { return std::make_shared<A>(dtype, shape, name, reduction); });
}

template <class A>
void ref_accumulator_kernel(KernelContext& ctx) {
  Variable* own = ctx.own_variable();
  if (own) {
    std::lock_guard lock(own->mu);
    if (own->value.valid()) {
      ctx.set_output(0, own->value);
      return;
    }
  }
  const auto [container, name] = accumulator_key(ctx);
  make_accumulator_resource<A>(ctx, container, name);
  Tensor handle = Tensor::from_strings(Shape{2}, {container, name});
  if (own) {
    std::lock_guard lock(own->mu);
    own->value = handle;
  }
  ctx.set_output(0, std::move(handle));
}

void resource_accumulator_kernel(KernelContext& ctx) {
  const auto [container, name] = accumulator_key(ctx);
  ResourceHandle h;
  h.container = container;
  h.name = name;
  h.resource = make_accumulator_resource<ConditionalAccumulator>(ctx, container, name);
  ctx.set_output(0, Tensor::from_handles(Shape{}, {std::move(h)}));
}

// ---- finding the accumulator a handle names -------------------------------------

std::shared_ptr<ResourceBase> lookup_named_accumulator(const KernelContext& ctx, const std::string& container,
                                                       const std::string& name) {
  std::shared_ptr<ResourceBase> r = ctx.resources().lookup(container, name);
  if (!r)
    fail(accumulator_label(ctx) + ": Resource " + container + "/" + name +
         "/N10tensorflow26ConditionalAccumulatorBaseE does not exist.");
  return r;
}

template <class A>
A& cast_to_accumulator(const KernelContext& ctx, const std::shared_ptr<ResourceBase>& r, const std::string& qualified) {
  A* a = dynamic_cast<A*>(r.get());
  if (!a)
    fail(accumulator_label(ctx) + ": '" + qualified + "' is " + (r ? "a " + r->kind() : std::string("nothing")) +
         ", not a " + (std::is_same_v<A, SparseConditionalAccumulator> ? "SparseConditionalAccumulator"
                                                                       : "ConditionalAccumulator"));
  return *a;
}

// The accumulator behind input 0, a Ref(string) [container, name] pair or a
// resource handle; `keep` holds it alive while the kernel runs.
template <class A>
A& accumulator_input(const KernelContext& ctx, std::shared_ptr<ResourceBase>& keep) {
  const Tensor& h = input(ctx, 0);
  if (h.dtype() == DType::Resource) {
    const ResourceHandle& handle = handle_input(ctx, 0);
    keep = handle.resource ? handle.resource : lookup_named_accumulator(ctx, handle.container, handle.name);
    return cast_to_accumulator<A>(ctx, keep, handle.qualified_name());
  }
  if (h.dtype() != DType::String || h.shape() != Shape{2})
    fail(accumulator_label(ctx) + ": input 0 must be an accumulator handle, a string pair [container, name], got " +
         dtype_name(h.dtype()) + h.shape().to_string());
  const std::vector<std::string>& pair = h.strings();
  keep = lookup_named_accumulator(ctx, pair[0], pair[1]);
  return cast_to_accumulator<A>(ctx, keep, pair[0] + "/" + pair[1]);
}

std::string accumulator_handle_type(const KernelContext& ctx) {
  return ctx.input(0).dtype() == DType::Resource ? "resource" : "string_ref";
}

// TensorFlow's MatchSignature: the inputs after the handle, and the outputs
// (the node's dtype attr for a take), must be the expected dtypes; the message
// lists both sides as "inputs->outputs".
void check_accumulator_signature(const KernelContext& ctx, const std::vector<DType>& expected_tail,
                                 const std::vector<DType>& outputs = {},
                                 const std::vector<DType>& expected_outputs = {}) {
  bool match = ctx.num_inputs() == static_cast<int>(expected_tail.size()) + 1 && outputs == expected_outputs;
  for (size_t i = 0; match && i < expected_tail.size(); ++i)
    match = ctx.input(static_cast<int>(i) + 1).dtype() == expected_tail[i];
  if (match) return;
  auto list = [](std::string s, const std::vector<DType>& types) {
    for (DType t : types) s += (s.empty() ? "" : ", ") + tf_type_name(t);
    return s;
  };
  std::vector<DType> have_inputs;
  for (int i = 1; i < ctx.num_inputs(); ++i) have_inputs.push_back(ctx.input(i).dtype());
  const std::string handle = accumulator_handle_type(ctx);
  fail(accumulator_label(ctx) + ": Signature mismatch, have: " + list(handle, have_inputs) + "->" + list("", outputs) +
       " expected: " + list(handle, expected_tail) + "->" + list("", expected_outputs));
}

int64_t accumulator_scalar_argument(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = input(ctx, i);
  if (t.shape().rank() != 0)
    fail(accumulator_label(ctx) + ": Argument " + what + " must be scalar, but had bad shape " +
         t.shape().to_string());
  if (t.dtype() == DType::Int64) return t.data<int64_t>()[0];
  return t.data<int32_t>()[0];
}

AccumulatorWait accumulator_take_wait(const KernelContext& ctx) {
  AccumulatorWait w;
  w.run = ctx.run_context();
  if (w.run) w.timeout_s = w.run->blocking_timeout_s;
  w.op = accumulator_label(ctx);
  return w;
}

// ---- kernels ----------------------------------------------------------------------

void accumulator_apply_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  std::shared_ptr<ResourceBase> keep;
  ConditionalAccumulator& acc = accumulator_input<ConditionalAccumulator>(ctx, keep);
  check_accumulator_signature(ctx, {DType::Int64, acc.dtype()});
  const int64_t local_step = accumulator_scalar_argument(ctx, 1, "local_step");
  acc.apply(local_step, input(ctx, 2));
}

void accumulator_take_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  std::shared_ptr<ResourceBase> keep;
  ConditionalAccumulator& acc = accumulator_input<ConditionalAccumulator>(ctx, keep);
  check_accumulator_signature(ctx, {DType::Int32}, {ctx.attrs().type("dtype")}, {acc.dtype()});
  const int64_t num_required = accumulator_scalar_argument(ctx, 1, "num_required");
  ctx.set_output(0, acc.take(num_required, accumulator_take_wait(ctx)));
}

void sparse_accumulator_apply_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 5);
  std::shared_ptr<ResourceBase> keep;
  SparseConditionalAccumulator& acc = accumulator_input<SparseConditionalAccumulator>(ctx, keep);
  check_accumulator_signature(ctx, {DType::Int64, DType::Int64, acc.dtype(), DType::Int64});
  const int64_t local_step = accumulator_scalar_argument(ctx, 1, "local_step");
  const bool has_known_shape = ctx.attrs().boolean("has_known_shape");
  acc.apply(local_step, input(ctx, 2), input(ctx, 3), has_known_shape ? &input(ctx, 4) : nullptr);
}

void sparse_accumulator_take_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  std::shared_ptr<ResourceBase> keep;
  SparseConditionalAccumulator& acc = accumulator_input<SparseConditionalAccumulator>(ctx, keep);
  const DType want = ctx.attrs().type("dtype");
  check_accumulator_signature(ctx, {DType::Int32}, {DType::Int64, want, DType::Int64},
                              {DType::Int64, acc.dtype(), DType::Int64});
  const int64_t num_required = accumulator_scalar_argument(ctx, 1, "num_required");
  SparseGradient g = acc.take(num_required, accumulator_take_wait(ctx));
  ctx.set_output(0, std::move(g.indices));
  ctx.set_output(1, std::move(g.values));
  ctx.set_output(2, std::move(g.shape));
}

// Dense and sparse accumulators alike (TensorFlow's ops take either).
ConditionalAccumulatorBase& any_accumulator_input(const KernelContext& ctx, std::shared_ptr<ResourceBase>& keep) {
  const Tensor& h = input(ctx, 0);
  if (h.dtype() != DType::Resource && (h.dtype() != DType::String || h.num_elements() != 2))
    fail(accumulator_label(ctx) + ": input 0 must be an accumulator handle, a string pair [container, name], got " +
         dtype_name(h.dtype()) + h.shape().to_string());
  std::string qualified;
  if (h.dtype() == DType::Resource) {
    const ResourceHandle& handle = handle_input(ctx, 0);
    keep = handle.resource ? handle.resource : lookup_named_accumulator(ctx, handle.container, handle.name);
    qualified = handle.qualified_name();
  } else {
    keep = lookup_named_accumulator(ctx, h.strings()[0], h.strings()[1]);
    qualified = h.strings()[0] + "/" + h.strings()[1];
  }
  auto* a = dynamic_cast<ConditionalAccumulatorBase*>(keep.get());
  if (!a) fail(accumulator_label(ctx) + ": '" + qualified + "' is a " + keep->kind() + ", not an accumulator");
  return *a;
}

void accumulator_num_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  std::shared_ptr<ResourceBase> keep;
  ctx.set_output(0, Tensor::scalar<int32_t>(any_accumulator_input(ctx, keep).num_accumulated()));
}

void accumulator_set_step_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  std::shared_ptr<ResourceBase> keep;
  ConditionalAccumulatorBase& acc = any_accumulator_input(ctx, keep);
  check_accumulator_signature(ctx, {DType::Int64});
  const std::string warning = acc.set_global_step(accumulator_scalar_argument(ctx, 1, "new_global_step"));
  if (!warning.empty()) ctx.log(LogStream::Warning, warning + "\n");
}

// ---- shape functions ------------------------------------------------------------------

void accumulator_rank0_input(const ShapeContext& ctx, int i) {
  if (i >= ctx.num_inputs()) return;
  const Shape& s = ctx.input(i).shape;
  if (s.rank_known() && s.rank() != 0) fail("Shape must be rank 0 but is rank " + std::to_string(s.rank()));
}

void accumulator_string_pair_shape(ShapeContext& ctx) { ctx.set_output(0, DType::String, Shape{2}); }
// TensorFlow's shape function says [2] here as for the Ref(string) handle;
// the handle the kernel makes is a scalar resource, as every resource handle.
// The handle carries the accumulator's dtype and shape to the takes.
void accumulator_resource_handle_shape(ShapeContext& ctx) {
  ctx.set_output(0, DType::Resource, Shape{});
  const AttrValue* dtype = ctx.attrs().find("dtype");
  const AttrValue* shape = ctx.attrs().find("shape");
  const DType* t = dtype ? dtype->get_if<DType>() : nullptr;
  const Shape* s = shape ? shape->get_if<Shape>() : nullptr;
  if (t) ctx.set_output_handle(0, *t, s ? *s : Shape::unknown_rank());
}
void accumulator_step_shape(ShapeContext& ctx) { accumulator_rank0_input(ctx, 1); }
// TensorFlow's shape function gives an unknown shape and its Python sets the
// accumulator's shape on the result: here that shape comes from a constant
// handle's accumulator or from the handle's data.
void accumulator_take_shape(ShapeContext& ctx) {
  accumulator_rank0_input(ctx, 1);
  Shape s = Shape::unknown_rank();
  const Tensor* h = ctx.num_inputs() > 0 ? ctx.constant_input(0) : nullptr;
  const ConditionalAccumulator* acc =
      h && h->dtype() == DType::Resource && h->num_elements() == 1 ? h->handles()[0].get<ConditionalAccumulator>()
                                                                   : nullptr;
  if (acc)
    s = acc->pending_shape();
  else if (ctx.num_inputs() > 0)
    s = ctx.input(0).handle_shape;
  ctx.set_output(0, attr_or_input_dtype(ctx, "dtype", -1), std::move(s));
}
void sparse_accumulator_take_shape(ShapeContext& ctx) {
  accumulator_rank0_input(ctx, 1);
  ctx.set_output(0, DType::Int64, Shape::unknown_rank());
  ctx.set_output(1, attr_or_input_dtype(ctx, "dtype", -1), Shape::unknown_rank());
  ctx.set_output(2, DType::Int64, Shape::unknown_rank());
}
void accumulator_num_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Int32, Shape{}); }

OpBuilder& accumulator_attrs(OpBuilder& b) {
  return b.attr("dtype: numbertype")
      .attr("shape: shape")
      .attr("container: string = ''")
      .attr("shared_name: string = ''")
      .attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'");
}

OpDef finish_accumulator_op(OpBuilder& b, const char* doc) {
  return b.not_differentiable(accumulator_no_grad).no_gpu(accumulator_host_only).category("training").doc(doc).build();
}

}  // namespace

void register_accumulator_ops(OpRegistry& r) {
  {
    OpBuilder b("ConditionalAccumulator");
    b.output("handle: Ref(string)");
    accumulator_attrs(b).keeps_state().shape(accumulator_string_pair_shape);
    b.cpu(ref_accumulator_kernel<ConditionalAccumulator>, accumulator_types, "dtype");
    r.add(finish_accumulator_op(
        b, "An accumulator of dense gradients: sums them, drops stale ones, hands out their mean or sum."));
  }
  {
    OpBuilder b("ResourceConditionalAccumulator");
    b.output("handle: resource");
    accumulator_attrs(b).stateful().shape(accumulator_resource_handle_shape);
    b.cpu(resource_accumulator_kernel, accumulator_types, "dtype");
    r.add(finish_accumulator_op(b, "A ConditionalAccumulator named by a resource handle."));
  }
  {
    OpBuilder b("SparseConditionalAccumulator");
    b.output("handle: Ref(string)");
    accumulator_attrs(b).keeps_state().shape(accumulator_string_pair_shape);
    b.cpu(ref_accumulator_kernel<SparseConditionalAccumulator>, accumulator_types, "dtype");
    r.add(finish_accumulator_op(b, "An accumulator of sparse (IndexedSlices) gradients, averaged per index."));
  }
  for (const char* handle : {"Ref(string)", "resource"}) {
    const bool ref = std::string_view(handle) == "Ref(string)";
    const std::string h = std::string("handle: ") + handle;
    {
      OpBuilder b(ref ? "AccumulatorApplyGradient" : "ResourceAccumulatorApplyGradient");
      b.input(h).input("local_step: int64").input("gradient: dtype").attr("dtype: numbertype");
      b.stateful().shape(accumulator_step_shape).cpu(accumulator_apply_kernel);
      r.add(finish_accumulator_op(
          b, "Adds a gradient to the accumulator, or drops it when local_step is below its global step."));
    }
    {
      OpBuilder b(ref ? "AccumulatorTakeGradient" : "ResourceAccumulatorTakeGradient");
      b.input(h).input("num_required: int32").output("average: dtype").attr("dtype: numbertype");
      b.stateful().shape(accumulator_take_shape).cpu(accumulator_take_kernel);
      r.add(finish_accumulator_op(
          b, "Waits for num_required gradients, returns their mean or sum, resets, and steps the global step."));
    }
    {
      OpBuilder b(ref ? "AccumulatorNumAccumulated" : "ResourceAccumulatorNumAccumulated");
      b.input(h).output("num_accumulated: int32");
      b.stateful().shape(accumulator_num_shape).cpu(accumulator_num_kernel);
      r.add(finish_accumulator_op(b, "The number of gradients accumulated since the last take."));
    }
    {
      OpBuilder b(ref ? "AccumulatorSetGlobalStep" : "ResourceAccumulatorSetGlobalStep");
      b.input(h).input("new_global_step: int64");
      b.stateful().shape(accumulator_step_shape).cpu(accumulator_set_step_kernel);
      r.add(finish_accumulator_op(b, "Sets the accumulator's global step (a smaller one too, with a warning)."));
    }
  }
  {
    OpBuilder b("SparseAccumulatorApplyGradient");
    b.input("handle: Ref(string)")
        .input("local_step: int64")
        .input("gradient_indices: int64")
        .input("gradient_values: dtype")
        .input("gradient_shape: int64")
        .attr("dtype: numbertype")
        .attr("has_known_shape: bool");
    b.stateful().shape(accumulator_step_shape).cpu(sparse_accumulator_apply_kernel);
    r.add(finish_accumulator_op(b, "Adds a sparse gradient to the accumulator, or drops it when local_step is stale."));
  }
  {
    OpBuilder b("SparseAccumulatorTakeGradient");
    b.input("handle: Ref(string)")
        .input("num_required: int32")
        .output("indices: int64")
        .output("values: dtype")
        .output("shape: int64")
        .attr("dtype: numbertype");
    b.stateful().shape(sparse_accumulator_take_shape).cpu(sparse_accumulator_take_kernel);
    r.add(finish_accumulator_op(b, "Waits for num_required sparse gradients and returns their per-index mean or sum."));
  }
}

}  // namespace flowlens::ops
