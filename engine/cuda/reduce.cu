// Sum, Mean, Max, Min and Prod over any set of axes. The input is described as groups
// of kept and reduced dims (ReduceGeometry); output element o gathers the
// reduced elements of its slice. Two shapes of work:
//  - innermost group kept (reducing over a batch, BiasAddGrad): one thread
//    per output, neighbouring threads read neighbouring addresses;
//  - innermost group reduced (row sums, a loss mean): one block per output,
//    threads stride the contiguous run and combine in shared memory.
// Sums accumulate in double (the CPU's accumulator for float32; its float
// one for the 16-bit types rounds no differently at the end), loading
// float32, float16 or bfloat16 storage and rounding once to it.
#include <cfloat>

#include "cuda/float_kind.cuh"

namespace flowlens::cuda {
namespace {

constexpr int kThreads = 256;

struct Strides {
  int groups;
  int64_t sizes[kMaxDims];
  int64_t in_strides[kMaxDims];
  bool reduced[kMaxDims];
};

// Input offset of output `o` combined with reduced position `r`.
__device__ int64_t input_offset(const Strides& s, int64_t o, int64_t r) {
  int64_t off = 0;
  for (int k = s.groups - 1; k >= 0; --k) {
    int64_t& rest = s.reduced[k] ? r : o;
    const int64_t c = rest % s.sizes[k];
    rest /= s.sizes[k];
    off += c * s.in_strides[k];
  }
  return off;
}

// Max and Min let NaN win, as the CPU's PropagateNaN reducers do: a NaN
// replaces the accumulator and nothing replaces a NaN.
__device__ double combine(ReduceOp op, double acc, double x) {
  switch (op) {
    case ReduceOp::Max: return (x > acc || isnan(x)) ? x : acc;
    case ReduceOp::Min: return (x < acc || isnan(x)) ? x : acc;
    case ReduceOp::Prod: return acc * x;
    case ReduceOp::Sum:
    case ReduceOp::Mean: break;
  }
  return acc + x;
}

__device__ float finish(ReduceOp op, double acc, int64_t count) {
  if (op == ReduceOp::Mean) return count > 0 ? float(acc / double(count)) : __int_as_float(0x7fc00000);
  return float(acc);
}

__device__ double identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::Max: return -double(INFINITY);
    case ReduceOp::Min: return double(INFINITY);
    case ReduceOp::Prod: return 1.0;
    case ReduceOp::Sum:
    case ReduceOp::Mean: break;
  }
  return 0.0;
}

template <typename S>
__global__ void reduce_per_thread(ReduceOp op, const S* in, S* out, Strides s, int64_t out_count,
                                  int64_t reduce_count) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < out_count;
       o += int64_t(blockDim.x) * gridDim.x) {
    double acc = identity(op);
    for (int64_t r = 0; r < reduce_count; ++r) acc = combine(op, acc, to_float(in[input_offset(s, o, r)]));
    out[o] = from_float<S>(finish(op, acc, reduce_count));
  }
}

template <typename S>
__global__ void reduce_per_block(ReduceOp op, const S* in, S* out, Strides s, int64_t out_count,
                                 int64_t reduce_count) {
  __shared__ double partial[kThreads];
  for (int64_t o = blockIdx.x; o < out_count; o += gridDim.x) {
    double acc = identity(op);
    for (int64_t r = threadIdx.x; r < reduce_count; r += blockDim.x)
      acc = combine(op, acc, to_float(in[input_offset(s, o, r)]));
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
      if (threadIdx.x < step) partial[threadIdx.x] = combine(op, partial[threadIdx.x], partial[threadIdx.x + step]);
      __syncthreads();
    }
    if (threadIdx.x == 0) out[o] = from_float<S>(finish(op, partial[0], reduce_count));
    __syncthreads();
  }
}

}  // namespace

void launch_reduce(cudaStream_t stream, FloatKind kind, ReduceOp op, const void* in, void* out,
                   const ReduceGeometry& g) {
  if (g.out_count <= 0) return;
  Strides s{};
  s.groups = g.groups;
  int64_t stride = 1;
  for (int k = g.groups - 1; k >= 0; --k) {
    s.sizes[k] = g.sizes[k];
    s.reduced[k] = g.reduced[k];
    s.in_strides[k] = stride;
    stride *= g.sizes[k];
  }
  const bool inner_reduced = g.groups > 0 && g.reduced[g.groups - 1];
  with_storage(kind, [&](auto storage) {
    using S = decltype(storage);
    const S* x = static_cast<const S*>(in);
    S* y = static_cast<S*>(out);
    if (inner_reduced && g.reduce_count >= 64) {
      const int64_t blocks = g.out_count < 65535 * 8 ? g.out_count : 65535 * 8;
      reduce_per_block<<<static_cast<int>(blocks), kThreads, 0, stream>>>(op, x, y, s, g.out_count, g.reduce_count);
    } else {
      int64_t blocks = (g.out_count + kThreads - 1) / kThreads;
      if (blocks > 65535 * 8) blocks = 65535 * 8;
      reduce_per_thread<<<static_cast<int>(blocks), kThreads, 0, stream>>>(op, x, y, s, g.out_count, g.reduce_count);
    }
  });
}

}  // namespace flowlens::cuda
