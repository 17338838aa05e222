#pragma once
// What a worker's steps carry: the pulled variables (names, types, sizes),
// the bytes of the last step per ps link and per _Recv/_Send node of its
// partition. The training thread notes each step's tensors; what the status
// and the "transfers" and "graph" commands show changes only when they
// differ from the last step's (the first step, in practice), and is read on
// the control thread.
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "dist/control/node_status.h"
#include "dist/wire/named_tensor.h"
#include "dist/worker/worker_plan.h"

namespace flowlens::dist {

class StepTransfers {
 public:
  explicit StepTransfers(const TrainingPlan& plan) : plan_(plan) {}

  // Training thread: per ps link, what the step pulled and sent. True when
  // what the status shows changed.
  bool note(const std::vector<std::vector<NamedTensor>>& pulled, const std::vector<std::vector<NamedTensor>>& sent);
  // Training thread, distributed steps: the bytes of the step per _Send and
  // _Recv node of the worker's partition (distributed_step.h).
  bool note_nodes(const std::map<std::string, int64_t>& node_bytes);

  std::vector<VariableInfo> variables() const;  // as last pulled
  std::vector<LinkTraffic> links() const;       // per ps link: the last step's bytes
  // {"<_Recv/_Send node>": bytes of the last step}
  std::string bytes_json() const;
  // `partition` with each _Recv/_Send node's last-step bytes as its "_bytes" attr.
  Graph annotated(Graph partition) const;

 private:
  bool note_variables(const std::vector<std::vector<NamedTensor>>& pulled);

  const TrainingPlan& plan_;
  mutable std::mutex mu_;  // what the control thread reads
  std::vector<VariableInfo> variables_;
  std::vector<LinkTraffic> links_;
  std::map<std::string, int64_t> node_bytes_;
  // Training thread only: what was last noted.
  std::vector<std::pair<DType, Shape>> pulled_layout_;
  std::vector<std::string> pulled_names_;
  std::vector<int64_t> sizes_;
};

}  // namespace flowlens::dist
