#pragma once
// What one GUI run asks the session for. By default the graph's sinks
// outside loop frames: those with outputs are fetched (so their values can
// be shown), those without (a `train` NoOp) are run as targets; variable
// initializers are left out because they run once when the session starts.
// Selecting a node never adds it: a node inside a while loop cannot be
// fetched, and selecting is how breakpoints are set. The feeds come from the
// Feeds dock; `steps` repeats the run, as a training loop calls
// session.run.
#include <QString>
#include <string>
#include <vector>

#include "exec/session.h"
#include "graph/graph.h"

namespace flowlens::ui {

struct RunRequest {
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  FeedList feeds;
  int steps = 1;
  // A function body's variables (resource _Args) start at "random" (by role,
  // as flowlens-run --init-args random) or "zeros" when the session starts.
  std::string resource_fill = "random";
  bool empty() const { return fetches.empty() && targets.empty(); }
  QString describe() const;  // "fetch loss, output; run train; feed x; 100 steps"
  std::vector<std::string> roots() const;  // fetches, then targets
  std::vector<std::string> fed_names() const;
};

RunRequest default_run_request(const Graph& graph);

// The fetches of `request` that lie inside a while loop's frame (a tensor
// there has one value per iteration, which a plain fetch cannot return).
std::vector<std::string> fetches_inside_loops(const Graph& graph, const RunRequest& request);

// `text`: comma-separated node or tensor names ("loss, logits/BiasAdd:0"),
// split by the engine's split_name_list and read as TensorIds. Nodes without
// outputs become targets. Unknown or malformed names ("^x", "x:a") fail with
// `error`.
bool parse_run_request(const Graph& graph, const QString& text, RunRequest* request, QString* error);

}  // namespace flowlens::ui
