#pragma once
// How a request to a node fails when the node does not answer. Kept apart
// from node_connection.h so code that only asks nodes (the GUI, through
// ClusterClient) can catch them without ZeroMQ's headers.
#include "common/error.h"

namespace flowlens::dist {

// Thrown when a node does not answer in time; the message names it.
class TimeoutError : public Error {
 public:
  using Error::Error;
};

// Thrown when the connection to the node is down while a request waits for
// its answer (the node exited or was killed, and libzmq has not connected
// again): that answer will never come, so waiting out the timeout would only
// delay the retry.
class PeerLostError : public TimeoutError {
 public:
  using TimeoutError::TimeoutError;
};

}  // namespace flowlens::dist
