#include "observe/debugger.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "common/trim.h"

#include "exec/device.h"
#include "observe/tensor_stats.h"
#include "observe/variable_values.h"

namespace flowlens {
namespace {

// A stop's tensors as host tensors (shared when already on the host): the UI
// and the CLI read them after the device has moved on. A resource handle
// shows its variable's value, as a ref input shows the variable's.
std::vector<Tensor> host_tensors(std::span<const Tensor> tensors) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    const Tensor shown = shown_value(t);
    out.push_back(shown.valid() ? shown.to_host() : shown);
  }
  return out;
}

// The values of the resource variables a node takes, as they were when it
// started (a ref input's value is read then too): set when the armed
// debugger sees the node start, used when it stops after the node (on the
// same worker thread), so an update's stop shows the value it updated.
struct StartedNode {
  int64_t run_id = 0;
  const Node* node = nullptr;
  std::vector<Tensor> inputs;  // empty where an input is not a handle
};
thread_local StartedNode t_started;

void remember_resource_inputs(int64_t run_id, const NodeEvent& event) {
  t_started.run_id = run_id;
  t_started.node = &event.node;
  t_started.inputs.assign(event.inputs.size(), Tensor());
  for (size_t i = 0; i < event.inputs.size(); ++i)
    if (event.inputs[i].valid() && event.inputs[i].dtype() == DType::Resource)
      t_started.inputs[i] = host_tensors(event.inputs.subspan(i, 1))[0];
}

std::vector<Tensor> stop_inputs(int64_t run_id, const NodeEvent& event) {
  std::vector<Tensor> out = host_tensors(event.inputs);
  if (t_started.run_id == run_id && t_started.node == &event.node && t_started.inputs.size() == out.size())
    for (size_t i = 0; i < out.size(); ++i)
      if (event.inputs[i].valid() && event.inputs[i].dtype() == DType::Resource) out[i] = t_started.inputs[i];
  return out;
}

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr const char* kStopped = "stopped by the debugger";

std::string output_name(const std::string& node, size_t port) {
  return port == 0 ? node : node + ":" + std::to_string(port);
}

// "x:0" and "x" name the same tensor.
std::string normalize_tensor(const std::string& name) {
  return name.ends_with(":0") ? name.substr(0, name.size() - 2) : name;
}

std::vector<std::string> data_input_names(const Node& node) {
  std::vector<std::string> names;
  for (const std::string& in : node.inputs)
    if (!in.starts_with("^")) names.push_back(in);
  return names;
}

bool any_non_finite(std::span<const Tensor> tensors) {
  for (const Tensor& t : tensors)
    if (has_non_finite(t)) return true;
  return false;
}

bool exceeds(std::span<const Tensor> outputs, double threshold) {
  for (const Tensor& t : outputs) {
    TensorStats s = tensor_stats(t);
    if (s.numeric && (s.inf_count > 0 || s.max_abs > threshold)) return true;
  }
  return false;
}

// "node 'x' (Log) produced NaN in output 0; inputs: 'y' = float32[2] min ..."
std::string numerics_report(const Node& node, std::span<const Tensor> inputs, std::span<const Tensor> outputs) {
  std::string msg = "node '" + node.name + "' (" + node.op + ") produced ";
  for (size_t i = 0; i < outputs.size(); ++i) {
    TensorStats s = tensor_stats(outputs[i]);
    if (!s.has_nan() && !s.has_inf()) continue;
    msg += std::string(s.has_nan() ? "NaN" : "Inf") + " in output " + std::to_string(i);
    break;
  }
  msg += "; inputs:";
  std::vector<std::string> names = data_input_names(node);
  if (inputs.empty()) msg += " (none)";
  for (size_t i = 0; i < inputs.size(); ++i) {
    msg += (i ? ", '" : " '") + (i < names.size() ? names[i] : std::to_string(i)) + "' = ";
    msg += inputs[i].valid() ? summarize_tensor(inputs[i]) : "(ref)";
  }
  return msg;
}

// Fills a stop's node fields from the event (the same for every kind of stop).
void describe_node(DebugStop& s, int64_t run_id, const NodeEvent& event) {
  s.run_id = run_id;
  s.node_index = event.node_index;
  s.node = event.node.name;
  s.op = event.node.op;
  s.device = event.device.short_name();
  s.input_names = data_input_names(event.node);
  s.frame = std::string(event.frame);
  s.iteration = event.iteration;
  s.call_stack.assign(event.call_stack.begin(), event.call_stack.end());
}

}  // namespace

bool IterationCondition::matches(int64_t iteration) const {
  switch (kind) {
    case Kind::Any: return true;
    case Kind::Equal: return iteration == value;
    case Kind::AtLeast: return iteration >= value;
    case Kind::Every: return value >= 1 && iteration % value == 0;
  }
  return true;
}

std::string IterationCondition::to_string() const {
  switch (kind) {
    case Kind::Any: return {};
    case Kind::Equal: return "iteration == " + std::to_string(value);
    case Kind::AtLeast: return "iteration >= " + std::to_string(value);
    case Kind::Every: return "every " + std::to_string(value) + " iterations";
  }
  return {};
}

IterationCondition parse_iteration_condition(std::string_view text) {
  const std::string original(text);
  auto fail = [&](const std::string& why) -> IterationCondition {
    throw Error("iteration condition '" + original + "': " + why +
                " (write e.g. \"iteration == 3\", \"iteration >= 5\" or \"every 4\")");
  };
  std::string_view s = trimmed(text);
  if (s.empty()) return {};
  auto eat = [&](std::string_view word) {
    if (!s.starts_with(word)) return false;
    s = trimmed(s.substr(word.size()));
    return true;
  };
  IterationCondition c;
  bool above = false;  // "> n" is ">= n+1"
  if (eat("every")) {
    c.kind = IterationCondition::Kind::Every;
  } else {
    eat("iteration");
    if (eat(">=")) c.kind = IterationCondition::Kind::AtLeast;
    else if (eat(">")) c.kind = IterationCondition::Kind::AtLeast, above = true;
    else if (eat("==") || eat("=")) c.kind = IterationCondition::Kind::Equal;
    else if (eat("%")) c.kind = IterationCondition::Kind::Every;
    else if (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front()))) c.kind = IterationCondition::Kind::Equal;
    else return fail("expected ==, >= or every");
  }
  // "every 4 iterations": the unit may follow the number.
  if (s.ends_with("iterations")) s = trimmed(s.substr(0, s.size() - 10));
  else if (s.ends_with("iteration")) s = trimmed(s.substr(0, s.size() - 9));
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return fail("expected a whole number");
  if (n < 0) return fail("iterations count from 0");
  if (c.kind == IterationCondition::Kind::Every && n < 1) return fail("every needs a number of at least 1");
  if (above) {
    if (n == std::numeric_limits<int64_t>::max()) return fail("the number is too large");
    c.value = n + 1;
  } else {
    c.value = n;
  }
  return c;
}


const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::Breakpoint: return "breakpoint";
    case StopReason::Step: return "step";
    case StopReason::RunTo: return "run-to";
    case StopReason::Pause: return "pause";
    case StopReason::Numerics: return "check-numerics";
  }
  return "?";
}

std::string stop_position(const DebugStop& stop) {
  std::string s;
  for (const CallSite& c : stop.call_stack) s += c.node + " (" + c.function + ") > ";
  s += stop.node;
  if (!stop.frame.empty()) s += " @ iteration " + std::to_string(stop.iteration);
  return s;
}

Debugger::~Debugger() {
  std::unique_lock lock(mu_);
  abort_ = true;
  cv_.notify_all();
  cv_.wait(lock, [&] { return blocked_workers_ == 0; });
}

void Debugger::update_armed() {
  const bool armed = !breakpoints_.empty() || check_numerics_ || !watches_.empty() || stepping_ || !run_to_.empty() ||
                     pause_requested_ || abort_ || stop_active_;
  armed_.store(armed, std::memory_order_relaxed);
}

int Debugger::add_breakpoint(Breakpoint breakpoint) {
  std::lock_guard lock(mu_);
  const int id = next_breakpoint_id_++;
  breakpoints_[id] = std::move(breakpoint);
  update_armed();
  return id;
}

void Debugger::remove_breakpoint(int id) {
  std::lock_guard lock(mu_);
  breakpoints_.erase(id);
  update_armed();
}

void Debugger::clear_breakpoints() {
  std::lock_guard lock(mu_);
  breakpoints_.clear();
  update_armed();
}

void Debugger::set_check_numerics(bool on) {
  std::lock_guard lock(mu_);
  check_numerics_ = on;
  update_armed();
}

void Debugger::set_on_stop(StopCallback callback) {
  std::lock_guard lock(mu_);
  on_stop_ = std::move(callback);
}

void Debugger::watch(const std::string& tensor) {
  std::lock_guard lock(mu_);
  watches_.insert(normalize_tensor(tensor));
  update_armed();
}

void Debugger::unwatch(const std::string& tensor) {
  std::lock_guard lock(mu_);
  watches_.erase(normalize_tensor(tensor));
  update_armed();
}

void Debugger::set_max_watched_runs(int runs) {
  std::lock_guard lock(mu_);
  max_watched_runs_ = runs < 1 ? 1 : runs;
}

Tensor Debugger::watched(int64_t run_id, const std::string& tensor) const {
  std::lock_guard lock(mu_);
  auto run = watched_.find(run_id);
  if (run == watched_.end()) return {};
  auto it = run->second.find(normalize_tensor(tensor));
  return it == run->second.end() ? Tensor() : it->second;
}

std::map<std::string, Tensor> Debugger::watched_in(int64_t run_id) const {
  std::lock_guard lock(mu_);
  auto run = watched_.find(run_id);
  return run == watched_.end() ? std::map<std::string, Tensor>{} : run->second;
}

std::vector<int64_t> Debugger::watched_runs() const {
  std::lock_guard lock(mu_);
  std::vector<int64_t> runs;
  for (const auto& [id, tensors] : watched_) runs.push_back(id);
  return runs;
}

std::vector<WatchedValue> Debugger::watched_iterations(int64_t run_id, const std::string& tensor) const {
  std::lock_guard lock(mu_);
  auto run = watched_iterations_.find(run_id);
  if (run == watched_iterations_.end()) return {};
  auto it = run->second.find(normalize_tensor(tensor));
  if (it == run->second.end()) return {};
  return {it->second.begin(), it->second.end()};
}

void Debugger::set_max_watched_iterations(int copies) {
  std::lock_guard lock(mu_);
  max_watched_iterations_ = copies < 1 ? 1 : copies;
}

void Debugger::end_stop() {
  if (!stop_active_) return;
  stop_active_ = false;
  paused_ns_ += steady_ns() - stop_began_ns_;
}

void Debugger::resume(std::unique_lock<std::mutex>&) {
  if (stop_active_) {
    end_stop();
    resumed_sequence_ = stop_sequence_;
  }
  update_armed();
  cv_.notify_all();
}

void Debugger::continue_run() {
  std::unique_lock lock(mu_);
  stepping_ = false;
  resume(lock);
}

void Debugger::step() {
  std::unique_lock lock(mu_);
  stepping_ = true;
  step_token_taken_ = false;
  if (stop_active_ && current_.before_node) {
    // Paused before a node: that node is the one to step. Handing it the
    // token here keeps a worker waiting at the gate from starting first.
    step_token_taken_ = true;
    step_run_ = current_.run_id;
    step_node_ = current_node_;
    step_thread_ = std::thread::id();  // the stopped worker is the one to step (any worker may take it)
  }
  resume(lock);
}

void Debugger::run_to(const std::string& node) {
  std::unique_lock lock(mu_);
  stepping_ = false;
  run_to_ = node;
  resume(lock);
}

void Debugger::pause() {
  std::lock_guard lock(mu_);
  if (!stop_active_) pause_requested_ = true;
  update_armed();
}

void Debugger::stop() {
  std::lock_guard lock(mu_);
  // Only the active run is aborted; a later run starts clean.
  if (active_runs_ == 0) return;
  abort_ = true;
  update_armed();
  cv_.notify_all();
}

bool Debugger::is_stopped() const {
  std::lock_guard lock(mu_);
  return stop_active_;
}

int64_t Debugger::paused_ns() const {
  std::lock_guard lock(mu_);
  return paused_ns_ + (stop_active_ ? steady_ns() - stop_began_ns_ : 0);
}

std::optional<DebugStop> Debugger::current_stop() const {
  std::lock_guard lock(mu_);
  if (!stop_active_) return std::nullopt;
  return current_;
}

std::optional<DebugStop> Debugger::wait_for_stop(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return !queued_.empty(); })) return std::nullopt;
  DebugStop s = std::move(queued_.front());
  queued_.pop_front();
  return s;
}

void Debugger::on_run_start(int64_t, int) {
  std::lock_guard lock(mu_);
  ++active_runs_;
}

void Debugger::on_run_end(int64_t, bool) {
  std::lock_guard lock(mu_);
  if (--active_runs_ > 0) return;
  abort_ = false;
  end_stop();
  step_token_taken_ = false;  // a stepped node that failed never reached its stop
  pause_requested_ = false;   // a pause that came as the run's last node ran must not stop the next run
  update_armed();
  cv_.notify_all();
}

void Debugger::stop_here(std::unique_lock<std::mutex>& lock, DebugStop stop) {
  ++blocked_workers_;
  struct Leave {  // keeps the count right on the throwing paths too
    int& n;
    std::condition_variable& cv;
    ~Leave() { --n; cv.notify_all(); }
  } leave{blocked_workers_, cv_};
  // One stop at a time: a second worker that hits a breakpoint waits its turn.
  cv_.wait(lock, [&] { return abort_ || !stop_active_; });
  if (abort_) throw Error(kStopped);
  stop.sequence = ++stop_sequence_;
  stop_active_ = true;
  stop_began_ns_ = steady_ns();
  current_ = stop;
  update_armed();
  StopCallback callback = on_stop_;
  if (!callback) queued_.push_back(stop);
  cv_.notify_all();
  if (callback) {
    lock.unlock();  // the callback may call the controls
    callback(stop);
    lock.lock();
  }
  cv_.wait(lock, [&] { return abort_ || resumed_sequence_ >= stop.sequence; });
  if (abort_) throw Error(kStopped);
}

void Debugger::on_node_start(int64_t run_id, const NodeEvent& event) {
  if (!armed_.load(std::memory_order_relaxed)) return;
  remember_resource_inputs(run_id, event);
  std::unique_lock lock(mu_);
  // The gate: while a stop is active, or a stepped node is in flight, no
  // other node starts — this is what makes the whole run pause.
  // A node starting on the stepped node's worker while the step is in flight
  // runs inside its function call: the step moves into the call.
  if (stepping_ && step_token_taken_ && !stop_active_ && step_run_ == run_id && !event.call_stack.empty() &&
      step_thread_ == std::this_thread::get_id()) {
    step_node_ = &event.node;
    return;
  }
  ++blocked_workers_;
  cv_.wait(lock, [&] { return abort_ || !(stop_active_ || (stepping_ && step_token_taken_)); });
  --blocked_workers_;
  cv_.notify_all();
  if (abort_) throw Error(kStopped);
  if (pause_requested_) {
    pause_requested_ = false;
    DebugStop s;
    describe_node(s, run_id, event);
    s.reason = StopReason::Pause;
    s.before_node = true;
    current_node_ = &event.node;
    s.inputs = host_tensors(event.inputs);
    s.message = "paused before '" + event.node.name + "'";
    stop_here(lock, std::move(s));
  }
  if (stepping_ && step_token_taken_ && step_node_ == &event.node) step_thread_ = std::this_thread::get_id();
  if (stepping_ && !step_token_taken_) {
    step_token_taken_ = true;
    step_run_ = run_id;
    step_node_ = &event.node;
    step_thread_ = std::this_thread::get_id();
  }
}

void Debugger::capture_watches(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) {
  if (watches_.empty()) return;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string name = output_name(event.node.name, i);
    if (!outputs[i].valid() || !watches_.contains(name)) continue;
    // A deep copy: later runs (and in-place updates of variables) must not
    // change what was captured for this run.
    // A copy of its own on the host: GPU tensors are read by the UI later. A
    // handle (VarHandleOp's output) is watched as its variable's value.
    const Tensor shown = shown_value(outputs[i]);
    if (!shown.valid()) continue;
    const Tensor copy = shown.on_host() ? shown.clone() : shown.to_host();
    watched_[run_id][name] = copy;
    // Inside a loop the node runs once per iteration: each copy is kept
    // (the buffer is shared with watched_'s latest one).
    std::deque<WatchedValue>& copies = watched_iterations_[run_id][name];
    copies.push_back({std::string(event.frame), event.iteration, copy});
    while (static_cast<int>(copies.size()) > max_watched_iterations_) copies.pop_front();
  }
  while (static_cast<int>(watched_.size()) > max_watched_runs_) watched_.erase(watched_.begin());
  while (static_cast<int>(watched_iterations_.size()) > max_watched_runs_)
    watched_iterations_.erase(watched_iterations_.begin());
}

std::optional<std::string> Debugger::why_stop_after(int64_t run_id, const NodeEvent& event,
                                                    std::span<const Tensor> outputs, StopReason* reason) {
  const std::string& name = event.node.name;
  if (check_numerics_ && any_non_finite(outputs) && !any_non_finite(event.inputs)) {
    *reason = StopReason::Numerics;
    return numerics_report(event.node, event.inputs, outputs);
  }
  if (!run_to_.empty() && run_to_ == name) {
    run_to_.clear();
    *reason = StopReason::RunTo;
    return "ran to '" + name + "'";
  }
  for (const auto& [id, bp] : breakpoints_) {
    if (!bp.node.empty() && bp.node != name) continue;
    if (!bp.iteration.matches(event.iteration)) continue;
    bool hit = bp.condition == Breakpoint::Condition::Always ||
               (bp.condition == Breakpoint::Condition::NonFinite && any_non_finite(outputs)) ||
               (bp.condition == Breakpoint::Condition::MaxAbsAbove && exceeds(outputs, bp.threshold));
    if (!hit) continue;
    *reason = StopReason::Breakpoint;
    switch (bp.condition) {
      case Breakpoint::Condition::Always:
        return "breakpoint at '" + name + "'" +
               (event.frame.empty() ? std::string() : " @ iteration " + std::to_string(event.iteration));
      case Breakpoint::Condition::NonFinite: return "'" + name + "' produced NaN/Inf";
      case Breakpoint::Condition::MaxAbsAbove: return "'" + name + "' has max |x| > " + std::to_string(bp.threshold);
    }
  }
  if (stepping_ && step_token_taken_ && step_run_ == run_id && step_node_ == &event.node) {
    *reason = StopReason::Step;
    return "stepped '" + name + "'";
  }
  return std::nullopt;
}

void Debugger::on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) {
  if (!armed_.load(std::memory_order_relaxed)) return;
  std::unique_lock lock(mu_);
  if (abort_) throw Error(kStopped);
  capture_watches(run_id, event, outputs);
  StopReason reason{};
  std::optional<std::string> why = why_stop_after(run_id, event, outputs, &reason);
  const bool was_stepped = stepping_ && step_token_taken_ && step_run_ == run_id && step_node_ == &event.node;
  if (was_stepped) stepping_ = false;  // this stop ends the step; step() again to go on
  if (!why) return;
  DebugStop s;
  describe_node(s, run_id, event);
  s.reason = reason;
  s.inputs = stop_inputs(run_id, event);
  s.outputs = host_tensors(outputs);
  s.message = std::move(*why);
  current_node_ = &event.node;
  stop_here(lock, std::move(s));
}

}  // namespace flowlens
