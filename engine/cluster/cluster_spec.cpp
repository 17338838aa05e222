// Cluster specs from JSON. Validation is stricter than tf.train.ClusterSpec
// (which accepts any string) because the names end up in "/job:NAME" device
// strings and the addresses are dialled: catching a typo here beats a hang.
#include "cluster/cluster_spec.h"

#include <cctype>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"

namespace flowlens {
namespace {

using nlohmann::json;

// nlohmann reports the byte index (1-based) of the last character it read;
// convert it to the 1-based line:column editors show.
std::pair<int, int> line_column_at(std::string_view text, std::size_t byte) {
  std::size_t offset = byte == 0 ? 0 : std::min(byte - 1, text.size());
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t k = 0; k < offset; ++k) {
    if (text[k] == '\n') {
      ++line;
      line_start = k + 1;
    }
  }
  return {line, static_cast<int>(offset - line_start) + 1};
}

// "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
// -> "syntax error ..."; the location is reported by ParseError itself.
std::string strip_nlohmann_prefix(const std::string& what) {
  std::size_t bracket = what.find("] ");
  std::size_t colon = what.find(": ", bracket == std::string::npos ? 0 : bracket);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

bool valid_job_name(std::string_view name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// "host:port" or "[v6addr]:port"; port 1..65535. Returns what is wrong, or "".
std::string address_problem(std::string_view address) {
  if (address.rfind(':') == std::string_view::npos) return "missing ':port'";
  const auto [host, port] = split_host_port(address);
  if (host.empty()) return "missing host before ':'";
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return "IPv6 host must be written [addr]";
  } else {
    for (char c : host)
      if (c == ':' || c == '/' || std::isspace(static_cast<unsigned char>(c)))
        return "host contains '" + std::string(1, c) + "' (IPv6 hosts need [brackets])";
  }
  int value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535)
    return "port '" + std::string(port) + "' is not a number from 1 to 65535";
  return {};
}

class Parser {
 public:
  explicit Parser(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    throw ParseError(source_, 0, 0, (where.empty() ? "" : where + ": ") + message);
  }

  ClusterSpec parse_root(const json& root) {
    if (!root.is_object())
      fail("", "expected a JSON object: a cluster dict {\"ps\": [...], \"worker\": [...]} or TF_CONFIG "
               "{\"cluster\": {...}, \"task\": {...}}, got " + std::string(root.type_name()));
    ClusterSpec spec;
    bool tf_config = root.contains("cluster") || root.contains("task");
    if (!tf_config) {
      parse_jobs(root, "", spec);
      return spec;
    }
    // TF_CONFIG may carry "environment", "rpc_layer" ...; only cluster and task matter here.
    if (!root.contains("cluster")) fail("", "TF_CONFIG has \"task\" but no \"cluster\"");
    const json& cluster = root.at("cluster");
    if (!cluster.is_object())
      fail("cluster", "expected an object mapping job names to task lists, got " + std::string(cluster.type_name()));
    parse_jobs(cluster, "cluster.", spec);
    if (root.contains("task")) spec.task = parse_task(root.at("task"), spec);
    return spec;
  }

 private:
  void parse_jobs(const json& jobs, const std::string& prefix, ClusterSpec& spec) {
    for (const auto& [job, tasks] : jobs.items()) {
      std::string where = prefix + (job.empty() ? "\"\"" : job);
      if (job.empty()) fail(where, "empty job name");
      if (!valid_job_name(job))
        fail(where, "job name '" + job + "' cannot be used in /job:NAME (needs a letter, then letters, digits or '_')");
      spec.add_job(job);
      if (tasks.is_array()) {
        for (std::size_t k = 0; k < tasks.size(); ++k)
          add_task(spec, job, static_cast<int>(k), tasks[k], where + "[" + std::to_string(k) + "]");
      } else if (tasks.is_object()) {
        // Sparse form: task index -> address, as tf.train.ClusterSpec accepts.
        for (const auto& [key, address] : tasks.items()) {
          int index = -1;
          auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
          if (key.empty() || ec != std::errc() || end != key.data() + key.size() || index < 0)
            fail(where, "task index \"" + key + "\" is not a non-negative integer");
          if (has_index(spec, job, index))
            fail(where, "task index " + std::to_string(index) + " appears twice");
          add_task(spec, job, index, address, where + "[\"" + key + "\"]");
        }
      } else {
        fail(where, "expected a list of \"host:port\" strings or an object {\"index\": \"host:port\"}, got " +
                        std::string(tasks.type_name()));
      }
    }
  }

  static bool has_index(const ClusterSpec& spec, const std::string& job, int index) {
    for (int i : spec.task_indices(job))
      if (i == index) return true;
    return false;
  }

  void add_task(ClusterSpec& spec, const std::string& job, int index, const json& value, const std::string& where) {
    if (!value.is_string()) fail(where, "expected a \"host:port\" string, got " + std::string(value.type_name()));
    const std::string& address = value.get_ref<const std::string&>();
    std::string problem = address_problem(address);
    if (!problem.empty()) fail(where, "bad address '" + address + "': " + problem);
    auto [it, inserted] = seen_.emplace(address, where);
    if (!inserted) fail(where, "address '" + address + "' is already used by " + it->second);
    spec.set_task(job, index, address);
  }

  TaskId parse_task(const json& task, const ClusterSpec& spec) {
    if (!task.is_object()) fail("task", "expected {\"type\": \"worker\", \"index\": 0}, got " + std::string(task.type_name()));
    TaskId id;
    if (!task.contains("type") || !task.at("type").is_string()) fail("task.type", "expected a job name string");
    id.type = task.at("type").get<std::string>();
    if (task.contains("index")) {
      const json& index = task.at("index");
      if (!index.is_number_integer() || index.get<int64_t>() < 0 || index.get<int64_t>() > INT32_MAX)
        // dump() recurses, so nested arrays or objects are named by type only.
        fail("task.index", "expected a non-negative integer, got " +
                               (index.is_primitive() ? index.dump() : std::string(index.type_name())));
      id.index = index.get<int>();
    }
    // TF runs the evaluator outside the cluster, so it need not be listed.
    if (id.type != "evaluator") {
      if (!spec.has_job(id.type)) fail("task.type", "job '" + id.type + "' is not in the cluster");
      if (!has_index(spec, id.type, id.index))
        fail("task.index", "job '" + id.type + "' has no task " + std::to_string(id.index));
    }
    return id;
  }

  const std::string& source_;
  std::map<std::string, std::string> seen_;  // address -> where it was first used
};

}  // namespace

HostPort split_host_port(std::string_view address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return {address, {}};
  return {address.substr(0, colon), address.substr(colon + 1)};
}

std::string_view unbracketed_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') return host.substr(1, host.size() - 2);
  return host;
}

void ClusterSpec::set_task(const std::string& job, int index, std::string address) {
  jobs_[job][index] = std::move(address);
}

void ClusterSpec::add_job(const std::string& job) { jobs_[job]; }

std::vector<std::string> ClusterSpec::job_names() const {
  std::vector<std::string> names;
  for (const auto& [job, tasks] : jobs_) names.push_back(job);
  return names;
}

bool ClusterSpec::has_job(std::string_view job) const { return jobs_.find(job) != jobs_.end(); }

int ClusterSpec::num_tasks(std::string_view job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() ? 0 : static_cast<int>(it->second.size());
}

std::vector<int> ClusterSpec::task_indices(std::string_view job) const {
  std::vector<int> indices;
  auto it = jobs_.find(job);
  if (it != jobs_.end())
    for (const auto& [index, address] : it->second) indices.push_back(index);
  return indices;
}

const std::string& ClusterSpec::task_address(std::string_view job, int index) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) throw Error("cluster has no job '" + std::string(job) + "'");
  auto task = it->second.find(index);
  if (task == it->second.end())
    throw Error("job '" + std::string(job) + "' has no task " + std::to_string(index));
  return task->second;
}

std::string ClusterSpec::to_json() const {
  json cluster = json::object();
  for (const auto& [job, tasks] : jobs_) {
    bool dense = tasks.empty() || (tasks.begin()->first == 0 && tasks.rbegin()->first == static_cast<int>(tasks.size()) - 1);
    json entry = dense ? json::array() : json::object();
    for (const auto& [index, address] : tasks) {
      if (dense)
        entry.push_back(address);
      else
        entry[std::to_string(index)] = address;
    }
    cluster[job] = std::move(entry);
  }
  // A bare job dict reads back as TF_CONFIG when a job is called "cluster"
  // or "task": such a spec is written as TF_CONFIG.
  if (!task && !jobs_.count("cluster") && !jobs_.count("task")) return cluster.dump(2);
  json root = {{"cluster", std::move(cluster)}};
  if (task) root["task"] = {{"type", task->type}, {"index", task->index}};
  return root.dump(2);
}

ClusterSpec parse_cluster_spec(std::string_view text, const std::string& source_name) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    auto [line, column] = line_column_at(text, e.byte);
    throw ParseError(source_name, line, column, "invalid JSON: " + strip_nlohmann_prefix(e.what()));
  } catch (const json::exception& e) {
    // out_of_range for a number beyond double ("1e999"): no position known.
    const std::string what = e.what();
    const std::size_t bracket = what.find("] ");
    throw ParseError(source_name, 0, 0,
                     "invalid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)));
  }
  return Parser(source_name).parse_root(root);
}

ClusterSpec load_cluster_spec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, 0, "cannot open cluster spec file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_cluster_spec(buffer.str(), path);
}

}  // namespace flowlens
