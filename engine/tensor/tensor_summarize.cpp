// TensorFlow's Tensor::SummarizeValue (core/framework/tensor.cc), which
// Print, Assert and StringFormat use for their text: the same recursion, the
// same number formatting (tsl FloatToBuffer / DoubleToBuffer) and the same
// string escaping (absl::Utf8SafeCEscape), so logs read as TensorFlow's do.
#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tensor/float16.h"
#include "tensor/tensor_format.h"

namespace flowlens {
namespace {

// printf's "%.<digits>g", without the locale (the GUI runs under the
// user's, where printf may write a decimal comma).
template <class F>
std::string g_format(F v, int digits) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

template <class F>
bool reads_back(const std::string& text, F v) {
  F parsed{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  return ec == std::errc() && parsed == v;
}

// tsl::strings::FloatToBuffer: six significant digits when they read back as
// the same float, else nine.
std::string float_buffer(float v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  std::string text = g_format(v, FLT_DIG);
  return reads_back(text, v) ? text : g_format(v, FLT_DIG + 3);
}

// tsl::strings::DoubleToBuffer: 15 digits when they read back, else 17 (and
// straight to 17 near DBL_MAX, where reading 15 digits back could overflow).
std::string double_buffer(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  constexpr double kPrecisionCheckMax = DBL_MAX / 1.000000000000001;
  if (std::fabs(v) <= kPrecisionCheckMax) {
    std::string text = g_format(v, DBL_DIG);
    if (reads_back(text, v)) return text;
  }
  return g_format(v, DBL_DIG + 2);
}

// absl::Utf8SafeCEscape: C escapes, octal for other control bytes, bytes of
// 0x80 and up left alone (UTF-8 stays readable).
std::string c_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x80 && (c < 0x20 || c == 0x7F)) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

using ElementText = std::string (*)(const Tensor&, int64_t, bool);

template <class T>
std::string number_text(const Tensor& t, int64_t i, bool) {
  const T v = t.data<T>()[i];
  if constexpr (std::is_same_v<T, float> || is_float16_v<T>) return float_buffer(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, double>) return double_buffer(v);
  else if constexpr (std::is_same_v<T, bool>) return v ? "1" : "0";
  else return std::to_string(v);
}

std::string string_text(const Tensor& t, int64_t i, bool print_v2) {
  const std::string escaped = c_escape(t.strings()[static_cast<size_t>(i)]);
  return print_v2 ? "\"" + escaped + "\"" : escaped;
}

ElementText element_text(DType dtype) {
  switch (dtype) {
    case DType::Float: return number_text<float>;
    case DType::Double: return number_text<double>;
    case DType::Half: return number_text<float16>;
    case DType::BFloat16: return number_text<bfloat16>;
    case DType::Int8: return number_text<int8_t>;
    case DType::Int16: return number_text<int16_t>;
    case DType::Int32: return number_text<int32_t>;
    case DType::Int64: return number_text<int64_t>;
    case DType::UInt8: return number_text<uint8_t>;
    case DType::UInt16: return number_text<uint16_t>;
    case DType::UInt32: return number_text<uint32_t>;
    case DType::UInt64: return number_text<uint64_t>;
    case DType::Bool: return number_text<bool>;
    case DType::String: return string_text;
    default: return nullptr;
  }
}

struct Summarizer {
  const Tensor& t;
  ElementText text;
  const std::vector<int64_t>& shape;
  int64_t limit;
  std::string out;

  // TF's PrintOneDim: elements in order until `limit` are printed; a cut
  // inner dimension ends in "...".
  void one_dim(int dim, int64_t* index) {
    if (*index >= limit) return;
    const int64_t count = shape[static_cast<size_t>(dim)];
    if (dim == static_cast<int>(shape.size()) - 1) {
      for (int64_t i = 0; i < count; ++i) {
        if (*index >= limit) {
          if (dim != 0) out += "...";
          return;
        }
        if (i > 0) out += ' ';
        out += text(t, (*index)++, false);
      }
      return;
    }
    for (int64_t i = 0; i < count; ++i) {
      bool open = false;
      if (*index < limit) {
        out += '[';
        open = true;
      }
      one_dim(dim + 1, index);
      if (*index < limit || open) out += ']';
    }
  }

  // TF's PrintDimSpacing: a space between innermost items, newlines and
  // indentation between rows of outer dimensions.
  void spacing(int dim) {
    const int dims = static_cast<int>(shape.size());
    if (dim == dims - 1) {
      out += ' ';
      return;
    }
    out.append(static_cast<size_t>(dims - dim - 1), '\n');
    out.append(static_cast<size_t>(dim + 1), ' ');
  }

  // TF's PrintOneDimV2: `limit` items at each end of every dimension.
  void one_dim_v2(int dim, int64_t offset) {
    const int dims = static_cast<int>(shape.size());
    if (dim == dims) {
      out += text(t, offset, true);
      return;
    }
    out += '[';
    const int64_t count = shape[static_cast<size_t>(dim)];
    const int64_t start_of_end = std::max(limit, count - limit);
    int64_t per_item = 1;
    for (int k = dim + 1; k < dims; ++k) per_item *= shape[static_cast<size_t>(k)];
    for (int64_t i = 0; i < limit && i < count; ++i) {
      if (i > 0) spacing(dim);
      one_dim_v2(dim + 1, offset + per_item * i);
    }
    if (count > 2 * limit) {
      spacing(dim);
      out += "...";
    }
    for (int64_t i = start_of_end; i < count; ++i) {
      spacing(dim);
      one_dim_v2(dim + 1, offset + per_item * i);
    }
    out += ']';
  }
};

}  // namespace

std::string summarize_value(const Tensor& tensor, int64_t max_entries, bool print_v2) {
  if (!tensor.valid()) return "";
  const Tensor t = tensor.to_host();
  const int64_t num_elements = t.num_elements();
  if (max_entries < 0) max_entries = num_elements;
  const int64_t limit = std::min(max_entries, num_elements);
  const ElementText text = element_text(t.dtype());
  const std::vector<int64_t>& shape = t.shape().dims();
  if (!text) {  // TF prints "?" for each element of a type it cannot show
    std::string out = print_v2 && !shape.empty() ? "[" : "";
    for (int64_t i = 0; i < limit; ++i) out += i > 0 ? " ?" : "?";
    if (max_entries < num_elements) out += "...";
    if (print_v2 && !shape.empty()) out += ']';
    return out;
  }
  Summarizer s{t, text, shape, limit, {}};
  if (shape.empty()) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) s.out += ' ';
      s.out += text(t, i, print_v2);
    }
    if (num_elements > limit) s.out += "...";
    return s.out;
  }
  if (print_v2) {
    s.one_dim_v2(0, 0);
  } else {
    int64_t index = 0;
    s.one_dim(0, &index);
    if (num_elements > limit) s.out += "...";
  }
  return s.out;
}

}  // namespace flowlens
