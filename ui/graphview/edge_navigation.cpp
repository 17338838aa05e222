#include "ui/graphview/edge_navigation.h"

#include <algorithm>

#include "graph/edge_index.h"

namespace flowlens::ui {
namespace {

bool valid(const Graph& graph, int node) { return node >= 0 && static_cast<std::size_t>(node) < graph.size(); }

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The sibling before or after `node` among `siblings`, wrapping; -1 when
// there is no other one.
int cycle(const std::vector<int>& siblings, int node, bool forward) {
  if (siblings.size() < 2) return -1;
  const auto it = std::find(siblings.begin(), siblings.end(), node);
  if (it == siblings.end()) return -1;
  const auto n = static_cast<std::ptrdiff_t>(siblings.size());
  const std::ptrdiff_t i = it - siblings.begin();
  return siblings[static_cast<std::size_t>((i + (forward ? 1 : n - 1)) % n)];
}

}  // namespace

std::vector<int> producers_of(const Graph& graph, int node) {
  std::vector<int> out;
  if (!valid(graph, node)) return out;
  for (const InputEdge& e : graph.edges().inputs(node))
    if (e.resolved() && e.producer != node && !contains(out, e.producer)) out.push_back(e.producer);
  return out;
}

std::vector<int> consumers_of(const Graph& graph, int node) {
  if (!valid(graph, node)) return {};
  std::vector<int> out = graph.edges().consumers(node);
  std::erase(out, node);  // a self-loop leads nowhere new
  return out;
}

int step_along_edges(const Graph& graph, int node, EdgeStep step, int came_from) {
  if (!valid(graph, node)) return -1;
  switch (step) {
    case EdgeStep::Up: {
      const std::vector<int> producers = producers_of(graph, node);
      if (producers.empty()) return -1;
      return contains(producers, came_from) ? came_from : producers.front();
    }
    case EdgeStep::Down: {
      const std::vector<int> consumers = consumers_of(graph, node);
      if (consumers.empty()) return -1;
      return contains(consumers, came_from) ? came_from : consumers.front();
    }
    case EdgeStep::Left:
    case EdgeStep::Right: {
      const bool forward = step == EdgeStep::Right;
      const std::vector<int> producers = producers_of(graph, node);
      if (contains(producers, came_from)) return cycle(consumers_of(graph, came_from), node, forward);
      const std::vector<int> consumers = consumers_of(graph, node);
      if (contains(consumers, came_from)) return cycle(producers_of(graph, came_from), node, forward);
      if (!producers.empty()) return cycle(consumers_of(graph, producers.front()), node, forward);
      if (!consumers.empty()) return cycle(producers_of(graph, consumers.front()), node, forward);
      return -1;
    }
  }
  return -1;
}

int EdgeWalk::step(const Graph& graph, int node, EdgeStep step) {
  const int came_from = node == at_ ? from_ : -1;
  const int to = step_along_edges(graph, node, step, came_from);
  if (to < 0) return -1;
  if (step == EdgeStep::Up || step == EdgeStep::Down) {
    from_ = node;
  } else {
    // Sideways keeps the node the siblings hang off, so the next sideways
    // step (and Up/Down back to it) uses the same one.
    const std::vector<int> producers = producers_of(graph, node);
    if (came_from >= 0 && (contains(producers, came_from) || contains(consumers_of(graph, node), came_from)))
      from_ = came_from;
    else
      from_ = !producers.empty() ? producers.front() : consumers_of(graph, node).front();
  }
  at_ = to;
  return to;
}

}  // namespace flowlens::ui
