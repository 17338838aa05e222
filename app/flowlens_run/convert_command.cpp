#include <iostream>

#include "commands.h"
#include "io/graph_io.h"

namespace flowlens::cli {

int convert_command(const ConvertOptions& options) {
  Graph graph = load_graph(options.graph);
  save_graph(graph, options.output);
  std::cout << "wrote " << options.output << " (" << graph.size() << " nodes)\n";
  return 0;
}

}  // namespace flowlens::cli
