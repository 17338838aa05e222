// Nested-list tensor literals: a recursive descent collects the leaves flat
// and takes the shape from the first list at each depth (later lists must
// match), then each leaf is converted to the dtype with range checks.
// Floats are read as doubles and rounded once to the element type (numpy's
// np.float16("0.1") rounds the double directly, never through float32).
#include "tensor/tensor_parse.h"

#include <bit>
#include <charconv>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/trim.h"
#include "tensor/float16.h"

namespace flowlens {
namespace {

struct Leaf {
  std::string text;  // unescaped for quoted strings
  bool quoted = false;
  size_t column = 0;  // 1-based, for messages
};

class NestedListParser {
 public:
  explicit NestedListParser(std::string_view text) : s_(text) {}

  void parse() {
    skip_space();
    value(0);
    skip_space();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
  }
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<Leaf>& leaves() const { return leaves_; }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(message + " at column " + std::to_string(pos_ + 1));
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  void value(size_t depth) {
    skip_space();
    if (at('[')) return list(depth);
    if (depth < dims_.size() || (leaf_depth_set_ && depth != leaf_depth_)) fail("ragged nesting: expected a list");
    leaf_depth_ = depth;
    leaf_depth_set_ = true;
    leaves_.push_back(at('"') || at('\'') ? quoted() : bare());
  }

  Leaf bare() {
    Leaf leaf{{}, false, pos_ + 1};
    const size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ' ' && s_[pos_] != '\t' && s_[pos_] != '\n' && s_[pos_] != '\r' &&
           s_[pos_] != ',' && s_[pos_] != '[' && s_[pos_] != ']')
      ++pos_;
    if (pos_ == start) fail("expected a value");
    leaf.text = std::string(s_.substr(start, pos_ - start));
    return leaf;
  }

  // A quoted string with the escapes format_tensor and Python write.
  Leaf quoted() {
    Leaf leaf{{}, true, pos_ + 1};
    const char quote = s_[pos_++];
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_++];
      if (c == quote) return leaf;
      if (c != '\\') {
        leaf.text += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case 'n': leaf.text += '\n'; break;
        case 't': leaf.text += '\t'; break;
        case 'r': leaf.text += '\r'; break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
          int v = e - '0';
          for (int k = 0; k < 2 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++k) v = v * 8 + (s_[pos_++] - '0');
          if (v > 0xFF) fail("octal escape out of range");
          leaf.text += static_cast<char>(v);
          break;
        }
        case 'x': {
          int v = 0, n = 0;
          for (; n < 2 && pos_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[pos_])); ++n) {
            const char h = s_[pos_++];
            v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
          }
          if (n == 0) fail("\\x needs hex digits");
          leaf.text += static_cast<char>(v);
          break;
        }
        case '\\': case '"': case '\'': leaf.text += e; break;
        default: fail(std::string("unknown escape \\") + e);
      }
    }
  }

  void list(size_t depth) {
    if (leaf_depth_set_ && depth >= leaf_depth_) fail("ragged nesting: expected a value");
    // TensorFlow's TensorShape holds at most 254 dimensions; deeper text is
    // refused before the recursion could exhaust the stack.
    constexpr size_t kMaxNesting = 254;
    if (depth >= kMaxNesting) fail("lists nested deeper than 254 levels (TensorFlow's largest rank)");
    ++pos_;  // '['
    if (dims_.size() <= depth) dims_.resize(depth + 1, -1);
    int64_t count = 0;
    skip_space();
    if (at(']')) {
      ++pos_;
    } else {
      for (;;) {
        value(depth + 1);
        ++count;
        skip_space();
        if (pos_ >= s_.size()) fail("missing ']'");
        if (at(']')) {
          ++pos_;
          break;
        }
        if (!at(',')) fail("expected ',' or ']'");
        ++pos_;
      }
    }
    if (dims_[depth] < 0) {
      dims_[depth] = count;
      if (count == 0) {  // an empty list ends the nesting here
        leaf_depth_ = depth + 1;
        leaf_depth_set_ = true;
      }
    } else if (dims_[depth] != count) {
      fail("ragged list: expected " + std::to_string(dims_[depth]) + " values, got " + std::to_string(count));
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::vector<int64_t> dims_;
  std::vector<Leaf> leaves_;
  size_t leaf_depth_ = 0;
  bool leaf_depth_set_ = false;
};

[[noreturn]] void bad_leaf(const Leaf& leaf, DType dtype, const std::string& why = "is not a") {
  throw Error("'" + leaf.text + "' at column " + std::to_string(leaf.column) + " " + why +
              (why == "is not a" ? " " + dtype_name(dtype) + " value" : " " + dtype_name(dtype)));
}

double parse_double(const Leaf& leaf, DType dtype) {
  std::string_view t = leaf.text;
  const bool negative = !t.empty() && t[0] == '-';
  std::string_view body = negative || (!t.empty() && t[0] == '+') ? t.substr(1) : t;
  if (body == "inf" || body == "Infinity" || body == "infinity")
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (body == "nan" || body == "NaN") return std::numeric_limits<double>::quiet_NaN();
  double v = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (body.empty() || end != body.data() + body.size() || body[0] == '-' ||
      (ec != std::errc() && ec != std::errc::result_out_of_range))
    bad_leaf(leaf, dtype);
  if (ec == std::errc::result_out_of_range) v = std::fabs(v) >= 1 ? std::numeric_limits<double>::infinity() : 0.0;
  return negative ? -v : v;
}

// Rounds a double to float16 once. Through float32 that is exact except
// when the float32 lands exactly on a float16 midpoint the double was not
// on: then the nearer of the two float16 neighbours is the answer.
float16 float16_from_double(double d) {
  const float f = static_cast<float>(d);
  const float16 h = static_cast<float16>(f);
  const double back = static_cast<float>(h);
  if (!std::isfinite(d) || static_cast<double>(f) == d || back == f) return h;
  const uint16_t bits = std::bit_cast<uint16_t>(h);
  const bool f_beyond = std::fabs(f) > std::fabs(back);  // f lies past h, away from zero
  const float16 other = std::bit_cast<float16>(static_cast<uint16_t>(f_beyond ? bits + 1 : bits - 1));
  const double other_value = static_cast<float>(other);
  if (static_cast<double>(f) != (back + other_value) / 2) return h;
  return std::fabs(d - back) < std::fabs(d - other_value) ? h : other;
}

template <class T>
T parse_integer(const Leaf& leaf, DType dtype) {
  std::string_view t = leaf.text;
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  const bool negative = !t.empty() && t[0] == '-';
  std::string_view digits = negative ? t.substr(1) : t;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  unsigned long long magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (digits.empty() || end != digits.data() + digits.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
    bad_leaf(leaf, dtype);
  const bool fits = ec == std::errc() &&
                    (negative ? std::is_signed_v<T> && magnitude <= static_cast<unsigned long long>(std::numeric_limits<T>::max()) + 1
                              : magnitude <= static_cast<unsigned long long>(std::numeric_limits<T>::max()));
  if (!fits) bad_leaf(leaf, dtype, "is out of range for");
  if (negative) return static_cast<T>(-static_cast<long long>(magnitude - 1) - 1);
  return static_cast<T>(magnitude);
}

bool parse_bool(const Leaf& leaf, DType dtype) {
  const std::string& t = leaf.text;
  if (t == "true" || t == "True" || t == "1") return true;
  if (t == "false" || t == "False" || t == "0") return false;
  bad_leaf(leaf, dtype);
}

template <class T>
void fill(Tensor& t, const std::vector<Leaf>& leaves) {
  T* out = t.data<T>();
  const DType dtype = t.dtype();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Leaf& leaf = leaves[i];
    if (leaf.quoted) throw Error("a quoted string at column " + std::to_string(leaf.column) + " is not a " +
                                 dtype_name(dtype) + " value");
    if constexpr (std::is_same_v<T, bool>) out[i] = parse_bool(leaf, dtype);
    else if constexpr (std::is_same_v<T, float16>) out[i] = float16_from_double(parse_double(leaf, dtype));
    else if constexpr (is_floating_v<T>) out[i] = static_cast<T>(parse_double(leaf, dtype));
    else out[i] = parse_integer<T>(leaf, dtype);
  }
}

}  // namespace

Tensor parse_tensor_text(std::string_view text, DType dtype) {
  NestedListParser parser(text);
  parser.parse();
  if (dtype != DType::String && !dtype_is_computable(dtype))
    throw Error(dtype_name(dtype) + " tensors cannot be typed in");
  const std::vector<Leaf>& leaves = parser.leaves();
  Tensor t(dtype, Shape(parser.dims()));
  switch (dtype) {
    case DType::String:
      for (size_t i = 0; i < leaves.size(); ++i) t.strings()[i] = leaves[i].text;
      break;
    case DType::Float: fill<float>(t, leaves); break;
    case DType::Double: fill<double>(t, leaves); break;
    case DType::Half: fill<float16>(t, leaves); break;
    case DType::BFloat16: fill<bfloat16>(t, leaves); break;
    case DType::Int8: fill<int8_t>(t, leaves); break;
    case DType::Int16: fill<int16_t>(t, leaves); break;
    case DType::Int32: fill<int32_t>(t, leaves); break;
    case DType::Int64: fill<int64_t>(t, leaves); break;
    case DType::UInt8: fill<uint8_t>(t, leaves); break;
    case DType::UInt16: fill<uint16_t>(t, leaves); break;
    case DType::UInt32: fill<uint32_t>(t, leaves); break;
    case DType::UInt64: fill<uint64_t>(t, leaves); break;
    case DType::Bool: fill<bool>(t, leaves); break;
    default: break;
  }
  return t;
}

namespace {

// A dimension: "?" or "-1" (unknown), else a size >= 0 with an optional '+'.
std::optional<int64_t> parse_dim(std::string_view part) {
  if (part == "?" || part == "-1") return Shape::kUnknownDim;
  std::string_view digits = part.starts_with('+') ? part.substr(1) : part;
  int64_t d = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || d < 0) return std::nullopt;
  return d;
}

}  // namespace

Shape parse_shape_text(std::string_view text) {
  const std::string_view t = trimmed(text);
  if (t == "?" || t == "<unknown>") return Shape::unknown_rank();
  if (!t.starts_with('[') || !t.ends_with(']'))
    throw Error("a shape looks like [4,3], [?,3], [] or ?; got '" + std::string(t) + "'");
  std::vector<int64_t> dims;
  const std::string_view inner = trimmed(t.substr(1, t.size() - 2));
  if (!inner.empty()) {
    size_t start = 0;
    while (true) {
      const size_t comma = inner.find(',', start);
      const std::string_view part = trimmed(inner.substr(start, comma - start));  // to the end at npos
      const std::optional<int64_t> d = parse_dim(part);
      if (!d) throw Error("shape dimension '" + std::string(part) + "' is not a size (a number >= 0, or ?)");
      dims.push_back(*d);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  return Shape(std::move(dims));
}

}  // namespace flowlens
