// flowlens-node graph: the partition of the training graph a running task
// runs, written to a file (its extension picks the format) to open in
// flowlens or inspect with flowlens-run info.
#include <iostream>

#include "commands.h"
#include "dist/control/cluster_client.h"
#include "graph/node_class.h"
#include "io/graph_io.h"

namespace flowlens::node {
namespace {

struct GraphOptions {
  std::string cluster_file;
  std::string key_file;
  std::string job = "worker";
  int task = 0;
  std::string output;
  double timeout_s = 10;
};

int graph_command(const GraphOptions& o) {
  std::unique_ptr<dist::ClusterClient> client = make_client(o.cluster_file, o.key_file);
  const dist::NodeRef node = client->node(o.job, o.task);
  const Graph partition = client->partition(node, std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000)));
  save_graph(partition, o.output);
  int sends = 0, recvs = 0;
  for (const Node& n : partition.nodes()) {
    sends += is_send(n);
    recvs += is_recv(n);
  }
  std::cout << "wrote " << o.output << ": the partition " << node.label() << " runs, " << partition.size() << " nodes ("
            << recvs << " _Recv, " << sends << " _Send)\n";
  return 0;
}

}  // namespace

void add_graph_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<GraphOptions>();
  auto* cmd = app.add_subcommand("graph", "Write the partition of the training graph a running task runs");
  cmd->add_option("-o,--output", o->output, "Output file; its extension picks the format (.pbtxt, .pb)")->required();
  cmd->add_option("--cluster", o->cluster_file, "Cluster JSON (default: $TF_CONFIG)")->check(CLI::ExistingFile);
  cmd->add_option("--key", o->key_file, "Secured cluster: your CURVE key pair file")->check(CLI::ExistingFile);
  cmd->add_option("--job", o->job, "Job of the task (default: worker)");
  cmd->add_option("--task", o->task, "Task index (default: 0)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout", o->timeout_s, "Seconds to wait for the task")->check(CLI::PositiveNumber);
  cmd->callback([o, &exit_code] { exit_code = graph_command(*o); });
}

}  // namespace flowlens::node
