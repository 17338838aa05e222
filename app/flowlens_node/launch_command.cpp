// flowlens-node launch: the whole cluster of a cluster file as child
// processes on this machine (every address should be local), waited for.
// SIGINT/SIGTERM are forwarded; a failing child stops the others and makes
// launch fail.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>

#include "commands.h"
#include "dist/control/cluster_client.h"

namespace flowlens::node {
namespace {

struct LaunchOptions {
  NodeOptions node;
};

struct Child {
  std::string label;
  bool is_worker;
  pid_t pid = -1;
  int exit_code = -1;  // set once reaped
};

pid_t spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw Error(std::string("launch: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    // Own process group: a Ctrl-C at the terminal reaches launch only, which
    // then stops workers before their ps (see launch_command).
    setpgid(0, 0);
    execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "flowlens-node launch: cannot exec %s: %s\n", args[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  return pid;
}

std::vector<std::string> child_args(const NodeOptions& o, const std::string& job, int task) {
  std::vector<std::string> a = {"flowlens-node", "--cluster", o.cluster_file, "--job", job, "--task", std::to_string(task),
                                "--timeout", std::to_string(o.timeout_s)};
  if (!o.keys_dir.empty())
    a.insert(a.end(), {"--key", (std::filesystem::path(o.keys_dir) / (job + std::to_string(task) + ".key")).string()});
  if (o.strict_keys) a.push_back("--strict-keys");
  if (o.insecure) a.push_back("--insecure");
  a.insert(a.end(), {"--max-message-mb", std::to_string(o.max_message_mb), "--max-connections",
                     std::to_string(o.max_connections), "--max-subscribers", std::to_string(o.max_subscribers)});
  if (job == "ps") {
    if (!o.checkpoint_dir.empty()) a.insert(a.end(), {"--checkpoint-dir", o.checkpoint_dir});
    a.insert(a.end(), {"--checkpoint-every", std::to_string(o.checkpoint_every)});
    if (o.checkpoint_secs > 0) a.insert(a.end(), {"--checkpoint-secs", std::to_string(o.checkpoint_secs)});
    return a;
  }
  a.insert(a.end(), {"--graph", o.graph, "--steps", std::to_string(o.steps), "--loss", o.loss, "--print-every",
                     std::to_string(o.print_every), "--threads", std::to_string(o.inter_op_threads),
                     "--intra-op-threads", std::to_string(o.intra_op_threads)});
  std::string split;
  for (const std::string& s : o.split) split += (split.empty() ? "" : ",") + s;
  a.insert(a.end(), {"--split", split});
  if (o.sync) a.push_back("--sync");
  a.insert(a.end(), {"--step-mode", o.step_mode});
  if (o.replicas_to_aggregate > 0) a.insert(a.end(), {"--replicas-to-aggregate", std::to_string(o.replicas_to_aggregate)});
  if (o.batch > 0) a.insert(a.end(), {"--batch", std::to_string(o.batch)});
  if (!o.train_op.empty()) a.insert(a.end(), {"--train-op", o.train_op});
  for (const std::string& f : o.feeds) a.insert(a.end(), {"--feed", f});
  a.insert(a.end(), {"--shard", o.shard});
  return a;
}

// Reaps finished children; returns false when none is left running.
bool reap(std::vector<Child>& children) {
  bool running = false;
  for (Child& c : children) {
    if (c.exit_code >= 0) continue;
    int status = 0;
    pid_t r = waitpid(c.pid, &status, WNOHANG);
    if (r == c.pid) c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    else running = true;
  }
  return running;
}

void signal_all(std::vector<Child>& children, int sig) {
  for (Child& c : children)
    if (c.exit_code < 0) kill(c.pid, sig);
}

void wait_all(std::vector<Child>& children, std::chrono::milliseconds grace) {
  const auto until = std::chrono::steady_clock::now() + grace;
  while (reap(children) && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  signal_all(children, SIGKILL);
  while (reap(children)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

// Workers first, then (once they are gone or the grace is over) the ps tasks:
// a ps stopping under a worker's in-flight request would leave it waiting.
void stop_in_order(std::vector<Child>& children, std::chrono::milliseconds grace) {
  for (Child& c : children)
    if (c.is_worker && c.exit_code < 0) kill(c.pid, SIGTERM);
  const auto until = std::chrono::steady_clock::now() + grace;
  auto workers_running = [&] {
    reap(children);
    for (const Child& c : children)
      if (c.is_worker && c.exit_code < 0) return true;
    return false;
  };
  while (workers_running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  signal_all(children, SIGTERM);
  wait_all(children, grace);
}

int launch_command(const LaunchOptions& lo) {
  const NodeOptions& o = lo.node;
  ClusterSpec cluster = load_cluster_spec(o.cluster_file);
  if (o.graph.empty()) throw Error("launch: --graph is required");
  if (cluster.num_tasks("worker") == 0) throw Error(o.cluster_file + ": the cluster has no worker tasks");
  install_signal_handlers();
  std::vector<Child> children;
  // ps tasks first so workers find them listening (they would wait anyway).
  for (const dist::NodeRef& n : dist::cluster_nodes(cluster)) {
    if (n.job != "ps" && n.job != "worker") continue;
    children.push_back({n.label(), n.job == "worker"});
    children.back().pid = spawn(child_args(o, n.job, n.task));
  }
  std::cerr << "launch: started " << children.size() << " node(s) of " << o.cluster_file << "\n";
  const auto ps_grace = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000) + 5000);
  std::optional<std::chrono::steady_clock::time_point> workers_done_at;
  while (reap(children)) {
    if (g_interrupted) {
      std::cerr << "launch: interrupted; forwarding to the nodes\n";
      stop_in_order(children, ps_grace);
      return 130;
    }
    for (const Child& c : children)
      if (c.exit_code > 0) {
        std::cerr << "launch: " << c.label << " failed (exit code " << c.exit_code << "); stopping the others\n";
        stop_in_order(children, ps_grace);
        return 1;
      }
    bool workers_running = false;
    for (const Child& c : children) workers_running |= c.is_worker && c.exit_code < 0;
    if (!workers_running && !workers_done_at) workers_done_at = std::chrono::steady_clock::now();
    // ps tasks exit by themselves once every worker said DONE; a ps still up
    // long after that missed a DONE, so it is told to stop (and checkpoints).
    if (workers_done_at && std::chrono::steady_clock::now() - *workers_done_at > ps_grace) {
      std::cerr << "launch: ps task(s) still running " << ps_grace.count() / 1000 << " s after the workers finished; stopping them\n";
      signal_all(children, SIGTERM);
      wait_all(children, ps_grace);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (const Child& c : children)
    if (c.exit_code != 0) {
      std::cerr << "launch: " << c.label << " exited with code " << c.exit_code << "\n";
      return 1;
    }
  std::cerr << "launch: all nodes finished\n";
  return 0;
}

}  // namespace

void add_launch_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<LaunchOptions>();
  auto* cmd = app.add_subcommand("launch", "Start every ps and worker task of a local cluster as child processes and wait");
  cmd->add_option("--cluster", o->node.cluster_file, "Cluster JSON")->required()->check(CLI::ExistingFile);
  cmd->add_option("--graph", o->node.graph, "Training graph for the workers")->required()->check(CLI::ExistingFile);
  cmd->add_option("--steps", o->node.steps, "Steps per worker")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--sync", o->node.sync, "Synchronous training");
  cmd->add_option("--step-mode", o->node.step_mode, "How steps exchange tensors: auto, phases or distributed")
      ->check(CLI::IsMember({"auto", "phases", "distributed"}));
  cmd->add_option("--replicas-to-aggregate", o->node.replicas_to_aggregate, "K for --sync (default: every worker)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--batch", o->node.batch, "Batch size of the data op")->check(CLI::PositiveNumber);
  cmd->add_option("--checkpoint-dir", o->node.checkpoint_dir, "ps checkpoint directory");
  cmd->add_option("--checkpoint-every", o->node.checkpoint_every, "ps: checkpoint every N global steps")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--checkpoint-secs", o->node.checkpoint_secs, "ps: also checkpoint after S seconds with new steps")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-message-mb", o->node.max_message_mb, "Largest tensor a node accepts, in MiB (default 1024)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  cmd->add_option("--max-connections", o->node.max_connections,
                  "Connections each node keeps open (default 256); the quietest above it are closed")
      ->check(CLI::Range(std::size_t{4}, std::size_t{1} << 20));
  cmd->add_option("--max-subscribers", o->node.max_subscribers,
                  "Event subscribers each node keeps (default 64); the newest above it are closed")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  cmd->add_option("--loss", o->node.loss, "Loss node to report");
  cmd->add_option("--split", o->node.split, "Batch tensors")->delimiter(',');
  cmd->add_option("--print-every", o->node.print_every, "Print the loss every K steps");
  cmd->add_option("--train-op", o->node.train_op, "The train op each worker step runs (default: 'train', else every Apply* op)");
  cmd->add_option("--feed", o->node.feeds, "Feed NAME from .npy rows, NAME=PATH (repeatable); PATH may hold {task}, {index}, {workers}")
      ->allow_extra_args(false);
  cmd->add_option("--shard", o->node.shard, "--feed rows per worker: none, contiguous or strided")
      ->check(CLI::IsMember({"none", "contiguous", "strided"}));
  cmd->add_option("--threads", o->node.inter_op_threads, "Inter-op threads per worker (0: one per core, at least 2)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--intra-op-threads", o->node.intra_op_threads,
                  "Intra-op threads per worker: the budget its large MatMuls and convolutions split over (0: one per "
                  "core)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout", o->node.timeout_s, "Seconds any wait may take")->check(CLI::PositiveNumber);
  cmd->add_option("--keys", o->node.keys_dir,
                  "Secured cluster: folder of the tasks' key pairs, <job><task>.key (flowlens-node keygen --cluster)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--strict-keys", o->node.strict_keys, "Refuse key files that users other than their owner may read");
  cmd->add_flag("--insecure", o->node.insecure, "Let the nodes listen on non-loopback addresses without CURVE keys");
  cmd->callback([o, &exit_code] { exit_code = launch_command(*o); });
}

}  // namespace flowlens::node
