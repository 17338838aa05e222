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
  // Which check found it, so a view can group one finding repeated over
  // many nodes (a real export warns about the same unknown op on hundreds).
  enum class Kind {
    Other,              // not from validate_graph (shape inference, load notes)
    EmptyName,
    DuplicateName,
    NoOp,
    UnknownOp,          // `op` is the op nobody registered
    LibraryFunction,    // `op` is a function of the graph's library
    MalformedInput,
    ControlBeforeData,
    MissingInput,
    PortOutOfRange,
    InputCount,
    MissingAttr,
    AttrKindMismatch,
    AttrValue,
    InvalidDevice,
    Cycle,
    Unlisted,           // "N more ... are not listed"
  };
  Severity severity;
  std::string node;     // empty for graph-level findings
  std::string message;  // complete sentence naming what was expected
  Kind kind = Kind::Other;
  std::string op{};     // the op of the node at fault, where there is one

  bool is_error() const { return severity == Severity::Error; }
  std::string to_string() const;  // "error: node 'x': ..."
};

// Checks: empty or duplicate names, malformed input strings, data inputs after
// control inputs, inputs naming missing nodes or out-of-range ports, cycles
// that do not pass through a NextIteration -> Merge edge (TF's loop back
// edge; others are named with their frame), inconsistent loop frames
// (graph/control_flow_frames.h), attrs of the
// wrong kind or missing required attrs, wrong input counts, unparsable device
// strings, unknown ops (warning). At most 1,000 diagnostics of each severity
// are listed; a last one of that severity then counts the rest.
std::vector<Diagnostic> validate_graph(const Graph& graph, const OpRegistry& registry);

bool has_errors(const std::vector<Diagnostic>& diagnostics);

}  // namespace flowlens
