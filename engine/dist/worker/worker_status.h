#pragma once
// A worker's status as its control thread answers it. The training thread
// sets the state and detail (under a lock, bumping a generation) and
// publishes the step and loss as counters; the control thread encodes the
// status through its NodeControlServer's cache, which takes the lock only
// after the generation moved, never per request.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>

#include "dist/control/node_control_server.h"
#include "dist/control/node_status.h"

namespace flowlens::dist {

class WorkerStatus {
 public:
  // Who the worker is (role, task, address, mode) and its first state.
  void describe(NodeStatus base);

  // Any thread. A same state and detail changes nothing (every step says
  // "training"); nullopt keeps the detail (a breakpoint's note stays while paused).
  void set_state(const std::string& state, const std::optional<std::string>& detail = std::string());
  void set_detail(const std::string& detail);
  // Sets `detail` only while the detail is still `expected` (a note that
  // replaced it in between stays).
  void replace_detail(const std::string& expected, const std::string& detail);
  // What the status shows besides state, detail and the counters changed.
  void changed() { generation_.fetch_add(1, std::memory_order_release); }

  // Training thread: step `step` finished with `loss` (NaN: none).
  void record_step(int64_t step, double loss) {
    loss_.store(loss, std::memory_order_relaxed);
    step_.store(step, std::memory_order_release);
  }
  int64_t step() const { return step_.load(std::memory_order_acquire); }

  // Control thread: feeds steps/s with the step counter (sampled there
  // rather than on the training path).
  void sample_rate();
  // Control thread: the encoded status. more(NodeStatus&) fills what the
  // worker keeps elsewhere (pause, profiling, variables, links) after a
  // change, with the state and detail already set.
  template <class More>
  const std::string& json(NodeControlServer& server, More&& more) {
    sample_rate();
    const int64_t step = this->step();
    return server.status_json(generation_.load(std::memory_order_acquire), step, [&](NodeStatus& s, bool key_changed) {
      if (key_changed) {
        {
          std::lock_guard lock(mu_);
          s.role = base_.role;
          s.task = base_.task;
          s.address = base_.address;
          s.mode = base_.mode;
          s.state = base_.state;
          s.detail = base_.detail;
        }
        more(s);
      }
      s.step = step;
      const double loss = loss_.load(std::memory_order_relaxed);
      s.loss = std::isnan(loss) ? std::nullopt : std::optional<double>(loss);
      s.steps_per_second = rate_.per_second();
      s.bytes_in = server.traffic().bytes_in;
      s.bytes_out = server.traffic().bytes_out;
    });
  }

 private:
  std::mutex mu_;
  NodeStatus base_;  // role, task, address, mode, state, detail (mu_)
  std::atomic<int64_t> step_{0};
  std::atomic<double> loss_{std::numeric_limits<double>::quiet_NaN()};  // NaN: none yet
  std::atomic<uint64_t> generation_{1};
  // Control thread only.
  StepRate rate_;
  int64_t rate_step_ = -1;
};

}  // namespace flowlens::dist
