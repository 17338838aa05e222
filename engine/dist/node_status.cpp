#include "dist/node_status.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace flowlens::dist {

std::string status_to_json(const NodeStatus& s) {
  nlohmann::json j;
  j["role"] = s.role;
  j["task"] = s.task;
  j["address"] = s.address;
  j["state"] = s.state;
  j["step"] = s.step;
  j["loss"] = s.loss && std::isfinite(*s.loss) ? nlohmann::json(*s.loss) : nlohmann::json(nullptr);
  j["steps_per_second"] = s.steps_per_second;
  j["bytes_in"] = s.bytes_in;
  j["bytes_out"] = s.bytes_out;
  j["events"] = s.events;
  j["mode"] = s.mode;
  j["detail"] = s.detail;
  j["profiling"] = s.profiling;
  nlohmann::json vars = nlohmann::json::array();
  for (const auto& v : s.variables)
    vars.push_back({{"name", v.name}, {"dtype", v.dtype}, {"shape", v.shape}, {"bytes", v.bytes}});
  j["variables"] = vars;
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : s.links) links.push_back({{"peer", l.peer}, {"bytes_in", l.bytes_in}, {"bytes_out", l.bytes_out}});
  j["links"] = links;
  return j.dump();
}

NodeStatus status_from_json(const std::string& text, const std::string& source) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error(source + ": status is not a JSON object");
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!j.contains(name)) throw Error(source + ": status has no field '" + name + "'");
    return j[name];
  };
  try {
    NodeStatus s;
    s.role = field("role").get<std::string>();
    s.task = field("task").get<int>();
    s.address = field("address").get<std::string>();
    s.state = field("state").get<std::string>();
    s.step = field("step").get<int64_t>();
    if (!field("loss").is_null()) s.loss = field("loss").get<double>();
    s.steps_per_second = field("steps_per_second").get<double>();
    s.bytes_in = field("bytes_in").get<uint64_t>();
    s.bytes_out = field("bytes_out").get<uint64_t>();
    s.events = field("events").get<std::string>();
    s.mode = field("mode").get<std::string>();
    s.detail = field("detail").get<std::string>();
    s.profiling = field("profiling").get<bool>();
    for (const auto& v : field("variables"))
      s.variables.push_back({v.at("name").get<std::string>(), v.at("dtype").get<std::string>(),
                             v.at("shape").get<std::string>(), v.at("bytes").get<int64_t>()});
    for (const auto& l : field("links"))
      s.links.push_back({l.at("peer").get<std::string>(), l.at("bytes_in").get<uint64_t>(), l.at("bytes_out").get<uint64_t>()});
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error(source + ": malformed status: " + e.what());
  }
}

std::string human_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else if (bytes < (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else if (bytes < (1u << 30)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  return buf;
}

std::string format_status_table(const std::vector<StatusRow>& rows) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-10s %-21s %-9s %-7s %8s %10s %8s %10s %10s %s\n", "node", "address", "state", "mode",
                "step", "loss", "steps/s", "in", "out", "variables");
  out += line;
  for (const StatusRow& r : rows) {
    if (!r.status) {
      std::snprintf(line, sizeof line, "%-10s %-21s %-9s %s\n", r.node.c_str(), r.address.c_str(), "unreachable",
                    r.why.c_str());
      out += line;
      continue;
    }
    const NodeStatus& s = *r.status;
    int64_t var_bytes = 0;
    for (const auto& v : s.variables) var_bytes += v.bytes;
    char loss[32] = "-";
    if (s.loss) std::snprintf(loss, sizeof loss, "%.6f", *s.loss);
    const std::string vars = std::to_string(s.variables.size()) + " (" + human_bytes(static_cast<uint64_t>(var_bytes)) + ")";
    std::snprintf(line, sizeof line, "%-10s %-21s %-9s %-7s %8lld %10s %8.1f %10s %10s %s%s%s\n", r.node.c_str(),
                  r.address.c_str(), s.state.c_str(), s.mode.empty() ? "-" : s.mode.c_str(),
                  static_cast<long long>(s.step), loss, s.steps_per_second,
                  human_bytes(s.bytes_in).c_str(), human_bytes(s.bytes_out).c_str(), vars.c_str(),
                  s.detail.empty() ? "" : "  ", s.detail.c_str());
    out += line;
  }
  return out;
}

void StepRate::record(int64_t step) {
  const auto now = std::chrono::steady_clock::now();
  samples_.emplace_back(now, step);
  while (samples_.size() > 2 && now - samples_.front().first > std::chrono::seconds(5)) samples_.pop_front();
}

double StepRate::per_second() const {
  if (samples_.size() < 2) return 0;
  const auto now = std::chrono::steady_clock::now();
  // No step for 2 s: report that, not the rate from before the stall.
  if (now - samples_.back().first > std::chrono::seconds(2)) return 0;
  const double dt = std::chrono::duration<double>(samples_.back().first - samples_.front().first).count();
  return dt > 0 ? static_cast<double>(samples_.back().second - samples_.front().second) / dt : 0;
}

}  // namespace flowlens::dist
