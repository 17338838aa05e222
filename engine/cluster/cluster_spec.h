#pragma once
// A cluster description like tf.train.ClusterSpec: job names mapped to task
// addresses ("host:port"), keyed by task index. Read from JSON in the forms
// TensorFlow users already have on disk:
//   TF_CONFIG  {"cluster": {"ps": ["h:2222"], "worker": [...]}, "task": {"type": "worker", "index": 0}}
//   bare dict  {"ps": ["h:2222"], "worker": [...]}
//   sparse job {"worker": {"0": "h:2222", "2": "h:2224"}}   (task index -> address)
// The JSON library stays private to the .cpp so engine headers do not depend on it.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flowlens {

// The "task" entry of TF_CONFIG: which task of the cluster this process is.
struct TaskId {
  std::string type;  // job name, e.g. "worker"
  int index = 0;
  bool operator==(const TaskId&) const = default;
};

class ClusterSpec {
 public:
  ClusterSpec() = default;

  // Adds (or replaces) task `index` of `job`. No validation here: the parser
  // checks names and addresses so that tests can build specs directly.
  void set_task(const std::string& job, int index, std::string address);
  // Adds a job with no tasks yet (TF allows {"ps": []}).
  void add_job(const std::string& job);

  // Sorted, as tf.train.ClusterSpec.jobs.
  std::vector<std::string> job_names() const;
  bool has_job(std::string_view job) const;
  // Number of tasks defined for the job (sparse jobs count defined entries); 0 if unknown.
  int num_tasks(std::string_view job) const;
  // Defined task indices in increasing order; empty if the job is unknown.
  std::vector<int> task_indices(std::string_view job) const;
  // Throws Error naming the job and index when there is no such task.
  const std::string& task_address(std::string_view job, int index) const;
  bool empty() const { return jobs_.empty(); }

  // Set when the spec came from a TF_CONFIG object with a "task" entry.
  std::optional<TaskId> task;

  // JSON text: TF_CONFIG form when `task` is set, else the bare dict. Dense
  // jobs (indices 0..n-1) print as arrays, sparse ones as {"index": "address"}.
  std::string to_json() const;

  bool operator==(const ClusterSpec&) const = default;

 private:
  std::map<std::string, std::map<int, std::string>, std::less<>> jobs_;
};

// "host:port" or "[v6addr]:port" split at its last ':' (an endpoint
// "tcp://host:port" splits the same way, its port alike). The host keeps its
// IPv6 brackets (ZeroMQ endpoints want them: "tcp://" + host + ":*"); the
// port is "" when there is no ':'.
struct HostPort {
  std::string_view host, port;
};
HostPort split_host_port(std::string_view address);
// `host` without IPv6 brackets, as name lookups (getaddrinfo) want it.
std::string_view unbracketed_host(std::string_view host);

// Parses either JSON form; `source_name` (usually the file path) prefixes every
// error. Throws ParseError: bad JSON (with line:column), wrong value types,
// empty or invalid job names, addresses that are not host:port, duplicate
// addresses, and a TF_CONFIG task that names no task of the cluster.
ClusterSpec parse_cluster_spec(std::string_view text, const std::string& source_name);
// Reads and parses a file; throws ParseError naming it if it cannot be read.
ClusterSpec load_cluster_spec(const std::string& path);

}  // namespace flowlens
