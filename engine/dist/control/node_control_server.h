#pragma once
// The control plane every node of a cluster has, ps and worker alike: its
// sockets (node_endpoints.h: the ROUTER at its cluster address, the PUB of
// its heartbeats and events, the connection caps, CURVE and ZAP), the
// checks every request passes (it decodes, its sender is who its key says, its role may ask
// it), the rate-limited log of what peers get wrong, the status cache, and
// one table of what each request kind and CONTROL command does.
//
// The node registers its handlers; the commands every node shares (pause,
// step, resume over its PauseGate; stop; profile_start/profile_stop; graph;
// FETCH) are registered through add_*_commands so their wording, checks and
// replies are written once. Whoever calls serve() owns the sockets: the
// ps's serving thread, a worker's control thread (constructed there too, as
// ConnectionGuard asks).
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <zmq.hpp>

#include "dist/control/log_rate_limiter.h"
#include "dist/control/node_endpoints.h"
#include "dist/control/node_status.h"
#include "dist/control/pause_gate.h"
#include "dist/wire/node_connection.h"
#include "dist/wire/wire_codec.h"

namespace flowlens::dist {

// What a CONTROL command or FETCH answers.
struct CommandReply {
  wire::ReplyCode code = wire::OK;
  std::string text;
  std::vector<NamedTensor> tensors;
};

class NodeControlServer {
 public:
  using Clock = std::chrono::steady_clock;
  using RequestHandler = std::function<void(WireMessage&)>;
  using CommandHandler = std::function<CommandReply(const WireMessage&)>;

  // Binds both sockets. Throws Error when the address may not be listened on
  // without keys (check_exposure) or cannot be bound.
  explicit NodeControlServer(NodeControlOptions options);
  ~NodeControlServer();
  NodeControlServer(const NodeControlServer&) = delete;
  NodeControlServer& operator=(const NodeControlServer&) = delete;

  // The handler of a request kind other than CONTROL (replaces any earlier
  // one); a kind without one is answered BAD_REQUEST.
  void on_request(wire::Kind kind, RequestHandler handler);
  // The handler of one CONTROL command; an unknown command is answered
  // BAD_REQUEST listing the registered ones in registration order.
  void on_command(const std::string& name, CommandHandler handler);
  // Run for every admitted request before its handler (the bytes it took,
  // when it arrived), and after it.
  std::function<void(const WireMessage&, std::size_t bytes, Clock::time_point arrived)> on_admitted;
  std::function<void(wire::Kind, const std::string& sender, Clock::time_point arrived)> on_served;
  // Around every reply: before it goes out (the ps stamps its incarnation)
  // and after, with the bytes it took. A refused or malformed request's
  // reply passes them a request with no sender.
  std::function<void(const WireMessage& request, wire::Header& reply)> before_reply;
  std::function<void(const WireMessage& request, std::size_t bytes)> after_reply;

  // The commands every node shares. Texts name what the node did.
  // pause, step, resume on `gate`; `lock`, when given, is held around the
  // gate and `after` (another thread reads the gate). after(cmd) does what
  // the node does on top (a ps applies what waited) and returns the reply.
  void add_gate_commands(PauseGate& gate, std::mutex* lock, std::function<std::string(const std::string& cmd)> after);
  // stop: stop(reason) records "stopped by <sender>" and returns the reply.
  void add_stop_command(std::function<std::string(const std::string& reason)> stop);
  struct Profile {
    std::function<void()> start;
    std::function<bool()> active;
    // Writes the trace to the path and stops; returns how many `unit`s it
    // holds. Throws (Error or std::exception) when it cannot be written.
    std::function<std::size_t(const std::string& path)> write_and_stop;
    std::string started;  // reply to profile_start: "profiling steps"
    std::string unit;     // "node execution(s)"
  };
  void add_profile_commands(Profile profile);
  // graph: the partition the node runs, as GraphDef bytes (throws Error
  // when it runs none), answered as a uint8 tensor "graph".
  void add_graph_command(std::function<std::string()> partition_bytes);
  // FETCH of the names the request lists (none: BAD_REQUEST).
  void add_fetch(std::function<CommandReply(const WireMessage&, const std::vector<std::string>& names)> fetch);

  // Waits up to timeout_ms for one request and serves it, then closes
  // connections above the caps and flushes the rate-limited log.
  void serve(int timeout_ms);

  void reply(const WireMessage& request, wire::Header header, const std::vector<NamedTensor>& tensors = {});
  void publish(wire::Header header);
  // HEARTBEAT from options.sender with the status text (and the step).
  void publish_heartbeat(const std::string& status_json, int64_t step = 0);

  // The status reply, rebuilt only when stale (node_status.h: StatusCache).
  template <class Fill>
  const std::string& status_json(uint64_t key, int64_t step, Fill&& fill) {
    return status_cache_.get(key, step, std::forward<Fill>(fill));
  }
  const NodeStatus& last_status() const { return status_cache_.status(); }

  LogRateLimiter& peer_log() { return peer_log_; }
  TrafficCounters& traffic() const { return *traffic_; }  // counters, not the server's state
  const std::string& node() const { return options_.node; }
  const std::string& endpoint() const { return endpoints_.endpoint(); }  // as bound, port resolved
  const std::string& events_endpoint() const { return endpoints_.events_endpoint(); }

 private:
  void handle_frames(std::vector<zmq::message_t> frames);  // decode, admit, dispatch
  // "" when `m` may be served; else why it is refused.
  std::string admit(const WireMessage& m, const zmq::message_t& last_frame);
  void dispatch(WireMessage& m);
  void handle_command(const WireMessage& m);

  NodeControlOptions options_;
  TrafficCounters own_traffic_;
  TrafficCounters* traffic_;
  WireLimits limits_;
  NodeEndpoints endpoints_;
  // Lines any peer can cause at will (malformed or refused requests):
  // rate-limited, so a flood cannot flood the log.
  LogRateLimiter peer_log_;
  StatusCache status_cache_;
  std::vector<std::pair<wire::Kind, RequestHandler>> requests_;
  std::vector<std::pair<std::string, CommandHandler>> commands_;  // in registration order
};

// A uint8 vector tensor holding `bytes` (a serialized GraphDef, a partition).
Tensor bytes_tensor(const std::string& bytes);

}  // namespace flowlens::dist
