// The ps task's inspection side: status, fetch and heartbeats (the commands
// themselves are registered in ps_admission.cpp; what pause/step/resume do
// to the updates is ps_updates.cpp's). Kept apart from ps_server.cpp and
// ps_updates.cpp, which move variables.
#include <algorithm>
#include <map>

#include "dist/ps/ps_server.h"

namespace flowlens::dist {

uint64_t PsServer::status_key() const {
  uint64_t key = status_generation_;
  auto mix = [&key](uint64_t v) { key = (key ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull; };
  mix(updates_.paused());
  mix(stop_reason_.size());
  mix(profile_.active());
  mix(static_cast<uint64_t>(workers_.replicas() + 1));
  mix(updates_.restored_variables().size());
  mix(graph_ != nullptr);
  mix(static_cast<uint64_t>(workers_.liveness().live_count()));
  mix(workers_.liveness().finished_count());
  mix(pending_pulls_.empty());
  mix(workers_.rounds().collected());  // who a sync barrier still waits for (the detail)
  return key;
}

void PsServer::fill_status(NodeStatus& s, bool key_changed) const {
  if (key_changed) {
    s.role = "ps";
    s.task = options_.task;
    s.address = address_;
    s.state = !stop_reason_.empty() ? "stopping" : updates_.paused() ? "paused" : "serving";
    s.events = control_.events_endpoint();
    s.profiling = profile_.active();
    const int k = workers_.replicas();
    s.mode = k < 0 ? "" : k == 0 ? "async" : "sync " + std::to_string(k);
    s.variables.clear();
    auto add = [&s](const std::string& name, const Tensor& v) {
      s.variables.push_back({name, dtype_name(v.dtype()), v.shape().to_string(), static_cast<int64_t>(v.byte_size())});
    };
    if (graph_) {
      for (const std::string& name : graph_->variables())
        if (const Tensor v = graph_->value(name); v.valid()) add(name, v);
    } else {
      for (const auto& [name, value] : updates_.restored_variables()) add(name, value);
    }
  }
  s.step = updates_.global_step();
  s.steps_per_second = updates_.steps_per_second();
  s.bytes_in = control_.traffic().bytes_in;
  s.bytes_out = control_.traffic().bytes_out;
  s.links = links_.links();
  s.detail.clear();
  if (!pending_pulls_.empty()) s.detail = workers_.missing_text(updates_.global_step());
  if (const std::string down = workers_.down_text(); !down.empty()) s.detail = down + (s.detail.empty() ? "" : "; " + s.detail);
  if (s.detail.empty()) s.detail = workers_.done_text();
}

const std::string& PsServer::status_json() {
  return control_.status_json(status_key(), updates_.global_step(),
                              [&](NodeStatus& s, bool key_changed) { fill_status(s, key_changed); });
}

void PsServer::publish_heartbeat() {
  last_heartbeat_ = std::chrono::steady_clock::now();
  control_.publish_heartbeat(status_json(), updates_.global_step());
}

// Variables by name: the graph's own, optimizer slots and moving averages
// included. Copies: the update phase changes variables in place.
CommandReply PsServer::fetch(const std::vector<std::string>& names) {
  CommandReply r;
  std::string missing;
  const std::map<std::string, Tensor>& restored = updates_.restored_variables();
  for (const std::string& name : names) {
    Tensor value;
    if (graph_) {
      const auto& vars = graph_->variables();
      if (std::find(vars.begin(), vars.end(), name) != vars.end()) value = graph_->value(name);
    } else if (auto it = restored.find(name); it != restored.end()) {
      value = it->second;
    }
    if (value.valid()) r.tensors.push_back({name, value.clone()});
    else missing += (missing.empty() ? "" : ", ") + name;
  }
  if (!missing.empty()) return {wire::FAILED, label_ + " has no variable " + missing, {}};
  return r;
}

}  // namespace flowlens::dist
