#include "cuda/gpu_layout.h"

#include "common/error.h"
#include "cuda/gpu_launch.h"

namespace flowlens::cuda {
namespace {

IndexMap identity_map(const std::vector<int64_t>& in_dims) {
  if (in_dims.size() > static_cast<std::size_t>(kMaxDims))
    throw Error("GPU layout: rank " + std::to_string(in_dims.size()) + " exceeds " + std::to_string(kMaxDims));
  IndexMap m;
  m.rank = static_cast<int>(in_dims.size());
  const std::vector<int64_t> strides = row_major_strides(in_dims);
  for (int d = 0; d < m.rank; ++d) {
    m.out_dims[d] = m.in_dims[d] = in_dims[static_cast<std::size_t>(d)];
    m.in_strides[d] = strides[static_cast<std::size_t>(d)];
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

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (std::size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
  return s;
}

void permute(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
             const std::vector<int>& perm, void* out) {
  const IndexMap source = identity_map(in_dims);
  IndexMap m = source;
  for (int d = 0; d < m.rank; ++d) {
    const int from = perm[static_cast<std::size_t>(d)];
    m.out_dims[d] = m.in_dims[d] = source.in_dims[from];
    m.in_strides[d] = source.in_strides[from];
  }
  launch_index_map(stream, element_bytes, in, out, count(m), m, 0);
}

void pad(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
         const std::vector<int64_t>& before, const std::vector<int64_t>& after, void* out, uint64_t fill_bits) {
  IndexMap m = identity_map(in_dims);
  for (int d = 0; d < m.rank; ++d) {
    const auto i = static_cast<std::size_t>(d);
    m.out_dims[d] = in_dims[i] + before[i] + after[i];
    m.start[d] = -before[i];
  }
  launch_index_map(stream, element_bytes, in, out, count(m), m, fill_bits);
}

void slice(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
           const std::vector<int64_t>& start, const std::vector<int64_t>& out_dims, void* out) {
  IndexMap m = identity_map(in_dims);
  for (int d = 0; d < m.rank; ++d) {
    const auto i = static_cast<std::size_t>(d);
    m.out_dims[d] = out_dims[i];
    m.start[d] = start[i];
  }
  launch_index_map(stream, element_bytes, in, out, count(m), m, 0);
}

}  // namespace flowlens::cuda
