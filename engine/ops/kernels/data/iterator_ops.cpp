// tf.data iterators (tensorflow/core/kernels/data/iterator_ops.cc):
// Iterator, IteratorV2, AnonymousIterator(V2, V3), DeleteIterator,
// MakeIterator, OneShotIterator, IteratorGetNext(Sync),
// IteratorToStringHandle and IteratorFromStringHandle(V2).
//
// An iterator is an IteratorResource (ops/resources/dataset.h) in the session's
// ResourceManager, under (container or "localhost", shared_name); an empty
// shared_name makes it private to its node ("_" + node name), as TensorFlow
// gives each kernel its own. So the iterator survives from run to run:
// MakeIterator (the initializer) points it at a dataset's first element,
// IteratorGetNext advances it and fails with OutOfRange "End of sequence"
// after the last one. OneShotIterator builds its dataset once, by calling
// its dataset_factory function through the run's function library.
#include <mutex>

#include "ops/resources/dataset.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

std::string who(const KernelContext& ctx) { return ctx.node().op + " '" + ctx.node().name + "'"; }

std::string default_container(const std::string& c) { return c.empty() ? "localhost" : c; }

struct Signature {
  std::vector<DType> types;
  std::vector<Shape> shapes;
};

Signature signature(const KernelContext& ctx) {
  Signature s{ctx.attrs().list("output_types").type, ctx.attrs().list("output_shapes").shape};
  for (DType& t : s.types) t = dtype_base(t);
  if (s.types.size() != s.shapes.size())
    fail(who(ctx) + ": output_types lists " + std::to_string(s.types.size()) + " type(s) and output_shapes " +
         std::to_string(s.shapes.size()));
  return s;
}

Tensor handle_tensor(const std::string& container, const std::string& name, std::shared_ptr<IteratorResource> r) {
  ResourceHandle h;
  h.container = container;
  h.name = name;
  h.resource = std::move(r);
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

// The iterator a resource input names.
std::shared_ptr<IteratorResource> iterator_input(const KernelContext& ctx, int i) {
  const Tensor& t = input(ctx, i);
  if (t.dtype() != DType::Resource || t.num_elements() != 1)
    fail(who(ctx) + ": input " + std::to_string(i) + " must be an iterator handle (a resource scalar), got " +
         dtype_name(t.dtype()) + " " + shape_str(t.shape()));
  const ResourceHandle& h = t.handles()[0];
  auto it = std::dynamic_pointer_cast<IteratorResource>(h.resource);
  if (!it)
    fail(who(ctx) + ": input " + std::to_string(i) + " names " +
         (h.resource ? "a " + h.resource->kind() : std::string("a variable")) + " (" + h.qualified_name() +
         "), not an iterator");
  return it;
}

// The session's iterator under (container, name), made with this node's signature.
std::shared_ptr<IteratorResource> session_iterator(KernelContext& ctx, const std::string& container,
                                                   const std::string& name) {
  const Signature s = signature(ctx);
  auto r = ctx.resources().lookup_or_create<IteratorResource>(
      container, name, [&] { return std::make_shared<IteratorResource>(s.types, s.shapes, name); });
  // A shared iterator another node made must produce what this one declares.
  try {
    verify_types_match(s.types, r->output_types());
    verify_shapes_compatible(s.shapes, r->output_shapes());
  } catch (const Error& e) {
    fail(who(ctx) + ": the iterator " + container + "/" + name + " exists with another signature: " + e.what());
  }
  return r;
}

void iterator_kernel(KernelContext& ctx) {
  const std::string container = default_container(ctx.attrs().string("container"));
  const std::string& shared = ctx.attrs().string("shared_name");
  const std::string name = shared.empty() ? "_" + ctx.node().name : shared;
  ctx.set_output(0, handle_tensor(container, name, session_iterator(ctx, container, name)));
}

// Anonymous iterators are registered too (as TensorFlow's are), under a
// fresh name, so a string handle can name them.
std::string anonymous_name() {
  static std::atomic<int64_t> counter{0};
  return "_AnonymousIterator" + std::to_string(counter.fetch_add(1));
}

// AnonymousIteratorV2's deleter: DeleteIterator takes it with the handle.
class IteratorDeleter final : public VariantValue {
 public:
  std::string type_name() const override { return "tensorflow::data::IteratorResource::Deleter"; }
};

void anonymous_iterator_kernel(KernelContext& ctx) {
  const std::string name = anonymous_name();
  ctx.set_output(0, handle_tensor("localhost", name, session_iterator(ctx, "localhost", name)));
  if (ctx.num_outputs() > 1) ctx.set_output(1, Tensor::from_variants(Shape{}, {std::make_shared<IteratorDeleter>()}));
}

void delete_iterator_kernel(KernelContext& ctx) {
  iterator_input(ctx, 0);
  const ResourceHandle& h = input(ctx, 0).handles()[0];
  ctx.resources().erase(h.container, h.name);
}

void make_iterator_kernel(KernelContext& ctx) {
  DatasetPtr dataset = dataset_from_tensor(input(ctx, 0), who(ctx));
  std::shared_ptr<IteratorResource> it = iterator_input(ctx, 1);
  try {
    it->set_dataset(std::move(dataset));
  } catch (const Error& e) {
    fail(who(ctx) + ": " + e.what());
  }
}

void one_shot_iterator_kernel(KernelContext& ctx) {
  const std::string container = default_container(ctx.attrs().string("container"));
  const std::string& shared = ctx.attrs().string("shared_name");
  const std::string name = shared.empty() ? "_" + ctx.node().name : shared;
  std::shared_ptr<IteratorResource> it = session_iterator(ctx, container, name);
  // The factory runs once per iterator, the first time the node runs.
  static std::mutex init_mu;
  std::lock_guard lock(init_mu);
  if (!it->initialized()) {
    const AttrValue& f = ctx.attrs().get("dataset_factory");
    const auto* fn = f.get_if<std::shared_ptr<FuncRef>>();
    if (!fn || !*fn || (*fn)->name.empty())
      fail(who(ctx) + ": attr 'dataset_factory' must name a function, got " + f.to_string());
    std::vector<Tensor> made = ctx.functions().call(ctx.node(), (*fn)->name, (*fn)->attrs, {});
    if (made.size() != 1)
      fail(who(ctx) + ": dataset_factory '" + (*fn)->name + "' returned " + std::to_string(made.size()) +
           " values, expected one dataset");
    DatasetPtr d = dataset_from_tensor(made[0], who(ctx) + ": dataset_factory '" + (*fn)->name + "'");
    try {
      it->set_dataset(std::move(d));
    } catch (const Error& e) {
      fail(who(ctx) + ": " + e.what());
    }
  }
  ctx.set_output(0, handle_tensor(container, name, std::move(it)));
}

void get_next_kernel(KernelContext& ctx) {
  std::shared_ptr<IteratorResource> it = iterator_input(ctx, 0);
  const Signature s = signature(ctx);
  const RunContext* run = ctx.run_context();
  IteratorContext ictx{run ? run->functions : nullptr, run};
  DatasetElement e = it->get_next(ictx);  // OutOfRangeError passes through as is
  try {
    std::vector<DType> types;
    std::vector<Shape> shapes;
    for (const Tensor& t : e) {
      types.push_back(t.dtype());
      shapes.push_back(t.shape());
    }
    verify_types_match(s.types, types);
    verify_shapes_compatible(s.shapes, shapes);
  } catch (const Error& err) {
    fail(who(ctx) + ": " + err.what());
  }
  if (static_cast<int>(e.size()) != ctx.num_outputs())
    fail(who(ctx) + ": the element has " + std::to_string(e.size()) + " components for " +
         std::to_string(ctx.num_outputs()) + " outputs");
  for (size_t i = 0; i < e.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(e[i]));
}

// A string handle names the iterator in this session: "container:name"
// (TensorFlow's is a serialized ResourceHandleProto; container names hold
// no ':').
void to_string_handle_kernel(KernelContext& ctx) {
  iterator_input(ctx, 0);
  const ResourceHandle& h = input(ctx, 0).handles()[0];
  ctx.set_output(0, Tensor::from_strings(Shape{}, {h.container + ":" + h.name}));
}

void from_string_handle_kernel(KernelContext& ctx) {
  const Tensor& t = input(ctx, 0);
  if (t.dtype() != DType::String || t.shape().rank() != 0)
    fail(who(ctx) + ": string_handle must be a string scalar, got " + dtype_name(t.dtype()) + " " + shape_str(t.shape()));
  const std::string& text = t.strings()[0];
  const size_t colon = text.find(':');
  if (colon == std::string::npos)
    fail(who(ctx) + ": Could not parse string_handle as a valid iterator handle: '" + text + "'");
  const std::string container = text.substr(0, colon), name = text.substr(colon + 1);
  auto it = std::dynamic_pointer_cast<IteratorResource>(ctx.resources().lookup(container, name));
  if (!it) fail(who(ctx) + ": no iterator " + container + "/" + name + " in this session");
  const Signature s = signature(ctx);
  try {
    if (!s.types.empty()) verify_types_match(s.types, it->output_types());
    if (!s.shapes.empty()) verify_shapes_compatible(s.shapes, it->output_shapes());
  } catch (const Error& e) {
    fail(who(ctx) + ": " + e.what());
  }
  ctx.set_output(0, handle_tensor(container, name, std::move(it)));
}

// ---- shape functions -------------------------------------------------------------------

void resource_scalar_shape(ShapeContext& ctx) {
  ctx.set_output(0, DType::Resource, Shape{});
  if (ctx.num_outputs() > 1) ctx.set_output(1, DType::Variant, Shape{});
}

void no_outputs_shape(ShapeContext&) {}

void string_scalar_shape(ShapeContext& ctx) { ctx.set_output(0, DType::String, Shape{}); }

// TensorFlow's DatasetIteratorShape: output i has output_shapes[i].
void get_next_shape(ShapeContext& ctx) {
  const std::vector<DType>& types = ctx.attrs().list("output_types").type;
  const std::vector<Shape>& shapes = ctx.attrs().list("output_shapes").shape;
  if (shapes.size() != types.size())
    fail("`output_shapes` must be the same length as `output_types` (" + std::to_string(shapes.size()) + " vs. " +
         std::to_string(types.size()) + ")");
  for (int i = 0; i < ctx.num_outputs() && static_cast<size_t>(i) < types.size(); ++i)
    ctx.set_output(i, dtype_base(types[static_cast<size_t>(i)]), shapes[static_cast<size_t>(i)]);
}

const char* kNoGradient = "an iterator carries no gradient; TensorFlow registers none for the iterator ops";
const char* kNoGpu = "iterators live in the host's resource manager (TensorFlow's iterator kernels run on the CPU)";

OpBuilder iterator_op(const char* name) {
  OpBuilder b(name);
  b.stateful().no_gradient(kNoGradient).no_gpu(kNoGpu).category("io");
  return b;
}

}  // namespace

void register_iterator_ops(OpRegistry& r) {
  for (const char* op : {"Iterator", "IteratorV2"})
    r.add(iterator_op(op)
              .output("handle: resource")
              .attr("shared_name: string")
              .attr("container: string")
              .attr("output_types: list(type) >= 1")
              .attr("output_shapes: list(shape) >= 1")
              .shape(resource_scalar_shape)
              .cpu(iterator_kernel)
              .doc("An iterator kept in the session under (container, shared_name); MakeIterator initializes it "
                   "(make_initializable_iterator)."));
  r.add(iterator_op("AnonymousIterator")
            .output("handle: resource")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .shape(resource_scalar_shape)
            .cpu(anonymous_iterator_kernel)
            .doc("A new iterator each time it runs (MakeIterator initializes it)."));
  r.add(iterator_op("AnonymousIteratorV2")
            .output("handle: resource")
            .output("deleter: variant")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .shape(resource_scalar_shape)
            .cpu(anonymous_iterator_kernel)
            .doc("A new iterator each time it runs, with the deleter DeleteIterator takes."));
  r.add(iterator_op("AnonymousIteratorV3")
            .output("handle: resource")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .shape(resource_scalar_shape)
            .cpu(anonymous_iterator_kernel)
            .doc("A new iterator each time it runs."));
  r.add(iterator_op("DeleteIterator")
            .input("handle: resource")
            .input("deleter: variant")
            .shape(no_outputs_shape)
            .cpu(delete_iterator_kernel)
            .doc("Removes an anonymous iterator from the session."));
  r.add(iterator_op("MakeIterator")
            .input("dataset: variant")
            .input("iterator: resource")
            .shape(no_outputs_shape)
            .cpu(make_iterator_kernel)
            .doc("(Re)starts an iterator at the first element of a dataset (the iterator's initializer)."));
  r.add(iterator_op("OneShotIterator")
            .output("handle: resource")
            .attr("dataset_factory: func")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("container: string = ''")
            .attr("shared_name: string = ''")
            .shape(resource_scalar_shape)
            .cpu(one_shot_iterator_kernel)
            .doc("An iterator over the dataset its dataset_factory function builds, made the first time it runs "
                 "(make_one_shot_iterator)."));
  for (const char* op : {"IteratorGetNext", "IteratorGetNextSync"})
    r.add(iterator_op(op)
              .input("iterator: resource")
              .output("components: output_types")
              .attr("output_types: list(type) >= 1")
              .attr("output_shapes: list(shape) >= 1")
              .shape(get_next_shape)
              .cpu(get_next_kernel)
              .doc("The iterator's next element; OutOfRange \"End of sequence\" after the last one."));
  r.add(iterator_op("IteratorToStringHandle")
            .input("resource_handle: resource")
            .output("string_handle: string")
            .shape(string_scalar_shape)
            .cpu(to_string_handle_kernel)
            .doc("A string naming the iterator in this session (feed it to IteratorFromStringHandle)."));
  for (const char* op : {"IteratorFromStringHandle", "IteratorFromStringHandleV2"})
    r.add(iterator_op(op)
              .input("string_handle: string")
              .output("resource_handle: resource")
              .attr("output_types: list(type) >= 0 = []")
              .attr("output_shapes: list(shape) >= 0 = []")
              .shape(resource_scalar_shape)
              .cpu(from_string_handle_kernel)
              .doc("The iterator a string handle names (tf.data.Iterator.from_string_handle)."));
}

}  // namespace flowlens::ops
