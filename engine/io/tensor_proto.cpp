#include "io/tensor_proto.h"

#include <bit>
#include <complex>
#include <cstring>
#include <limits>
#include <span>

namespace flowlens::io_detail {

// tensor_content is little-endian on the wire; we memcpy it, so the host must
// be little-endian too (every platform FlowLens targets is).
static_assert(std::endian::native == std::endian::little, "tensor_content decoding assumes little-endian");

namespace {

// The most bytes a constant given by typed *_val fields (or strings) may expand to.
constexpr uint64_t kMaxExpandedBytes = uint64_t{1} << 30;

std::string count_text(int64_t n) { return std::to_string(n) + (n == 1 ? " value" : " values"); }
std::string elements_text(int64_t n) { return std::to_string(n) + (n == 1 ? " element" : " elements"); }

// TF's FromProtoField rule: values fill the tensor in order; when there are
// fewer than the element count, the last value repeats (so `float_val: 0`
// zero-fills a [784,10] weight); no values at all means zeros. More values than
// elements is an error.
template <class Out, class Field>
void fill_repeated(Out* out, int64_t n, const Field& field, const char* field_name) {
  const int64_t have = field.size();
  if (have > n)
    throw Error(std::string(field_name) + " has " + count_text(have) + " but the shape holds only " +
                elements_text(n));
  for (int64_t k = 0; k < n; ++k) {
    if (have == 0)
      out[k] = Out{};
    else
      out[k] = static_cast<Out>(field.Get(static_cast<int>(k < have ? k : have - 1)));
  }
}

// Complex values come as (real, imag) pairs in a flat float/double field.
template <class Scalar, class Field>
void fill_complex(std::complex<Scalar>* out, int64_t n, const Field& field, const char* field_name) {
  if (field.size() % 2 != 0)
    throw Error(std::string(field_name) + " has an odd number of values; complex values are (real, imag) pairs");
  const int64_t have = field.size() / 2;
  if (have > n)
    throw Error(std::string(field_name) + " has " + count_text(have) + " but the shape holds only " +
                elements_text(n));
  for (int64_t k = 0; k < n; ++k) {
    if (have == 0) {
      out[k] = {};
      continue;
    }
    const int src = static_cast<int>(k < have ? k : have - 1);
    out[k] = {static_cast<Scalar>(field.Get(2 * src)), static_cast<Scalar>(field.Get(2 * src + 1))};
  }
}

void decode_typed_values(const proto::TensorProto& p, Tensor& t) {
  const int64_t n = t.num_elements();
  void* raw = t.raw_data();
  switch (t.dtype()) {
    case DType::Float: return fill_repeated(static_cast<float*>(raw), n, p.float_val(), "float_val");
    case DType::Double: return fill_repeated(static_cast<double*>(raw), n, p.double_val(), "double_val");
    case DType::Int32:
    case DType::QInt32: return fill_repeated(static_cast<int32_t*>(raw), n, p.int_val(), "int_val");
    case DType::Int16:
    case DType::QInt16: return fill_repeated(static_cast<int16_t*>(raw), n, p.int_val(), "int_val");
    case DType::UInt16:
    case DType::QUInt16: return fill_repeated(static_cast<uint16_t*>(raw), n, p.int_val(), "int_val");
    case DType::Int8:
    case DType::QInt8: return fill_repeated(static_cast<int8_t*>(raw), n, p.int_val(), "int_val");
    case DType::UInt8:
    case DType::QUInt8: return fill_repeated(static_cast<uint8_t*>(raw), n, p.int_val(), "int_val");
    case DType::Int64: return fill_repeated(static_cast<int64_t*>(raw), n, p.int64_val(), "int64_val");
    case DType::UInt32: return fill_repeated(static_cast<uint32_t*>(raw), n, p.uint32_val(), "uint32_val");
    case DType::UInt64: return fill_repeated(static_cast<uint64_t*>(raw), n, p.uint64_val(), "uint64_val");
    case DType::Bool: return fill_repeated(static_cast<bool*>(raw), n, p.bool_val(), "bool_val");
    // Both 16-bit float formats travel as their bit pattern in half_val; we
    // keep the raw 2-byte elements.
    case DType::Half:
    case DType::BFloat16: return fill_repeated(static_cast<uint16_t*>(raw), n, p.half_val(), "half_val");
    case DType::Complex64:
      return fill_complex(static_cast<std::complex<float>*>(raw), n, p.scomplex_val(), "scomplex_val");
    case DType::Complex128:
      return fill_complex(static_cast<std::complex<double>*>(raw), n, p.dcomplex_val(), "dcomplex_val");
    default: throw Error("tensors of dtype " + dtype_name(t.dtype()) + " are not supported");
  }
}

void decode_strings(const proto::TensorProto& p, Tensor& t) {
  const int64_t n = t.num_elements();
  const int64_t have = p.string_val_size();
  if (have > n)
    throw Error("string_val has " + count_text(have) + " but the shape holds only " +
                elements_text(n));
  auto& out = t.strings();
  for (int64_t k = 0; k < n; ++k)
    if (have) out[static_cast<size_t>(k)] = p.string_val(static_cast<int>(k < have ? k : have - 1));
}

// Writes the single element of `t` into the *_val field TensorFlow uses.
void encode_single_value(const Tensor& t, proto::TensorProto* p) {
  const void* raw = t.raw_data();
  auto get = [raw]<class T>(T) { T v; std::memcpy(&v, raw, sizeof v); return v; };
  switch (t.dtype()) {
    case DType::Float: p->add_float_val(get(float{})); break;
    case DType::Double: p->add_double_val(get(double{})); break;
    case DType::Int32:
    case DType::QInt32: p->add_int_val(get(int32_t{})); break;
    case DType::Int16:
    case DType::QInt16: p->add_int_val(get(int16_t{})); break;
    case DType::UInt16:
    case DType::QUInt16: p->add_int_val(get(uint16_t{})); break;
    case DType::Int8:
    case DType::QInt8: p->add_int_val(get(int8_t{})); break;
    case DType::UInt8:
    case DType::QUInt8: p->add_int_val(get(uint8_t{})); break;
    case DType::Int64: p->add_int64_val(get(int64_t{})); break;
    case DType::UInt32: p->add_uint32_val(get(uint32_t{})); break;
    case DType::UInt64: p->add_uint64_val(get(uint64_t{})); break;
    case DType::Bool: p->add_bool_val(get(bool{})); break;
    case DType::Half:
    case DType::BFloat16: p->add_half_val(get(uint16_t{})); break;
    case DType::Complex64: {
      auto c = get(std::complex<float>{});
      p->add_scomplex_val(c.real());
      p->add_scomplex_val(c.imag());
      break;
    }
    case DType::Complex128: {
      auto c = get(std::complex<double>{});
      p->add_dcomplex_val(c.real());
      p->add_dcomplex_val(c.imag());
      break;
    }
    default: p->set_tensor_content(raw, t.byte_size()); break;
  }
}

}  // namespace

bool is_known_dtype_value(int value) {
  return (value >= 0 && value <= static_cast<int>(DType::UInt64)) ||
         (value > kRefOffset && value <= kRefOffset + static_cast<int>(DType::UInt64));
}

Shape shape_from_proto(const proto::TensorShapeProto& p) {
  if (p.unknown_rank()) {
    if (p.dim_size() > 0) throw Error("shape has unknown_rank: true but also lists dims");
    return Shape::unknown_rank();
  }
  std::vector<int64_t> dims;
  dims.reserve(static_cast<size_t>(p.dim_size()));
  for (int k = 0; k < p.dim_size(); ++k) {
    int64_t d = p.dim(k).size();
    if (d < Shape::kUnknownDim)
      throw Error("shape dim " + std::to_string(k) + " has size " + std::to_string(d) +
                  "; sizes must be >= 0, or -1 for unknown");
    dims.push_back(d);
  }
  return Shape(std::move(dims));
}

void shape_to_proto(const Shape& s, proto::TensorShapeProto* p) {
  p->Clear();
  if (!s.rank_known()) {
    p->set_unknown_rank(true);
    return;
  }
  for (int64_t d : s.dims()) p->add_dim()->set_size(d);
}

Tensor tensor_from_proto(const proto::TensorProto& p) {
  const int raw_dtype = static_cast<int>(p.dtype());
  if (!is_known_dtype_value(raw_dtype)) throw Error("tensor dtype " + std::to_string(raw_dtype) + " is not a DataType value");
  const DType dtype = static_cast<DType>(raw_dtype);
  if (dtype == DType::Invalid) throw Error("tensor has no dtype (DT_INVALID); set dtype: DT_FLOAT or similar");
  if (dtype_is_ref(dtype) || dtype == DType::Resource || dtype == DType::Variant)
    throw Error("constant tensors of dtype " + dtype_tf_name(dtype) + " are not supported");

  // A tensor without tensor_shape is a scalar, as in TensorFlow.
  Shape shape = shape_from_proto(p.tensor_shape());
  if (!shape.rank_known()) throw Error("tensor_shape has unknown rank; a constant tensor needs a full shape");
  // Guard the size before allocating: a corrupt dim must not become an
  // overflowed product or an allocation the file does not back. Strings cost
  // a std::string per element however short they are.
  const std::size_t elem = dtype == DType::String ? sizeof(std::string) : dtype_size(dtype);
  constexpr int64_t kMaxBytes = int64_t{1} << 40;
  int64_t n = 1;
  for (int k = 0; k < shape.rank(); ++k) {
    int64_t d = shape.dim(k);
    if (d < 0) throw Error("tensor_shape dim " + std::to_string(k) + " is -1; a constant tensor needs known dims");
    if (d != 0 && n > kMaxBytes / d / static_cast<int64_t>(elem ? elem : 1))
      throw Error("tensor_shape " + shape.to_string() + " is too large");
    n *= d;
  }
  const std::string& content = p.tensor_content();
  const uint64_t bytes = static_cast<uint64_t>(n) * elem;
  if (dtype != DType::String && !content.empty() && content.size() != bytes)
    throw Error("tensor_content has " + std::to_string(content.size()) + " bytes but shape " + shape.to_string() +
                " of " + dtype_name(dtype) + " needs " + std::to_string(bytes) + " (" + std::to_string(n) + " x " +
                std::to_string(elem) + ")");
  // tensor_content is backed by the file; typed *_val fields repeat their last
  // value to fill the shape, so a few bytes could ask for any size.
  if ((dtype == DType::String || content.empty()) && bytes > kMaxExpandedBytes)
    throw Error("tensor_shape " + shape.to_string() + " of " + dtype_name(dtype) + " would expand to " +
                std::to_string(bytes) + " bytes; constants given by *_val fields may expand to at most " +
                std::to_string(kMaxExpandedBytes >> 20) + " MiB (use tensor_content for larger ones)");

  Tensor t(dtype, shape);
  if (dtype == DType::String) {
    decode_strings(p, t);
    return t;
  }
  if (!content.empty()) {
    std::memcpy(t.raw_data(), content.data(), content.size());
    if (dtype == DType::Bool)  // any nonzero byte is true; a bool must hold exactly 0 or 1
      for (auto& b : std::span(static_cast<unsigned char*>(t.raw_data()), t.byte_size())) b = b != 0;
    return t;
  }
  decode_typed_values(p, t);
  return t;
}

void tensor_to_proto(const Tensor& t, proto::TensorProto* p) {
  p->Clear();
  if (!t.valid()) return;
  p->set_dtype(static_cast<proto::DataType>(static_cast<int>(t.dtype())));
  shape_to_proto(t.shape(), p->mutable_tensor_shape());
  if (t.dtype() == DType::String) {
    for (const std::string& s : t.strings()) p->add_string_val(s);
    return;
  }
  if (t.num_elements() == 0) return;
  if (t.num_elements() == 1) {
    encode_single_value(t, p);
    return;
  }
  p->set_tensor_content(t.raw_data(), t.byte_size());
}

}  // namespace flowlens::io_detail
