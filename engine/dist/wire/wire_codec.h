#pragma once
// Encoding and strict decoding of FlowLens wire messages: a protobuf Header
// frame followed by one raw frame per tensor (see wire.proto). Sending hands
// each tensor's buffer to ZeroMQ without copying it (the message keeps a
// Tensor handle alive until ZeroMQ is done). Receiving keeps the frames as
// zmq messages; callers read the bytes in place or copy them into a Tensor.
//
// Everything a peer sends is untrusted: decode() checks the version, the kind,
// every tensor meta (name, dtype, rank, dims, byte size against the frame) and
// the frame count, and reports the first problem instead of throwing or
// reading out of bounds.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "dist/wire/named_tensor.h"
#include "dist/wire/wire.pb.h"
#include "tensor/tensor.h"

namespace flowlens::dist {

inline constexpr uint32_t kWireVersion = 1;

// The largest frame (in practice: one tensor) a node accepts by default,
// --max-message-mb on flowlens-node. Every socket gets it as ZMQ_MAXMSGSIZE,
// so libzmq drops a larger frame when its size is announced, before
// buffering any of it, and closes that connection.
inline constexpr uint64_t kDefaultMaxMessageBytes = uint64_t{1} << 30;

struct WireLimits {
  std::size_t max_header_bytes = 1u << 20;
  std::size_t max_tensors = 4096;
  std::size_t max_names = 4096;
  std::size_t max_name_length = 1024;
  // Sender names end up in status tables and logs; real ones are "worker:12".
  std::size_t max_sender_length = 128;
  uint64_t max_tensor_bytes = kDefaultMaxMessageBytes;
  int max_rank = 16;
};

// ZMQ_MAXMSGSIZE for a socket whose peers send tensors of up to
// `max_message_bytes` (and headers of up to WireLimits::max_header_bytes);
// 0 for a socket whose peers send only small frames (a PUB's subscribers).
void limit_message_size(zmq::socket_t& socket, uint64_t max_message_bytes);

// A decoded message. frames[i] holds the bytes described by header.tensors(i).
struct WireMessage {
  std::string identity;  // the peer, on a ROUTER socket; empty otherwise
  wire::Header header;
  std::vector<zmq::message_t> frames;

  std::size_t num_tensors() const { return frames.size(); }
  const std::string& name(std::size_t i) const { return header.tensors(static_cast<int>(i)).name(); }
  DType dtype(std::size_t i) const { return static_cast<DType>(header.tensors(static_cast<int>(i)).dtype()); }
  Shape shape(std::size_t i) const;
  std::span<const std::byte> bytes(std::size_t i) const;
  // A Tensor with its own copy of frame i.
  Tensor tensor(std::size_t i) const;
  std::size_t total_bytes() const;  // header + frames, for traffic counters
};

// Fills header.tensors from `tensors` (names, dtypes, dims, sizes) and sets
// the version. Throws Error for a tensor without a fixed-size layout.
std::vector<zmq::message_t> encode_message(wire::Header header, const std::vector<NamedTensor>& tensors);

// Sends [identity,] frames. Returns the bytes sent (header + tensor frames).
std::size_t send_message(zmq::socket_t& socket, const std::string& identity, wire::Header header,
                         const std::vector<NamedTensor>& tensors);

struct DecodeResult {
  std::optional<WireMessage> message;  // set when valid
  std::string error;                   // why not, when invalid
  std::string identity;                // the sender, when known (to answer even a bad request)
  uint64_t request_id = 0;             // when the header parsed
  std::size_t bytes = 0;               // received, valid or not
};

// `frames` as received; with `has_identity` (ROUTER) the first one names the peer.
DecodeResult decode_message(std::vector<zmq::message_t> frames, bool has_identity, const WireLimits& limits = {});

// Receives one multipart message (waiting at most timeout_ms; -1 forever).
// Returns nullopt on timeout.
std::optional<std::vector<zmq::message_t>> receive_frames(zmq::socket_t& socket, int timeout_ms);

// The kind's proto name ("TRAIN"), for messages and status tables.
std::string kind_name(wire::Kind kind);

}  // namespace flowlens::dist
