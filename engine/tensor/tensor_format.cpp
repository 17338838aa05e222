// Tensor printing: nested brackets without spaces ([[9],[21]]), shortest
// round-trip numbers from std::to_chars (float16 and bfloat16 as numpy and
// ml_dtypes print them), and optional eliding of long dimensions with "..."
// so a [1000,1000] tensor prints in a few lines.
#include "tensor/tensor_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

#include "tensor/float16.h"

namespace flowlens {
namespace {

template <class F>
std::string float_text(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "?";
}

// numpy prints float16 with the fewest significant digits that read back
// as the same float16 (Dragon4's unique mode), so 0.1 prints "0.1" rather
// than float32's "0.099975586". The digits come from the exact binary value;
// the correctly rounded p-digit decimal and its two neighbours are tried at
// each p, because at a power of two the interval below is half as wide.
std::string float16_text(float16 h) {
  const double v = static_cast<float>(h);
  if (std::isnan(v) || std::isinf(v) || v == 0) return float_text(v);
  const uint16_t bits = std::bit_cast<uint16_t>(h);
  const uint16_t mag = bits & 0x7FFF;
  auto neighbour = [&](int step) {  // the float16 one step away in magnitude
    const auto next = static_cast<uint16_t>((bits & 0x8000) | (mag + step));
    return static_cast<double>(static_cast<float>(std::bit_cast<float16>(next)));
  };
  const double below = mag == 0x0001 ? 0.0 : neighbour(-1);
  // Past the largest finite float16 (65504) the next step would be 65536:
  // values from 65520 up round to infinity.
  const double above = mag == 0x7BFF ? std::copysign(65536.0, v) : neighbour(+1);
  const double lo = std::fabs((below + v) / 2), hi = std::fabs((v + above) / 2);
  const bool ties_round_here = (mag & 1) == 0;  // round-to-even keeps a midpoint on an even mantissa
  auto reads_back = [&](double d) {
    const double a = std::fabs(d);
    return (a > lo && a < hi) || (ties_round_here && (a == lo || a == hi));
  };
  for (int digits = 1; digits <= 5; ++digits) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific, digits - 1);
    if (ec != std::errc()) break;
    const std::string_view sci(buf, static_cast<size_t>(end - buf));  // "3.333e-01"
    const size_t e = sci.find('e');
    int exponent = 0;
    std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exponent);
    long long mantissa = 0;
    for (char c : sci.substr(0, e))
      if (c >= '0' && c <= '9') mantissa = mantissa * 10 + (c - '0');
    double best = 0;
    bool found = false;
    for (long long m : {mantissa, mantissa - 1, mantissa + 1}) {
      if (m <= 0) continue;
      const std::string text = std::to_string(m) + "e" + std::to_string(exponent - (digits - 1));
      double d = 0;
      std::from_chars(text.data(), text.data() + text.size(), d);
      d = std::copysign(d, v);
      if (reads_back(d) && (!found || std::fabs(d - v) < std::fabs(best - v))) {
        best = d;
        found = true;
      }
    }
    if (found) return float_text(best);  // that double's shortest form is exactly these digits
  }
  return float_text(static_cast<float>(h));
}

// ml_dtypes prints bfloat16 through float with an ostream's default
// precision (six significant digits, %g), and NaN without a sign.
std::string bfloat16_text(bfloat16 b) {
  const float f = static_cast<float>(b);
  if (std::isnan(f)) return "nan";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::general, 6);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

std::string quoted(const std::string& s) {
  static const char* kHex = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

template <class T>
T load(const void* base, int64_t index) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + index * static_cast<int64_t>(sizeof(T)), sizeof v);
  return v;
}

// Element printer for the dtype, or an empty function when unsupported.
std::function<std::string(int64_t)> element_printer(const Tensor& t) {
  const void* d = t.raw_data();
  switch (t.dtype()) {
    case DType::Float: return [d](int64_t i) { return float_text(load<float>(d, i)); };
    case DType::Double: return [d](int64_t i) { return float_text(load<double>(d, i)); };
    case DType::Half: return [d](int64_t i) { return float16_text(load<float16>(d, i)); };
    case DType::BFloat16: return [d](int64_t i) { return bfloat16_text(load<bfloat16>(d, i)); };
    case DType::Int8: return [d](int64_t i) { return std::to_string(load<int8_t>(d, i)); };
    case DType::Int16: return [d](int64_t i) { return std::to_string(load<int16_t>(d, i)); };
    case DType::Int32: return [d](int64_t i) { return std::to_string(load<int32_t>(d, i)); };
    case DType::Int64: return [d](int64_t i) { return std::to_string(load<int64_t>(d, i)); };
    case DType::UInt8: return [d](int64_t i) { return std::to_string(load<uint8_t>(d, i)); };
    case DType::UInt16: return [d](int64_t i) { return std::to_string(load<uint16_t>(d, i)); };
    case DType::UInt32: return [d](int64_t i) { return std::to_string(load<uint32_t>(d, i)); };
    case DType::UInt64: return [d](int64_t i) { return std::to_string(load<uint64_t>(d, i)); };
    case DType::Bool: return [d](int64_t i) { return load<uint8_t>(d, i) ? "true" : "false"; };
    case DType::String: {
      const auto* strings = &t.strings();
      return [strings](int64_t i) { return quoted((*strings)[static_cast<size_t>(i)]); };
    }
    case DType::Resource: {  // a variable's handle prints as the variable's name
      const auto* handles = &t.handles();
      return [handles](int64_t i) {
        const ResourceHandle& h = (*handles)[static_cast<size_t>(i)];
        return "<resource " + (h.resource ? h.resource->describe() : h.qualified_name()) + ">";
      };
    }
    case DType::Variant: {
      const auto* values = &t.variants();
      return [values](int64_t i) {
        const VariantPtr& v = (*values)[static_cast<size_t>(i)];
        return "<variant " + (v ? v->describe() : std::string("empty")) + ">";
      };
    }
    default: return {};
  }
}

struct Printer {
  const std::vector<int64_t>& dims;
  const std::function<std::string(int64_t)>& element;
  int edge_items;  // 0 when this tensor prints whole
  std::string out;

  // Prints the sub-array of dimension `axis` starting at flat index `offset`.
  void print(int axis, int64_t offset, int64_t stride) {
    if (axis == static_cast<int>(dims.size())) {
      out += element(offset);
      return;
    }
    const int64_t size = dims[static_cast<size_t>(axis)];
    const int64_t inner = stride / (size ? size : 1);
    const bool elide = edge_items > 0 && size > 2 * edge_items;
    out += '[';
    for (int64_t k = 0; k < size; ++k) {
      if (elide && k == edge_items) {
        out += ",...";
        k = size - edge_items;
      }
      if (k) out += ',';
      print(axis + 1, offset + k * inner, inner);
    }
    out += ']';
  }
};

}  // namespace

std::string format_tensor(const Tensor& t, const TensorFormatOptions& options) {
  if (!t.valid()) return "<empty tensor>";
  auto element = element_printer(t);
  if (!element)
    return "<" + std::to_string(t.num_elements()) + (t.num_elements() == 1 ? " element of " : " elements of ") +
           dtype_name(t.dtype()) + ">";
  const auto& dims = t.shape().dims();
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  const bool summarize = options.edge_items > 0 && total > options.threshold;
  Printer p{dims, element, summarize ? options.edge_items : 0, {}};
  p.print(0, 0, total);
  return p.out;
}

std::string describe_tensor(const Tensor& t) {
  if (!t.valid()) return "<empty tensor>";
  return dtype_name(t.dtype()) + t.shape().to_string();
}

}  // namespace flowlens
