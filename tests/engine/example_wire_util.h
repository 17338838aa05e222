#pragma once
// tf.Example bytes written by hand from the protobuf wire format (tag =
// field << 3 | wire type; varints; little-endian fixed32), independent of
// the generated message classes, so a test fixture checks the schema's field
// numbers and encodings instead of assuming them. Field numbers are
// TensorFlow's: Example.features = 1, Features.feature = 1 (map entries with
// key = 1, value = 2), Feature.{bytes_list = 1, float_list = 2, int64_list = 3},
// and value = 1 in each list.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace flowlens::testing::pb {

inline std::string varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  s += static_cast<char>(v);
  return s;
}

inline std::string tag(int field, int wire_type) { return varint(static_cast<uint64_t>(field) << 3 | wire_type); }

// A length-delimited field (wire type 2).
inline std::string field(int number, const std::string& bytes) { return tag(number, 2) + varint(bytes.size()) + bytes; }

inline std::string fixed32(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[static_cast<size_t>(i)] = static_cast<char>((bits >> (8 * i)) & 0xff);
  return s;
}

// Serialized Feature messages.
inline std::string floats(const std::vector<float>& v, bool packed = true) {
  std::string list;
  if (packed) {
    std::string run;
    for (float f : v) run += fixed32(f);
    if (!v.empty()) list = field(1, run);
  } else {
    for (float f : v) list += tag(1, 5) + fixed32(f);
  }
  return field(2, list);
}

inline std::string ints(const std::vector<int64_t>& v, bool packed = true) {
  std::string list;
  if (packed) {
    std::string run;
    for (int64_t i : v) run += varint(static_cast<uint64_t>(i));
    if (!v.empty()) list = field(1, run);
  } else {
    for (int64_t i : v) list += tag(1, 0) + varint(static_cast<uint64_t>(i));
  }
  return field(3, list);
}

inline std::string bytes(const std::vector<std::string>& v) {
  std::string list;
  for (const std::string& s : v) list += field(1, s);
  return field(1, list);
}

// A Feature with no kind set.
inline std::string empty_feature() { return {}; }

// One Features.feature map entry, as a Features field.
inline std::string entry(const std::string& key, const std::string& feature) {
  return field(1, field(1, key) + field(2, feature));
}

// A serialized Example with these (key, Feature) entries, in order.
inline std::string example(const std::vector<std::pair<std::string, std::string>>& features) {
  std::string f;
  for (const auto& [k, v] : features) f += entry(k, v);
  return field(1, f);
}

}  // namespace flowlens::testing::pb
