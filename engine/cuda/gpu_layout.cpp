#include "cuda/gpu_layout.h"

#include "common/error.h"
#include "cuda/gpu_launch.h"
#include "ops/kernels/array/array_util.h"

namespace flowlens::cuda {
namespace {

// The map of a strided view: output element (row-major over `dims`) reads
// base + sum_d coord_d * stride[d]; every coordinate is inside the input.
IndexMap view_map(int element_bytes, const std::vector<int64_t>& dims, const std::vector<int64_t>& stride,
                  int64_t base) {
  if (dims.size() > static_cast<std::size_t>(kMaxDims))
    throw Error("GPU strided copy: rank " + std::to_string(dims.size()) + " exceeds " + std::to_string(kMaxDims));
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8)
    throw Error("GPU strided copy: no " + std::to_string(element_bytes) + "-byte elements");
  IndexMap m;
  m.rank = static_cast<int>(dims.size());
  m.base = base;
  for (int d = 0; d < m.rank; ++d) {
    const auto i = static_cast<std::size_t>(d);
    m.out_dims[d] = m.in_dims[d] = dims[i];
    m.in_strides[d] = stride[i];
    m.start[d] = 0;
    m.step[d] = 1;
  }
  return m;
}

int64_t count(const IndexMap& m) {
  int64_t n = 1;
  for (int d = 0; d < m.rank; ++d) n *= m.out_dims[d];
  return n;
}

}  // namespace

void gather(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& dims,
            const std::vector<int64_t>& in_stride, int64_t base, void* out) {
  const IndexMap m = view_map(element_bytes, dims, in_stride, base);
  launch_index_map(stream, element_bytes, in, out, count(m), m, 0);
}

void permute(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
             const std::vector<int>& perm, void* out) {
  const std::vector<int64_t> strides = ops::strides_of(in_dims);
  std::vector<int64_t> dims, stride;
  for (int from : perm) {
    dims.push_back(in_dims[static_cast<std::size_t>(from)]);
    stride.push_back(strides[static_cast<std::size_t>(from)]);
  }
  gather(stream, element_bytes, in, dims, stride, 0, out);
}

void pad(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
         const std::vector<int64_t>& before, const std::vector<int64_t>& after, void* out, uint64_t fill_bits,
         const void* device_fill) {
  IndexMap m = view_map(element_bytes, in_dims, ops::strides_of(in_dims), 0);
  for (int d = 0; d < m.rank; ++d) {
    const auto i = static_cast<std::size_t>(d);
    m.out_dims[d] = in_dims[i] + before[i] + after[i];
    m.start[d] = -before[i];
  }
  launch_index_map(stream, element_bytes, in, out, count(m), m, fill_bits, device_fill);
}

void slice(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
           const std::vector<int64_t>& start, const std::vector<int64_t>& out_dims, void* out) {
  const std::vector<int64_t> strides = ops::strides_of(in_dims);
  int64_t base = 0;
  for (std::size_t d = 0; d < strides.size(); ++d) base += start[d] * strides[d];
  gather(stream, element_bytes, in, out_dims, strides, base, out);
}

}  // namespace flowlens::cuda
