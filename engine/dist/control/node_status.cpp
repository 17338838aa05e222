#include "dist/control/node_status.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace flowlens::dist {

namespace {

void append_string(std::string& out, const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20) {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 15];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // UTF-8 passes through; an invalid sequence (a detail quoting a
    // binary name) becomes U+FFFD, so the reply always parses.
    const std::size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len == 3) {
      const unsigned cp = ((c & 0x0Fu) << 12) | ((p[i + 1] & 0x3Fu) << 6);
      ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
    } else if (ok && len == 4) {
      const unsigned cp = ((c & 0x07u) << 18) | ((p[i + 1] & 0x3Fu) << 12);
      ok = cp >= 0x10000 && cp <= 0x10FFFF;
    }
    if (!ok) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    out.append(text, i, len);
    i += len;
  }
  out += '"';
}

template <class Int>
void append_int(std::string& out, Int v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Shortest round-trip form, as nlohmann writes it ("2.0", "1e-05"); null
// for NaN and infinities.
void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
  if (std::find_if(buf, r.ptr, [](char c) { return c == '.' || c == 'e' || c == 'n' || c == 'i'; }) == r.ptr)
    out += ".0";
}

void append_key(std::string& out, const char* key) {
  out += '"';
  out += key;
  out += "\":";
}

}  // namespace

// Keys in nlohmann's (sorted) order, so the text matches what it wrote.
void append_status_json(const NodeStatus& s, std::string& out) {
  out += '{';
  append_key(out, "address"), append_string(out, s.address), out += ',';
  append_key(out, "bytes_in"), append_int(out, s.bytes_in), out += ',';
  append_key(out, "bytes_out"), append_int(out, s.bytes_out), out += ',';
  append_key(out, "detail"), append_string(out, s.detail), out += ',';
  append_key(out, "events"), append_string(out, s.events), out += ',';
  append_key(out, "links"), out += '[';
  for (std::size_t i = 0; i < s.links.size(); ++i) {
    const LinkTraffic& l = s.links[i];
    if (i > 0) out += ',';
    out += '{';
    append_key(out, "bytes_in"), append_int(out, l.bytes_in), out += ',';
    append_key(out, "bytes_out"), append_int(out, l.bytes_out), out += ',';
    append_key(out, "peer"), append_string(out, l.peer), out += ',';
    append_key(out, "step_bytes_in"), append_int(out, l.step_bytes_in), out += ',';
    append_key(out, "step_bytes_out"), append_int(out, l.step_bytes_out);
    out += '}';
  }
  out += "],";
  append_key(out, "loss");
  if (s.loss) append_double(out, *s.loss);
  else out += "null";
  out += ',';
  append_key(out, "mode"), append_string(out, s.mode), out += ',';
  append_key(out, "profiling"), out += s.profiling ? "true" : "false", out += ',';
  append_key(out, "role"), append_string(out, s.role), out += ',';
  append_key(out, "state"), append_string(out, s.state), out += ',';
  append_key(out, "step"), append_int(out, s.step), out += ',';
  append_key(out, "steps_per_second"), append_double(out, s.steps_per_second), out += ',';
  append_key(out, "task"), append_int(out, s.task), out += ',';
  append_key(out, "variables"), out += '[';
  for (std::size_t i = 0; i < s.variables.size(); ++i) {
    const VariableInfo& v = s.variables[i];
    if (i > 0) out += ',';
    out += '{';
    append_key(out, "bytes"), append_int(out, v.bytes), out += ',';
    append_key(out, "dtype"), append_string(out, v.dtype), out += ',';
    append_key(out, "name"), append_string(out, v.name), out += ',';
    append_key(out, "shape"), append_string(out, v.shape);
    out += '}';
  }
  out += "]}";
}

std::string status_to_json(const NodeStatus& s) {
  std::string out;
  append_status_json(s, out);
  return out;
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
      s.links.push_back({l.at("peer").get<std::string>(), l.at("bytes_in").get<uint64_t>(), l.at("bytes_out").get<uint64_t>(),
                         l.value("step_bytes_in", uint64_t{0}), l.value("step_bytes_out", uint64_t{0})});
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
    // What each training step moves on each link (the rendezvous' tensors).
    for (const LinkTraffic& l : s.links) {
      if (l.step_bytes_in == 0 && l.step_bytes_out == 0) continue;
      std::snprintf(line, sizeof line, "%-10s   with %-8s %s in, %s out per step\n", "", l.peer.c_str(),
                    human_bytes(l.step_bytes_in).c_str(), human_bytes(l.step_bytes_out).c_str());
      out += line;
    }
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
