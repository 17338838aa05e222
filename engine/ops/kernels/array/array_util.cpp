#include "ops/kernels/array/array_util.h"

#include <algorithm>

#include "tensor/copy_rows.h"

namespace flowlens::ops {

std::vector<DType> pod_dtypes() { return dtypes_of<PodTypes>(); }

std::vector<DType> pod_string_dtypes() {
  std::vector<DType> t = pod_dtypes();
  t.push_back(DType::String);
  return t;
}

std::vector<DType> without(std::vector<DType> types, const std::vector<DType>& excluded) {
  std::erase_if(types, [&](DType t) { return std::find(excluded.begin(), excluded.end(), t) != excluded.end(); });
  return types;
}

void check_movable(const char* op, DType t) {
  if (t != DType::String && !dtype_is_computable(t)) unsupported_dtype(op, t);
}

void copy_elements(Tensor& dst, int64_t dst_offset, int64_t dst_pitch, const Tensor& src, int64_t src_offset,
                   int64_t src_pitch, int64_t width, int64_t rows) {
  if (width <= 0 || rows <= 0) return;
  if (src.dtype() == DType::String) {
    const std::string* s = src.strings().data() + src_offset;
    std::string* d = dst.strings().data() + dst_offset;
    for (int64_t r = 0; r < rows; ++r) std::copy_n(s + r * src_pitch, width, d + r * dst_pitch);
    return;
  }
  const auto es = static_cast<size_t>(dtype_size(src.dtype()));
  copy_rows(dst, static_cast<size_t>(dst_offset) * es, static_cast<size_t>(dst_pitch) * es, src,
            static_cast<size_t>(src_offset) * es, static_cast<size_t>(src_pitch) * es, static_cast<size_t>(width) * es,
            static_cast<size_t>(rows));
}

void gather_elements(Tensor& dst, const Tensor& src, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& in_stride, int64_t base, const char* op) {
  if (src.dtype() != DType::String && !dtype_is_computable(src.dtype())) unsupported_dtype(op, src.dtype());
  if (src.dtype() == DType::String) {
    const std::string* in = src.strings().data();
    std::string* out = dst.strings().data();
    for_each_mapped(dims, in_stride, base, [&](int64_t i, int64_t j) { out[i] = in[j]; });
    return;
  }
  gather_mapped(dst, src, dims, in_stride, base);
}

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

std::string index_string(const Shape& shape, int64_t flat) {
  if (shape.rank() == 0) return "";
  std::vector<int64_t> idx(static_cast<size_t>(shape.rank()));
  for (int d = shape.rank() - 1; d >= 0; --d) {
    const int64_t n = shape.dim(d);
    idx[static_cast<size_t>(d)] = n > 0 ? flat % n : 0;
    flat = n > 0 ? flat / n : 0;
  }
  return "[" + join(idx, ",") + "]";
}

std::string join(const std::vector<int64_t>& values, const char* sep) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i) s += (i ? sep : "") + std::to_string(values[i]);
  return s;
}

std::vector<int64_t> read_int_values(const char* op, const char* what, const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  auto read = [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(p[i]);
  };
  switch (t.dtype()) {
    case DType::Int8: read(int8_t{}); break;
    case DType::UInt8: read(uint8_t{}); break;
    case DType::Int16: read(int16_t{}); break;
    case DType::UInt16: read(uint16_t{}); break;
    case DType::Int32: read(int32_t{}); break;
    case DType::Int64: read(int64_t{}); break;
    default: fail(std::string(op) + ": " + what + " must be an integer tensor, got " + dtype_name(t.dtype()));
  }
  return out;
}

Shape make_shape(const std::string& op, std::vector<int64_t> dims) {
  for (int64_t d : dims)
    if (d < 0) fail("Dimension " + std::to_string(d) + " must be >= 0");
  checked_elements(op, dims);
  return Shape(std::move(dims));
}

Tensor int_vector(DType t, const std::vector<int64_t>& values) {
  Tensor out(t, Shape{static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == DType::Int64) out.data<int64_t>()[i] = values[i];
    else out.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
  return out;
}

BadIndices bad_indices_policy(const AttrReader& attrs) {
  const std::string& p = attrs.string("bad_indices_policy");
  if (p.empty() || p == "DEFAULT" || p == "ERROR") return BadIndices::Error;
  if (p == "IGNORE") return BadIndices::Ignore;
  fail("Unknown bad indices handling attribute: " + p);
}

int64_t tuple_offset(const std::vector<int64_t>& idx, int64_t i, int64_t nd, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t v = idx[static_cast<size_t>(i * nd + d)];
    if (v < 0 || v >= dims[static_cast<size_t>(d)]) return -1;
    off += v * strides[static_cast<size_t>(d)];
  }
  return off;
}

std::vector<int64_t> index_tuple(const std::vector<int64_t>& idx, int64_t i, int64_t nd) {
  return {idx.begin() + i * nd, idx.begin() + (i + 1) * nd};
}


void with_rank(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

void with_rank_at_least(const Shape& s, int64_t rank) {
  if (s.rank_known() && s.rank() < rank)
    fail("Shape must be at least rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

}  // namespace flowlens::ops
