// flowlens-node: ps and worker processes of between-graph training over
// ZeroMQ, plus the tools to watch and steer a running cluster.
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "common/error.h"
#include "flowlens_version.h"

int main(int argc, char** argv) {
  using namespace flowlens::node;
  CLI::App app{
      "flowlens-node: parameter-server and worker processes for distributed training.\n"
      "  flowlens-node --cluster C.json --job ps --task 0 [--checkpoint-dir D]\n"
      "  flowlens-node --cluster C.json --job worker --task 1 --graph G.pbtxt --steps N [--sync]\n"
      "  flowlens-node ps 0 | worker 1 ...      (cluster and task from TF_CONFIG)\n"
      "  flowlens-node launch|status|stop|pause|resume|step|profile|fetch ... (see SUBCOMMAND --help)"};
  app.set_version_flag("--version", "flowlens-node " FLOWLENS_VERSION);
  app.fallthrough();
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // whole loss lines when a launch's nodes share a pipe  // `flowlens-node worker 1 --graph G` reads the top-level options too

  int exit_code = 0;
  NodeOptions node;
  add_node_options(app, node);
  add_short_node_commands(app, node, exit_code);
  add_status_command(app, exit_code);
  add_control_commands(app, exit_code);
  add_fetch_command(app, exit_code);
  add_graph_command(app, exit_code);
  add_launch_command(app, exit_code);
  add_keygen_command(app, exit_code);

  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) {
      if (node.job.empty() && !node.task && node.cluster_file.empty() && !std::getenv("TF_CONFIG")) {
        std::cout << app.help();
        return 2;
      }
      exit_code = run_node(node);
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const flowlens::Error& e) {
    std::cerr << "flowlens-node: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flowlens-node: internal error: " << e.what() << "\n";
    return 3;
  }
  return exit_code;
}
