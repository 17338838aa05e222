#pragma once
// Which requests a ps may take as coming from one of its workers. The
// sender name in a header is whatever the peer wrote, so it alone proves
// nothing: a status client could write "worker:1" and keep a dead worker
// "alive" (in sync mode the healthy workers then wait for it in vain).
//
// With CURVE the key decides (curve_auth.h: identity_problem). Without keys
// the worker's incarnation does: it is random per process start and travels
// only from the worker to its ps, never in a status or an answer. A worker's
// training requests (INIT, PULL, PUSH, DONE) bind the incarnation they carry
// to that worker; a heartbeat counts only when it carries the bound one. The
// heartbeat comes from another socket than the training requests (the
// worker's control thread), so the incarnation, not the connection, is what
// ties the two. A new incarnation re-binds: the worker restarted.
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "cluster/cluster_spec.h"
#include "dist/wire/wire.pb.h"

namespace flowlens::dist {

class SenderRegistry {
 public:
  explicit SenderRegistry(const ClusterSpec& cluster);

  // "worker:3" -> 3 when worker 3 is a task of the cluster; -1 for anything
  // else, so invented names ("worker:99999") create no per-worker state.
  int worker_task(const std::string& sender) const;
  // "ps:0", "worker:1", ...: the names the cluster's own tasks send as.
  std::set<std::string> task_names() const;

  // A training request of worker `worker` from process `incarnation`.
  // Returns true when it replaced another incarnation (a restart).
  bool bind(int worker, uint64_t incarnation);
  // Whether a heartbeat of `worker` carrying `incarnation` comes from the
  // process that trains as it.
  bool speaks_for(int worker, uint64_t incarnation) const;

 private:
  std::set<int> workers_, ps_tasks_;
  std::map<int, uint64_t> incarnation_;  // by worker task, from its last training request
};

// Requests that make their sender a worker of the ps.
bool is_training_request(wire::Kind kind);

}  // namespace flowlens::dist
