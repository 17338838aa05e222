#pragma once
// How many iterations each TensorFlow 1 loop frame ran, from a run's
// NodeEvents: per frame name (graph/control_flow_frames.h's names), the
// highest iteration any of its nodes reported. Iterations count from 0 and
// a loop's condition runs once more than its body, so for a loop whose body
// ran N times the Merge/LoopCond/Exit report iteration N: the highest
// iteration seen is the number of iterations (0 for a loop that never
// entered its body). A nested loop's frame counts its most iterations in any
// one outer iteration. The graph view titles a loop's group with it.
//
// Each run starts afresh; iterations() is the latest run's (or the one
// still going).
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "exec/observer.h"

namespace flowlens {

class FrameIterations : public ExecutionObserver {
 public:
  // frame name -> iterations, for the frames the latest run entered.
  std::map<std::string, int64_t> iterations() const;
  // -1 when the latest run did not enter `frame`.
  int64_t iterations(const std::string& frame) const;
  void clear();

  void on_run_start(int64_t run_id, int num_nodes) override;
  void on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) override;

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t> max_iteration_;
  int64_t run_id_ = -1;
};

}  // namespace flowlens
