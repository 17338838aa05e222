// Running one ps or worker task: the top-level form (--job/--task) and the
// `ps I` / `worker I` short forms that take the cluster from TF_CONFIG.
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "dist/ps/checkpoint.h"
#include "dist/ps/ps_server.h"
#include "dist/worker/worker.h"

namespace flowlens::node {

std::atomic<bool> g_interrupted{false};

namespace {
void on_signal(int) { g_interrupted = true; }
}  // namespace

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

ClusterSpec resolve_cluster(const std::string& cluster_file) {
  if (!cluster_file.empty()) return load_cluster_spec(cluster_file);
  const char* env = std::getenv("TF_CONFIG");
  if (!env || !*env) throw Error("no cluster: pass --cluster FILE or set the TF_CONFIG environment variable");
  return parse_cluster_spec(env, "TF_CONFIG");
}

std::optional<dist::Credentials> resolve_credentials(const std::string& cluster_file, const ClusterSpec& cluster,
                                                     const std::string& key_file, const std::string& node, bool strict_keys) {
  if (!cluster_file.empty())
    return dist::credentials_for(dist::load_cluster_security(cluster_file, cluster), cluster_file, key_file, node,
                                 strict_keys);
  const char* env = std::getenv("TF_CONFIG");
  dist::ClusterSecurity security = env && *env ? dist::parse_cluster_security(env, cluster, "TF_CONFIG") : dist::ClusterSecurity{};
  return dist::credentials_for(std::move(security), "TF_CONFIG", key_file, node, strict_keys);
}

std::unique_ptr<dist::ClusterClient> make_client(const std::string& cluster_file, const std::string& key_file) {
  ClusterSpec cluster = resolve_cluster(cluster_file);
  auto credentials = resolve_credentials(cluster_file, cluster, key_file, "");
  auto client = std::make_unique<dist::ClusterClient>(std::move(cluster));
  if (credentials) client->use_credentials(std::move(*credentials));
  return client;
}

void add_node_options(CLI::App& app, NodeOptions& o) {
  app.add_option("--cluster", o.cluster_file, "Cluster JSON (TF_CONFIG form or a bare {job: [host:port]} dict); default: $TF_CONFIG")
      ->check(CLI::ExistingFile);
  app.add_option("--job", o.job, "Job of this process: ps or worker (default: TF_CONFIG task.type)")
      ->check(CLI::IsMember({"ps", "worker"}));
  app.add_option("--task", o.task, "Task index within the job (default: TF_CONFIG task.index)")->check(CLI::NonNegativeNumber);
  app.add_option("--checkpoint-dir", o.checkpoint_dir, "ps: save variables here (atomically) and restore them on start");
  app.add_option("--checkpoint-every", o.checkpoint_every,
                 "ps: save every N global steps (0: not by steps); also on shutdown")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--checkpoint-secs", o.checkpoint_secs,
                 "ps: also save when this many seconds passed with new steps, whichever of the two comes first (0: off)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--wait-for-workers", o.wait_for_workers,
               "ps: keep serving when every worker is finished or down, for them to return (default: exit --timeout "
               "seconds after the last live worker went down)");
  app.add_option("--graph", o.graph, "worker: training graph (.pbtxt/.pb) with optimizer Apply ops")->check(CLI::ExistingFile);
  app.add_option("--steps", o.steps, "worker: training steps")->check(CLI::NonNegativeNumber);
  app.add_flag("--sync", o.sync, "worker: synchronous training (gradients averaged over K replicas per global step)");
  app.add_option("--step-mode", o.step_mode,
                 "worker: how a step exchanges tensors with the ps tasks: phases (pull, run, push: one round trip "
                 "per ps), distributed (every task runs its partition at once, _Send/_Recv meeting in a rendezvous, "
                 "as TensorFlow does), or auto (phases where the graph allows them; default)")
      ->check(CLI::IsMember({"auto", "phases", "distributed"}));
  app.add_option("--replicas-to-aggregate", o.replicas_to_aggregate, "worker, --sync: K (default: number of workers)")
      ->check(CLI::PositiveNumber);
  app.add_option("--batch", o.batch, "worker: batch size of the graph's SyntheticClassification data op")
      ->check(CLI::PositiveNumber);
  app.add_option("--loss", o.loss, "worker: loss node to report");
  app.add_option("--split", o.split, "worker: batch tensors (drawn once per step; sliced per worker with --sync)")
      ->delimiter(',');
  app.add_option("--print-every", o.print_every, "worker: print the loss every K steps (0: only the summary)");
  app.add_option("--train-op", o.train_op, "worker: the train op each step runs (default: the node 'train', else every "
                                           "Apply*/ResourceApply* op)");
  app.add_option("--feed", o.feeds,
                 "worker: feed TENSOR from .npy rows, NAME=PATH (repeatable; --batch rows per step); PATH may hold "
                 "{task}, {index} (rank among workers), {workers}")
      ->allow_extra_args(false)
      ->check([](const std::string& s) {
        try {
          dist::parse_feed_spec(s);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      });
  app.add_option("--shard", o.shard,
                 "worker, --feed: rows each worker takes: none (per-worker files), contiguous or strided (one shared "
                 "file)")
      ->check(CLI::IsMember({"none", "contiguous", "strided"}));
  app.add_option("--threads", o.inter_op_threads,
                 "worker: inter-op threads of the embedded engine, kernels run side by side (0: one per core, at "
                 "least 2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--intra-op-threads", o.intra_op_threads,
                 "worker: intra-op threads, the budget one large MatMul or convolution splits over, shared by those "
                 "running at once (0: one per core)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--timeout", o.timeout_s, "Seconds any wait may take before failing with who is missing")
      ->check(CLI::PositiveNumber);
  app.add_option("--worker-timeout", o.worker_timeout_s,
                 "ps: seconds without a heartbeat after which a worker is marked down (sync steps then "
                 "aggregate the live replicas until it returns)")
      ->check(CLI::PositiveNumber);
  app.add_option("--reconnect-timeout", o.reconnect_timeout_s,
                 "worker: seconds to keep retrying a ps that stopped answering (restart, cut link) before failing, "
                 "counted from the request that failed; retries back off from 0.1 s to 1 s")
      ->check(CLI::PositiveNumber);
  app.add_option("--key", o.key_file, "Secured cluster: this task's CURVE key pair file (flowlens-node keygen)")
      ->check(CLI::ExistingFile);
  app.add_flag("--strict-keys", o.strict_keys,
               "Refuse a --key file that users other than its owner may read (default: warn)");
  app.add_flag("--insecure", o.insecure, "Allow listening on a non-loopback address without CURVE keys");
  app.add_option("--max-message-mb", o.max_message_mb,
                 "Largest message part (one tensor) a node accepts, in MiB (default 1024); larger ones are dropped "
                 "before they are buffered. Must hold the cluster's largest variable (workers check at start); give "
                 "every node the same")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  app.add_option("--max-connections", o.max_connections,
                 "Connections a node keeps open (default 256); above it, the ones quiet longest (idle ones first) "
                 "are closed. Workers and status clients stay")
      ->check(CLI::Range(std::size_t{4}, std::size_t{1} << 20));
  app.add_option("--max-subscribers", o.max_subscribers,
                 "Subscribers a node's events endpoint keeps (default 64); above it, the newest are closed, so "
                 "the ones already watching stay")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
}

int run_node(NodeOptions o) {
  ClusterSpec cluster = resolve_cluster(o.cluster_file);
  if (o.job.empty() && cluster.task) o.job = cluster.task->type;
  if (!o.task && cluster.task) o.task = cluster.task->index;
  if (o.job.empty() || !o.task)
    throw Error("no task for this process: pass --job and --task (or a TF_CONFIG with a \"task\" entry)");
  if (o.job != "ps" && o.job != "worker")
    throw Error("job '" + o.job + "': flowlens-node runs ps and worker tasks only");
  cluster.task_address(o.job, *o.task);  // throws naming the job and index when the cluster lacks it
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  std::optional<dist::Credentials> credentials =
      resolve_credentials(o.cluster_file, cluster, o.key_file, o.job + " " + std::to_string(*o.task), o.strict_keys);
  install_signal_handlers();
  dist::raise_open_file_limit();  // the connection cap, not the descriptor table, is what a flood meets first
  const uint64_t max_message_bytes = o.max_message_mb << 20;

  if (o.job == "ps") {
    dist::PsOptions po;
    po.cluster = cluster;
    po.task = *o.task;
    po.checkpoint_dir = o.checkpoint_dir;
    po.checkpoint_every = o.checkpoint_every;
    po.checkpoint_interval = std::chrono::milliseconds(static_cast<int64_t>(o.checkpoint_secs * 1000));
    po.wait_for_workers = o.wait_for_workers;
    po.max_message_bytes = max_message_bytes;
    po.max_connections = o.max_connections;
    po.max_subscribers = o.max_subscribers;
    po.wait_timeout = timeout;
    po.worker_timeout = std::chrono::milliseconds(static_cast<int64_t>(o.worker_timeout_s * 1000));
    po.credentials = credentials;
    po.insecure = o.insecure;
    dist::PsServer server(po);
    std::cerr << ("ps " + std::to_string(*o.task) + ": serving on " + server.endpoint() + ", events on " +
                  server.events_endpoint() + "\n");
    const std::string reason = server.run(&g_interrupted);
    std::string line = "ps " + std::to_string(*o.task) + ": " + reason + " at global step " + std::to_string(server.global_step());
    if (!o.checkpoint_dir.empty()) line += "; checkpoint " + dist::checkpoint_path(o.checkpoint_dir, *o.task);
    std::cerr << line + "\n";  // one write: other nodes of a launch share the terminal
    return 0;
  }

  if (o.graph.empty()) throw Error("worker " + std::to_string(*o.task) + ": --graph is required");
  dist::WorkerOptions wo;
  wo.cluster = cluster;
  wo.task = *o.task;
  wo.graph_path = o.graph;
  wo.steps = o.steps;
  wo.sync = o.sync;
  wo.step_mode = o.step_mode == "phases"        ? dist::WorkerOptions::StepMode::Phases
                 : o.step_mode == "distributed" ? dist::WorkerOptions::StepMode::Distributed
                                                : dist::WorkerOptions::StepMode::Auto;
  wo.replicas_to_aggregate = o.replicas_to_aggregate;
  wo.batch = o.batch;
  wo.loss = o.loss;
  wo.split = o.split;
  wo.train_op = o.train_op;
  for (const std::string& f : o.feeds) wo.feeds.push_back(dist::parse_feed_spec(f));
  wo.shard = dist::parse_shard_rule(o.shard);
  wo.wait_timeout = timeout;
  wo.reconnect_timeout = std::chrono::milliseconds(static_cast<int64_t>(o.reconnect_timeout_s * 1000));
  wo.inter_op_threads = o.inter_op_threads;
  wo.intra_op_threads = o.intra_op_threads;
  wo.print_every = o.print_every;
  wo.credentials = std::move(credentials);
  wo.insecure = o.insecure;
  wo.max_message_bytes = max_message_bytes;
  wo.max_connections = o.max_connections;
  wo.max_subscribers = o.max_subscribers;
  dist::Worker worker(wo);
  return worker.run(&g_interrupted);
}

void add_short_node_commands(CLI::App& app, NodeOptions& o, int& exit_code) {
  for (const char* job : {"ps", "worker"}) {
    auto* cmd = app.add_subcommand(job, std::string("Run ") + job + " task I of the cluster in --cluster or $TF_CONFIG");
    cmd->add_option("task", o.task, "Task index (default: TF_CONFIG task.index)")->check(CLI::NonNegativeNumber);
    cmd->footer("Every option of `flowlens-node --help` (--graph, --steps, --sync, --checkpoint-dir, ...) works here too.");
    cmd->callback([&o, &exit_code, job] {
      o.job = job;
      exit_code = run_node(o);
    });
  }
}

}  // namespace flowlens::node
