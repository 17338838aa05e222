#pragma once
// Carries a distributed step's messages (RUN_STEP, STEP_TENSOR, STEP_DONE,
// ABORT_STEP: worker/distributed_step.h) to the other tasks of the cluster,
// the way TensorFlow's worker service carries RunGraph calls and tensors:
// every task is a server, and a tensor goes to the task that receives it.
// One queue and one thread per destination, so a slow or unreachable task
// holds up only what goes to it; messages to one destination keep their
// order (a RUN_STEP goes before that step's tensors), and tensors queued for
// one destination and step leave together as one message. The receiver
// answers as soon as it has stored a message, so an answer never waits on
// computation; a message without an answer is sent again until
// `give_up_after` (receivers keep the first copy of a tensor), then
// `failed` hears which message could not be delivered and why.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_spec.h"
#include "dist/wire/named_tensor.h"
#include "dist/wire/wire.pb.h"

namespace zmq {
class context_t;
}

namespace flowlens::dist {

class NodeConnection;
struct Credentials;
struct TrafficCounters;

class StepMessenger {
 public:
  // Opens the connection to `destination` ("ps 0", "worker 1"), with the
  // node's keys when the cluster is secured; called on that destination's
  // thread.
  using Connect = std::function<std::unique_ptr<NodeConnection>(zmq::context_t& context, const std::string& destination)>;
  // Why a message was not delivered: the destination refused it (its
  // reply code: UNREGISTERED from a ps that restarted, ...), or it did not
  // answer within give_up_after (wire::OK).
  struct Failure {
    std::string error;
    wire::ReplyCode refused = wire::OK;
  };
  // Called on a destination's thread.
  using Failed = std::function<void(const wire::Header& message, const std::string& destination, const Failure& why)>;

  StepMessenger(Connect connect, std::chrono::milliseconds give_up_after, Failed failed);
  ~StepMessenger();  // stop()
  // Drops what is still queued, ends the threads (a message in flight gives
  // up at once) and calls `failed` no more; later posts are dropped. Call it
  // before what `failed` reaches goes away.
  void stop();
  // Waits until every queued message went out (or failed), at most `limit`.
  void flush(std::chrono::milliseconds limit);
  StepMessenger(const StepMessenger&) = delete;
  StepMessenger& operator=(const StepMessenger&) = delete;

  // Queues a message; never blocks on the network.
  void post(const std::string& destination, wire::Header header, std::vector<NamedTensor> tensors = {});

 private:
  struct Message {
    wire::Header header;
    std::vector<NamedTensor> tensors;
  };
  struct Route {
    std::deque<Message> queue;
    bool sending = false;  // a message of this route is on its way
    std::thread thread;
  };
  void deliver_loop(const std::string& destination, Route& route);
  void send_with_retries(NodeConnection& connection, const Message& message, const std::string& destination);

  Connect connect_;
  std::chrono::milliseconds give_up_after_;
  Failed failed_;
  std::unique_ptr<zmq::context_t> context_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<std::string, std::unique_ptr<Route>> routes_;
};

// The usual Connect: `destination` ("ps 1", "worker 0") at its address in
// `cluster`, as `sender` ("ps:0"), with CURVE when `credentials` are given
// (the destination's key from the cluster's security section), carrying
// the sender's `incarnation` like its other requests (a ps tells a
// restarted worker by it). The arguments must outlive the messenger.
StepMessenger::Connect connect_in_cluster(const ClusterSpec& cluster, std::string sender,
                                          const std::optional<Credentials>& credentials, uint64_t max_message_bytes,
                                          TrafficCounters* traffic, uint64_t incarnation);

}  // namespace flowlens::dist
