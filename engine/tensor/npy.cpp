// NumPy .npy format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
// magic "\x93NUMPY", version byte pair, a little-endian header length (2 bytes
// in 1.0, 4 bytes in 2.0/3.0), then a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with
// spaces and a newline, then the raw data.
#include "tensor/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace flowlens {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// ---- header dict ----------------------------------------------------------

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// A tokenizer for the one Python literal numpy writes: a dict of string keys
// to a string, a bool and a tuple of ints. Throws Error naming the problem.
class HeaderReader {
 public:
  explicit HeaderReader(std::string_view text) : s_(text) {}

  NpyHeader read() {
    NpyHeader h;
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    while (!peek('}')) {
      std::string key = read_string();
      expect(':');
      if (key == "descr") {
        h.descr = read_string();
        has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = read_bool();
        has_order = true;
      } else if (key == "shape") {
        h.shape = read_shape();
        has_shape = true;
      } else {
        throw Error("unexpected key '" + key + "' (expected descr, fortran_order, shape)");
      }
      if (!peek('}')) expect(',');
    }
    expect('}');
    if (!has_descr) throw Error("missing key 'descr'");
    if (!has_order) throw Error("missing key 'fortran_order'");
    if (!has_shape) throw Error("missing key 'shape'");
    return h;
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  [[noreturn]] void unexpected(const std::string& wanted) {
    std::string found = pos_ < s_.size() ? "'" + std::string(s_.substr(pos_, 12)) + "'" : "end of header";
    throw Error("expected " + wanted + " at offset " + std::to_string(pos_) + ", found " + found);
  }
  void expect(char c) {
    if (!peek(c)) unexpected(std::string("'") + c + "'");
    ++pos_;
  }
  std::string read_string() {
    skip_space();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) unexpected("a quoted string");
    const char quote = s_[pos_++];
    auto end = s_.find(quote, pos_);
    if (end == std::string_view::npos) throw Error("unterminated string in header");
    std::string value(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  bool read_bool() {
    skip_space();
    if (s_.substr(pos_, 4) == "True") return pos_ += 4, true;
    if (s_.substr(pos_, 5) == "False") return pos_ += 5, false;
    unexpected("True or False for fortran_order");
  }
  std::vector<int64_t> read_shape() {
    std::vector<int64_t> dims;
    expect('(');
    while (!peek(')')) {
      skip_space();
      std::size_t start = pos_;
      int64_t value = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        value = value * 10 + (s_[pos_++] - '0');
        if (value > (int64_t{1} << 48)) throw Error("shape dim too large");
      }
      if (pos_ == start) unexpected("a non-negative integer in shape");
      if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 long literal
      dims.push_back(value);
      if (!peek(')')) expect(',');
    }
    expect(')');
    return dims;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

// ---- descr ----------------------------------------------------------------

struct DescrInfo {
  DType dtype;
  std::size_t size;  // bytes per element in the file
  bool big_endian;
  bool utf32 = false;  // '<U': UTF-32 code points, decoded to UTF-8 strings
  bool bytes = false;  // '|S': fixed-width byte strings, NUL-padded
};

std::optional<DescrInfo> parse_descr(const std::string& descr) {
  if (descr.size() < 3) return std::nullopt;
  const char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return std::nullopt;
  const char kind = descr[1];
  std::size_t size = 0;
  for (std::size_t k = 2; k < descr.size(); ++k) {
    if (descr[k] < '0' || descr[k] > '9') return std::nullopt;
    size = size * 10 + static_cast<std::size_t>(descr[k] - '0');
    if (size > (1u << 20)) return std::nullopt;
  }
  const bool big = order == '>';
  auto fixed = [&](DType t) -> std::optional<DescrInfo> {
    if (dtype_size(t) != size) return std::nullopt;
    return DescrInfo{t, size, big};
  };
  switch (kind) {
    case 'f': return size == 2 ? fixed(DType::Half) : size == 4 ? fixed(DType::Float) : fixed(DType::Double);
    case 'i':
      return size == 1 ? fixed(DType::Int8) : size == 2 ? fixed(DType::Int16) : size == 4 ? fixed(DType::Int32)
                                                                                        : fixed(DType::Int64);
    case 'u':
      return size == 1 ? fixed(DType::UInt8) : size == 2 ? fixed(DType::UInt16) : size == 4 ? fixed(DType::UInt32)
                                                                                         : fixed(DType::UInt64);
    case 'b': return fixed(DType::Bool);
    case 'c': return size == 8 ? fixed(DType::Complex64) : fixed(DType::Complex128);
    // numpy has no bfloat16: np.save writes ml_dtypes' bfloat16 arrays as
    // 2-byte voids ('<V2'), and no other 2-byte void type is in use.
    case 'V': return size == 2 ? fixed(DType::BFloat16) : std::nullopt;
    // numpy never writes zero-width strings ('S0' arrays are saved as 'S1'),
    // and elements without bytes would let a tiny file claim any shape.
    case 'S': return size ? std::optional(DescrInfo{DType::String, size, big, false, true}) : std::nullopt;
    case 'U': return size ? std::optional(DescrInfo{DType::String, size * 4, big, true, false}) : std::nullopt;
    default: return std::nullopt;
  }
}

// Complex numbers swap each component, not the whole element.
void swap_bytes(char* data, std::size_t count, std::size_t width) {
  for (std::size_t k = 0; k < count; ++k) std::reverse(data + k * width, data + (k + 1) * width);
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string decode_string(const char* p, const DescrInfo& d) {
  std::string s;
  if (d.bytes) {
    s.assign(p, d.size);
  } else {
    for (std::size_t k = 0; k + 4 <= d.size; k += 4) {
      unsigned char b[4];
      std::memcpy(b, p + k, 4);
      uint32_t cp = d.big_endian ? (uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3])
                                 : (uint32_t{b[3]} << 24 | uint32_t{b[2]} << 16 | uint32_t{b[1]} << 8 | b[0]);
      if (cp == 0) break;
      append_utf8(s, cp);
    }
  }
  // numpy pads fixed-width strings with NULs and strips them on read.
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// Maps C-order element index -> Fortran-order element index for `dims`.
std::size_t fortran_offset(std::size_t c_index, const std::vector<int64_t>& dims) {
  std::size_t offset = 0, stride = 1;
  std::vector<std::size_t> idx(dims.size());
  for (std::size_t k = dims.size(); k-- > 0;) {
    idx[k] = c_index % static_cast<std::size_t>(dims[k]);
    c_index /= static_cast<std::size_t>(dims[k]);
  }
  for (std::size_t k = 0; k < dims.size(); ++k) {
    offset += idx[k] * stride;
    stride *= static_cast<std::size_t>(dims[k]);
  }
  return offset;
}

std::string descr_for(DType t) {
  switch (t) {
    case DType::Float: return "<f4";
    case DType::Double: return "<f8";
    case DType::Half: return "<f2";
    case DType::BFloat16: return "<V2";  // what np.save writes for ml_dtypes.bfloat16
    case DType::Int8: return "|i1";
    case DType::Int16: return "<i2";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::UInt8: return "|u1";
    case DType::UInt16: return "<u2";
    case DType::UInt32: return "<u4";
    case DType::UInt64: return "<u8";
    case DType::Bool: return "|b1";
    case DType::Complex64: return "<c8";
    case DType::Complex128: return "<c16";
    default: throw Error("cannot write a " + dtype_name(t) + " tensor as .npy: numpy has no such dtype");
  }
}

}  // namespace

Tensor parse_npy(std::string_view bytes, const std::string& source) {
  auto fail = [&](const std::string& what) { return ParseError(source, 0, 0, "not a valid .npy file: " + what); };
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic)
    throw fail("bad magic (expected the bytes \\x93NUMPY at the start)");
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    throw fail("unsupported format version " + std::to_string(major) + "." +
               std::to_string(static_cast<unsigned char>(bytes[7])) + " (supported: 1.0, 2.0, 3.0)");
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  const std::size_t prefix = 8 + len_bytes;
  if (bytes.size() < prefix) throw fail("truncated header (file ends inside the header length)");
  std::size_t header_len = 0;
  for (std::size_t k = 0; k < len_bytes; ++k)
    header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
  if (bytes.size() < prefix + header_len)
    throw fail("truncated header (header says " + std::to_string(header_len) + " bytes, file has " +
               std::to_string(bytes.size() - prefix) + ")");

  NpyHeader header;
  try {
    header = HeaderReader(bytes.substr(prefix, header_len)).read();
  } catch (const Error& e) {
    throw fail(std::string("bad header: ") + e.what());
  }
  auto descr = parse_descr(header.descr);
  if (!descr)
    throw fail("bad descr '" + header.descr +
               "' (supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 <c8 <c16 <V2 (bfloat16) |S<n> <U<n>, either byte order)");

  // Check the data length before allocating, so a corrupt shape cannot
  // request an absurd allocation.
  const Shape shape(header.shape);
  const std::string_view data = bytes.substr(prefix + header_len);
  std::size_t n = 1;
  for (int64_t d : header.shape) {
    if (d != 0 && n > (std::size_t{1} << 48) / static_cast<std::size_t>(d)) throw fail("shape " + shape.to_string() + " is too large");
    n *= static_cast<std::size_t>(d);
  }
  if (descr->size && n > data.size() / descr->size)
    throw fail("data shorter than shape " + shape.to_string() + " requires (" + std::to_string(data.size()) +
               " bytes, need " + std::to_string(n * descr->size) + ")");
  Tensor t(descr->dtype, shape);

  if (descr->dtype == DType::String) {
    auto& out = t.strings();
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t src = header.fortran_order ? fortran_offset(k, header.shape) : k;
      out[k] = decode_string(data.data() + src * descr->size, *descr);
    }
    return t;
  }
  char* out = static_cast<char*>(t.raw_data());
  const std::size_t width = descr->size;
  if (header.fortran_order) {
    for (std::size_t k = 0; k < n; ++k)
      std::memcpy(out + k * width, data.data() + fortran_offset(k, header.shape) * width, width);
  } else if (n) {
    std::memcpy(out, data.data(), n * width);
  }
  if (descr->big_endian && width > 1) {
    const bool complex = descr->dtype == DType::Complex64 || descr->dtype == DType::Complex128;
    swap_bytes(out, complex ? n * 2 : n, complex ? width / 2 : width);
  }
  if (descr->dtype == DType::Bool)  // any nonzero byte is true; keep bool's 0/1 invariant
    for (std::size_t k = 0; k < n; ++k) out[k] = out[k] != 0;
  return t;
}

Tensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_npy(buffer.str(), path);
}

std::string serialize_npy(const Tensor& t) {
  if (!t.valid()) throw Error("cannot write an empty tensor handle as .npy");
  std::string descr;
  std::size_t str_width = 1;
  if (t.dtype() == DType::String) {
    for (const auto& s : t.strings()) str_width = std::max(str_width, s.size());
    descr = "|S" + std::to_string(str_width);
  } else {
    descr = descr_for(t.dtype());
  }
  // Python tuple syntax: "()", "(3,)", "(3, 4)".
  std::string shape = "(";
  for (int k = 0; k < t.shape().rank(); ++k) shape += (k ? ", " : "") + std::to_string(t.shape().dim(k));
  shape += t.shape().rank() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so the data starts on a 64-byte boundary, as numpy does; version 2.0
  // only when the header no longer fits a 16-bit length.
  const bool v2 = header.size() + 1 + 10 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';

  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (std::size_t k = 0; k < (v2 ? 4u : 2u); ++k) out += static_cast<char>((header.size() >> (8 * k)) & 0xFF);
  out += header;
  if (t.dtype() == DType::String) {
    for (const auto& s : t.strings()) {
      out += s;
      out.append(str_width - s.size(), '\0');
    }
  } else {
    out.append(static_cast<const char*>(t.raw_data()), t.byte_size());
  }
  return out;
}

void write_npy(const Tensor& t, const std::string& path) {
  const std::string bytes = serialize_npy(t);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno));
}

}  // namespace flowlens
