#include <iostream>
#include <memory>

#include "commands.h"
#include "exec/loaded_model.h"
#include "io/file_formats.h"
#include "io/graph_io.h"
#include "io/checkpoint_reader.h"
#include "transform/freeze_graph.h"

namespace flowlens::cli {

namespace {

struct ConvertOptions {
  std::string graph;
  std::string output;
  bool freeze = false;
  std::string checkpoint;
  std::vector<std::string> outputs;
  std::vector<std::string> tags;
};

// Without --outputs, a model keeps what its signatures return.
std::vector<std::string> signature_outputs(const MetaGraph& meta) {
  std::vector<std::string> names;
  for (const Signature& sig : meta.signatures) {
    if (sig.key.starts_with("__")) continue;  // __saved_model_init_op and the like
    for (const SignatureTensor& out : sig.outputs)
      if (!out.tensor_name.empty()) names.push_back(out.tensor_name);
  }
  return names;
}

FrozenGraph freeze(const ConvertOptions& options) {
  auto probe = std::make_unique<Probe>(options.graph);
  const FormatHandler& format = find_format(*probe);
  if (format.is_model()) {
    probe.reset();  // LoadedModel reads the model itself; the sniffed bytes go now
    // Restored by the model's own Saver, as freeze_graph does.
    ModelLoadOptions load;
    load.checkpoint = options.checkpoint;
    if (!options.tags.empty()) load.tags = options.tags;
    LoadedModel model = LoadedModel::load(options.graph, load);
    std::vector<std::string> outputs = options.outputs;
    if (outputs.empty()) outputs = signature_outputs(model.meta_graph());
    if (outputs.empty()) throw Error("--freeze: the model has no signatures; name the tensors to keep with --outputs");
    return freeze_graph(model.session(), outputs);
  }
  if (options.checkpoint.empty())
    throw Error("--freeze needs --checkpoint PREFIX for a plain graph (SavedModels and .meta files bring their own)");
  if (options.outputs.empty()) throw Error("--freeze needs --outputs: the tensors the frozen graph computes");
  const Graph graph = format.load(*probe);
  probe.reset();  // the file's bytes, no longer needed while freezing
  const auto reader = open_checkpoint(options.checkpoint);
  // Without a Saver, variables are looked up by node name, as Saver names them.
  return freeze_graph(graph, options.outputs, [&](const Node& variable) {
    return reader->find(variable.name) ? reader->read(variable.name) : Tensor();
  });
}

int convert_command(const ConvertOptions& options) {
  if (!options.freeze) {
    if (!options.checkpoint.empty() || !options.outputs.empty())
      throw Error("--checkpoint and --outputs are for --freeze");
    Graph graph = load_graph(options.graph);
    save_graph(graph, options.output);
    std::cout << "wrote " << options.output << " (" << graph.size() << " nodes)\n";
    return 0;
  }
  const FrozenGraph frozen = freeze(options);
  save_graph(frozen.graph, options.output);
  std::cout << "wrote " << options.output << " (" << frozen.graph.size() << " nodes, " << frozen.frozen.size()
            << " variable(s) frozen into constants)\n";
  return 0;
}

}  // namespace

void add_convert_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ConvertOptions>();
  auto* cmd = app.add_subcommand(
      "convert", "Write a graph as text (.pbtxt), binary (.pb) or Graphviz (.dot); --freeze folds variables into "
                 "constants like freeze_graph");
  cmd->add_option("graph", options->graph, "A graph file, SavedModel directory or .meta file")->required();
  cmd->add_option("-o,--output", options->output, "Output file; its extension picks the format")->required();
  cmd->footer("Formats (detected by content):\n" + formats_help());
  cmd->add_flag("--freeze", options->freeze,
                "Keep only what --outputs need and replace every variable by a Const with its checkpoint value");
  cmd->add_option("--checkpoint", options->checkpoint,
                  "--freeze: the checkpoint prefix (default for SavedModels: variables/; for .meta: the latest beside it)");
  cmd->add_option("--outputs", options->outputs,
                  "--freeze: tensors the frozen graph computes (default for models: every signature's outputs)");
  cmd->add_option("--tags", options->tags, "SavedModel: the meta graph's tags (default: serve)");
  cmd->callback([options, &exit_code] {
    options->outputs = split_list(options->outputs);
    options->tags = split_list(options->tags);
    exit_code = convert_command(*options);
  });
}

}  // namespace flowlens::cli
