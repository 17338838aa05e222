// The ps task's inspection side: status, fetch, pause/step/resume, profiling
// and heartbeats. Kept apart from ps_server.cpp, which moves variables.
#include <algorithm>
#include <cstring>
#include <iostream>

#include "dist/ps/ps_server.h"

namespace flowlens::dist {

uint64_t PsServer::status_key() const {
  uint64_t key = status_generation_;
  auto mix = [&key](uint64_t v) { key = (key ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull; };
  mix(gate_.paused());
  mix(stop_reason_.size());
  mix(profile_.active());
  mix(static_cast<uint64_t>(last_replicas_to_aggregate_ + 1));
  mix(state_.variables.size());
  mix(graph_ != nullptr);
  mix(static_cast<uint64_t>(liveness_.live_count()));
  mix(liveness_.finished_count());
  mix(pending_pulls_.empty());
  mix(aggregator_.collected());  // who a sync barrier still waits for (the detail)
  return key;
}

void PsServer::fill_status(NodeStatus& s, bool key_changed) const {
  if (key_changed) {
    s.role = "ps";
    s.task = options_.task;
    s.address = address_;
    s.state = !stop_reason_.empty() ? "stopping" : gate_.paused() ? "paused" : "serving";
    s.events = endpoints_.events_endpoint();
    s.profiling = profile_.active();
    s.mode = last_replicas_to_aggregate_ < 0   ? ""
             : last_replicas_to_aggregate_ == 0 ? "async"
                                                : "sync " + std::to_string(last_replicas_to_aggregate_);
    s.variables.clear();
    auto add = [&s](const std::string& name, const Tensor& v) {
      s.variables.push_back({name, dtype_name(v.dtype()), v.shape().to_string(), static_cast<int64_t>(v.byte_size())});
    };
    if (graph_) {
      for (const std::string& name : graph_->variables())
        if (const Tensor v = graph_->value(name); v.valid()) add(name, v);
    } else {
      for (const auto& [name, value] : state_.variables) add(name, value);
    }
  }
  s.step = state_.global_step;
  s.steps_per_second = rate_.per_second();
  s.bytes_in = traffic_.bytes_in;
  s.bytes_out = traffic_.bytes_out;
  s.links = links_.links();
  s.detail.clear();
  if (!pending_pulls_.empty()) s.detail = missing_workers_text();
  if (const std::string down = liveness_text(); !down.empty()) s.detail = down + (s.detail.empty() ? "" : "; " + s.detail);
  const std::size_t workers = options_.cluster.task_indices("worker").size();
  if (s.detail.empty() && liveness_.finished_count() > 0)
    s.detail = std::to_string(liveness_.finished_count()) + " of " + std::to_string(workers) + " worker(s) done";
}

const std::string& PsServer::status_json() {
  return status_cache_.get(status_key(), state_.global_step,
                           [&](NodeStatus& s, bool key_changed) { fill_status(s, key_changed); });
}

void PsServer::publish_heartbeat() {
  last_heartbeat_ = std::chrono::steady_clock::now();
  wire::Header h;
  h.set_kind(wire::HEARTBEAT);
  h.set_sender("ps:" + std::to_string(options_.task));
  h.set_step(state_.global_step);
  h.set_text(status_json());
  traffic_.bytes_out += endpoints_.publish(h);
}

// Variables by name: the graph's own, optimizer slots and moving averages
// included. Copies: the update phase changes variables in place.
void PsServer::handle_fetch(const WireMessage& m) {
  std::vector<NamedTensor> out;
  std::string missing;
  for (const std::string& name : m.header.names()) {
    Tensor value;
    if (graph_) {
      const auto& vars = graph_->variables();
      if (std::find(vars.begin(), vars.end(), name) != vars.end()) value = graph_->value(name);
    } else if (auto it = state_.variables.find(name); it != state_.variables.end()) {
      value = it->second;
    }
    if (value.valid()) out.push_back({name, value.clone()});
    else missing += (missing.empty() ? "" : ", ") + name;
  }
  if (!missing.empty()) {
    reply(m, reply_header(m.header, wire::FAILED, label_ + " has no variable " + missing));
    return;
  }
  wire::Header h = reply_header(m.header, wire::OK);
  h.set_step(state_.global_step);
  reply(m, h, out);
}

void PsServer::handle_control(WireMessage& m) {
  ++status_generation_;  // the next status shows what the command did
  const std::string& cmd = m.header.command();
  std::string text;
  if (cmd == "pause") {
    gate_.pause();
    text = "paused at global step " + std::to_string(state_.global_step);
  } else if (cmd == "resume" || cmd == "step") {
    if (cmd == "step") gate_.step();
    else gate_.resume();
    // Apply what waited: everything on resume, one update on step.
    while (!paused_pushes_.empty() && gate_.admit_update()) {
      WireMessage push = std::move(paused_pushes_.front());
      paused_pushes_.pop_front();
      apply_async(push);
    }
    finish_sync_round_if_complete();
    text = (gate_.paused() ? "stepped to global step " : "resumed at global step ") +
           std::to_string(state_.global_step);
  } else if (cmd == "profile_start") {
    profile_.start();
    text = "profiling requests";
  } else if (cmd == "profile_stop") {
    if (!profile_.active()) {
      reply(m, reply_header(m.header, wire::FAILED, "not profiling (send profile_start first)"));
      return;
    }
    const std::string path = m.header.text().empty() ? "ps-" + std::to_string(options_.task) + "-profile.json" : m.header.text();
    try {
      const std::size_t written = profile_.write_and_stop(path, label_);
      text = "wrote " + std::to_string(written) + " request(s) to " + path;
    } catch (const Error& e) {
      reply(m, reply_header(m.header, wire::FAILED, e.what()));
      return;
    }
  } else if (cmd == "graph") {
    // The partition this ps runs, as a worker registered it (worker names
    // canonical: task 0's), for the GUI and `flowlens-node` tools.
    if (!graph_) {
      reply(m, reply_header(m.header, wire::FAILED, label_ + " runs no partition yet (no worker registered one)"));
      return;
    }
    const std::string& bytes = graph_->partition();
    Tensor t(DType::UInt8, Shape{static_cast<int64_t>(bytes.size())});
    if (!bytes.empty()) std::memcpy(t.raw_data(), bytes.data(), bytes.size());
    reply(m, reply_header(m.header, wire::OK, label_ + " partition"), {{"graph", t}});
    return;
  } else if (cmd == "stop") {
    stop_reason_ = "stopped by " + (m.header.sender().empty() ? std::string("a client") : m.header.sender());
    text = "stopping; checkpoint " + (options_.checkpoint_dir.empty() ? std::string("disabled") : "saved on exit");
  } else {
    reply(m, reply_header(m.header, wire::BAD_REQUEST,
                          "unknown command '" + cmd + "' (expected pause, step, resume, profile_start, profile_stop, graph or stop)"));
    return;
  }
  wire::Header h = reply_header(m.header, wire::OK, text);
  h.set_step(state_.global_step);
  reply(m, h);
}

}  // namespace flowlens::dist
