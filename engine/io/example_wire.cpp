#include "io/example_wire.h"

#include <algorithm>
#include <cstring>

namespace flowlens::example_wire {
namespace {

// Wire tags of field 1-3: (field << 3) | wire type.
constexpr uint8_t kVarintTag1 = (1 << 3) | 0;
constexpr uint8_t kFixed32Tag1 = (1 << 3) | 5;
constexpr uint8_t delimited_tag(int field) { return static_cast<uint8_t>((field << 3) | 2); }

// A cursor over [p, end): every read checks the bytes are there.
class Reader {
 public:
  explicit Reader(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}
  Reader(const char* p, const char* end) : p_(p), end_(end) {}

  bool at_end() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  uint8_t peek() const { return at_end() ? 0 : static_cast<uint8_t>(*p_); }

  // Consumes one byte equal to `tag` (TensorFlow's ExpectTag for one-byte tags).
  bool expect(uint8_t tag) {
    if (at_end() || static_cast<uint8_t>(*p_) != tag) return false;
    ++p_;
    return true;
  }
  // A base-128 varint of at most 10 bytes.
  bool varint64(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (at_end()) return false;
      const auto b = static_cast<uint8_t>(*p_++);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  // Protobuf's ReadVarint32: a varint of up to 10 bytes, truncated to 32 bits.
  bool varint32(uint32_t& v) {
    uint64_t x = 0;
    if (!varint64(x)) return false;
    v = static_cast<uint32_t>(x);
    return true;
  }
  bool fixed32(uint32_t& v) {
    if (remaining() < 4) return false;
    const auto* b = reinterpret_cast<const unsigned char*>(p_);
    v = uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
    p_ += 4;
    return true;
  }
  bool skip(size_t n) {
    if (remaining() < n) return false;
    p_ += n;
    return true;
  }
  // A varint length and that many bytes: a reader over them (this one moves past).
  bool delimited(Reader& inner) {
    uint32_t length = 0;
    if (!varint32(length) || length > remaining()) return false;
    inner = Reader(p_, p_ + length);
    p_ += length;
    return true;
  }
  bool bytes(std::string_view& s) {
    Reader inner(p_, p_);
    if (!delimited(inner)) return false;
    s = std::string_view(inner.p_, inner.remaining());
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

// An unknown field of Example: skipped by its wire type; groups are refused.
bool skip_field(Reader& r) {
  uint32_t tag = 0;
  if (!r.varint32(tag)) return false;
  uint64_t v64 = 0;
  uint32_t v32 = 0;
  switch (tag & 7) {
    case 0: return r.varint64(v64);
    case 1: return r.skip(8);
    case 2: {
      // TensorFlow ignores a short skip: the stream simply ends.
      if (!r.varint32(v32)) return false;
      r.skip(std::min<size_t>(v32, r.remaining()));
      return true;
    }
    case 5: return r.fixed32(v32);
    default: return false;  // 3, 4: groups; 6, 7: no such wire type
  }
}

// A map<string, Feature> entry: the key (field 1) and the value (field 2) in
// either order, exactly two fields.
bool read_entry(Reader& features, FeatureEntry& entry) {
  Reader r(nullptr, nullptr);
  if (!features.delimited(r)) return false;
  for (int n = 0; n < 2; ++n) {
    uint32_t tag = 0;
    if (!r.varint32(tag)) return false;
    if (tag == delimited_tag(1)) {
      if (!r.bytes(entry.key)) return false;
    } else if (tag == delimited_tag(2)) {
      if (!r.bytes(entry.feature)) return false;
    } else {
      return false;
    }
  }
  return r.at_end();
}

// The list message after a Feature's first (kind) byte.
bool list_reader(std::string_view feature, Reader& list) {
  if (feature.empty()) return false;
  Reader r(feature.substr(1));
  return r.delimited(list);
}

}  // namespace

bool read_example(std::string_view serialized, std::vector<FeatureEntry>& entries) {
  Reader r(serialized);
  while (!r.at_end()) {
    if (!r.expect(delimited_tag(1))) {
      if (!skip_field(r)) return false;
      continue;
    }
    Reader features(nullptr, nullptr);
    if (!r.delimited(features)) return false;
    while (!features.at_end()) {
      FeatureEntry entry;
      if (!features.expect(delimited_tag(1)) || !read_entry(features, entry)) return false;
      entries.push_back(entry);
    }
  }
  return true;
}

Kind feature_kind(std::string_view feature) {
  if (feature.empty()) return Kind::None;
  switch (static_cast<uint8_t>(feature.front())) {
    case delimited_tag(1): return Kind::Bytes;
    case delimited_tag(2): return Kind::Float;
    case delimited_tag(3): return Kind::Int64;
    default: return Kind::Unsupported;
  }
}

bool read_bytes_list(std::string_view feature, std::vector<std::string>& out) {
  Reader list(nullptr, nullptr);
  if (!list_reader(feature, list)) return false;
  while (!list.at_end()) {
    std::string_view value;
    if (!list.expect(delimited_tag(1)) || !list.bytes(value)) return false;
    out.emplace_back(value);
  }
  return true;
}

// As TensorFlow reads them: the first encoding found decides; a packed run is
// read once (floor(length / 4) floats) and anything after it is ignored.
bool read_float_list(std::string_view feature, std::vector<float>& out) {
  Reader list(nullptr, nullptr);
  if (!list_reader(feature, list)) return false;
  if (list.at_end()) return true;
  auto push = [&](uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    out.push_back(f);
  };
  if (list.expect(delimited_tag(1))) {
    Reader packed(nullptr, nullptr);
    if (!list.delimited(packed)) return false;
    const size_t count = packed.remaining() / 4;
    out.reserve(out.size() + count);
    for (size_t i = 0; i < count; ++i) {
      uint32_t bits = 0;
      packed.fixed32(bits);
      push(bits);
    }
    return true;
  }
  if (list.peek() != kFixed32Tag1) return false;
  while (!list.at_end()) {
    uint32_t bits = 0;
    if (!list.expect(kFixed32Tag1) || !list.fixed32(bits)) return false;
    push(bits);
  }
  return true;
}

bool read_int64_list(std::string_view feature, std::vector<int64_t>& out) {
  Reader list(nullptr, nullptr);
  if (!list_reader(feature, list)) return false;
  if (list.at_end()) return true;
  if (list.expect(delimited_tag(1))) {
    Reader packed(nullptr, nullptr);
    if (!list.delimited(packed)) return false;
    while (!packed.at_end()) {
      uint64_t v = 0;
      if (!packed.varint64(v)) return false;
      out.push_back(static_cast<int64_t>(v));
    }
    return true;
  }
  if (list.peek() != kVarintTag1) return false;
  while (!list.at_end()) {
    uint64_t v = 0;
    if (!list.expect(kVarintTag1) || !list.varint64(v)) return false;
    out.push_back(static_cast<int64_t>(v));
  }
  return true;
}

}  // namespace flowlens::example_wire
