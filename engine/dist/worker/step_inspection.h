#pragma once
// A worker's remote inspection of its steps: breakpoints (observe/debugger.h),
// per-node times and the step profile, each an observer attached to the
// worker's session on first use. Called on the control thread while the
// training thread runs steps: the observers are thread-safe and the
// session's graph is fixed.
//
// A breakpoint does not stop the step it hits: `on_hit` is told (the worker
// pauses before its next step) and the step runs on, so its gradients are
// pushed and sync peers are not held at the barrier.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "exec/session.h"
#include "observe/debugger.h"
#include "observe/node_timer.h"
#include "observe/profiler.h"

namespace flowlens::dist {

class StepInspection {
 public:
  using OnHit = std::function<void(const DebugStop&)>;
  // `node` ("worker 0") names the worker in refusals.
  StepInspection(Session& session, std::string node, OnHit on_hit);
  ~StepInspection();
  StepInspection(const StepInspection&) = delete;
  StepInspection& operator=(const StepInspection&) = delete;

  // "node", "node nonfinite" or "node max>2.5"; replaces a breakpoint at the
  // same node. Returns the reply; throws Error naming what is wrong.
  std::string set_breakpoint(const std::string& spec);
  // One node's breakpoint, or every one for "". Throws Error for a node without one.
  std::string clear_breakpoint(const std::string& node);
  // {"node": {"count": n, "total_ms": t}} since the last call (the first starts timing).
  std::string take_node_times();

  void start_profile();  // forgets what an earlier profile recorded
  bool profiling() const { return profiling_; }
  // Writes the Chrome trace and stops; returns the node executions it holds.
  // Throws when the file cannot be written (and keeps profiling).
  std::size_t write_profile(const std::string& path);

 private:
  Session& session_;
  std::string node_;
  OnHit on_hit_;
  std::unique_ptr<Debugger> debugger_;
  std::map<std::string, int> breakpoint_ids_;  // node -> debugger id
  std::unique_ptr<NodeTimer> node_timer_;
  std::unique_ptr<Profiler> profiler_;
  std::atomic<bool> profiling_{false};
};

}  // namespace flowlens::dist
