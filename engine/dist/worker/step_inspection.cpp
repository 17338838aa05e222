#include "dist/worker/step_inspection.h"

#include <cstdlib>

#include <nlohmann/json.hpp>

namespace flowlens::dist {
namespace {

// "node", "node nonfinite" or "node max>2.5" -> a Breakpoint.
Breakpoint parse_breakpoint(const std::string& spec) {
  const std::size_t space = spec.find(' ');
  Breakpoint b;
  b.node = spec.substr(0, space);
  if (b.node.empty()) throw Error("break needs a node name (\"node\", \"node nonfinite\" or \"node max>V\")");
  if (space == std::string::npos) return b;
  const std::string condition = spec.substr(space + 1);
  if (condition == "nonfinite") {
    b.condition = Breakpoint::Condition::NonFinite;
  } else if (condition.rfind("max>", 0) == 0) {
    char* end = nullptr;
    const std::string number = condition.substr(4);
    b.threshold = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0') throw Error("break: '" + number + "' after max> is not a number");
    b.condition = Breakpoint::Condition::MaxAbsAbove;
  } else {
    throw Error("break: unknown condition '" + condition + "' (expected nonfinite or max>V)");
  }
  return b;
}

}  // namespace

StepInspection::StepInspection(Session& session, std::string node, OnHit on_hit)
    : session_(session), node_(std::move(node)), on_hit_(std::move(on_hit)) {}

StepInspection::~StepInspection() = default;

std::string StepInspection::set_breakpoint(const std::string& spec) {
  const Breakpoint b = parse_breakpoint(spec);
  if (!session_.graph().find(b.node)) throw Error(node_ + " runs no node '" + b.node + "'");
  if (!debugger_) {
    debugger_ = std::make_unique<Debugger>();
    // On the executor thread that hit it: tell the worker, let the step run on.
    debugger_->set_on_stop([this](const DebugStop& stop) {
      on_hit_(stop);
      debugger_->continue_run();
    });
    session_.add_observer(debugger_.get());
  }
  if (auto old = breakpoint_ids_.find(b.node); old != breakpoint_ids_.end()) debugger_->remove_breakpoint(old->second);
  breakpoint_ids_[b.node] = debugger_->add_breakpoint(b);
  return "breakpoint at '" + spec + "'; the worker pauses after the step in which it hits";
}

std::string StepInspection::clear_breakpoint(const std::string& node) {
  if (node.empty()) {
    if (debugger_) debugger_->clear_breakpoints();
    const std::size_t n = breakpoint_ids_.size();
    breakpoint_ids_.clear();
    return "cleared " + std::to_string(n) + " breakpoint(s)";
  }
  auto it = breakpoint_ids_.find(node);
  if (it == breakpoint_ids_.end()) throw Error("no breakpoint at '" + node + "'");
  debugger_->remove_breakpoint(it->second);
  breakpoint_ids_.erase(it);
  return "cleared the breakpoint at '" + node + "'";
}

std::string StepInspection::take_node_times() {
  if (!node_timer_) {
    node_timer_ = std::make_unique<NodeTimer>();
    session_.add_observer(node_timer_.get());
  }
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [node, t] : node_timer_->take())
    j[node] = {{"count", t.count}, {"total_ms", static_cast<double>(t.total_ns) / 1e6}};
  return j.dump();
}

void StepInspection::start_profile() {
  if (!profiler_) {
    profiler_ = std::make_unique<Profiler>();
    session_.add_observer(profiler_.get());
  }
  profiler_->clear();
  profiling_ = true;
}

std::size_t StepInspection::write_profile(const std::string& path) {
  profiler_->write_chrome_trace(path);
  const std::size_t written = profiler_->size();
  profiling_ = false;  // the observer stays attached (a run may be using it) but is cleared
  profiler_->clear();
  return written;
}

}  // namespace flowlens::dist
