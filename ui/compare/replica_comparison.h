#pragma once
// An original graph next to its in-graph replicated version: runs
// replicate_in_graph() and answers the compare view's questions, which node
// on one side corresponds to which on the other, and which replicated nodes
// are new (the Split inputs, the ConcatV2 merges, averaged gradients...).
//
// Correspondence: a tower copy maps to its original through the ReplicaMap.
// A node kept under its own name (shared variables, and merge outputs, which
// keep the original output's name so fetches still work) maps to the
// same-named node. "Added" means: neither a copy nor an unchanged original
// (a merge output changes op, so it counts as added even though its name is
// old).
#include <QString>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "transform/replicate_in_graph.h"

namespace flowlens::ui {

struct GraphDocument;

class ReplicaComparison {
 public:
  // Replicates `original`; on failure returns nullptr and sets `error`.
  static std::shared_ptr<const ReplicaComparison> build(std::shared_ptr<const GraphDocument> original,
                                                        const ReplicateOptions& options, QString* error);

  const std::shared_ptr<const GraphDocument>& original() const { return original_; }
  const std::shared_ptr<const GraphDocument>& replicated() const { return replicated_; }
  const ReplicateOptions& options() const { return options_; }
  const ReplicaMap& map() const { return map_; }
  const std::set<std::string>& added() const { return added_; }
  bool is_added(const std::string& replicated_node) const { return added_.count(replicated_node) != 0; }

  // Replicated nodes that stand for original node `name` (copies first).
  std::vector<std::string> replicated_of(const std::string& name) const;
  // The original node a replicated node stands for, "" for none.
  std::string original_of(const std::string& name) const;

  // "2 towers · 4 nodes added"
  QString summary() const;

 private:
  std::shared_ptr<const GraphDocument> original_, replicated_;
  ReplicateOptions options_;
  ReplicaMap map_;
  std::set<std::string> added_;
};

}  // namespace flowlens::ui
