#pragma once
// A worker's side of its ps tasks: one channel per ps link of the plan,
// registering each link's partition, the chief's initialization of the
// variables, and Pull/Push/Done requests that ride out a ps that went away
// (retried until reconnect_timeout, with the same push sequence so that the
// ps never applies one twice). Used by the training thread only.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "dist/wire/node_connection.h"
#include "dist/worker/worker_plan.h"

namespace flowlens::dist {

struct WorkerOptions;

class PsClient {
 public:
  // Tells the worker's status what the client is doing: ("waiting", why) or
  // ("training", "") once a ps answers again.
  using StateSink = std::function<void(const std::string& state, const std::string& detail)>;

  // `initial_values`: the chief's initial values per link (the link's
  // variable order), empty on other workers. Counts bytes into `traffic`.
  PsClient(const WorkerOptions& options, const TrainingPlan& plan, int rank,
           std::vector<std::vector<NamedTensor>> initial_values, TrafficCounters& traffic, StateSink state);
  ~PsClient();
  PsClient(const PsClient&) = delete;
  PsClient& operator=(const PsClient&) = delete;

  // Throws Error naming a variable larger than max_message_bytes (and the
  // --max-message-mb it needs): its pulls and pushes would be dropped.
  void check_variables_fit_messages() const;
  // Connects to every ps and registers its partition; the chief then
  // initializes the variables. `interrupted` stops retries when it turns true.
  void start(const std::atomic<bool>* interrupted);
  // A channel to ps `task`: CURVE when secured, carrying this incarnation,
  // on `context` (the control thread has its own, for heartbeats).
  std::unique_ptr<NodeConnection> connect(zmq::context_t& context, int task) const;

  std::size_t size() const { return ps_.size(); }
  // This worker process's incarnation, which every message to a ps carries.
  uint64_t incarnation() const { return incarnation_; }
  // What link i's partition sends this worker (its read phase), at least of
  // global step min_step (the sync barrier; 0: any).
  std::vector<NamedTensor> pull(size_t i, int64_t min_step);
  // What this worker's partition sends link i's, computed from the values
  // of global step `step`.
  void push(size_t i, const std::vector<NamedTensor>& tensors, int64_t step);
  // The global step the next Pull of link i waits for (sync).
  int64_t next_pull_step(size_t i) const { return next_pull_step_[i]; }
  // Tells every ps this worker is done.
  void finish();
  // A ps variable's value as the last pull carried it; throws Error naming
  // a variable that does not come to this worker, or no variable at all.
  Tensor pulled_value(const std::string& name) const;

 private:
  void register_partition(size_t i);  // again, after the ps restarted
  void initialize(size_t i, const std::vector<NamedTensor>& values);
  // One request to link i that rides out an unreachable ps: on a timeout it
  // reconnects and repeats `header` until reconnect_timeout.
  WireMessage request(size_t i, const wire::Header& header, const std::vector<NamedTensor>& tensors,
                      std::chrono::milliseconds timeout);
  std::string me() const;  // "worker 1", for the log

  const WorkerOptions& options_;
  const TrainingPlan& plan_;
  int rank_;
  std::vector<std::vector<NamedTensor>> initial_values_;
  TrafficCounters& traffic_;
  StateSink state_;
  zmq::context_t context_{1};
  std::vector<std::unique_ptr<NodeConnection>> ps_;      // per plan_.ps link
  std::vector<int64_t> next_pull_step_;                  // sync barrier per link
  std::vector<uint64_t> push_sequence_;                  // per link: numbers each Push
  std::vector<std::vector<NamedTensor>> latest_values_;  // per link: the last Pull (chief re-INIT, fetches)
  // Per link: a Pull was answered (a ps that reads the worker nothing
  // answers with no tensors), so a ps now NOT_READY lost its variables.
  std::vector<bool> pulled_;
  uint64_t incarnation_ = new_incarnation();             // random per start
  const std::atomic<bool>* interrupted_ = nullptr;
};

}  // namespace flowlens::dist
