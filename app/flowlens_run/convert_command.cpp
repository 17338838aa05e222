#include <iostream>

#include "commands.h"
#include "io/graph_io.h"

namespace flowlens::cli {

namespace {

struct ConvertOptions {
  std::string graph;
  std::string output;
};

int convert_command(const ConvertOptions& options) {
  Graph graph = load_graph(options.graph);
  save_graph(graph, options.output);
  std::cout << "wrote " << options.output << " (" << graph.size() << " nodes)\n";
  return 0;
}

}  // namespace

void add_convert_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ConvertOptions>();
  auto* cmd = app.add_subcommand("convert", "Write a graph as text (.pbtxt), binary (.pb) or Graphviz (.dot)");
  cmd->add_option("graph", options->graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", options->output, "Output file; its extension picks the format")->required();
  cmd->callback([options, &exit_code] { exit_code = convert_command(*options); });
}

}  // namespace flowlens::cli
