#include "dist/wire/wire_codec.h"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <limits>

#include <zmq_addon.hpp>

namespace flowlens::dist {
namespace {

// Below this size a frame is copied: ZeroMQ stores small messages inline,
// and the hand-off with a release callback costs more than the copy.
constexpr std::size_t kZeroCopyMinBytes = 1024;

// ZeroMQ calls this from its I/O thread once the frame has been sent; the
// Tensor handle kept the buffer alive (and unchanged: tensors are immutable
// by convention, the ps replaces rather than edits variable values).
void release_tensor(void* /*data*/, void* hint) { delete static_cast<Tensor*>(hint); }

// Checks one meta against its frame; returns "" when consistent.
std::string check_meta(const wire::TensorMeta& meta, std::size_t frame_size, const WireLimits& limits) {
  if (meta.name().empty()) return "tensor name is empty";
  if (meta.name().size() > limits.max_name_length)
    return "tensor name is " + std::to_string(meta.name().size()) + " bytes (at most " +
           std::to_string(limits.max_name_length) + ")";
  const std::string who = "tensor '" + meta.name() + "': ";
  const auto dtype = static_cast<DType>(meta.dtype());
  if (meta.dtype() <= 0 || meta.dtype() > static_cast<int>(DType::UInt64) || dtype_size(dtype) == 0)
    return who + "dtype " + std::to_string(meta.dtype()) + " is not a fixed-size element type";
  if (meta.dims_size() > limits.max_rank)
    return who + "rank " + std::to_string(meta.dims_size()) + " exceeds " + std::to_string(limits.max_rank);
  uint64_t elements = 1;
  for (int64_t d : meta.dims()) {
    if (d < 0) return who + "negative dimension " + std::to_string(d);
    if (d != 0 && elements > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d))
      return who + "element count overflows";
    elements *= static_cast<uint64_t>(d);
  }
  const uint64_t size = dtype_size(dtype);
  if (elements > limits.max_tensor_bytes / size)
    return who + "larger than the limit of " + std::to_string(limits.max_tensor_bytes) + " bytes";
  if (meta.byte_size() != elements * size)
    return who + "byte_size " + std::to_string(meta.byte_size()) + " does not match " + std::to_string(elements) +
           " elements of " + dtype_name(dtype);
  if (frame_size != meta.byte_size())
    return who + "frame has " + std::to_string(frame_size) + " bytes, header says " + std::to_string(meta.byte_size());
  return {};
}

}  // namespace

Shape WireMessage::shape(std::size_t i) const {
  const auto& dims = header.tensors(static_cast<int>(i)).dims();
  return Shape(std::vector<int64_t>(dims.begin(), dims.end()));
}

std::span<const std::byte> WireMessage::bytes(std::size_t i) const {
  return {static_cast<const std::byte*>(frames[i].data()), frames[i].size()};
}

Tensor WireMessage::tensor(std::size_t i) const {
  Tensor t(dtype(i), shape(i));
  if (t.byte_size() > 0) std::memcpy(t.raw_data(), frames[i].data(), t.byte_size());
  return t;
}

std::size_t WireMessage::total_bytes() const {
  std::size_t n = header.ByteSizeLong();
  for (const auto& f : frames) n += f.size();
  return n;
}

std::vector<zmq::message_t> encode_message(wire::Header header, const std::vector<NamedTensor>& tensors) {
  header.set_version(kWireVersion);
  header.clear_tensors();
  for (const NamedTensor& t : tensors) {
    if (!t.value.valid()) throw Error("cannot send tensor '" + t.name + "': it is empty");
    if (dtype_size(t.value.dtype()) == 0)
      throw Error("cannot send tensor '" + t.name + "': " + dtype_name(t.value.dtype()) + " has no fixed-size layout");
    wire::TensorMeta* meta = header.add_tensors();
    meta->set_name(t.name);
    meta->set_dtype(static_cast<int>(t.value.dtype()));
    for (int64_t d : t.value.shape().dims()) meta->add_dims(d);
    meta->set_byte_size(t.value.byte_size());
  }
  std::vector<zmq::message_t> frames;
  frames.reserve(tensors.size() + 1);
  frames.emplace_back(header.SerializeAsString());
  for (const NamedTensor& t : tensors) {
    if (t.value.byte_size() < kZeroCopyMinBytes) {
      frames.emplace_back(t.value.raw_data(), t.value.byte_size());  // copying beats the release callback
      continue;
    }
    auto* keep = new Tensor(t.value);
    frames.emplace_back(const_cast<void*>(keep->raw_data()), keep->byte_size(), &release_tensor, keep);
  }
  return frames;
}

void limit_message_size(zmq::socket_t& socket, uint64_t max_message_bytes) {
  const uint64_t frame = std::max<uint64_t>(max_message_bytes, WireLimits{}.max_header_bytes);
  socket.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(std::min<uint64_t>(frame, std::numeric_limits<int64_t>::max())));
}

std::size_t send_message(zmq::socket_t& socket, const std::string& identity, wire::Header header,
                         const std::vector<NamedTensor>& tensors) {
  std::vector<zmq::message_t> frames = encode_message(std::move(header), tensors);
  std::size_t bytes = 0;
  if (!identity.empty()) socket.send(zmq::buffer(identity), zmq::send_flags::sndmore);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    bytes += frames[i].size();
    socket.send(frames[i], i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
  return bytes;
}

DecodeResult decode_message(std::vector<zmq::message_t> frames, bool has_identity, const WireLimits& limits) {
  DecodeResult result;
  for (const auto& f : frames) result.bytes += f.size();
  std::size_t first = 0;
  if (has_identity) {
    if (frames.empty()) {
      result.error = "empty message";
      return result;
    }
    result.identity = frames[0].to_string();
    first = 1;
  }
  if (frames.size() <= first) {
    result.error = "message has no header frame";
    return result;
  }
  const zmq::message_t& head = frames[first];
  if (head.size() > limits.max_header_bytes) {
    result.error = "header frame of " + std::to_string(head.size()) + " bytes exceeds " +
                   std::to_string(limits.max_header_bytes);
    return result;
  }
  WireMessage msg;
  msg.identity = result.identity;
  if (!msg.header.ParseFromArray(head.data(), static_cast<int>(head.size()))) {
    result.error = "header frame is not a valid wire.Header";
    return result;
  }
  result.request_id = msg.header.request_id();
  if (msg.header.sender().size() > limits.max_sender_length) {
    result.error = "sender name is " + std::to_string(msg.header.sender().size()) + " bytes (at most " +
                   std::to_string(limits.max_sender_length) + ")";
    return result;
  }
  if (msg.header.version() != kWireVersion) {
    result.error = "protocol version " + std::to_string(msg.header.version()) + " (this node speaks " +
                   std::to_string(kWireVersion) + ")";
    return result;
  }
  if (!wire::Kind_IsValid(msg.header.kind()) || msg.header.kind() == wire::KIND_UNSPECIFIED) {
    result.error = "unknown message kind " + std::to_string(static_cast<int>(msg.header.kind()));
    return result;
  }
  if (!wire::ReplyCode_IsValid(msg.header.code())) {
    result.error = "unknown reply code " + std::to_string(static_cast<int>(msg.header.code()));
    return result;
  }
  const std::size_t data_frames = frames.size() - first - 1;
  if (static_cast<std::size_t>(msg.header.tensors_size()) > limits.max_tensors) {
    result.error = std::to_string(msg.header.tensors_size()) + " tensors exceed the limit of " +
                   std::to_string(limits.max_tensors);
    return result;
  }
  if (static_cast<std::size_t>(msg.header.tensors_size()) != data_frames) {
    result.error = "header lists " + std::to_string(msg.header.tensors_size()) + " tensors but " +
                   std::to_string(data_frames) + " data frames follow";
    return result;
  }
  if (static_cast<std::size_t>(msg.header.names_size()) > limits.max_names) {
    result.error = std::to_string(msg.header.names_size()) + " names exceed the limit of " +
                   std::to_string(limits.max_names);
    return result;
  }
  for (const std::string& n : msg.header.names())
    if (n.empty() || n.size() > limits.max_name_length) {
      result.error = "a requested name is empty or longer than " + std::to_string(limits.max_name_length) + " bytes";
      return result;
    }
  for (std::size_t i = 0; i < data_frames; ++i) {
    std::string problem = check_meta(msg.header.tensors(static_cast<int>(i)), frames[first + 1 + i].size(), limits);
    if (!problem.empty()) {
      result.error = problem;
      return result;
    }
  }
  msg.frames.reserve(data_frames);
  for (std::size_t i = first + 1; i < frames.size(); ++i) msg.frames.push_back(std::move(frames[i]));
  result.message = std::move(msg);
  return result;
}

std::optional<std::vector<zmq::message_t>> receive_frames(zmq::socket_t& socket, int timeout_ms) {
  // A receive timeout instead of zmq_poll + recv saves a system call per
  // message, which is most of a small request's round trip.
  try {
    socket.set(zmq::sockopt::rcvtimeo, timeout_ms);
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(socket, std::back_inserter(frames))) return std::nullopt;
    return frames;
  } catch (const zmq::error_t& e) {
    // A signal (SIGINT/SIGTERM) interrupted the wait: report "nothing yet" so
    // the caller's loop sees its interrupted flag and shuts down cleanly.
    if (e.num() == EINTR) return std::nullopt;
    throw;
  }
}

std::string kind_name(wire::Kind kind) {
  return wire::Kind_IsValid(kind) ? wire::Kind_Name(kind) : "kind " + std::to_string(static_cast<int>(kind));
}

}  // namespace flowlens::dist
