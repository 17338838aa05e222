#include "dist/control/step_messenger.h"

#include <zmq.hpp>

#include "common/error.h"
#include "dist/security/cluster_security.h"
#include "dist/wire/node_connection.h"
#include "dist/wire/node_errors.h"
#include "dist/wire/wire_codec.h"

namespace flowlens::dist {
namespace {

// An answer is due as soon as the receiver has stored the message; this
// only bounds how long a lost one takes to be noticed.
constexpr std::chrono::milliseconds kAnswerTimeout{5000};

// The destination answered, but not OK.
struct RefusedError : Error {
  RefusedError(const std::string& text, wire::ReplyCode c) : Error(text), code(c) {}
  wire::ReplyCode code;
};

bool same_step(const wire::Header& a, const wire::Header& b) {
  return a.step_worker() == b.step_worker() && a.step() == b.step();
}

}  // namespace

StepMessenger::StepMessenger(Connect connect, std::chrono::milliseconds give_up_after, Failed failed)
    : connect_(std::move(connect)), give_up_after_(give_up_after), failed_(std::move(failed)),
      context_(std::make_unique<zmq::context_t>(1)) {}

StepMessenger::~StepMessenger() { stop(); }

void StepMessenger::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  // A thread waiting on an answer gives up at once (ETERM); its connection
  // closes as it ends, and then the context can.
  context_->shutdown();
  for (auto& [name, route] : routes_)
    if (route->thread.joinable()) route->thread.join();
  routes_.clear();
}

void StepMessenger::flush(std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, limit, [&] {
    for (const auto& [name, route] : routes_)
      if (route->sending || !route->queue.empty()) return false;
    return true;
  });
}

void StepMessenger::post(const std::string& destination, wire::Header header, std::vector<NamedTensor> tensors) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    std::unique_ptr<Route>& route = routes_[destination];
    if (!route) {
      route = std::make_unique<Route>();
      Route* r = route.get();
      r->thread = std::thread([this, destination, r] { deliver_loop(destination, *r); });
    }
    // Tensors of one step for one destination leave together.
    std::deque<Message>& q = route->queue;
    if (header.kind() == wire::STEP_TENSOR && !q.empty() && q.back().header.kind() == wire::STEP_TENSOR &&
        same_step(q.back().header, header)) {
      for (NamedTensor& t : tensors) q.back().tensors.push_back(std::move(t));
    } else {
      q.push_back({std::move(header), std::move(tensors)});
    }
  }
  cv_.notify_all();
}

void StepMessenger::deliver_loop(const std::string& destination, Route& route) {
  std::unique_ptr<NodeConnection> connection;
  for (;;) {
    Message message;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !route.queue.empty(); });
      if (stopping_) return;
      message = std::move(route.queue.front());
      route.queue.pop_front();
      route.sending = true;
    }
    try {
      if (!connection) connection = connect_(*context_, destination);
      send_with_retries(*connection, message, destination);
    } catch (const std::exception& e) {
      bool stopping;
      {
        std::lock_guard lock(mu_);
        stopping = stopping_;
      }
      const auto* refused = dynamic_cast<const RefusedError*>(&e);
      if (!stopping) failed_(message.header, destination, {e.what(), refused ? refused->code : wire::OK});
    }
    {
      std::lock_guard lock(mu_);
      route.sending = false;
    }
    cv_.notify_all();
  }
}

void StepMessenger::send_with_retries(NodeConnection& connection, const Message& message, const std::string& destination) {
  const auto deadline = std::chrono::steady_clock::now() + give_up_after_;
  for (;;) {
    try {
      WireMessage reply = connection.request(message.header, message.tensors, kAnswerTimeout);
      if (reply.header.code() != wire::OK)
        throw RefusedError(destination + " refused " + kind_name(message.header.kind()) + ": " + reply.header.text(),
                           reply.header.code());
      return;
    } catch (const TimeoutError& e) {
      {
        std::lock_guard lock(mu_);
        if (stopping_) throw;
      }
      const auto gave_up = [&](const std::string& why) {
        return Error(destination + " at " + connection.address() + " did not take " + kind_name(message.header.kind()) +
                     " within " + seconds_text(give_up_after_) + " (" + why + ")");
      };
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw gave_up(e.what());
      // Resent once the node answers again; a copy it already took is dropped there.
      try {
        connection.wait_until_reachable(left);
      } catch (const TimeoutError& unreachable) {
        throw gave_up(unreachable.what());
      }
    }
  }
}

StepMessenger::Connect connect_in_cluster(const ClusterSpec& cluster, std::string sender,
                                          const std::optional<Credentials>& credentials, uint64_t max_message_bytes,
                                          TrafficCounters* traffic, uint64_t incarnation) {
  return [&cluster, sender = std::move(sender), &credentials, max_message_bytes, traffic, incarnation](
             zmq::context_t& context, const std::string& destination) {
    const std::size_t space = destination.find(' ');
    if (space == std::string::npos) throw Error("no task named '" + destination + "'");
    const std::string job = destination.substr(0, space);
    const int task = std::stoi(destination.substr(space + 1));
    auto c = std::make_unique<NodeConnection>(context, destination, cluster.task_address(job, task), sender, traffic);
    c->set_max_message_bytes(max_message_bytes);
    if (credentials) c->use_curve(credentials->own, credentials->security.node_key(destination));
    c->set_incarnation(incarnation);
    return c;
  };
}

}  // namespace flowlens::dist
