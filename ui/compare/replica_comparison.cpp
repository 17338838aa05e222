#include "ui/compare/replica_comparison.h"

#include <exception>

#include "ops/framework/op_registry.h"
#include "ui/document/graph_document.h"

namespace flowlens::ui {

std::shared_ptr<const ReplicaComparison> ReplicaComparison::build(std::shared_ptr<const GraphDocument> original,
                                                                  const ReplicateOptions& options, QString* error) {
  auto fail = [&](const QString& message) -> std::shared_ptr<const ReplicaComparison> {
    if (error) *error = message;
    return nullptr;
  };
  if (!original || !original->graph) return fail(QStringLiteral("No graph is loaded."));
  if (options.replicas < 1) return fail(QStringLiteral("The number of replicas must be at least 1."));
  ReplicationResult result;
  try {
    result = replicate_in_graph(*original->graph, options, OpRegistry::global());
  } catch (const std::exception& e) {
    return fail(QStringLiteral("Could not replicate %1: %2").arg(original->file_name(), QString::fromStdString(e.what())));
  }

  auto cmp = std::make_shared<ReplicaComparison>();
  cmp->original_ = std::move(original);
  cmp->options_ = options;
  if (cmp->options_.devices.empty())
    for (int t = 0; t < options.replicas; ++t) cmp->options_.devices.push_back("/gpu:" + std::to_string(t));
  cmp->map_ = result.map;
  const Graph& before = *cmp->original_->graph;
  for (const Node& n : result.graph.nodes()) {
    if (!result.map.original_of(n.name).empty()) continue;  // a tower copy
    const Node* old = before.find(n.name);
    if (!old || old->op != n.op) cmp->added_.insert(n.name);
  }
  // Splits and merges are new even if a future engine keeps their op.
  for (const auto& s : result.splits) cmp->added_.insert(s.split_node);
  for (const auto& m : result.merges) cmp->added_.insert(m);
  cmp->replicated_ = make_graph_document(std::move(result.graph), cmp->original_->path);
  return cmp;
}

std::vector<std::string> ReplicaComparison::replicated_of(const std::string& name) const {
  std::vector<std::string> out = map_.copies_of(name);
  if (replicated_->graph->find(name)) out.push_back(name);  // shared, or a merge under the old name
  return out;
}

std::string ReplicaComparison::original_of(const std::string& name) const {
  std::string original = map_.original_of(name);
  if (original.empty() && original_->graph->find(name)) original = name;
  return original;
}

QString ReplicaComparison::summary() const {
  // Devices are left to the pane's device legend; this has to fit a header.
  return QStringLiteral("%1 tower%2 \u00B7 %3 node%4 added")
      .arg(options_.replicas)
      .arg(options_.replicas == 1 ? QString() : QStringLiteral("s"))
      .arg(added_.size())
      .arg(added_.size() == 1 ? QString() : QStringLiteral("s"));
}

}  // namespace flowlens::ui
