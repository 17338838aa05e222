#pragma once
// TensorBoard event-file fixtures assembled byte by byte from the formats
// (protobuf wire format, TFRecord framing), not through our writer or the
// generated protobuf classes. The CRCs written out literally were computed
// by an independent bitwise CRC-32C (polynomial 0x82F63B78 reflected) and
// TensorFlow's mask; a3 7f 4b 22 is the length CRC at the start of every
// real events file whose first record is the 24-byte file_version event.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

namespace flowlens::testing {

inline std::string hex_bytes(std::string_view hex) {
  std::string out;
  int nibbles = 0, acc = 0;
  for (char c : hex) {
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else continue;  // spaces
    acc = acc * 16 + v;
    if (++nibbles == 2) {
      out.push_back(static_cast<char>(acc));
      nibbles = acc = 0;
    }
  }
  return out;
}

// Event{wall_time: 1.5, file_version: "brain.Event:2"}, 24 bytes, framed.
inline std::string framed_file_version_event() {
  return hex_bytes("18 00 00 00 00 00 00 00  a3 7f 4b 22"           // length 24, masked CRC
                   "09 00 00 00 00 00 00 f8 3f"                      // 1: wall_time 1.5 (fixed64)
                   "1a 0d 62 72 61 69 6e 2e 45 76 65 6e 74 3a 32"    // 3: "brain.Event:2"
                   "2a 28 64 6c");                                   // masked CRC of the data
}

// Event{wall_time: 2.0, step: 1, summary {value {tag: "loss" simple_value: 0.25}}}, 26 bytes.
inline std::string framed_scalar_event() {
  return hex_bytes("1a 00 00 00 00 00 00 00  12 9b d8 2d"
                   "09 00 00 00 00 00 00 00 40"   // wall_time 2.0
                   "10 01"                        // step 1
                   "2a 0d"                        // 5: summary, 13 bytes
                   "0a 0b"                        //   1: value, 11 bytes
                   "0a 04 6c 6f 73 73"            //     1: tag "loss"
                   "15 00 00 80 3e"               //     2: simple_value 0.25f (fixed32)
                   "32 f3 89 7a");
}

// Event{wall_time: 3.0, graph_def: GraphDef{node {name: "x" op: "NoOp"}}}, 22 bytes.
inline std::string framed_graph_event() {
  return hex_bytes("16 00 00 00 00 00 00 00  4f 61 be 28"
                   "09 00 00 00 00 00 00 08 40"   // wall_time 3.0
                   "22 0b"                        // 4: graph_def, 11 bytes
                   "0a 09"                        //   1: node, 9 bytes
                   "0a 01 78"                     //     1: name "x"
                   "12 04 4e 6f 4f 70"            //     2: op "NoOp"
                   "ea 2f 3c a7");
}

// ---- Protobuf wire format helpers, for the fixtures without literal CRCs --------

inline std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
inline std::string key(int field, int wire_type) { return varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type)); }
inline std::string field_varint(int field, uint64_t v) { return key(field, 0) + varint(v); }
inline std::string field_bytes(int field, std::string_view payload) {
  return key(field, 2) + varint(payload.size()) + std::string(payload);
}
inline std::string field_double(int field, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  std::string out = key(field, 1);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(bits >> (8 * i)));
  return out;
}
inline std::string field_float(int field, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  std::string out = key(field, 5);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(bits >> (8 * i)));
  return out;
}

// Event wire bytes: wall_time = 1, step = 2, then the `what` field.
inline std::string event_bytes(double wall_time, int64_t step, const std::string& what) {
  return field_double(1, wall_time) + (step ? field_varint(2, static_cast<uint64_t>(step)) : std::string()) + what;
}
inline std::string file_version_event(double wall_time, const std::string& version = "brain.Event:2") {
  return event_bytes(wall_time, 0, field_bytes(3, version));
}
// Summary.Value{tag = 1, simple_value = 2} inside Event.summary = 5.
inline std::string simple_value_event(double wall_time, int64_t step, const std::string& tag, float value) {
  const std::string v = field_bytes(1, tag) + field_float(2, value);
  return event_bytes(wall_time, step, field_bytes(5, field_bytes(1, v)));
}
// A TF2 scalar: Value{tag = 1, metadata = 9 {plugin_data = 1 {plugin_name = 1}},
// tensor = 8 {dtype = 1, tensor_shape = 2 {}, float_val = 5 (packed)}}.
inline std::string tensor_scalar_event(double wall_time, int64_t step, const std::string& tag, float value,
                                       bool with_metadata, const std::string& plugin = "scalars") {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  std::string packed;
  for (int i = 0; i < 4; ++i) packed.push_back(static_cast<char>(bits >> (8 * i)));
  const std::string tensor = field_varint(1, 1 /*DT_FLOAT*/) + field_bytes(2, "") + field_bytes(5, packed);
  std::string v = field_bytes(1, tag);
  if (with_metadata) v += field_bytes(9, field_bytes(1, field_bytes(1, plugin)));
  v += field_bytes(8, tensor);
  return event_bytes(wall_time, step, field_bytes(5, field_bytes(1, v)));
}
// Event.tagged_run_metadata = 8 {tag = 1, run_metadata = 2}.
inline std::string run_metadata_event(double wall_time, int64_t step, const std::string& tag, const std::string& bytes) {
  return event_bytes(wall_time, step, field_bytes(8, field_bytes(1, tag) + field_bytes(2, bytes)));
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace flowlens::testing
