#include "tensor/copy_rows.h"

#include <algorithm>
#include <cstring>

namespace flowlens {

namespace {

void check_same_memory(const Tensor& dst, const Tensor& src) {
  if (dst.memory() != src.memory())
    throw Error(std::string("copy between different memories (") +
                (src.on_host() ? "host" : src.memory()->name()) + " to " +
                (dst.on_host() ? "host" : dst.memory()->name()) + ")");
}

// The same view with fewer dims: size-1 dims dropped, and a dim merged into
// the one before it when that one steps over it exactly (a contiguous run).
// Keeps device gathers within their rank limit and host loops short.
void coalesce(std::vector<int64_t>& dims, std::vector<int64_t>& stride) {
  std::vector<int64_t> d, s;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 1) continue;
    if (!d.empty() && s.back() == stride[k] * dims[k]) {
      d.back() *= dims[k];
      s.back() = stride[k];
      continue;
    }
    d.push_back(dims[k]);
    s.push_back(stride[k]);
  }
  dims.swap(d);
  stride.swap(s);
}

template <typename Word>
void gather_on_host(Word* out, const Word* in, const std::vector<int64_t>& dims, const std::vector<int64_t>& stride,
                    int64_t base) {
  if (!dims.empty() && stride.back() == 1) {  // contiguous innermost runs: copied as rows
    const int64_t width = dims.back();
    const std::vector<int64_t> rows(dims.begin(), dims.end() - 1), row_stride(stride.begin(), stride.end() - 1);
    for_each_mapped(rows, row_stride, base, [&](int64_t r, int64_t j) {
      std::memcpy(out + r * width, in + j, static_cast<std::size_t>(width) * sizeof(Word));
    });
    return;
  }
  for_each_mapped(dims, stride, base, [&](int64_t i, int64_t j) { out[i] = in[j]; });
}

}  // namespace

void gather_mapped(Tensor& dst, const Tensor& src, const std::vector<int64_t>& view_dims,
                   const std::vector<int64_t>& view_stride, int64_t base) {
  if (dst.num_elements() == 0) return;
  check_same_memory(dst, src);
  if (view_dims.size() != view_stride.size()) throw Error("gather_mapped: dims and strides differ in length");
  std::vector<int64_t> dims = view_dims, in_stride = view_stride;
  coalesce(dims, in_stride);
  const std::size_t bytes = dtype_size(src.dtype());
  if (AcceleratorMemory* m = dst.memory()) {
    m->gather_mapped(dst.device_data(), src.device_data(), bytes, dims, in_stride, base);
    return;
  }
  switch (bytes) {
    case 1: return gather_on_host(static_cast<uint8_t*>(dst.device_data()), static_cast<const uint8_t*>(src.device_data()), dims, in_stride, base);
    case 2: return gather_on_host(static_cast<uint16_t*>(dst.device_data()), static_cast<const uint16_t*>(src.device_data()), dims, in_stride, base);
    case 4: return gather_on_host(static_cast<uint32_t*>(dst.device_data()), static_cast<const uint32_t*>(src.device_data()), dims, in_stride, base);
    case 8: return gather_on_host(static_cast<uint64_t*>(dst.device_data()), static_cast<const uint64_t*>(src.device_data()), dims, in_stride, base);
    default: break;
  }
  throw Error(std::string("gather_mapped: no element copy for ") + dtype_name(src.dtype()));
}

void copy_rows(Tensor& dst, std::size_t dst_offset, std::size_t dst_pitch, const Tensor& src,
               std::size_t src_offset, std::size_t src_pitch, std::size_t width, std::size_t rows) {
  if (width == 0 || rows == 0) return;
  check_same_memory(dst, src);
  char* d = static_cast<char*>(dst.device_data()) + dst_offset;
  const char* s = static_cast<const char*>(src.device_data()) + src_offset;
  if (AcceleratorMemory* m = dst.memory()) {
    m->copy_2d(d, dst_pitch, s, src_pitch, width, rows);
    return;
  }
  if (dst_pitch == width && src_pitch == width) {
    std::memcpy(d, s, width * rows);
    return;
  }
  for (std::size_t k = 0; k < rows; ++k) std::memcpy(d + k * dst_pitch, s + k * src_pitch, width);
}

void copy_host_elements(Tensor& dst, int64_t dst_at, const Tensor& src, int64_t src_at, int64_t count) {
  if (count <= 0) return;
  const auto d = static_cast<std::ptrdiff_t>(dst_at), s = static_cast<std::ptrdiff_t>(src_at);
  const auto n = static_cast<std::size_t>(count);
  switch (src.dtype()) {
    case DType::String: std::copy_n(src.strings().begin() + s, n, dst.strings().begin() + d); return;
    case DType::Resource: std::copy_n(src.handles().begin() + s, n, dst.handles().begin() + d); return;
    case DType::Variant: std::copy_n(src.variants().begin() + s, n, dst.variants().begin() + d); return;
    default: {
      const std::size_t size = dtype_size(src.dtype());
      if (size == 0) throw Error("copy_host_elements: cannot copy elements of dtype " + dtype_name(src.dtype()));
      std::memcpy(static_cast<char*>(dst.raw_data()) + static_cast<std::size_t>(d) * size,
                  static_cast<const char*>(src.raw_data()) + static_cast<std::size_t>(s) * size, n * size);
    }
  }
}

}  // namespace flowlens
