#include "graph/graph.h"

#include "graph/edge_index.h"

namespace flowlens {

EdgeIndexCache::EdgeIndexCache(EdgeIndexCache&& other) noexcept {
  std::lock_guard lock(other.mu_);
  index_ = std::move(other.index_);
}

EdgeIndexCache& EdgeIndexCache::operator=(const EdgeIndexCache& other) {
  if (this == &other) return *this;
  auto index = other.snapshot();
  std::lock_guard lock(mu_);
  index_ = std::move(index);
  return *this;
}

EdgeIndexCache& EdgeIndexCache::operator=(EdgeIndexCache&& other) noexcept {
  if (this == &other) return *this;
  std::shared_ptr<const EdgeIndex> index;
  {
    std::lock_guard lock(other.mu_);
    index = std::move(other.index_);
  }
  std::lock_guard lock(mu_);
  index_ = std::move(index);
  return *this;
}

std::shared_ptr<const EdgeIndex> EdgeIndexCache::snapshot() const {
  std::lock_guard lock(mu_);
  return index_;
}

const EdgeIndex& EdgeIndexCache::get(const Graph& graph) const {
  std::lock_guard lock(mu_);
  if (!index_) index_ = std::make_shared<const EdgeIndex>(graph);
  return *index_;
}

void EdgeIndexCache::reset() {
  std::lock_guard lock(mu_);
  index_.reset();
}

Node& Graph::add_node(Node node) {
  int index = static_cast<int>(nodes_.size());
  index_.try_emplace(node.name, index);
  nodes_.push_back(std::move(node));
  edges_.reset();
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
  edges_.reset();
  index_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) index_.try_emplace(nodes_[i].name, static_cast<int>(i));
}

}  // namespace flowlens
