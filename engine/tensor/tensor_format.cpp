// Tensor printing: nested brackets without spaces ([[9],[21]]), shortest
// round-trip numbers from std::to_chars, and optional eliding of long
// dimensions with "..." so a [1000,1000] tensor prints in a few lines.
#include "tensor/tensor_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

namespace flowlens {
namespace {

// IEEE 754 binary16 -> binary32, including subnormals, inf and nan.
float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise the mantissa
      int shift = 0;
      while (!(mant & 0x400)) {
        mant <<= 1;
        ++shift;
      }
      mant &= 0x3FF;
      bits = sign | (static_cast<uint32_t>(127 - 15 - shift + 1) << 23) | (mant << 13);
    }
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

// bfloat16 is the top half of a float32.
float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(uint32_t{b} << 16); }

template <class F>
std::string float_text(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "?";
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
    case DType::Half: return [d](int64_t i) { return float_text(half_to_float(load<uint16_t>(d, i))); };
    case DType::BFloat16: return [d](int64_t i) { return float_text(bfloat16_to_float(load<uint16_t>(d, i))); };
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
      return [handles](int64_t i) { return "<resource " + (*handles)[static_cast<size_t>(i)].qualified_name() + ">"; };
    }
    default: return {};
  }
}

struct Printer {
  const std::vector<int64_t>& dims;
  const std::function<std::string(int64_t)>& element;
  int edge_items;
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
  Printer p{dims, element, options.edge_items, {}};
  p.print(0, 0, total);
  return p.out;
}

std::string describe_tensor(const Tensor& t) {
  if (!t.valid()) return "<empty tensor>";
  return dtype_name(t.dtype()) + t.shape().to_string();
}

}  // namespace flowlens
