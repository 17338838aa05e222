// The ps task's inspection side: status, fetch, pause/step/resume, profiling
// and heartbeats. Kept apart from ps_server.cpp, which moves variables.
#include <iostream>

#include "dist/ps_server.h"
#include "observe/chrome_trace_writer.h"

namespace flowlens::dist {

NodeStatus PsServer::status() const {
  NodeStatus s;
  s.role = "ps";
  s.task = options_.task;
  s.address = address_;
  s.state = !stop_reason_.empty() ? "stopping" : paused_ ? "paused" : "serving";
  s.step = state_.global_step;
  s.steps_per_second = rate_.per_second();
  s.bytes_in = traffic_.bytes_in;
  s.bytes_out = traffic_.bytes_out;
  s.events = events_endpoint_;
  s.profiling = profiling_;
  s.mode = last_replicas_to_aggregate_ < 0   ? ""
           : last_replicas_to_aggregate_ == 0 ? "async"
                                              : "sync " + std::to_string(last_replicas_to_aggregate_);
  for (const auto& [name, var] : state_.variables)
    s.variables.push_back({name, dtype_name(var.value.dtype()), var.value.shape().to_string(),
                           static_cast<int64_t>(var.value.byte_size())});
  s.links = links_.links();
  if (!pending_pulls_.empty()) s.detail = missing_workers_text();
  if (const std::string down = liveness_text(); !down.empty()) s.detail = down + (s.detail.empty() ? "" : "; " + s.detail);
  const std::size_t workers = options_.cluster.task_indices("worker").size();
  if (s.detail.empty() && liveness_.finished_count() > 0)
    s.detail = std::to_string(liveness_.finished_count()) + " of " + std::to_string(workers) + " worker(s) done";
  return s;
}

void PsServer::publish_heartbeat() {
  last_heartbeat_ = std::chrono::steady_clock::now();
  wire::Header h;
  h.set_kind(wire::HEARTBEAT);
  h.set_sender("ps:" + std::to_string(options_.task));
  h.set_step(state_.global_step);
  h.set_text(status_to_json(status()));
  traffic_.bytes_out += send_message(publisher_, {}, h, {});
}

// Variables by name, and their slots as "<var>/<slot>" (accum, m, v, ...).
void PsServer::handle_fetch(const WireMessage& m) {
  std::vector<NamedTensor> out;
  std::string missing;
  for (const std::string& name : m.header.names()) {
    if (auto it = state_.variables.find(name); it != state_.variables.end() && it->second.value.valid()) {
      out.push_back({name, it->second.value});
      continue;
    }
    const auto slash = name.rfind('/');
    const Tensor* slot = nullptr;
    if (slash != std::string::npos) {
      auto it = state_.variables.find(name.substr(0, slash));
      const std::string which = name.substr(slash + 1);
      if (it != state_.variables.end()) {
        const PsVariable& v = it->second;
        if (which == "accum") slot = &v.accum;
        else if (which == "m") slot = &v.m;
        else if (which == "v") slot = &v.v;
        else if (which == "beta1_power") slot = &v.beta1_power;
        else if (which == "beta2_power") slot = &v.beta2_power;
      }
    }
    if (slot && slot->valid()) out.push_back({name, *slot});
    else missing += (missing.empty() ? "" : ", ") + name;
  }
  if (!missing.empty()) {
    reply(m, reply_header(m.header, wire::FAILED, "ps " + std::to_string(options_.task) + " has no variable " + missing));
    return;
  }
  wire::Header h = reply_header(m.header, wire::OK);
  h.set_step(state_.global_step);
  reply(m, h, out);
}

void PsServer::handle_control(WireMessage& m) {
  const std::string& cmd = m.header.command();
  std::string text;
  if (cmd == "pause") {
    paused_ = true;
    text = "paused at global step " + std::to_string(state_.global_step);
  } else if (cmd == "resume" || cmd == "step") {
    if (cmd == "step") step_budget_ = 1;
    else paused_ = false, step_budget_ = 0;
    // Apply what waited: everything on resume, one update on step.
    while (!paused_pushes_.empty() && (!paused_ || step_budget_ > 0)) {
      if (step_budget_ > 0) --step_budget_;
      WireMessage push = std::move(paused_pushes_.front());
      paused_pushes_.pop_front();
      apply_async(push);
    }
    finish_sync_round_if_complete();
    text = (paused_ ? "stepped to global step " : "resumed at global step ") + std::to_string(state_.global_step);
  } else if (cmd == "profile_start") {
    profiling_ = true;
    profile_.clear();
    text = "profiling requests";
  } else if (cmd == "profile_stop") {
    if (!profiling_) {
      reply(m, reply_header(m.header, wire::FAILED, "not profiling (send profile_start first)"));
      return;
    }
    const std::string path = m.header.text().empty() ? "ps-" + std::to_string(options_.task) + "-profile.json" : m.header.text();
    try {
      write_profile(path);
    } catch (const Error& e) {
      reply(m, reply_header(m.header, wire::FAILED, e.what()));
      return;
    }
    profiling_ = false;
    text = "wrote " + std::to_string(profile_.size()) + " request(s) to " + path;
  } else if (cmd == "stop") {
    stop_reason_ = "stopped by " + (m.header.sender().empty() ? std::string("a client") : m.header.sender());
    text = "stopping; checkpoint " + (options_.checkpoint_dir.empty() ? std::string("disabled") : "saved on exit");
  } else {
    reply(m, reply_header(m.header, wire::BAD_REQUEST,
                          "unknown command '" + cmd + "' (expected pause, step, resume, profile_start, profile_stop or stop)"));
    return;
  }
  wire::Header h = reply_header(m.header, wire::OK, text);
  h.set_step(state_.global_step);
  reply(m, h);
}

void PsServer::record_profile(const wire::Header& request, std::chrono::steady_clock::time_point start) {
  const auto end = std::chrono::steady_clock::now();
  const int64_t bytes = -1;  // request sizes are counted in the traffic totals
  profile_.push_back({kind_name(request.kind()), request.sender(),
                      std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count(),
                      std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count(), bytes});
}

// One track per sender, one slice per request handled.
void PsServer::write_profile(const std::string& path) {
  ChromeTraceWriter writer(path);
  writer.process_name(0, "ps " + std::to_string(options_.task));
  std::map<std::string, int> tracks;
  const int64_t origin = profile_.empty() ? 0 : profile_.front().start_ns;
  for (const ProfileEvent& e : profile_) {
    auto [it, added] = tracks.emplace(e.sender, static_cast<int>(tracks.size()) + 1);
    if (added) writer.thread_name(0, it->second, e.sender.empty() ? "unnamed client" : e.sender);
    TraceSlice slice;
    slice.name = e.kind;
    slice.op = e.kind;
    slice.tid = it->second;
    slice.start_ns = e.start_ns - origin;
    slice.duration_ns = e.duration_ns;
    slice.bytes = e.bytes;
    writer.slice(slice);
  }
  writer.finish();
}

}  // namespace flowlens::dist
