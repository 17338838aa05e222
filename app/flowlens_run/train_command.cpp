#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "exec/variable_checkpoint.h"
#include "exec/session.h"
#include "graph/edge_index.h"
#include "io/graph_io.h"
#include "ops/op_registry.h"
#include "transform/gradients.h"
#include "transform/optimizers.h"
#include "transform/replicate_in_graph.h"

namespace flowlens::cli {
namespace {

struct TrainOptions {
  std::string graph;
  int steps = 100;
  int replicas = 1;
  std::vector<std::string> devices;
  std::vector<std::string> split = {"features", "labels"};
  std::string loss = "loss";
  std::string train_op = "train";
  std::string optimizer = "sgd";
  float learning_rate = 0.1f;
  int print_every = 1;
  std::string save_graph;
  std::string save_checkpoint;  // the trained variables as a TensorFlow V2 checkpoint
  int cpu_threads = 0;
  DeviceFlags device_flags;
};

OptimizerOptions optimizer_options(const TrainOptions& o) {
  OptimizerOptions opt;
  opt.learning_rate = o.learning_rate;
  if (o.optimizer == "momentum") opt.kind = OptimizerOptions::Kind::Momentum;
  else if (o.optimizer == "adam") opt.kind = OptimizerOptions::Kind::Adam;
  return opt;
}

// The Variables the loss depends on (through their reads), in graph order.
std::vector<std::string> trainable_variables(const Graph& g, const std::string& loss) {
  std::vector<char> needed(g.size(), 0);
  std::vector<int> stack{g.index_of(loss)};
  needed[static_cast<size_t>(stack[0])] = 1;
  while (!stack.empty()) {
    int i = stack.back();
    stack.pop_back();
    const Node& n = g.nodes()[static_cast<size_t>(i)];
    if (n.op == "Assign" || n.op.starts_with("Apply")) continue;  // updates are not part of the forward pass
    for (const InputEdge& e : g.edges().inputs(i)) {
      const int src = e.is_control() ? -1 : e.producer;
      if (src >= 0 && !needed[static_cast<size_t>(src)]) {
        needed[static_cast<size_t>(src)] = 1;
        stack.push_back(src);
      }
    }
  }
  std::vector<std::string> vars;
  for (size_t i = 0; i < g.size(); ++i)
    if (needed[i] && (g.nodes()[i].op == "VariableV2" || g.nodes()[i].op == "Variable")) vars.push_back(g.nodes()[i].name);
  return vars;
}

// Makes sure the graph has a train op: replicated (towers, averaged
// gradients, one apply), existing (an exported training graph), or built here.
Graph training_graph(const TrainOptions& o, std::string* train_op) {
  Graph graph = load_graph(o.graph);
  const OpRegistry& registry = OpRegistry::global();
  if (!graph.find(o.loss)) throw Error(o.graph + ": no loss node named '" + o.loss + "' (pass --loss)");
  if (o.replicas > 1) {
    ReplicateOptions r;
    r.replicas = o.replicas;
    r.devices = o.devices;
    if (r.devices.empty())
      for (int i = 0; i < o.replicas; ++i) r.devices.push_back("/cpu:0");
    r.split_inputs = o.split;
    r.loss = o.loss;
    r.optimizer = optimizer_options(o);
    ReplicationResult result = replicate_in_graph(graph, r, registry);
    *train_op = result.train_op;
    std::cerr << "replicated into " << o.replicas << " towers; train op '" << result.train_op << "'\n";
    return std::move(result.graph);
  }
  if (graph.find(o.train_op)) {
    *train_op = o.train_op;
    return graph;
  }
  std::vector<std::string> vars = trainable_variables(graph, o.loss);
  if (vars.empty()) throw Error(o.graph + ": loss '" + o.loss + "' depends on no variable; nothing to train");
  std::vector<std::string> grads = add_gradients(graph, {o.loss}, vars, registry);
  std::vector<std::pair<std::string, std::string>> var_grads;
  for (size_t i = 0; i < vars.size(); ++i)
    if (!grads[i].empty()) var_grads.emplace_back(vars[i], grads[i]);
  *train_op = add_optimizer(graph, var_grads, optimizer_options(o), o.train_op);
  std::cerr << "built gradients for " << var_grads.size() << " variable(s) and train op '" << *train_op << "'\n";
  return graph;
}

int train_command(const TrainOptions& o) {
  std::string train_op;
  Graph graph = training_graph(o, &train_op);
  if (!o.save_graph.empty()) {
    save_graph(graph, o.save_graph);
    std::cerr << "wrote training graph to " << o.save_graph << "\n";
  }
  if (o.steps == 0) return 0;

  SessionOptions so;
  so.cpu_threads = o.cpu_threads;
  apply_device_flags(o.device_flags, so);
  Session session(std::move(graph), so);
  session.initialize_variables();

  auto start = std::chrono::steady_clock::now();
  float first = 0, last = 0;
  for (int step = 1; step <= o.steps; ++step) {
    Tensor loss = session.run({}, {o.loss}, {train_op})[0];
    float value = loss.dtype() == DType::Double ? static_cast<float>(loss.data<double>()[0]) : loss.data<float>()[0];
    if (step == 1) first = value;
    last = value;
    if (o.print_every > 0 && (step % o.print_every == 0 || step == 1 || step == o.steps))
      std::printf("step %d: loss %.6f\n", step, value);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "%d steps in %.2f s; loss %.6f -> %.6f\n", o.steps, seconds, first, last);
  if (!o.save_checkpoint.empty()) {
    const SavedVariables saved = save_variables(session, o.save_checkpoint);
    std::fprintf(stderr, "saved %zu variable(s) (with optimizer slots) to checkpoint %s\n", saved.saved.size(),
                 o.save_checkpoint.c_str());
  }
  return 0;
}

}  // namespace

void add_train_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<TrainOptions>();
  auto* cmd = app.add_subcommand("train", "Train a graph's variables and print the loss per step");
  cmd->add_option("graph", o->graph, "Graph with a loss (and optionally a train op)")->required()->check(CLI::ExistingFile);
  add_device_flags(cmd, o->device_flags);
  cmd->add_option("--steps", o->steps, "Training steps (0: only build and --save-graph)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--replicas", o->replicas, "In-graph replicas (towers); the batch is split across them")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--devices", o->devices, "Device per replica, comma-separated (default: /cpu:0 for each)")
      ->delimiter(',');
  cmd->add_option("--split", o->split, "Batch tensors split across replicas")->delimiter(',');
  cmd->add_option("--loss", o->loss, "Loss node (scalar)");
  cmd->add_option("--train-op", o->train_op, "Train op to run, or the name to give the one built here");
  cmd->add_option("--optimizer", o->optimizer, "sgd, momentum or adam (when the train op is built here)")
      ->check(CLI::IsMember({"sgd", "momentum", "adam"}));
  cmd->add_option("--learning-rate,--lr", o->learning_rate, "Learning rate (when the train op is built here)");
  cmd->add_option("--print-every", o->print_every, "Print the loss every K steps (0: only the summary)");
  cmd->add_option("--save-graph", o->save_graph, "Write the training graph that runs (.pbtxt, .pb, .dot)");
  cmd->add_option("--save-checkpoint", o->save_checkpoint,
                  "After training, write every variable to PREFIX.index/PREFIX.data-00000-of-00001 (a TensorFlow V2 "
                  "checkpoint; `flowlens-run ckpt PREFIX` lists it)");
  cmd->add_option("--threads", o->cpu_threads, "CPU worker threads (0: one per core)");
  cmd->callback([o, &exit_code] { exit_code = train_command(*o); });
}

}  // namespace flowlens::cli
