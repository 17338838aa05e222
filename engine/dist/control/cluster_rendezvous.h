#pragma once
// One task's side of a distributed step's rendezvous. Tensors other tasks
// send it arrive by message (deliver, on the thread serving its socket) in a
// LocalRendezvous its partition's _Recv nodes wait on; what its _Send nodes
// send to another task goes out through the StepMessenger as STEP_TENSOR.
// `route` decides, per key and step, which task receives a tensor and under
// which header and name it travels (a worker names keys on the wire as
// worker 0 does, partition_exchange.h; a ps sends to the worker whose step
// it runs).
#include <functional>
#include <vector>
#include <string>

#include "dist/control/step_messenger.h"
#include "exec/local_rendezvous.h"

namespace flowlens::dist {

// The parts of a rendezvous key (ops/framework/rendezvous.h). Throws Error
// for a key without its three parts (a peer's malformed message).
struct RendezvousKeyParts {
  std::string send_device, recv_device, tensor_name;
};
RendezvousKeyParts split_rendezvous_key(const std::string& key);

class ClusterRendezvous : public Rendezvous {
 public:
  struct Route {
    std::string destination;  // "ps 1", "worker 0"
    wire::Header header;      // STEP_TENSOR with step and step_worker set
    std::string wire_key;     // the key as the receiver's partition names it
  };
  // Empty: the receiver is this task. Several: the same tensor goes to
  // each (a ps's send in a synchronous round reaches every worker of it).
  using Router = std::function<std::vector<Route>(const std::string& key, int64_t step_id, const Tensor& value)>;

  ClusterRendezvous(StepMessenger& messenger, Router route) : messenger_(messenger), route_(std::move(route)) {}

  void send(const std::string& key, int64_t step_id, Tensor value) override;
  void recv_async(const std::string& key, int64_t step_id, DoneFn done) override {
    local_.recv_async(key, step_id, std::move(done));
  }
  void abort(int64_t step_id, const std::string& error) override { local_.abort(step_id, error); }

  // A tensor another task sent for `step_id`. Returns false when it was
  // here already (a message sent again after a lost answer) or the step
  // ended: dropped either way.
  bool deliver(const std::string& key, int64_t step_id, Tensor value);
  std::vector<std::string> pending(int64_t step_id) const { return local_.pending(step_id); }
  void forget(int64_t step_id) { local_.forget(step_id); }

 private:
  StepMessenger& messenger_;
  Router route_;
  LocalRendezvous local_;
};

}  // namespace flowlens::dist
