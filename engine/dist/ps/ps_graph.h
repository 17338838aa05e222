#pragma once
// The partition of the training graph a ps task runs, as a worker
// registered it (partition_exchange.h): its variables live in an embedded
// Session; a PULL runs the read phase and returns what it sends to the
// worker; a PUSH runs the update phase with what the worker sent, so the
// ps applies the graph's own optimizer ops (any Apply*/ResourceApply*,
// several optimizers, AssignSub of batch-norm moving averages) instead of
// optimizer code of its own. No sockets: PsServer feeds it messages' tensors.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dist/wire/named_tensor.h"
#include "dist/worker/partition_exchange.h"
#include "exec/session.h"

namespace flowlens::dist {

class PsGraph {
 public:
  // `partition`: a binary GraphDef. Throws Error naming what is wrong (not
  // a GraphDef, invalid, nothing this ps could run).
  PsGraph(const std::string& partition, const std::string& label, const SessionOptions& options = {});

  // The same bytes a worker registered before (workers of one training job
  // register the same canonical partition).
  bool same_partition(const std::string& partition) const { return partition == bytes_; }
  const std::string& partition() const { return bytes_; }  // the binary GraphDef, as registered

  const std::vector<std::string>& variables() const { return variables_; }
  // The variable's value (shared, not copied), or an invalid Tensor when it
  // is not initialized; throws Error for a name that is no variable here.
  Tensor value(const std::string& variable);
  std::vector<std::string> uninitialized();
  // Sets an uninitialized variable; returns false when it already had a
  // value. Throws Error for an unknown name or a dtype that does not match.
  bool initialize(const std::string& variable, const Tensor& value);

  const std::vector<std::string>& pull_keys() const { return pull_keys_; }
  const std::vector<TransferEnd>& push_ends() const { return push_ends_; }
  // "" when `keys` are all keys of the read phase; else why not.
  std::string check_pull(const std::vector<std::string>& keys) const;
  // Runs the read phase for `keys`. Tensors that share a variable's buffer
  // are copied: the update phase changes variables in place while a reply
  // may still be sending.
  std::vector<NamedTensor> read(const std::vector<std::string>& keys);
  // "" when a PUSH of these names and types is exactly what the update
  // phase receives; else why not.
  std::string check_push(const std::vector<std::string>& names, const std::vector<DType>& dtypes) const;
  // Runs the update phase with `pushed` (by key) fed in place of its _Recv nodes.
  void update(const std::vector<NamedTensor>& pushed);
  // Runs the whole partition as this ps's part of distributed step
  // `step_id` (worker/distributed_step.h): its _Recv nodes wait in
  // `rendezvous`, its _Send nodes send there. Runs of several workers' steps
  // may overlap (thread-safe, as Session::run is). Throws Error naming the
  // failing node.
  void run_step(Rendezvous& rendezvous, int64_t step_id);

  std::size_t node_count() const;

 private:
  Variable* storage(const std::string& variable);

  std::string bytes_;
  std::string label_;
  std::unique_ptr<Session> session_;
  std::vector<std::string> variables_;
  std::vector<std::string> pull_keys_;
  std::map<std::string, std::string> pull_tensor_;  // key -> tensor the read phase fetches
  // key -> the variable it is the value of (a variable or its Identity,
  // Snapshot or ReadVariableOp): read from storage, without a run.
  std::map<std::string, std::string> pull_variable_;
  std::vector<TransferEnd> push_ends_;              // the update phase's _Recv nodes
  std::map<std::string, std::size_t> push_index_;   // key -> push_ends_ index
  std::vector<std::string> update_targets_;
  std::vector<std::string> step_targets_;  // the partition's sinks: a step runs them all
};

}  // namespace flowlens::dist
