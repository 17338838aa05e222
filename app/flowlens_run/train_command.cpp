#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "exec/variable_checkpoint.h"
#include "exec/session.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "io/graph_io.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_registry.h"
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
  ThreadFlags threads;
  DeviceFlags device_flags;
  QueueFlags queues;
  // Function-body graphs (_Arg/_Retval): what to feed each step and where
  // the resource arguments' first values come from.
  std::vector<std::string> feeds;
  std::string checkpoint;
  FunctionBodyFlags function_body;
  bool loss_given = false, builder_flags_given = false;
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
    if (needed[i] && is_ref_variable(g.nodes()[i])) vars.push_back(g.nodes()[i].name);
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

// A scalar's value as a double, for the loss line.
double scalar_value(const Tensor& t, const std::string& name) {
  const Tensor host = t.to_host();
  if (host.num_elements() != 1 || !dtype_is_floating(host.dtype()))
    throw Error("loss '" + name + "' is " + dtype_name(host.dtype()) + " " + host.shape().to_string() +
                ", not a floating-point scalar (pass --loss retval:N)");
  double value = 0;
  ops::dispatch<ops::FloatTypes>(host.dtype(), "loss", [&](auto tag) {
    value = static_cast<double>(host.data<decltype(tag)>()[0]);
  });
  return value;
}

// The end of the input (IteratorGetNext's OutOfRange "End of sequence")
// ends a training loop cleanly, as tf.train.MonitoredSession does.
void report_end_of_input(int ran, const OutOfRangeError& e) {
  std::fflush(stdout);
  std::fprintf(stderr, "input ended after %d step(s): %s\n", ran, e.what());
}

// Points every initializable iterator (make_initializable_iterator) at its
// dataset's first element: their MakeIterator nodes run once, in one step,
// before training, as a TF 1 script runs iterator.initializer.
void initialize_iterators(Session& session) {
  std::vector<std::string> inits;
  for (const Node& n : session.graph().nodes())
    if (n.op == "MakeIterator") inits.push_back(n.name);
  if (inits.empty()) return;
  session.run({}, {}, inits);
  std::fprintf(stderr, "initialized %zu iterator(s) (MakeIterator)\n", inits.size());
}

// A graph exported from a function body (a Keras train step): its updates
// are in the graph already, so training is running it step after step with
// the same feeds, its resource arguments persisting as the session's
// variables; the loss is a return value (retval:0 unless --loss names one).
int train_function_body(const TrainOptions& o, Graph graph) {
  if (o.replicas > 1 || o.builder_flags_given)
    throw Error(o.graph + " is a function body (_Arg/_Retval nodes), which carries its own updates: --replicas, "
                "--optimizer, --learning-rate and --train-op do not apply");
  const std::string loss_spec = o.loss_given ? o.loss : "retval:0";
  if (!o.save_graph.empty()) {
    save_graph(graph, o.save_graph);
    std::cerr << "wrote training graph to " << o.save_graph << "\n";
  }
  SessionOptions so;
  apply_thread_flags(o.threads, so);
  apply_device_flags(o.device_flags, so);
  const auto analysis = std::make_shared<const GraphAnalysis>(std::make_shared<const Graph>(std::move(graph)));
  Session session(analysis, so);
  const FunctionBody body(session.graph());
  if (body.retvals().empty() && !o.loss_given)
    throw Error(o.graph + ": the function body has no _Retval to print as the loss; name a tensor with --loss");
  std::cerr << "function body: " << body.args().size() << " argument(s), " << body.retvals().size()
            << " return value(s); loss " << loss_spec << "\n";
  if (o.steps == 0) return 0;
  initialize_function_args(session, body, o.function_body, o.checkpoint);
  initialize_iterators(session);
  const FeedList feeds = body.feeds_for(parse_feeds(o.feeds, *analysis, &body));
  const std::vector<std::string> fetches = body.fetches_for({loss_spec});

  auto start = std::chrono::steady_clock::now();
  double first = 0, last = 0;
  int ran = 0;
  for (int step = 1; step <= o.steps; ++step) {
    std::vector<Tensor> results;
    try {
      results = session.run(feeds, fetches, body.step_targets());
    } catch (const OutOfRangeError& e) {
      report_end_of_input(ran, e);
      break;
    } catch (const Error& e) {
      throw Error("step " + std::to_string(step) + ": " + e.what());
    }
    ran = step;
    const double value = scalar_value(results[0], loss_spec);
    if (step == 1) first = value;
    last = value;
    if (o.print_every > 0 && (step % o.print_every == 0 || step == 1 || step == o.steps))
      std::printf("step %d: loss %.6f\n", step, value);
  }
  std::fflush(stdout);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "%d steps in %.2f s; loss %.6f -> %.6f\n", ran, seconds, first, last);
  if (!o.save_checkpoint.empty()) {
    const SavedVariables saved = save_variables(session, o.save_checkpoint);
    std::fprintf(stderr, "saved %zu variable(s) to checkpoint %s (resource _Args by node name)\n", saved.saved.size(),
                 o.save_checkpoint.c_str());
  }
  return 0;
}

int train_command(const TrainOptions& o) {
  {
    Graph graph = load_graph(o.graph);
    if (FunctionBody::is_function_body(graph)) return train_function_body(o, std::move(graph));
  }
  if (!o.feeds.empty() || !o.checkpoint.empty() || uses_function_body_flags(o.function_body))
    throw Error("--feed, --checkpoint, --init-args and --arg-map are for function-body graphs (with _Arg nodes); '" +
                o.graph + "' has none");
  std::string train_op;
  Graph graph = training_graph(o, &train_op);
  if (!o.save_graph.empty()) {
    save_graph(graph, o.save_graph);
    std::cerr << "wrote training graph to " << o.save_graph << "\n";
  }
  if (o.steps == 0) return 0;

  SessionOptions so;
  apply_thread_flags(o.threads, so);
  apply_device_flags(o.device_flags, so);
  apply_queue_flags(o.queues, so);
  Session session(std::move(graph), so);
  session.initialize_variables();
  initialize_iterators(session);
  // Threads that fill the input queues, stopped (joined) however training ends.
  std::unique_ptr<QueueRunners> runners = start_queue_runners(session, o.queues, nullptr, {o.loss, train_op});

  auto start = std::chrono::steady_clock::now();
  float first = 0, last = 0;
  int ran = 0;
  for (int step = 1; step <= o.steps; ++step) {
    Tensor loss;
    try {
      loss = session.run({}, {o.loss}, {train_op})[0];
    } catch (const OutOfRangeError& e) {
      // tf.train.MonitoredSession: an exhausted input (a dataset's end, a
      // closed queue run dry) ends training cleanly.
      finish_queue_runners(runners);
      report_end_of_input(ran, e);
      break;
    } catch (const Error& e) {
      finish_queue_runners(runners);
      throw Error("step " + std::to_string(step) + ": " + e.what());
    }
    ran = step;
    float value = loss.dtype() == DType::Double ? static_cast<float>(loss.data<double>()[0]) : loss.data<float>()[0];
    if (step == 1) first = value;
    last = value;
    if (o.print_every > 0 && (step % o.print_every == 0 || step == 1 || step == o.steps))
      std::printf("step %d: loss %.6f\n", step, value);
  }
  finish_queue_runners(runners);
  std::fflush(stdout);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "%d steps in %.2f s; loss %.6f -> %.6f\n", ran, seconds, first, last);
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
  add_queue_flags(cmd, o->queues);
  cmd->add_option("--steps", o->steps, "Training steps (0: only build and --save-graph)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--replicas", o->replicas, "In-graph replicas (towers); the batch is split across them")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--devices", o->devices, "Device per replica, comma-separated (default: /cpu:0 for each)")
      ->delimiter(',');
  cmd->add_option("--split", o->split, "Batch tensors split across replicas")->delimiter(',');
  cmd->add_option("--loss", o->loss, "Loss node (scalar); in a function-body graph retval:N or any tensor (default retval:0)");
  cmd->add_option("--train-op", o->train_op, "Train op to run, or the name to give the one built here");
  cmd->add_option("--optimizer", o->optimizer, "sgd, momentum or adam (when the train op is built here)")
      ->check(CLI::IsMember({"sgd", "momentum", "adam"}));
  cmd->add_option("--learning-rate,--lr", o->learning_rate, "Learning rate (when the train op is built here)");
  cmd->add_option("--print-every", o->print_every, "Print the loss every K steps (0: only the summary)");
  cmd->add_option("--save-graph", o->save_graph, "Write the training graph that runs (.pbtxt, .pb, .dot)");
  cmd->add_option("--save-checkpoint", o->save_checkpoint,
                  "After training, write every variable to PREFIX.index/PREFIX.data-00000-of-00001 (a TensorFlow V2 "
                  "checkpoint; `flowlens-run ckpt PREFIX` lists it)");
  add_thread_flags(cmd, o->threads);
  cmd->add_option("--feed", o->feeds,
                  "Function-body graphs: feed an _Arg every step, by name or as arg:N: NAME=file.npy or NAME=VALUE "
                  "(repeatable)");
  cmd->add_option("--checkpoint", o->checkpoint,
                  "Function-body graphs: the resource _Args' first values, from this checkpoint prefix (see --arg-map)");
  add_function_body_flags(cmd, o->function_body);
  cmd->footer(
      "A graph exported from a function body (_Arg inputs, _Retval outputs, such as a Keras train step) already holds\n"
      "its optimizer updates: train runs it --steps times with the same --feed values, its resource _Args kept as\n"
      "variables (from --checkpoint and/or --init-args), and prints --loss (default retval:0) per step.");
  cmd->callback([o, cmd, &exit_code] {
    o->loss_given = cmd->count("--loss") > 0;
    o->builder_flags_given =
        cmd->count("--optimizer") + cmd->count("--learning-rate") + cmd->count("--train-op") > 0;
    exit_code = train_command(*o);
  });
}

}  // namespace flowlens::cli
