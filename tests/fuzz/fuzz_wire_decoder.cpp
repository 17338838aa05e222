// The strict wire decoder every ps and worker runs on what peers send.
// Input layout (see make_seeds.py): one flags byte (bit 0: ROUTER identity
// frame first), then frames, each a 2-byte little-endian length and that many
// bytes (the last frame takes whatever is left). A decoded message must give
// tensors matching its frames and must re-encode to a message that decodes to
// the same header and bytes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "dist/wire/wire_codec.h"
#include "fuzz_check.h"

using namespace flowlens;

namespace {

std::vector<zmq::message_t> split_frames(const uint8_t* data, size_t size) {
  std::vector<zmq::message_t> frames;
  size_t pos = 0;
  while (pos < size) {
    size_t length = data[pos];
    if (pos + 1 < size) length |= static_cast<size_t>(data[pos + 1]) << 8;
    pos += 2;
    if (pos > size) pos = size;
    length = std::min(length, size - pos);
    frames.emplace_back(data + pos, length);
    pos += length;
  }
  return frames;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool has_identity = data[0] & 1;
  dist::WireLimits limits;
  limits.max_tensor_bytes = 1 << 20;  // the input is tiny anyway; keeps copies cheap
  dist::DecodeResult result = dist::decode_message(split_frames(data + 1, size - 1), has_identity, limits);
  fuzz::fuzz_require(result.message.has_value() != !result.error.empty(),
                     "decode gave both or neither of message and error");
  if (!result.message) return 0;
  const dist::WireMessage& msg = *result.message;

  std::vector<dist::NamedTensor> tensors;
  for (size_t i = 0; i < msg.num_tensors(); ++i) {
    Tensor t = msg.tensor(i);
    fuzz::fuzz_require(t.byte_size() == msg.bytes(i).size(), "tensor size differs from its frame");
    fuzz::fuzz_require(t.byte_size() == 0 || std::memcmp(t.raw_data(), msg.bytes(i).data(), t.byte_size()) == 0,
                       "tensor bytes differ from its frame");
    tensors.push_back({msg.name(i), std::move(t)});
  }
  msg.total_bytes();

  std::vector<zmq::message_t> again;
  try {
    again = dist::encode_message(msg.header, tensors);
  } catch (const Error&) {
    fuzz::fuzz_require(false, "a decoded message cannot be re-encoded");
  }
  dist::DecodeResult round = dist::decode_message(std::move(again), false, limits);
  fuzz::fuzz_require(round.message.has_value(), "a re-encoded message does not decode");
  // encode_message rebuilds the tensor metas (dropping fields this version
  // does not know inside them), so those are compared field by field.
  wire::Header rest = msg.header, round_rest = round.message->header;
  rest.clear_tensors();
  round_rest.clear_tensors();
  fuzz::fuzz_require(round_rest.SerializeAsString() == rest.SerializeAsString(),
                     "a re-encoded message decodes to another header");
  fuzz::fuzz_require(round.message->num_tensors() == msg.num_tensors(), "a re-encoded message has other tensors");
  for (size_t i = 0; i < msg.num_tensors(); ++i) {
    const dist::WireMessage& r = *round.message;
    fuzz::fuzz_require(r.name(i) == msg.name(i) && r.dtype(i) == msg.dtype(i) && r.shape(i) == msg.shape(i),
                       "a re-encoded message decodes to another tensor name, dtype or shape");
    fuzz::fuzz_require(r.bytes(i).size() == msg.bytes(i).size() &&
                           std::memcmp(r.bytes(i).data(), msg.bytes(i).data(), msg.bytes(i).size()) == 0,
                       "a re-encoded message decodes to other tensor bytes");
  }
  return 0;
}
