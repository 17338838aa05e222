#pragma once
// Structural checks of a graph against the op registry. Errors make a graph
// unrunnable; warnings (an op nobody registered, a function-library op) still
// allow loading, viewing and converting it.
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

class OpRegistry;

struct Diagnostic {
  enum class Severity { Warning, Error };
  Severity severity;
  std::string node;     // empty for graph-level findings
  std::string message;  // complete sentence naming what was expected

  bool is_error() const { return severity == Severity::Error; }
  std::string to_string() const;  // "error: node 'x': ..."
};

// Checks: empty or duplicate names, malformed input strings, data inputs after
// control inputs, inputs naming missing nodes or out-of-range ports, cycles
// that do not pass through a NextIteration (TF's loop back edge), attrs of the
// wrong kind or missing required attrs, wrong input counts, unparsable device
// strings, unknown ops (warning). At most 1,000 diagnostics of each severity
// are listed; a last one of that severity then counts the rest.
std::vector<Diagnostic> validate_graph(const Graph& graph, const OpRegistry& registry);

bool has_errors(const std::vector<Diagnostic>& diagnostics);

}  // namespace flowlens
