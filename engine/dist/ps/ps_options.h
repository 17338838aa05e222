#pragma once
// How a parameter server task is started (flowlens-node ps, benchmarks).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "dist/security/cluster_security.h"
#include "cluster/cluster_spec.h"
#include "dist/security/connection_guard.h"
#include "dist/wire/wire_codec.h"

namespace flowlens::dist {

struct PsOptions {
  ClusterSpec cluster;
  int task = 0;
  // Overrides the ZeroMQ endpoint bound (default: tcp://<the task's address>);
  // "tcp://127.0.0.1:*" picks a free port (benchmarks).
  std::string bind_endpoint;
  std::string checkpoint_dir;  // empty: no checkpoints
  // Saved after this many global steps or this much time with new steps,
  // whichever comes first; 0 turns either off (then only on shutdown).
  int64_t checkpoint_every = 100;
  std::chrono::milliseconds checkpoint_interval{0};
  std::chrono::milliseconds wait_timeout{10000};
  // A worker silent (no heartbeat, no request) this long is marked down.
  std::chrono::milliseconds worker_timeout{5000};
  bool exit_when_workers_done = true;
  // Keep serving when every worker is finished or down, for them to return.
  bool wait_for_workers = false;
  uint64_t max_message_bytes = kDefaultMaxMessageBytes;  // per frame (tensor)
  std::size_t max_connections = kDefaultMaxConnections;
  std::size_t max_subscribers = kDefaultMaxSubscribers;  // of the events endpoint
  // Secured cluster: this ps's key pair and the cluster's keys (CURVE on
  // both sockets, requests checked against the sender's role).
  std::optional<Credentials> credentials;
  // Without credentials a ps only binds loopback addresses unless this is set.
  bool insecure = false;
};

}  // namespace flowlens::dist
