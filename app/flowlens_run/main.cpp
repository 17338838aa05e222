// flowlens-run: load, inspect, run and convert dataflow graphs from the shell.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "common/error.h"

int main(int argc, char** argv) {
  using namespace flowlens::cli;
  CLI::App app{"flowlens-run: inspect, run and convert TensorFlow-style dataflow graphs (.pbtxt, .pb)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "flowlens-run 0.1.0");

  InfoOptions info;
  auto* info_cmd = app.add_subcommand("info", "Summarize a graph: nodes, op histogram, devices, placement, validation");
  info_cmd->add_option("graph", info.graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);

  RunOptions run;
  std::vector<std::string> fetches, targets, init;
  auto* run_cmd = app.add_subcommand("run", "Run a graph on this machine's devices and print the fetched tensors");
  run_cmd->add_option("graph", run.graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);
  run_cmd->add_option("--fetch,-f", fetches, "Tensors to fetch and print: name or name:port, comma-separated");
  run_cmd->add_option("--feed", run.feeds, "Feed a tensor from a .npy file: name=file.npy (repeatable)");
  run_cmd->add_option("--target,-t", targets, "Nodes to run without fetching, comma-separated");
  run_cmd->add_option("--init", init, "Nodes run first in their own step (e.g. a variable initializer)");
  run_cmd->add_flag("!--no-auto-init", run.auto_init,
                    "Do not run the variables' initializers (v/Assign) before the step");
  run_cmd->add_option("--save", run.save_dir, "Also write every fetched tensor to DIR/<name>.npy");
  run_cmd->add_option("--edge-items", run.edge_items, "Print only this many items at each edge of a dimension (0: all)")
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--threads", run.cpu_threads, "CPU worker threads (0: one per core)")->check(CLI::NonNegativeNumber);
  run_cmd->add_flag("--strict-placement", run.strict_placement,
                    "Fail instead of moving nodes whose requested device does not exist to the CPU");

  ConvertOptions convert;
  auto* convert_cmd = app.add_subcommand("convert", "Write a graph as text (.pbtxt), binary (.pb) or Graphviz (.dot)");
  convert_cmd->add_option("graph", convert.graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);
  convert_cmd->add_option("-o,--output", convert.output, "Output file; its extension picks the format")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*info_cmd) return info_command(info);
    if (*run_cmd) {
      run.fetches = split_list(fetches);
      run.targets = split_list(targets);
      run.init = split_list(init);
      if (run.fetches.empty() && run.targets.empty()) {
        std::cerr << "flowlens-run run: give at least one --fetch or --target\n";
        return 2;
      }
      return run_command(run);
    }
    if (*convert_cmd) return convert_command(convert);
  } catch (const flowlens::Error& e) {
    std::cerr << "flowlens-run: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flowlens-run: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
