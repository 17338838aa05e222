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
  std::vector<LinkTraffic> links;  // ps: per peer; workers: empty (their ps links are in bytes_in/out)
  std::string events;  // PUB endpoint: "tcp://127.0.0.1:40123"
  std::string mode;    // "async" or "sync K"
  std::string detail;  // what it is waiting for, the last error...
  bool profiling = false;
};

std::string status_to_json(const NodeStatus& status);
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

}  // namespace flowlens::dist
