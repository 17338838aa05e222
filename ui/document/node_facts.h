#pragma once
// Facts the inspector shows that the engine works out: where each node
// actually runs on this machine after soft placement (the document's
// GraphPlacement), and the dtype/shape of each output (its GraphAnalysis) —
// each computed once for every view, here phrased for display.
#include <QString>
#include <QStringList>

#include <memory>

#include "analysis/graph_analysis.h"
#include "exec/graph_placement.h"

namespace flowlens::ui {

struct GraphDocument;

class NodeFacts {
 public:
  // Never throws: a graph that cannot be placed (a malformed device string,
  // say) or shape-inferred (structural errors) just has fewer facts.
  explicit NodeFacts(const GraphDocument& doc);
  ~NodeFacts();

  // "/cpu:0"; "" when placement failed or no device has a kernel for the op.
  QString actual_device(int node) const;
  // Why soft placement moved the node; "" when it runs where it asked.
  QString placement_reason(int node) const;
  // One "float32 [4,1]" per output port; empty when inference knows nothing.
  QStringList outputs(int node) const;
  QString placement_error() const;

 private:
  std::shared_ptr<const GraphAnalysis> analysis_;
  std::shared_ptr<const GraphPlacement> placement_;
};

}  // namespace flowlens::ui
