// flowlens-run replicate: in-graph replication of a saved graph, so a
// single-device model can be turned into its multi-tower form from the shell.
#include <iostream>

#include "commands.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/replicate_in_graph.h"

namespace flowlens::cli {
namespace {

struct ReplicateCliOptions {
  std::string graph;
  std::string output;
  std::string optimizer = "sgd";
  float learning_rate = 0.01f;
  ReplicateOptions replicate;
};

OptimizerOptions::Kind optimizer_kind(const std::string& name) {
  if (name == "sgd") return OptimizerOptions::Kind::GradientDescent;
  if (name == "momentum") return OptimizerOptions::Kind::Momentum;
  if (name == "adam") return OptimizerOptions::Kind::Adam;
  throw Error("--optimizer '" + name + "': expected sgd, momentum or adam");
}

// The engine's message names the API option; tell the shell user the flag.
[[noreturn]] void rethrow_for_cli(const Error& e) {
  std::string message = e.what();
  for (auto [api, flag] : {std::pair{"allow_uneven", "--uneven"}, std::pair{"batch_size", "--batch-size"}})
    for (size_t at = message.find(api); at != std::string::npos; at = message.find(api, at + 1))
      message.replace(at, std::string(api).size(), flag);
  throw Error(message);
}

void print_summary(const ReplicateCliOptions& o, const Graph& input, const ReplicationResult& r) {
  const ReplicateOptions& ro = o.replicate;
  std::vector<std::string> devices = ro.devices;
  if (devices.empty())
    for (int t = 0; t < ro.replicas; ++t) devices.push_back("/gpu:" + std::to_string(t));
  size_t copies = 0;
  for (const std::string& original : r.map.originals()) copies += r.map.copies_of(original).size();

  std::cout << "replicated: " << o.graph << " -> " << o.output << "\n";
  std::cout << "towers: " << ro.replicas << " (" << join_list(devices) << "), host " << ro.host_device << "\n";
  std::cout << "nodes: " << input.size() << " -> " << r.graph.size() << "\n";
  std::cout << "copied nodes: " << copies << " (" << r.map.originals().size() << " original(s) x " << ro.replicas
            << ")\n";
  for (const ReplicaSplit& sp : r.splits) {
    std::cout << "split: " << sp.input;
    if (sp.tensor != sp.input) std::cout << " (at " << sp.tensor << ")";
    std::cout << " -> " << sp.split_node;
    if (sp.batch >= 0) {
      std::vector<std::string> sizes;
      for (int64_t s : sp.sizes) sizes.push_back(std::to_string(s));
      std::cout << ", batch " << sp.batch << " as [" << join_list(sizes, ",") << "]";
    } else {
      std::cout << ", batch unknown";
    }
    std::cout << "\n";
  }
  for (const std::string& m : r.merges) std::cout << "merge: " << m << " (ConcatV2 of " << ro.replicas << " towers)\n";
  if (!r.loss.empty()) {
    std::cout << "loss: " << r.loss << " (mean of " << join_list(r.tower_losses) << ")\n";
    std::cout << "trainable: " << join_list(r.trainable) << "\n";
    std::cout << "train op: " << r.train_op << "\n";
  }
  std::cout << "replica map: " << r.map.originals().size() << " original(s), " << copies << " copies\n";
}

int replicate_command(ReplicateCliOptions& o) {
  Graph graph = load_graph(o.graph);
  o.replicate.optimizer.kind = optimizer_kind(o.optimizer);
  o.replicate.optimizer.learning_rate = o.learning_rate;
  ReplicationResult result;
  try {
    result = replicate_in_graph(graph, o.replicate, OpRegistry::global());
  } catch (const Error& e) {
    rethrow_for_cli(e);
  }
  save_graph(result.graph, o.output);
  print_summary(o, graph, result);
  return 0;
}

}  // namespace

void add_replicate_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ReplicateCliOptions>();
  ReplicateOptions& r = o->replicate;
  auto* cmd = app.add_subcommand("replicate", "In-graph replication: split inputs, copy the model per device, merge");
  cmd->add_option("graph", o->graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--replicas,-n", r.replicas, "Number of towers")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--devices", r.devices, "One device per tower, comma-separated (default /gpu:0 ... /gpu:N-1)");
  cmd->add_option("--split", r.split_inputs, "Inputs split along the batch axis, comma-separated")->required();
  cmd->add_option("--merge", r.merge_outputs, "Outputs concatenated on the host, comma-separated");
  cmd->add_option("--loss", r.loss, "Loss node: build per-tower gradients, averaged, and one train op");
  cmd->add_option("--host", r.host_device, "Device of the Split, ConcatV2 and loss-mean nodes")->capture_default_str();
  cmd->add_flag("--uneven", r.allow_uneven, "Split an uneven batch with SplitV instead of failing");
  cmd->add_option("--batch-size", r.batch_size, "Batch size when the inputs' shapes are not static (for --uneven)");
  cmd->add_option("--optimizer", o->optimizer, "With --loss: sgd, momentum or adam")->capture_default_str();
  cmd->add_option("--learning-rate", o->learning_rate, "With --loss: the optimizer's learning rate")
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Where to write the replicated graph (.pbtxt, .pb, .dot)")->required();
  cmd->callback([o, &exit_code] {
    ReplicateOptions& r = o->replicate;
    r.devices = split_list(r.devices);
    r.split_inputs = split_list(r.split_inputs);
    r.merge_outputs = split_list(r.merge_outputs);
    if (r.merge_outputs.empty() && r.loss.empty())
      throw CLI::ValidationError("replicate", "give --merge, --loss, or both");
    exit_code = replicate_command(*o);
  });
}

}  // namespace flowlens::cli
