#pragma once
// Facts the inspector shows that the engine has to work out: where each node
// actually runs on this machine after soft placement (place_graph on the
// local DeviceSet), and the dtype/shape of each output (infer_shapes).
// Computed once per document and cached, since both walk the whole graph.
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "analysis/infer_shapes.h"
#include "exec/placement.h"

namespace flowlens::ui {

struct GraphDocument;

class NodeFacts {
 public:
  // Never throws: a graph that cannot be placed (a malformed device string,
  // say) or shape-inferred (structural errors) just has fewer facts.
  explicit NodeFacts(const GraphDocument& doc);

  // "/cpu:0"; "" when placement failed or no device has a kernel for the op.
  QString actual_device(int node) const;
  // Why soft placement moved the node; "" when it runs where it asked.
  QString placement_reason(int node) const;
  // One "float32 [4,1]" per output port; empty when inference knows nothing.
  QStringList outputs(int node) const;
  QString placement_error() const { return placement_error_; }

 private:
  std::optional<Placement> placement_;
  std::optional<ShapeInferenceResult> shapes_;
  std::vector<std::string> device_names_;  // short names by DeviceSet index
  std::vector<std::string> node_names_;
  QString placement_error_;
};

}  // namespace flowlens::ui
