// ReplicaMap: the two-way index between original nodes and their tower copies.
#include "transform/replicate_in_graph.h"

namespace flowlens {

void ReplicaMap::add(const std::string& original, const std::string& copy) {
  copies_[original].push_back(copy);
  original_[copy] = original;
}

const std::vector<std::string>& ReplicaMap::copies_of(const std::string& original) const {
  static const std::vector<std::string> kNone;  // shared nodes have no copies
  auto it = copies_.find(original);
  return it == copies_.end() ? kNone : it->second;
}

std::string ReplicaMap::original_of(const std::string& copy) const {
  auto it = original_.find(copy);
  return it == original_.end() ? std::string() : it->second;
}

std::vector<std::string> ReplicaMap::originals() const {
  std::vector<std::string> names;
  names.reserve(copies_.size());
  for (const auto& [name, copies] : copies_) names.push_back(name);
  return names;
}

}  // namespace flowlens
