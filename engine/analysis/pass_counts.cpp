#include "analysis/pass_counts.h"

#include <atomic>

namespace flowlens {
namespace {

std::atomic<std::uint64_t> validations{0};
std::atomic<std::uint64_t> shape_inferences{0};
std::atomic<std::uint64_t> placements{0};

}  // namespace

void count_graph_pass(GraphPass pass) {
  switch (pass) {
    case GraphPass::Validation: validations.fetch_add(1, std::memory_order_relaxed); break;
    case GraphPass::ShapeInference: shape_inferences.fetch_add(1, std::memory_order_relaxed); break;
    case GraphPass::Placement: placements.fetch_add(1, std::memory_order_relaxed); break;
  }
}

GraphPassCounts graph_pass_counts() {
  return {validations.load(std::memory_order_relaxed), shape_inferences.load(std::memory_order_relaxed),
          placements.load(std::memory_order_relaxed)};
}

}  // namespace flowlens
