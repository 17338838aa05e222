#include "graph/graph.h"

namespace flowlens {

Node& Graph::add_node(Node node) {
  int index = static_cast<int>(nodes_.size());
  index_.try_emplace(node.name, index);
  nodes_.push_back(std::move(node));
  return nodes_.back();
}

void Graph::reserve(std::size_t count) {
  nodes_.reserve(count);
  index_.reserve(count);
}

int Graph::index_of(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

const Node* Graph::find(std::string_view name) const {
  int i = index_of(name);
  return i < 0 ? nullptr : &nodes_[static_cast<size_t>(i)];
}

Node* Graph::find(std::string_view name) {
  int i = index_of(name);
  return i < 0 ? nullptr : &nodes_[static_cast<size_t>(i)];
}

void Graph::reindex() {
  index_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) index_.try_emplace(nodes_[i].name, static_cast<int>(i));
}

}  // namespace flowlens
