// TensorFlow's queue ops (tensorflow/core/ops/data_flow_ops.cc, the V2
// resource forms): FIFOQueueV2, RandomShuffleQueueV2 and PaddingFIFOQueueV2
// make (or find, by shared_name) a queue in the session's resources and
// output its handle; QueueEnqueueV2 / QueueEnqueueManyV2 /
// QueueDequeueV2 / QueueDequeueManyV2 / QueueDequeueUpToV2 / QueueCloseV2 /
// QueueSizeV2 / QueueIsClosedV2 act on the queue the handle names
// (ops/resources/queue.h holds the queue itself and its semantics).
//
// timeout_ms is accepted and, as in TensorFlow ("not supported yet"),
// ignored: a wait ends with the session's blocking timeout instead, whose
// message says who should have filled the queue.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "graph/graph.h"
#include "ops/framework/kernel_checks.h"
#include "ops/framework/op_helpers.h"
#include "ops/resources/queue.h"

namespace flowlens::ops {
namespace {

constexpr const char* kDefaultContainer = "localhost";
const char* const host_only = "a queue lives in host memory, in the session's resources";
const char* const no_grad = "a queue moves tensors through session state; TensorFlow registers no gradient for its ops";

QueueType queue_type_of(const std::string& op) {
  if (op == "RandomShuffleQueueV2") return QueueType::RandomShuffle;
  if (op == "PaddingFIFOQueueV2") return QueueType::PaddingFIFO;
  return QueueType::FIFO;
}

QueueOptions queue_options(const KernelContext& ctx) {
  const AttrReader a = ctx.attrs();
  QueueOptions o;
  o.type = queue_type_of(ctx.node().op);
  const std::string& shared = a.string("shared_name");
  o.name = shared.empty() ? ctx.node().name : shared;
  o.dtypes = a.list("component_types").type;
  o.shapes = a.list("shapes").shape;
  o.capacity = a.integer("capacity");
  if (o.type == QueueType::RandomShuffle) {
    o.min_after_dequeue = a.integer("min_after_dequeue");
    o.seed = a.integer("seed");
    o.seed2 = a.integer("seed2");
  }
  return o;
}

void queue_kernel(KernelContext& ctx) {
  const QueueOptions o = queue_options(ctx);
  std::string container = ctx.attrs().string("container");
  if (container.empty()) container = kDefaultContainer;
  auto queue = ctx.resources().lookup_or_create<Queue>(container, o.name, [&] { return std::make_shared<Queue>(o); });
  queue->check_matches(o);
  ResourceHandle h;
  h.container = container;
  h.name = o.name;
  h.resource = queue;
  ctx.set_output(0, Tensor::from_handles(Shape{}, {std::move(h)}));
}

void queue_shape(ShapeContext& ctx) {
  ctx.set_output(0, DType::Resource, Shape{});
  const AttrValue* types = ctx.attrs().find("component_types");
  const AttrValue* shapes = ctx.attrs().find("shapes");
  const AttrList* t = types ? types->get_if<AttrList>() : nullptr;
  const AttrList* s = shapes ? shapes->get_if<AttrList>() : nullptr;
  // One component: its dtype and shape ride on the handle, for the dequeue ops.
  if (t && t->type.size() == 1)
    ctx.set_output_handle(0, t->type[0], s && s->shape.size() == 1 ? s->shape[0] : Shape::unknown_rank());
}

Queue& queue_input(const KernelContext& ctx) {
  const ResourceHandle& h = handle_input(ctx, 0);
  Queue* q = h.get<Queue>();
  if (!q)
    fail(ctx.node().op + ": input 0 names " + (h.resource ? "a " + h.resource->kind() : "the variable '" + h.qualified_name() + "'") +
         ", not a queue");
  return *q;
}

// ---- who fills a queue: the timeout message ------------------------------------

std::string quoted_list(const Graph& g, const std::vector<int>& nodes) {
  std::string s;
  for (size_t i = 0; i < nodes.size(); ++i)
    s += (i ? ", '" : "'") + g.nodes()[static_cast<size_t>(nodes[i])].name + "'";
  return s;
}

// "60", "0.3": how long a wait lasted, as the user gave the timeout.
std::string seconds_text(double seconds) {
  if (seconds >= 10) return std::to_string(static_cast<int64_t>(std::lround(seconds)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", seconds);
  std::string s = buf;
  if (s.size() > 2 && s.ends_with(".0")) s.resize(s.size() - 2);
  return s;
}

std::string dequeue_timeout_message(const KernelContext& ctx, const QueueSnapshot& s, double seconds, int64_t wanted) {
  const Node& node = ctx.node();
  std::string m = node.op + " '" + node.name + "' waited " + seconds_text(seconds) + " s on " + s.description + ": ";
  if (s.total_enqueued == 0)
    m += "nothing enqueued";
  else if (s.size == 0)
    m += std::to_string(s.total_enqueued) + " element(s) enqueued so far, all dequeued";
  else
    m += std::to_string(s.size) + " element(s) there, fewer than the " + std::to_string(wanted) +
         " it takes (a RandomShuffleQueue also keeps min_after_dequeue until it is closed)";
  const Graph* g = ctx.run_context() ? ctx.run_context()->graph : nullptr;
  const int self = g ? g->index_of(node.name) : -1;
  const int queue_node = self >= 0 ? queue_node_of(*g, self) : -1;
  const std::string feed = "feed '" + node.name + ":0' directly";
  if (!s.runner_status.empty()) return m + "; " + s.runner_status;
  if (queue_node < 0) return m + "; start what fills it, or " + feed;
  const QueueUsers users = queue_users(*g, queue_node);
  if (users.enqueue_ops.empty())
    return m + "; nothing in the graph enqueues to it (no QueueEnqueueV2 or QueueEnqueueManyV2 takes its handle): " +
           feed;
  const bool one = users.enqueue_ops.size() == 1;
  return m + "; its enqueue op" + (one ? " " : "s ") + quoted_list(*g, users.enqueue_ops) +
         (one ? " runs" : " run") +
         " only from a queue runner: start queue runners (flowlens-run does by default) or run " +
         (one ? "it" : "them") + " as a target in another run, or " + feed;
}

QueueWait dequeue_wait(const KernelContext& ctx, int64_t wanted) {
  QueueWait w;
  w.run = ctx.run_context();
  if (w.run) w.timeout_s = w.run->blocking_timeout_s;
  w.op = ctx.node().op + " '" + ctx.node().name + "'";
  w.timeout_message = [&ctx, wanted](const QueueSnapshot& s, double seconds) {
    return dequeue_timeout_message(ctx, s, seconds, wanted);
  };
  return w;
}

QueueWait enqueue_wait(const KernelContext& ctx) {
  QueueWait w;
  w.run = ctx.run_context();
  if (w.run) w.timeout_s = w.run->blocking_timeout_s;
  w.op = ctx.node().op + " '" + ctx.node().name + "'";
  w.timeout_message = [&ctx](const QueueSnapshot& s, double seconds) {
    return ctx.node().op + " '" + ctx.node().name + "' waited " + seconds_text(seconds) + " s on " + s.description +
           ": the queue is full and nothing dequeued from it meanwhile (run the op that dequeues, or give the queue "
           "a larger capacity)";
  };
  return w;
}

// ---- enqueue -------------------------------------------------------------------

Queue::Tuple components(const KernelContext& ctx) {
  Queue::Tuple tuple;
  for (int i = 1; i < ctx.num_inputs(); ++i) tuple.push_back(input(ctx, i));
  return tuple;
}

void enqueue_kernel(KernelContext& ctx) {
  check_min_inputs(ctx, 2);
  queue_input(ctx).enqueue(components(ctx), enqueue_wait(ctx));
}

void enqueue_many_kernel(KernelContext& ctx) {
  check_min_inputs(ctx, 2);
  queue_input(ctx).enqueue_many(components(ctx), enqueue_wait(ctx));
}

// ---- dequeue -------------------------------------------------------------------

// The component_types attr must be the queue's (TensorFlow's MatchSignature).
void check_component_types(const KernelContext& ctx, const Queue& q) {
  const std::vector<DType>& want = ctx.attrs().list("component_types").type;
  if (want == q.options().dtypes) return;
  std::string have, expected;
  for (DType t : q.options().dtypes) have += (have.empty() ? "" : ", ") + dtype_name(t);
  for (DType t : want) expected += (expected.empty() ? "" : ", ") + dtype_name(t);
  fail(ctx.node().op + ": component_types [" + expected + "] do not match " + q.describe() + ", whose components are [" +
       have + "]");
}

void set_outputs(KernelContext& ctx, Queue::Tuple tuple) {
  if (static_cast<int>(tuple.size()) != ctx.num_outputs())
    fail(ctx.node().op + ": the queue gave " + std::to_string(tuple.size()) + " components for " +
         std::to_string(ctx.num_outputs()) + " outputs");
  for (size_t i = 0; i < tuple.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(tuple[i]));
}

void dequeue_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  Queue& q = queue_input(ctx);
  check_component_types(ctx, q);
  set_outputs(ctx, q.dequeue(dequeue_wait(ctx, 1)));
}

void dequeue_many_common(KernelContext& ctx, bool up_to) {
  check_num_inputs(ctx, 2);
  Queue& q = queue_input(ctx);
  check_component_types(ctx, q);
  const int64_t n = read_scalar_int(ctx.node().op.c_str(), "n", input(ctx, 1));
  if (n < 0)
    fail(std::string(up_to ? "DequeueUpToOp" : "DequeueManyOp") + " requested " + std::to_string(n) + " < 0 elements");
  set_outputs(ctx, q.dequeue_many(n, up_to, dequeue_wait(ctx, n)));
}

void dequeue_many_kernel(KernelContext& ctx) { dequeue_many_common(ctx, false); }
void dequeue_up_to_kernel(KernelContext& ctx) { dequeue_many_common(ctx, true); }

// The queue a constant handle names (the registry walk's cases), else nullptr.
const Queue* constant_queue(const ShapeContext& ctx) {
  const Tensor* t = ctx.num_inputs() > 0 ? ctx.constant_input(0) : nullptr;
  if (!t || t->dtype() != DType::Resource || t->num_elements() != 1) return nullptr;
  return t->handles()[0].get<Queue>();
}

// Output i's element shape: the queue's declared shape when known.
Shape element_shape(const ShapeContext& ctx, int i, int count) {
  if (const Queue* q = constant_queue(ctx)) {
    const auto& shapes = q->options().shapes;
    if (static_cast<size_t>(i) < shapes.size()) return shapes[static_cast<size_t>(i)];
  }
  const TensorInfo& h = ctx.input(0);
  if (count == 1 && h.handle_shape.rank_known()) return h.handle_shape;
  return Shape::unknown_rank();
}

void dequeue_shape_common(ShapeContext& ctx, int mode) {  // 0 one, 1 many, 2 up to
  const AttrValue* types = ctx.attrs().find("component_types");
  const AttrList* t = types ? types->get_if<AttrList>() : nullptr;
  const int count = ctx.num_outputs();
  int64_t n = -1;
  if (mode > 0 && ctx.num_inputs() > 1)
    if (const Tensor* c = ctx.constant_input(1); c && c->num_elements() == 1 && is_index_type(c->dtype()))
      n = std::max<int64_t>(read_scalar_int(ctx.node().op.c_str(), "n", *c), -1);
  const Queue* q = constant_queue(ctx);
  if (mode == 2) {
    // DequeueUpTo: n when the queue holds that many now, else unknown.
    const int64_t size = q ? q->size() : -1;
    n = n >= 0 && size >= n ? n : (q && q->is_closed() && n >= 0 ? std::min(n, size) : -1);
  }
  for (int i = 0; i < count; ++i) {
    const DType dtype = t && static_cast<size_t>(i) < t->type.size() ? t->type[static_cast<size_t>(i)] : DType::Invalid;
    Shape s = element_shape(ctx, i, count);
    if (mode > 0 && s.rank_known()) {
      // PaddingFIFOQueue's unknown dims become the batch's largest: unknown here.
      std::vector<int64_t> dims{n};
      dims.insert(dims.end(), s.dims().begin(), s.dims().end());
      s = Shape(std::move(dims));
    } else if (mode > 0) {
      s = Shape::unknown_rank();
    }
    ctx.set_output(i, dtype, std::move(s));
  }
}

void dequeue_shape(ShapeContext& ctx) { dequeue_shape_common(ctx, 0); }
void dequeue_many_shape(ShapeContext& ctx) { dequeue_shape_common(ctx, 1); }
void dequeue_up_to_shape(ShapeContext& ctx) { dequeue_shape_common(ctx, 2); }

// ---- close, size, is_closed ----------------------------------------------------------

void close_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  queue_input(ctx).close(ctx.attrs().boolean("cancel_pending_enqueues"));
}

void size_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  ctx.set_output(0, Tensor::scalar<int32_t>(static_cast<int32_t>(queue_input(ctx).size())));
}

void is_closed_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  ctx.set_output(0, Tensor::scalar<bool>(queue_input(ctx).is_closed()));
}

void no_outputs_shape(ShapeContext&) {}
void scalar_int32_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Int32, Shape{}); }
void scalar_bool_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Bool, Shape{}); }

OpBuilder queue_op(const char* name) {
  OpBuilder b(name);
  b.output("handle: resource")
      .attr("component_types: list(type) >= 1")
      .attr("shapes: list(shape) >= 0 = []")
      .attr("capacity: int = -1");
  return b;
}

}  // namespace

void register_queue_ops(OpRegistry& r) {
  auto finish = [](OpBuilder& b, const char* doc) -> OpDef {
    return b.attr("container: string = ''")
        .attr("shared_name: string = ''")
        .stateful()
        .shape(queue_shape)
        .cpu(queue_kernel)
        .not_differentiable(no_grad)
        .no_gpu(host_only)
        .category("io")
        .doc(doc)
        .build();
  };
  {
    OpBuilder b = queue_op("FIFOQueueV2");
    r.add(finish(b, "A queue that produces elements in first-in first-out order."));
  }
  {
    OpBuilder b = queue_op("PaddingFIFOQueueV2");
    r.add(finish(b, "A FIFO queue whose DequeueMany pads each component's unknown dimensions to the batch's largest."));
  }
  {
    OpBuilder b("RandomShuffleQueueV2");
    b.output("handle: resource")
        .attr("component_types: list(type) >= 1")
        .attr("shapes: list(shape) >= 0 = []")
        .attr("capacity: int = -1")
        .attr("min_after_dequeue: int = 0")
        .attr("seed: int = 0")
        .attr("seed2: int = 0");
    r.add(finish(b, "A queue that dequeues elements in a random order, keeping min_after_dequeue until closed."));
  }
  r.add(OpBuilder("QueueEnqueueV2")
            .input("handle: resource")
            .input("components: Tcomponents")
            .attr("Tcomponents: list(type) >= 1")
            .attr("timeout_ms: int = -1")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(enqueue_kernel)
            .not_differentiable(no_grad)
            .no_gpu(host_only)
            .category("io")
            .doc("Enqueues a tuple of one or more tensors in the given queue; waits while it is full."));
  r.add(OpBuilder("QueueEnqueueManyV2")
            .input("handle: resource")
            .input("components: Tcomponents")
            .attr("Tcomponents: list(type) >= 1")
            .attr("timeout_ms: int = -1")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(enqueue_many_kernel)
            .not_differentiable(no_grad)
            .no_gpu(host_only)
            .category("io")
            .doc("Enqueues zero or more tuples, sliced from the components' 0th dimension."));
  r.add(OpBuilder("QueueDequeueV2")
            .input("handle: resource")
            .output("components: component_types")
            .attr("component_types: list(type) >= 1")
            .attr("timeout_ms: int = -1")
            .stateful()
            .shape(dequeue_shape)
            .cpu(dequeue_kernel)
            .not_differentiable(no_grad)
            .no_gpu(host_only)
            .category("io")
            .doc("Dequeues a tuple of one or more tensors; waits while the queue is empty."));
  r.add(OpBuilder("QueueDequeueManyV2")
            .input("handle: resource")
            .input("n: int32")
            .output("components: component_types")
            .attr("component_types: list(type) >= 1")
            .attr("timeout_ms: int = -1")
            .stateful()
            .shape(dequeue_many_shape)
            .cpu(dequeue_many_kernel)
            .not_differentiable(no_grad)
            .no_gpu(host_only)
            .category("io")
            .doc("Dequeues n tuples, concatenated along a new 0th dimension."));
  r.add(OpBuilder("QueueDequeueUpToV2")
            .input("handle: resource")
            .input("n: int32")
            .output("components: component_types")
            .attr("component_types: list(type) >= 1")
            .attr("timeout_ms: int = -1")
            .stateful()
            .shape(dequeue_up_to_shape)
            .cpu(dequeue_up_to_kernel)
            .not_differentiable(no_grad)
            .no_gpu(host_only)
            .category("io")
            .doc("Dequeues n tuples, or fewer once the queue is closed and holds fewer."));
  r.add(OpBuilder("QueueCloseV2")
            .input("handle: resource")
            .attr("cancel_pending_enqueues: bool = false")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(close_kernel)
            .not_differentiable(no_grad)
            .no_gpu(host_only)
            .category("io")
            .doc("Closes the queue: later enqueues fail, dequeues drain what is left."));
  r.add(OpBuilder("QueueSizeV2")
            .input("handle: resource")
            .output("size: int32")
            .stateful()
            .shape(scalar_int32_shape)
            .cpu(size_kernel)
            .not_differentiable(no_grad)
            .no_gpu(host_only)
            .category("io")
            .doc("The number of elements in the queue."));
  r.add(OpBuilder("QueueIsClosedV2")
            .input("handle: resource")
            .output("is_closed: bool")
            .stateful()
            .shape(scalar_bool_shape)
            .cpu(is_closed_kernel)
            .not_differentiable(no_grad)
            .no_gpu(host_only)
            .category("io")
            .doc("Whether the queue is closed."));
}

}  // namespace flowlens::ops
