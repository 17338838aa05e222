#pragma once
// Live validation of the graph being edited: validate_graph() for structure,
// then infer_shapes() for what a run would reject (MatMul of [4,3] by [4,1]).
// Shape inference needs a structurally sound graph, so it runs on the part
// that is: nodes with structural errors and everything downstream of them are
// left out (their outputs stay unknown).
#include <QString>
#include <QStringList>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/framework/shape_context.h"

namespace flowlens {
class OpRegistry;
}

namespace flowlens::ui {

struct NodeCheck {
  QString errors;    // one message per line; empty when the node is fine
  QString warnings;  // an unknown op, say
  std::vector<TensorInfo> outputs;  // inferred, per output port; empty when not inferred
  bool has_error() const { return !errors.isEmpty(); }
};

struct GraphCheck {
  std::map<std::string, NodeCheck> nodes;
  QStringList graph_errors;  // findings that name no node (a cycle, say)
  int error_count = 0;

  const NodeCheck* find(const std::string& node) const;
  // "No problems" / "2 nodes with errors"
  QString summary() const;
};

GraphCheck check_graph(const flowlens::Graph& graph, const OpRegistry& registry);

// "float32[4,1]", "float32[?,3]"; "float32 ?" when the rank is unknown, "?" when nothing is.
QString describe_tensor_info(const TensorInfo& info);

}  // namespace flowlens::ui
