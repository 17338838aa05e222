#pragma once
// Registry-walk cases for the queue ops (engine/ops/kernels/data/queue_ops.cpp). The ops
// acting on a queue take a handle to one made here, holding enough elements
// (and room) that no case waits: outside a session an attempt that would
// wait fails at once. The queue-making ops need a session's resources and
// run in test_queues.
#include <memory>

#include "engine/op_cases/op_case.h"
#include "ops/resources/queue.h"

namespace flowlens::testing {

// A scalar DT_RESOURCE tensor naming a fresh float queue of [2] elements
// holding `count` of them (closed if asked).
inline Tensor queue_handle(int count, bool closed = false, int64_t capacity = 10) {
  QueueOptions o;
  o.name = "q";
  o.capacity = capacity;
  o.dtypes = {DType::Float};
  o.shapes = {Shape{2}};
  auto q = std::make_shared<Queue>(o);
  for (int i = 0; i < count; ++i) q->enqueue({gen(DType::Float, {2}, -1, 1, static_cast<uint32_t>(i + 1))}, QueueWait{});
  if (closed) q->close(false);
  ResourceHandle h;
  h.container = "localhost";
  h.name = "q";
  h.resource = std::move(q);
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

inline void add_queue_cases(OpCases& c) {
  for (const char* op : {"FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2"})
    c.skip(op, "makes its queue in a session's resources; test_queues runs it in sessions");
  const AttrValue floats(type_list({DType::Float}));
  c.add({"QueueEnqueueV2", {{"Tcomponents", floats}}, {queue_handle(0), gen(DType::Float, {2})}});
  c.add({"QueueEnqueueManyV2", {{"Tcomponents", floats}}, {queue_handle(0), gen(DType::Float, {3, 2})}});
  c.add({"QueueDequeueV2", {{"component_types", floats}}, {queue_handle(2)}});
  c.add({"QueueDequeueManyV2", {{"component_types", floats}}, {queue_handle(3), I32({}, {2})}});
  // Closed with 4: the kernel takes 2, and the shape function then sees 2 left.
  c.add({"QueueDequeueUpToV2", {{"component_types", floats}}, {queue_handle(4, true), I32({}, {2})}});
  c.add({"QueueCloseV2", {}, {queue_handle(1)}});
  c.add({"QueueCloseV2", {{"cancel_pending_enqueues", AttrValue(true)}}, {queue_handle(1)}});
  c.add({"QueueSizeV2", {}, {queue_handle(3)}});
  c.add({"QueueIsClosedV2", {}, {queue_handle(1, true)}});
}

}  // namespace flowlens::testing
