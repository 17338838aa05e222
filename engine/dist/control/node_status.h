#pragma once
// What every node reports on its control endpoint and in PUB heartbeats, as
// JSON: role, task, state, step, loss, steps/s, traffic, variables. The same
// struct feeds `flowlens-node status` and the GUI's cluster view.
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flowlens::dist {

struct VariableInfo {
  std::string name;
  std::string dtype;
  std::string shape;
  int64_t bytes = 0;
};

// Traffic between this node and one peer ("worker:1", "client"), as the node
// counted it: what the peer sent (in) and what it was answered (out).
struct LinkTraffic {
  std::string peer;
  uint64_t bytes_in = 0, bytes_out = 0;
  // Tensor bytes of one training step on this link, as of the last step:
  // what the rendezvous carried (a worker's pull and push, a ps's answer to
  // that worker and its push). 0: no step yet.
  uint64_t step_bytes_in = 0, step_bytes_out = 0;
};

struct NodeStatus {
  std::string role;     // "ps" or "worker"
  int task = 0;
  std::string address;  // host:port of its control endpoint
  std::string state;    // "serving", "training", "paused", "waiting", "done", "stopping"
  int64_t step = 0;     // ps: global step; worker: local step
  std::optional<double> loss;
  double steps_per_second = 0;
  uint64_t bytes_in = 0, bytes_out = 0;
  std::vector<VariableInfo> variables;
  std::vector<LinkTraffic> links;  // ps: per peer; workers: per ps task (step bytes only)
  std::string events;  // PUB endpoint: "tcp://127.0.0.1:40123"
  std::string mode;    // "async" or "sync K"
  std::string detail;  // what it is waiting for, the last error...
  bool profiling = false;
};

std::string status_to_json(const NodeStatus& status);
// The same JSON, appended to `out` without a JSON DOM: once `out` and the
// status have grown to size, encoding allocates nothing (StatusCache).
void append_status_json(const NodeStatus& status, std::string& out);
// Throws Error naming `source` and the missing or mistyped field.
NodeStatus status_from_json(const std::string& json, const std::string& source);

// One row per node; nullopt rows print as unreachable with `why`.
struct StatusRow {
  std::string node;  // "ps 0"
  std::string address;
  std::optional<NodeStatus> status;
  std::string why;
};
std::string format_status_table(const std::vector<StatusRow>& rows);

// "1.5 MiB"
std::string human_bytes(uint64_t bytes);

// Steps per second over the last few seconds (a sliding window, so a pause
// shows as a falling rate instead of a lifetime average).
class StepRate {
 public:
  void record(int64_t step);
  double per_second() const;

 private:
  std::deque<std::pair<std::chrono::steady_clock::time_point, int64_t>> samples_;
};

// A node's status reply, encoded once and served to every STATUS request and
// heartbeat until it goes stale, so a poll costs the node a few counter
// reads, never a NodeStatus built under its training lock. Owned by the one
// thread that answers requests (a worker's control thread, the ps's serving
// thread).
//
// Stale means: `key` changed (the owner folds in everything a reader must
// see at once: state, pause, detail, profiling, variables, a command), or
// the step moved and the reply is `refresh` old, or it is a second old (so
// traffic counters of a paused node move on). A state change therefore shows
// in the very next answer; a training node's step and counters lag by at
// most `refresh`.
class StatusCache {
 public:
  explicit StatusCache(std::chrono::milliseconds refresh = std::chrono::milliseconds(100)) : refresh_(refresh) {}

  // The encoded status; rebuilds it first with fill(NodeStatus&, bool
  // key_changed) when stale. `fill` updates the status it is given in place
  // (its strings and vectors keep their capacity); key_changed (true on the
  // first build) says the fields behind the key must be read again, else
  // only the counters moved.
  template <class Fill>
  const std::string& get(uint64_t key, int64_t step, Fill&& fill) {
    const auto now = std::chrono::steady_clock::now();
    const auto age = now - built_;
    const bool key_changed = !valid_ || key != key_;
    if (key_changed || age >= std::chrono::seconds(1) || (step != step_ && age >= refresh_)) {
      fill(status_, key_changed);
      json_.clear();
      append_status_json(status_, json_);
      valid_ = true;
      key_ = key;
      step_ = step;
      built_ = now;
      ++builds_;
    }
    ++served_;
    return json_;
  }
  // The status as last encoded.
  const NodeStatus& status() const { return status_; }
  uint64_t builds() const { return builds_; }  // encodings
  uint64_t served() const { return served_; }  // answers (and heartbeats) served

 private:
  std::chrono::milliseconds refresh_;
  NodeStatus status_;
  std::string json_;
  bool valid_ = false;
  uint64_t key_ = 0;
  int64_t step_ = 0;
  std::chrono::steady_clock::time_point built_{};
  uint64_t builds_ = 0, served_ = 0;
};

}  // namespace flowlens::dist
