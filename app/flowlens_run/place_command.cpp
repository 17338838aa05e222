// `flowlens-run place`: tf.train.replica_device_setter over a saved graph, so a
// single-machine graph can be laid out for between-graph replication
// (variables on ps tasks, compute on a worker) and inspected before running.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cluster/cluster_spec.h"
#include "commands.h"
#include "common/error.h"
#include "graph/device_spec.h"
#include "io/graph_io.h"
#include "transform/replica_device_setter.h"

namespace flowlens::cli {
namespace {

struct PlaceOptions {
  std::string graph;
  std::string cluster;
  int ps_tasks = 0;
  std::string strategy = "round_robin";
  std::string ps_device = "/job:ps";
  std::string worker_device = "/job:worker";
  bool no_merge_devices = false;
  std::string output;
};

std::string share_text(int64_t bytes, int64_t total) {
  if (total <= 0) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100.0 * static_cast<double>(bytes) / static_cast<double>(total) << "%";
  return s.str();
}

void print_report(const PlacementReport& report, const ClusterSpec* cluster, const std::string& strategy) {
  std::cout << "ps job '" << report.ps_job << "': " << report.ps_tasks.size() << " task(s), strategy " << strategy
            << "\n";
  int64_t total = report.total_ps_bytes();
  for (const PsTaskLoad& task : report.ps_tasks) {
    std::cout << "  " << task.device;
    if (cluster && cluster->has_job(report.ps_job)) std::cout << " (" << cluster->task_address(report.ps_job, task.task) << ")";
    std::cout << ": " << task.variables.size() << " variable(s), " << task.bytes << " bytes, "
              << share_text(task.bytes, total) << "\n";
    for (const PlacedVariable& v : task.variables)
      std::cout << "      " << v.name << "  " << v.op << "  " << v.bytes << " bytes  " << v.device << "\n";
  }
  if (!report.elsewhere.empty()) {
    std::cout << "not on a ps task (the node asked for another job):\n";
    for (const PlacedVariable& v : report.elsewhere)
      std::cout << "  " << v.name << "  " << v.op << "  " << (v.device.empty() ? "(unassigned)" : v.device) << "\n";
  }
}

int place_command(const PlaceOptions& options) {
  if (options.cluster.empty() && options.ps_tasks <= 0)
    throw Error("place needs --cluster FILE or --ps-tasks N to know the ps tasks");
  Graph graph = load_graph(options.graph);
  std::optional<ClusterSpec> cluster;
  if (!options.cluster.empty()) cluster = load_cluster_spec(options.cluster);

  ReplicaDeviceSetterOptions setter;
  setter.ps_tasks = options.ps_tasks;
  setter.ps_device = options.ps_device;
  setter.worker_device = options.worker_device;
  setter.merge_devices = !options.no_merge_devices;
  setter.cluster = cluster ? &*cluster : nullptr;
  setter.strategy = options.strategy == "greedy" ? ReplicaDeviceSetterOptions::Strategy::GreedyLoadBalancing
                                                 : ReplicaDeviceSetterOptions::Strategy::RoundRobin;
  PlacementReport report = apply_replica_device_setter(graph, setter);

  if (cluster) {
    // TF does not check these either, but a job missing from the cluster
    // would only surface when a session tries to reach it.
    DeviceSpec worker = DeviceSpec::parse(options.worker_device);
    if (worker.job && !cluster->has_job(*worker.job))
      std::cerr << "flowlens-run: warning: worker job '" << *worker.job << "' is not in " << options.cluster << "\n";
  }
  if (!report.applied) {
    std::optional<std::string> ps_job = DeviceSpec::parse(options.ps_device).job;
    std::cerr << "flowlens-run: warning: no ps tasks";
    if (cluster) std::cerr << " (" << options.cluster << " has no tasks for job '" << ps_job.value_or("") << "')";
    std::cerr << "; the graph is written unchanged\n";
  }
  save_graph(graph, options.output);
  std::cout << "wrote " << options.output << " (" << graph.size() << " nodes, " << report.nodes_changed
            << " device(s) changed, " << report.nodes_colocated << " placed by colocation)\n";
  if (report.applied) print_report(report, setter.cluster, options.strategy);
  return 0;
}

}  // namespace

void add_place_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PlaceOptions>();
  auto* cmd = app.add_subcommand(
      "place", "Assign devices like tf.train.replica_device_setter: variables to ps tasks, other ops to a worker");
  cmd->add_option("graph", options->graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);
  // Not CLI::ExistingFile: a missing cluster file should be an ordinary error (exit 1) naming it.
  auto* cluster = cmd->add_option("--cluster", options->cluster,
                                  "Cluster spec JSON: TF_CONFIG {\"cluster\": {...}, \"task\": {...}} or {\"ps\": [...], ...}");
  cmd->add_option("--ps-tasks", options->ps_tasks, "Number of ps tasks when no --cluster is given")
      ->check(CLI::PositiveNumber)
      ->excludes(cluster);
  cmd->add_option("--strategy", options->strategy, "How variables are spread over ps tasks")
      ->check(CLI::IsMember({"round_robin", "greedy"}))
      ->capture_default_str();
  cmd->add_option("--ps-device", options->ps_device, "Device for ps ops; its job names the ps job")->capture_default_str();
  cmd->add_option("--worker-device", options->worker_device, "Device for all other ops")->capture_default_str();
  cmd->add_flag("--no-merge-devices", options->no_merge_devices,
                "Leave nodes that already name a device exactly as written");
  cmd->add_option("-o,--output", options->output, "Output graph; its extension picks the format")->required();
  cmd->callback([options, &exit_code] { exit_code = place_command(*options); });
}

}  // namespace flowlens::cli
