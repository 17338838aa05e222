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

}  // namespace

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

}  // namespace flowlens::cli
