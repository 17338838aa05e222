#include <filesystem>
#include <iomanip>
#include <iostream>

#include "commands.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/partition.h"

namespace flowlens::cli {
namespace {

struct PartitionCommandOptions {
  std::string graph;
  std::string output_dir;
  std::string format = "pbtxt";
};

int partition_command(const PartitionCommandOptions& o) {
  Graph graph = load_graph(o.graph);
  PartitionResult result = partition_graph(graph, OpRegistry::global());
  std::filesystem::create_directories(o.output_dir);
  std::cout << std::left << std::setw(48) << "device" << std::right << std::setw(7) << "nodes" << std::setw(7)
            << "sends" << std::setw(7) << "recvs" << std::setw(14) << "bytes in" << "  file\n";
  for (const GraphPartition& p : result.partitions) {
    std::string path = (std::filesystem::path(o.output_dir) / (device_file_stem(p.device) + "." + o.format)).string();
    save_graph(p.graph, path);
    std::cout << std::left << std::setw(48) << p.device << std::right << std::setw(7) << p.graph.size() << std::setw(7)
              << p.sends << std::setw(7) << p.recvs << std::setw(14) << p.bytes_received << "  " << path << "\n";
  }
  std::cout << result.partitions.size() << " partition(s), " << result.transfers << " Send/Recv pair(s)";
  if (result.unknown_size_transfers)
    std::cout << " (" << result.unknown_size_transfers << " of unknown size, not counted in bytes)";
  std::cout << "\n";
  return 0;
}

}  // namespace

void add_partition_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PartitionCommandOptions>();
  auto* cmd = app.add_subcommand("partition", "Split a placed graph into one graph per device, joined by _Send/_Recv");
  cmd->add_option("graph", o->graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output-dir", o->output_dir, "Directory for the per-device graphs")->required();
  cmd->add_option("--format", o->format, "Output format: pbtxt, pb or dot")->check(CLI::IsMember({"pbtxt", "pb", "dot"}));
  cmd->callback([o, &exit_code] { exit_code = partition_command(*o); });
}

}  // namespace flowlens::cli
