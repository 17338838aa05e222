#pragma once
// Launchers of the CUDA kernels (one .cu file per op family), callable from
// plain C++: kernel code never sees engine headers, and the KernelContext
// side (validation, shapes, allocation) stays in the gpu_*_kernels.cpp files.
// All launchers queue work on `stream` and return; float32 data unless they
// say otherwise.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace flowlens::cuda {

constexpr int kMaxDims = 8;

// The floating types that live in device memory (float_kind.cuh stores them).
enum class FloatKind { F32, F16, BF16 };

// ---- elementwise.cu ----------------------------------------------------------
// Each follows its CPU functor (unary_ops.cpp, activation_ops.cpp) in float.
enum class UnaryOp {
  Relu, Sigmoid, Tanh, Square, Neg, Exp, Log, Sqrt,
  Abs, Ceil, Floor, Rint,  // Rint serves Round too: both round half to even
  Sign, Sin, Cos, Erf, Expm1, Log1p, Rsqrt, Reciprocal,
  Softplus, Softsign, Relu6, Elu, Selu,
};
enum class BinaryOp {
  Add, Sub, Mul, Div, Max, Min,
  SquaredDifference, Pow, DivNoNan,
  ReluGrad,       // (gradients, features) -> g * (x > 0)
  SigmoidGrad,    // (y, dy) -> dy * y * (1 - y)
  TanhGrad,       // (y, dy) -> dy * (1 - y^2)
  SqrtGrad,       // (y, dy) -> dy * 0.5 / y
  RsqrtGrad,      // (y, dy) -> -0.5 * (dy * y) * (y * y)
  ReciprocalGrad, // (y, dy) -> -y * y * dy (InvGrad too)
  Relu6Grad,      // (gradients, features) -> g * (0 < x < 6)
  EluGrad,        // (gradients, outputs) -> y < 0 ? g * (y + 1) : g
  SeluGrad,       // (gradients, outputs)
  SoftplusGrad,   // (gradients, features) -> g / (exp(-x) + 1)
  SoftsignGrad,   // (gradients, features) -> g / (|x| + 1)^2
};

// How output index i maps to indices of a and b: strides are 0 on broadcast
// dims. rank == 0 means both inputs have the output's shape.
struct BroadcastIndex {
  int rank = 0;
  int64_t out_dims[kMaxDims] = {};
  int64_t a_strides[kMaxDims] = {};
  int64_t b_strides[kMaxDims] = {};
};

// Element pointers are of `kind` (float32, float16 or bfloat16); each
// element is computed in float and rounded once to the kind.
void launch_unary(cudaStream_t stream, FloatKind kind, UnaryOp op, const void* x, void* out, int64_t n);
void launch_binary(cudaStream_t stream, FloatKind kind, BinaryOp op, const void* a, const void* b, void* out,
                   int64_t n, const BroadcastIndex& index);
// out[i] = value (a host constant) or *device_value (a device scalar of kind).
void launch_fill(cudaStream_t stream, FloatKind kind, void* out, int64_t n, float value, const void* device_value);
// out[i] += in[i]
void launch_accumulate(cudaStream_t stream, FloatKind kind, void* out, const void* in, int64_t n);
// out[r, j] = x[r, j] + bias[j] over rows of `channels`.
void launch_bias_add(cudaStream_t stream, FloatKind kind, const void* x, const void* bias, void* out, int64_t n,
                     int64_t channels);

// ---- cast.cu -------------------------------------------------------------------
// out[i] = in[i] converted (see cast.cu for rounding and Truncate).
void launch_cast_float(cudaStream_t stream, FloatKind src, FloatKind dst, bool truncate, const void* in, void* out,
                       int64_t n);

// ---- reduce.cu -----------------------------------------------------------------
enum class ReduceOp { Sum, Mean, Max, Min, Prod };  // Max and Min: NaN wins, as on the CPU

// The input viewed as alternating groups of kept and reduced dims (merged
// neighbours, size-1 dims dropped), outermost first.
struct ReduceGeometry {
  int groups = 0;
  int64_t sizes[kMaxDims] = {};
  bool reduced[kMaxDims] = {};
  int64_t out_count = 1;     // product of kept sizes
  int64_t reduce_count = 1;  // product of reduced sizes
};

// in and out of `kind`.
void launch_reduce(cudaStream_t stream, FloatKind kind, ReduceOp op, const void* in, void* out,
                   const ReduceGeometry& g);

// ---- softmax.cu ----------------------------------------------------------------
void launch_softmax(cudaStream_t stream, const float* logits, float* out, int64_t rows, int64_t cols);
// Loss per row and backprop (softmax - labels). Exactly one of dense_labels
// ([rows, cols] probabilities) and sparse_labels ([rows] class ids, validated
// by the caller) is non-null.
void launch_softmax_xent(cudaStream_t stream, const float* logits, const float* dense_labels,
                         const int64_t* sparse_labels, float* loss, float* backprop, int64_t rows, int64_t cols);

// ---- layout.cu -----------------------------------------------------------------
// Output element i (row-major over out_dims) reads the input element at
// base + sum_d at_d * in_strides[d], at_d = start[d] + coord_d * step[d] (taken
// modulo in_dims[d] where wrap[d]); where some at_d falls outside
// [0, in_dims[d]) it takes the fill value instead. A transpose is a map with
// permuted strides, a pad one with negative starts, a tile one that wraps.
struct IndexMap {
  int rank = 0;
  int64_t base = 0;  // added to every input offset
  int64_t out_dims[kMaxDims] = {};
  int64_t in_dims[kMaxDims] = {};
  int64_t in_strides[kMaxDims] = {};
  int64_t start[kMaxDims] = {};
  int64_t step[kMaxDims] = {};
  bool wrap[kMaxDims] = {};
};
// element_bytes: 1, 2, 4 or 8 (other sizes do nothing); the fill element is
// *device_fill (one element in device memory: PadV2's constant) or, when
// that is null, the low bytes of fill_bits.
void launch_index_map(cudaStream_t stream, int element_bytes, const void* in, void* out, int64_t n,
                      const IndexMap& map, uint64_t fill_bits, const void* device_fill = nullptr);

// ---- gather.cu -----------------------------------------------------------------
// Gathers whose source offsets are not affine: output element (c, j), with c
// the row-major coordinates over dims[0, rank) and j in [0, inner), reads
// in[sum_d table_d[c_d] + j]. `tables` (device memory) holds table_0 ..
// table_{rank-1} one after another, dims[d] element offsets each. Gather is
// one table of row offsets, MirrorPad a table per padded dim.
struct TableGather {
  int rank = 0;
  int64_t dims[kMaxDims] = {};
  int64_t inner = 1;
};
// element_bytes: 1, 2, 4 or 8 (other sizes do nothing).
void launch_table_gather(cudaStream_t stream, int element_bytes, const void* in, const int64_t* tables,
                         const TableGather& g, void* out);
// OneHot over [prefix, depth, suffix]: *on where indices[p * suffix + s] == d,
// else *off (device scalars of element_bytes: 2, 4 or 8).
void launch_one_hot(cudaStream_t stream, int element_bytes, const int64_t* indices, const void* on, const void* off,
                    void* out, int64_t prefix, int64_t depth, int64_t suffix);
// UnsortedSegmentSum in the CPU's order: output row s is 0 plus data rows
// rows[starts[s] .. starts[s + 1]) in ascending order, `width` floats each
// (the segments' row lists, built on the host: no atomics, so the sums are
// deterministic and match the CPU's).
void launch_segment_sum(cudaStream_t stream, const float* data, const int64_t* starts, const int64_t* rows,
                        float* out, int64_t segments, int64_t width);

// ---- select.cu -----------------------------------------------------------------
enum class CompareOp { Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual };
// out[i] = a[.] op b[.] as one byte per bool, broadcast as launch_binary.
void launch_compare(cudaStream_t stream, CompareOp op, const float* a, const float* b, bool* out, int64_t n,
                    const BroadcastIndex& index);
// Output element at coordinates c over dims (row-major): then[c . then_strides]
// where cond[c . cond_strides], else else[c . else_strides].
struct SelectIndex {
  int rank = 0;
  int64_t dims[kMaxDims] = {};
  int64_t cond_strides[kMaxDims] = {};
  int64_t then_strides[kMaxDims] = {};
  int64_t else_strides[kMaxDims] = {};
};
// element_bytes: 1, 2, 4 or 8 (other sizes do nothing).
void launch_select(cudaStream_t stream, int element_bytes, const bool* cond, const void* then, const void* other,
                   void* out, int64_t n, const SelectIndex& index);
// ClipByValue: out[i] = max(min(x[i], hi[i * hi_step]), lo[i * lo_step]),
// steps 0 (a scalar bound) or 1; NaN in x passes through, as on the CPU.
void launch_clip(cudaStream_t stream, const float* x, const float* lo, int64_t lo_step, const float* hi,
                 int64_t hi_step, float* out, int64_t n);

// ---- arg_reduce.cu -------------------------------------------------------------
// ArgMax / ArgMin of x viewed as [outer, n, inner] over n, as the CPU's scan
// from (0, lowest) taking only strictly better values: the first index of
// the best value above lowest (below highest for min); NaN never wins; 0
// when nothing beats the start.
void launch_arg_reduce(cudaStream_t stream, bool is_max, const float* x, int64_t* out, int64_t outer, int64_t n,
                       int64_t inner);

// ---- im2col.cu -----------------------------------------------------------------
// One group of a convolution over an NHWC input: channels [channel_offset,
// channel_offset + group_depth) of in_depth. The patch matrix has a row per
// output position (batch, out_rows, out_cols) and a column per filter tap
// (filter_rows, filter_cols, group_depth), the HWIO filter's row order.
struct PatchGeometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t group_depth = 0, channel_offset = 0;
  int64_t filter_rows = 0, filter_cols = 0, out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1, dilation_rows = 1, dilation_cols = 1;
  int64_t pad_top = 0, pad_left = 0;
};
void launch_im2col(cudaStream_t stream, const PatchGeometry& g, const float* in, float* col);
// Writes (not adds) the group's channels of `in` from the patch matrix.
void launch_col2im(cudaStream_t stream, const PatchGeometry& g, const float* col, float* in);

// ---- pool.cu -------------------------------------------------------------------
struct PoolGeometry {
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t oh = 0, ow = 0, pt = 0, pl = 0;
  bool nchw = false;
};
void launch_max_pool(cudaStream_t stream, const PoolGeometry& g, const float* in, float* out);
void launch_avg_pool(cudaStream_t stream, const PoolGeometry& g, const float* in, float* out);
void launch_avg_pool_grad(cudaStream_t stream, const PoolGeometry& g, const float* grad, float* out);
// argmax: scratch of one int64 per output element.
void launch_max_pool_grad(cudaStream_t stream, const PoolGeometry& g, const float* in, const float* grad,
                          int64_t* argmax, float* out);

// ---- batch_norm.cu -------------------------------------------------------------
// variance = 1 / inv_std^2 - epsilon, and back: inv_std = rsqrt(variance + epsilon).
void launch_inv_std_to_variance(cudaStream_t stream, const float* inv_std, float epsilon, float* variance,
                                int64_t n);
void launch_variance_to_inv_std(cudaStream_t stream, const float* variance, float epsilon, float* inv_std,
                                int64_t n);

// ---- training.cu ---------------------------------------------------------------
// Scalars (alpha, lr, ...) are device pointers to one float, as the graph
// delivers them; updates write fresh outputs (see training_ops.cpp).
void launch_apply_gradient_descent(cudaStream_t stream, const float* var, const float* alpha, const float* delta,
                                   float* out, int64_t n);
void launch_apply_momentum(cudaStream_t stream, const float* var, const float* accum, const float* lr,
                           const float* grad, const float* momentum, bool nesterov, float* out_var,
                           float* out_accum, int64_t n);
void launch_apply_keras_momentum(cudaStream_t stream, const float* var, const float* accum, const float* lr,
                                 const float* grad, const float* momentum, bool nesterov, float* out_var,
                                 float* out_accum, int64_t n);
struct AdamScalars {
  const float* beta1_power;
  const float* beta2_power;
  const float* lr;
  const float* beta1;
  const float* beta2;
  const float* epsilon;
};
void launch_apply_adam(cudaStream_t stream, const float* var, const float* m, const float* v, const AdamScalars& s,
                       const float* grad, bool nesterov, float* out_var, float* out_m, float* out_v, int64_t n);

}  // namespace flowlens::cuda
