#pragma once
// A ps's view of its workers' lives. Messages from a worker's own process
// (requests and heartbeats; see sender_registry.h for which count) keep it
// up; silence for `timeout` marks it down, and the next message brings it
// back. A worker that sent DONE is finished for good. A worker never heard
// from counts as live: it may still be starting.
//
// When no worker is left that could still push (every one finished or down,
// at least one down), the ps is deserted; after `give_up_after` of that it
// may stop, unless it was told to wait for its workers to return.
//
// No sockets or threads; the time comes from a TimeSource, so tests drive
// the timeouts with a fake clock.
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dist/control/time_source.h"

namespace flowlens::dist {

class WorkerLiveness {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  WorkerLiveness(const std::vector<int>& workers, std::chrono::milliseconds timeout,
                 std::chrono::milliseconds give_up_after, TimeSource now = steady_now);

  // A message of `worker`'s own process. True when it was down: it is back.
  bool heard_from(int worker);
  void finished(int worker);

  struct Lapse {
    int worker;
    std::chrono::milliseconds silent;  // since it was last heard from
  };
  // Marks down every worker silent for the timeout; returns those newly down.
  std::vector<Lapse> mark_silent_down();

  bool is_live(int worker) const;  // neither finished nor down
  bool is_finished(int worker) const { return finished_.count(worker) > 0; }
  int live_count() const;
  std::size_t finished_count() const { return finished_.size(); }
  bool all_finished() const { return !workers_.empty() && finished_.size() >= workers_.size(); }
  std::vector<int> down_workers() const;  // down and not finished, in task order

  struct Deserted {
    std::string who;        // "worker 1, 2 down, worker 0 finished"
    bool just_now = false;  // this check noticed it first
    bool give_up = false;   // deserted for give_up_after: the ps may stop
  };
  // Whether every worker is finished or down with one down at least (all
  // finished is the normal end, see all_finished). A live worker resets it.
  std::optional<Deserted> check_deserted();

 private:
  struct Seen {
    TimePoint last;
    bool down = false;
  };

  std::vector<int> workers_;  // the cluster's, in task order
  std::chrono::milliseconds timeout_, give_up_after_;
  TimeSource now_;
  std::map<int, Seen> seen_;  // by worker, from its first message on
  std::set<int> finished_;
  std::optional<TimePoint> deserted_since_;
};

}  // namespace flowlens::dist
