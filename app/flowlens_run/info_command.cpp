#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>

#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "commands.h"
#include "exec/device.h"
#include "exec/placement.h"
#include "io/file_formats.h"
#include "io/function_defs.h"
#include "io/graph_io.h"
#include "io/meta_graph.h"
#include "io/checkpoint_reader.h"
#include "io/tensor_bundle.h"
#include "io/tensor_slice_checkpoint.h"
#include "model_printing.h"
#include "ops/framework/op_registry.h"

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

int print_graph_summary(const Graph& graph, const InfoOptions& options) {
  const OpRegistry& registry = OpRegistry::global();

  std::cout << "graph: " << options.graph << "\n";
  std::cout << "nodes: " << graph.size();
  if (graph.versions.present) std::cout << "  (producer " << graph.versions.producer << ")";
  std::cout << "\n";
  if (!graph.function_names.empty()) {
    std::cout << "library functions: " << graph.function_names.size() << "\n";
    // Signatures when the library decodes ("f(a: float32, xs: N * T) -> (y: T)"), else names.
    FunctionLibraryDefinition library;
    try {
      library = decode_function_library(graph.library_bytes);
    } catch (const Error& e) {
      std::cout << "  (the library does not decode: " << e.what() << ")\n";
    }
    auto arg_text = [](const FunctionArgDef& a) {
      std::string type = !a.type_list_attr.empty() ? a.type_list_attr
                         : !a.type_attr.empty()    ? a.type_attr
                                                   : dtype_name(a.type);
      return a.name + ": " + (a.number_attr.empty() ? "" : a.number_attr + " * ") + type;
    };
    for (const auto& f : graph.function_names) {
      std::cout << "  " << f;
      if (auto it = library.functions.find(f); it != library.functions.end()) {
        std::string ins, outs;
        for (const auto& a : it->second.inputs) ins += (ins.empty() ? "" : ", ") + arg_text(a);
        for (const auto& a : it->second.outputs) outs += (outs.empty() ? "" : ", ") + arg_text(a);
        std::cout << "(" << ins << ") -> (" << outs << ")";
      }
      std::cout << "\n";
    }
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

void print_checkpoint(const std::string& title, const std::string& path) {
  const auto reader = open_checkpoint(path);
  std::cout << title << ": " << reader->prefix() << "\n";
  print_checkpoint_entries(std::cout, *reader);
}

// Prints what the opened file holds, part by part, without asking which
// format it was: a new format that yields a graph needs nothing here.
int info_command(const InfoOptions& options) {
  OpenedFile file = open_file(options.graph);
  std::cout << "format: " << file.format->name() << "\n";
  if (file.holds_checkpoint) {
    print_checkpoint("checkpoint", options.graph);
    return 0;
  }
  if (file.holds_event_log) return describe_event_log(options.graph);
  if (file.saved_model) {
    const SavedModel& model = *file.saved_model;
    std::cout << "saved model: " << model.file << " (schema version " << model.schema_version << ")\n";
    for (std::size_t k = 0; k < model.meta_graphs.size(); ++k) {
      std::cout << "meta graph " << k << ":\n";
      print_meta_graph(std::cout, model.meta_graphs[k]);
    }
    if (is_bundle_prefix(model.variables_prefix()))
      print_checkpoint("variables", model.variables_prefix());
    else
      std::cout << "variables: none (" << bundle_index_path(model.variables_prefix()) << " does not exist)\n";
  }
  if (file.meta_graph) {
    std::cout << "meta graph: " << file.meta_graph_file << "\n";
    print_meta_graph(std::cout, *file.meta_graph);
    try {
      print_checkpoint("checkpoint", checkpoint_for_meta_graph(file.meta_graph_file));
    } catch (const Error& e) {
      std::cout << "checkpoint: none (" << e.what() << ")\n";
    }
  }
  return print_graph_summary(file.take_graph(), options);
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InfoOptions>();
  auto* cmd = app.add_subcommand(
      "info",
      "Say what a file or directory holds: for graphs nodes, op histogram, devices, placement, validation; for "
      "SavedModels and meta graphs also signatures, collections and checkpoint variables");
  cmd->add_option("path", options->graph, "A graph file, SavedModel directory, .meta file, checkpoint or log directory")
      ->required();
  cmd->footer("Formats:\n" + formats_help());
  add_device_flags(cmd, options->devices);
  cmd->callback([options, &exit_code] { exit_code = info_command(*options); });
}

}  // namespace flowlens::cli
