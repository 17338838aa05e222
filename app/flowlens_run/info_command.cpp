#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>

#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "commands.h"
#include "exec/device.h"
#include "exec/placement.h"
#include "io/graph_io.h"
#include "ops/op_registry.h"

namespace flowlens::cli {
namespace {

void print_histogram(const std::string& title, const std::map<std::string, int>& counts) {
  std::vector<std::pair<std::string, int>> rows(counts.begin(), counts.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  size_t width = 0;
  for (const auto& [k, v] : rows) width = std::max(width, k.size());
  std::cout << title << ":\n";
  for (const auto& [k, v] : rows) std::cout << "  " << std::left << std::setw(static_cast<int>(width)) << k << "  " << v << "\n";
}

struct InfoOptions {
  std::string graph;
  DeviceFlags devices;
};

int info_command(const InfoOptions& options) {
  Graph graph = load_graph(options.graph);
  const OpRegistry& registry = OpRegistry::global();

  std::cout << "graph: " << options.graph << "\n";
  std::cout << "nodes: " << graph.size();
  if (graph.versions.present) std::cout << "  (producer " << graph.versions.producer << ")";
  std::cout << "\n";
  if (!graph.function_names.empty()) {
    std::cout << "library functions: " << graph.function_names.size() << "\n";
    for (const auto& f : graph.function_names) std::cout << "  " << f << "\n";
  }

  std::map<std::string, int> ops, devices;
  for (const Node& n : graph.nodes()) {
    ++ops[n.op];
    ++devices[n.device.empty() ? "(unassigned)" : n.device];
  }
  print_histogram("ops", ops);
  print_histogram("requested devices", devices);

  std::vector<Diagnostic> diagnostics = validate_graph(graph, registry);
  if (!has_errors(diagnostics)) {
    // Static shape errors are as fatal for a run as structural ones.
    ShapeInferenceResult shapes = infer_shapes(graph, registry);
    diagnostics.insert(diagnostics.end(), shapes.errors.begin(), shapes.errors.end());
  }
  int errors = static_cast<int>(std::count_if(diagnostics.begin(), diagnostics.end(),
                                              [](const Diagnostic& d) { return d.is_error(); }));
  int warnings = static_cast<int>(diagnostics.size()) - errors;

  auto local = DeviceSet::local(local_device_options(options.devices));
  std::cout << "this machine: " << local->count("CPU") << " CPU, " << local->count("GPU") << " GPU; "
            << local->gpu_status() << "\n";
  for (int i = 0; i < local->size(); ++i)
    if (local->at(i).type() == "GPU")
      std::cout << "  " << local->at(i).short_name() << ": " << local->at(i).description() << "\n";
  if (!has_errors(diagnostics)) {
    Placement placement = place_graph(graph, *local, registry, true);
    if (placement.soft_placed.empty()) {
      std::cout << "placement: every node runs where it asked\n";
    } else {
      std::cout << "placement: " << placement.soft_placed.size() << " node(s) moved by soft placement\n";
      for (const auto& note : placement.soft_placed)
        std::cout << "  " << note.node << ": " << note.requested << " -> " << note.placed << " (" << note.reason << ")\n";
    }
  }

  if (diagnostics.empty()) {
    std::cout << "validation: ok\n";
  } else {
    std::cout << "validation: " << errors << " error(s), " << warnings << " warning(s)\n";
    for (const auto& d : diagnostics) std::cout << "  " << d.to_string() << "\n";
  }
  return errors ? 1 : 0;
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InfoOptions>();
  auto* cmd = app.add_subcommand("info", "Summarize a graph: nodes, op histogram, devices, placement, validation");
  cmd->add_option("graph", options->graph, "Graph file (.pbtxt, .pb)")->required()->check(CLI::ExistingFile);
  add_device_flags(cmd, options->devices);
  cmd->callback([options, &exit_code] { exit_code = info_command(*options); });
}

}  // namespace flowlens::cli
