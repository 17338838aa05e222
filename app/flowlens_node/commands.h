#pragma once
// flowlens-node subcommands; each file adds one to the CLI11 app.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cluster/cluster_spec.h"
#include "dist/control/cluster_client.h"
#include "dist/security/connection_guard.h"
#include "dist/security/curve_auth.h"
#include "dist/wire/wire_codec.h"

namespace flowlens::node {

// Set by SIGINT/SIGTERM; nodes check it between requests and steps.
extern std::atomic<bool> g_interrupted;
void install_signal_handlers();

// Options of a ps or worker process, shared by the top-level form
// (--job/--task) and the `ps I` / `worker I` short forms.
struct NodeOptions {
  std::string cluster_file;  // empty: TF_CONFIG
  std::string job;
  std::optional<int> task;
  // ps
  std::string checkpoint_dir;
  int64_t checkpoint_every = 100;
  double checkpoint_secs = 0;     // also save after this long with new steps (0: off)
  bool wait_for_workers = false;  // keep serving when every worker is finished or down
  // worker
  std::string graph;
  int steps = 100;
  bool sync = false;
  std::string step_mode = "auto";  // worker: auto, phases or distributed (WorkerOptions::StepMode)
  int replicas_to_aggregate = 0;
  int64_t batch = 0;
  std::string loss = "loss";
  std::vector<std::string> split = {"features", "labels"};
  std::string train_op;              // empty: "train", else every Apply* op
  std::vector<std::string> feeds;    // NAME=PATH, PATH may hold {task}, {index}, {workers}
  std::string shard = "none";
  int print_every = 10;
  int inter_op_threads = 0;  // the embedded engine's thread budget (SessionOptions)
  int intra_op_threads = 0;
  // both
  double timeout_s = 10;
  double worker_timeout_s = 5;      // ps: heartbeat silence that marks a worker down
  double reconnect_timeout_s = 60;  // worker: how long to retry a ps that stopped answering
  std::string key_file;  // secured clusters: this task's key pair
  std::string keys_dir;  // launch: every task's key pair, <job><task>.key
  bool strict_keys = false;  // refuse a key file others may read
  bool insecure = false;
  uint64_t max_message_mb = dist::kDefaultMaxMessageBytes >> 20;  // largest frame (tensor) accepted
  std::size_t max_connections = dist::kDefaultMaxConnections;
  std::size_t max_subscribers = dist::kDefaultMaxSubscribers;  // of the events endpoint
};

// --cluster FILE, else the TF_CONFIG environment variable. Throws Error
// (ParseError naming the file or "TF_CONFIG" and the field) otherwise.
ClusterSpec resolve_cluster(const std::string& cluster_file);

// The cluster's CURVE security (the "security" entry of --cluster FILE or
// TF_CONFIG) and this process's key pair from `key_file`. nullopt for a
// cluster without security; throws Error when a secured cluster gets no
// --key, when the key file has no secret, or when `node` ("ps 0"; "" for a
// client) holds a key other than the one the cluster lists for it.
std::optional<dist::Credentials> resolve_credentials(const std::string& cluster_file, const ClusterSpec& cluster,
                                                     const std::string& key_file, const std::string& node,
                                                     bool strict_keys = false);
// A client of the cluster (status, control, fetch), secured when it is.
std::unique_ptr<dist::ClusterClient> make_client(const std::string& cluster_file, const std::string& key_file);

// Adds --cluster/--job/--task/... to `app` (node options apply to the top-level form and to ps/worker).
void add_node_options(CLI::App& app, NodeOptions& o);
// Runs the node `o` describes; returns the exit code.
int run_node(NodeOptions o);

void add_short_node_commands(CLI::App& app, NodeOptions& o, int& exit_code);
void add_status_command(CLI::App& app, int& exit_code);
void add_control_commands(CLI::App& app, int& exit_code);
void add_fetch_command(CLI::App& app, int& exit_code);
void add_graph_command(CLI::App& app, int& exit_code);
void add_launch_command(CLI::App& app, int& exit_code);
void add_keygen_command(CLI::App& app, int& exit_code);

}  // namespace flowlens::node
