#pragma once
// Where a step's _Send and _Recv nodes meet: TensorFlow's Rendezvous. A
// partitioned graph (transform/partition.h) leaves a _Send/_Recv pair on
// every edge between tasks; each task runs its partition of the step
// concurrently, a _Send hands its tensor to the rendezvous under the pair's
// key and the step's id, and the _Recv with the same key completes when it
// is there. A local rendezvous (exec/local_rendezvous.h) joins partitions
// run in one process; the distributed runtime's (engine/dist) carries the
// tensors between processes. Control edges cross as empty scalars, as
// TensorFlow's do (partition's dummy constants).
//
// A _Recv never blocks an executor thread: the executor asks recv_async and
// goes on, and the value's arrival (or the step's abort) schedules the
// node's consumers.
#include <cstdint>
#include <exception>
#include <functional>
#include <string>

#include "tensor/tensor.h"

namespace flowlens {

struct Node;

class Rendezvous {
 public:
  // Called exactly once: with the value, or with the error that ended the
  // wait (the step was aborted) and an invalid tensor.
  using DoneFn = std::function<void(Tensor value, std::exception_ptr error)>;

  virtual ~Rendezvous() = default;

  // Hands `value` to whoever receives `key` in step `step_id`; never waits
  // for the receiver. Throws Error when the step was aborted or the key was
  // sent already in this step (two sends of one edge: a bad partition).
  virtual void send(const std::string& key, int64_t step_id, Tensor value) = 0;
  // Calls `done` once the value of `key` in step `step_id` is here, maybe
  // before returning, maybe on another thread.
  virtual void recv_async(const std::string& key, int64_t step_id, DoneFn done) = 0;
  // Ends step `step_id` with `error`: every pending and later recv of the
  // step gets it, and later sends of the step throw it. Idempotent (the
  // first error stays).
  virtual void abort(int64_t step_id, const std::string& error) = 0;
};

// "<send_device>;<recv_device>;<tensor_name>" of a _Send or _Recv node:
// the key both ends of one edge share (TensorFlow's ParsedKey without the
// incarnation and frame parts: a step's tensors are told apart by step id,
// and transfers inside a loop frame are refused at plan time).
std::string rendezvous_key(const Node& transfer);

}  // namespace flowlens
