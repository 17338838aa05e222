#include <filesystem>
#include <iostream>

#include "commands.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "tensor/npy.h"
#include "tensor/tensor_format.h"

namespace flowlens::cli {
namespace {

struct RunOptions {
  std::string graph;
  std::vector<std::string> fetches;
  std::vector<std::string> feeds;    // name=file.npy
  std::vector<std::string> targets;
  std::vector<std::string> init;     // targets run first, in their own run
  std::string save_dir;              // write each fetch as DIR/<name>.npy
  int edge_items = 0;
  int cpu_threads = 0;
  bool strict_placement = false;
  bool auto_init = true;             // run every `v/Assign` initializer first
};

FeedList parse_feeds(const std::vector<std::string>& specs) {
  FeedList feeds;
  for (const std::string& spec : specs) {
    auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw Error("--feed '" + spec + "': expected name=file.npy");
    feeds.emplace_back(spec.substr(0, eq), read_npy(spec.substr(eq + 1)));
  }
  return feeds;
}

// "layer/w:1" -> "layer_w_1.npy": one flat file per fetch.
std::string npy_file_name(const std::string& tensor) {
  std::string s = tensor;
  for (char& c : s)
    if (c == '/' || c == ':') c = '_';
  return s + ".npy";
}

int run_command(const RunOptions& options) {
  FeedList feeds = parse_feeds(options.feeds);
  Graph graph = load_graph(options.graph);

  SessionOptions session_options;
  session_options.cpu_threads = options.cpu_threads;
  session_options.allow_soft_placement = !options.strict_placement;
  Session session(std::move(graph), session_options);
  for (const Diagnostic& d : session.diagnostics()) std::cerr << d.to_string() << "\n";
  for (const auto& note : session.placement().soft_placed)
    std::cerr << "note: soft placement: '" << note.node << "' asked for " << note.requested << ", runs on "
              << note.placed << " (" << note.reason << ")\n";

  std::vector<std::string> init = options.init;
  if (options.auto_init && init.empty()) {
    init = variable_initializers(session.graph());
    if (!init.empty())
      std::cerr << "note: initializing " << init.size() << " variable(s) first (--no-auto-init to skip)\n";
  }
  if (!init.empty()) session.run({}, {}, init);
  std::vector<Tensor> results = session.run(feeds, options.fetches, options.targets);

  TensorFormatOptions format;
  format.edge_items = options.edge_items;
  for (size_t i = 0; i < results.size(); ++i)
    std::cout << options.fetches[i] << " = " << format_tensor(results[i], format) << "\n";

  if (!options.save_dir.empty()) {
    std::filesystem::create_directories(options.save_dir);
    for (size_t i = 0; i < results.size(); ++i) {
      std::string path = (std::filesystem::path(options.save_dir) / npy_file_name(options.fetches[i])).string();
      write_npy(results[i], path);
      std::cerr << "saved " << options.fetches[i] << " to " << path << "\n";
    }
  }
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run a graph on this machine's devices and print the fetched tensors");
  cmd->add_option("graph", o->graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--fetch,-f", o->fetches, "Tensors to fetch and print: name or name:port, comma-separated");
  cmd->add_option("--feed", o->feeds, "Feed a tensor from a .npy file: name=file.npy (repeatable)");
  cmd->add_option("--target,-t", o->targets, "Nodes to run without fetching, comma-separated");
  cmd->add_option("--init", o->init, "Nodes run first in their own step (e.g. a variable initializer)");
  cmd->add_flag("!--no-auto-init", o->auto_init, "Do not run the variables' initializers (v/Assign) before the step");
  cmd->add_option("--save", o->save_dir, "Also write every fetched tensor to DIR/<name>.npy");
  cmd->add_option("--edge-items", o->edge_items, "Print only this many items at each edge of a dimension (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads", o->cpu_threads, "CPU worker threads (0: one per core)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--strict-placement", o->strict_placement,
                "Fail instead of moving nodes whose requested device does not exist to the CPU");
  cmd->callback([o, &exit_code] {
    o->fetches = split_list(o->fetches);
    o->targets = split_list(o->targets);
    o->init = split_list(o->init);
    if (o->fetches.empty() && o->targets.empty()) throw CLI::ValidationError("run", "give at least one --fetch or --target");
    exit_code = run_command(*o);
  });
}

}  // namespace flowlens::cli
