// Ops that permute elements: Transpose, ReverseV2, ReverseSequence,
// DepthToSpace and SpaceToDepth. Their kernels move whole elements (any POD dtype or string)
// through an index mapping (gather_elements), in host or device memory: a
// GPU runs the same kernels, its memory doing the gather.
#include <limits>

#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

// A new output of `shape` whose elements, in order, are those of `x` that
// for_each_mapped(view, in_stride, base) visits (view has shape's elements).
void gather_mapped(KernelContext& ctx, const Tensor& x, Shape shape, const std::vector<int64_t>& view,
                   const std::vector<int64_t>& in_stride, int64_t base, const char* op) {
  Tensor& out = ctx.allocate_output(0, x.dtype(), std::move(shape));
  gather_elements(out, x, view, in_stride, base, op);
}

// ---- Transpose ---------------------------------------------------------------

// The permutation, validated as TransposeOp does (negative entries wrap).
std::vector<int64_t> permutation(const Tensor& perm_t, int dims) {
  if (perm_t.shape().rank() != 1) fail("perm must be rank 1, got shape " + shape_str(perm_t.shape()));
  std::vector<int64_t> perm = read_ints("Transpose", "perm", perm_t);
  if (static_cast<int64_t>(perm.size()) != dims)
    fail("transpose expects a vector of size " + std::to_string(dims) + ". But input(1) is a vector of size " +
         std::to_string(perm.size()));
  std::vector<bool> seen(static_cast<size_t>(dims), false);
  for (int64_t& d : perm) {
    if (d < 0) d += dims;
    if (d < 0 || d >= dims) fail(std::to_string(d) + " is out of range [0 .. " + std::to_string(dims) + ")");
    seen[static_cast<size_t>(d)] = true;
  }
  for (int i = 0; i < dims; ++i)
    if (!seen[static_cast<size_t>(i)]) fail(std::to_string(i) + " is missing from {" + join(perm, ",") + "}.");
  return perm;
}

void transpose_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const int rank = x.shape().rank();
  const std::vector<int64_t> perm = permutation(input(ctx, 1), rank);
  const std::vector<int64_t>& in_dims = x.shape().dims();
  const std::vector<int64_t> in_strides = strides_of(in_dims);
  std::vector<int64_t> dims(static_cast<size_t>(rank)), stride(static_cast<size_t>(rank));
  std::vector<int64_t> moved;  // the order of the non-singleton dims
  for (int i = 0; i < rank; ++i) {
    const auto p = static_cast<size_t>(perm[static_cast<size_t>(i)]);
    dims[static_cast<size_t>(i)] = in_dims[p];
    stride[static_cast<size_t>(i)] = in_strides[p];
    if (in_dims[p] != 1) moved.push_back(static_cast<int64_t>(p));
  }
  // Only size-1 dims move: the element order is unchanged.
  if (std::is_sorted(moved.begin(), moved.end())) {
    ctx.set_output(0, x.reshaped(Shape(std::move(dims))));
    return;
  }
  gather_mapped(ctx, x, Shape(dims), dims, stride, 0, "Transpose");
}

void transpose_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  const Shape& perm_shape = ctx.input(1).shape;
  const Tensor* perm = ctx.constant_input(1);
  const int64_t perm_elems = perm_shape.rank_known() && perm_shape.rank() == 1 ? perm_shape.dim(0) : -1;
  if (!in.rank_known() && perm_elems < 0 && !perm) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const int64_t rank = in.rank_known() ? in.rank() : perm_elems >= 0 ? perm_elems : perm->num_elements();
  if (!in.rank_known() && rank < 2) {  // a 1-element perm fits a scalar or a vector
    ctx.set_output(0, t, in);
    return;
  }
  with_rank(in, static_cast<int>(rank));
  with_rank(perm_shape, 1);
  if (perm_elems >= 0 && perm_elems != rank)
    fail("Dimension must be " + std::to_string(rank) + " but is " + std::to_string(perm_elems));
  std::vector<int64_t> dims(static_cast<size_t>(rank), Shape::kUnknownDim);
  if (perm) {
    const std::vector<int64_t> p = read_ints("Transpose", "perm", *perm);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = p[static_cast<size_t>(i)];
      if (d >= rank || d < -rank)
        fail("perm dim " + std::to_string(d) + " is out of range of input rank " + std::to_string(rank));
      if (d < 0) d += rank;
      if (in.rank_known()) dims[static_cast<size_t>(i)] = in.dim(static_cast<int>(d));
    }
  }
  ctx.set_output(0, t, Shape(std::move(dims)));
}

// ---- ReverseV2 -------------------------------------------------------------------

void reverse_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const Tensor& axis_t = input(ctx, 1);
  const int rank = x.shape().rank();
  if (rank == 0 || x.num_elements() == 0) {
    ctx.set_output(0, x);
    return;
  }
  if (axis_t.shape().rank() != 1)
    fail("'dims' must be 1-dimension, not " + std::to_string(axis_t.shape().rank()));
  const std::vector<int64_t> axes = read_ints("ReverseV2", "axis", axis_t);
  std::vector<bool> reversed(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i] < 0 ? rank + axes[i] : axes[i];
    if (a < 0 || a >= rank)
      fail("'axis'[" + std::to_string(i) + "] = " + std::to_string(axes[i]) + " is out of valid range [0, " +
           std::to_string(rank - 1));
    if (reversed[static_cast<size_t>(a)]) fail("axis " + std::to_string(a) + " specified more than once.");
    reversed[static_cast<size_t>(a)] = true;
  }
  if (rank > 8) fail("reverse is not implemented for tensors of rank > 8.");
  // A reversed dim is read from its last index backwards.
  const std::vector<int64_t>& dims = x.shape().dims();
  std::vector<int64_t> stride = strides_of(dims);
  int64_t base = 0;
  for (int d = 0; d < rank; ++d) {
    if (!reversed[static_cast<size_t>(d)]) continue;
    base += (dims[static_cast<size_t>(d)] - 1) * stride[static_cast<size_t>(d)];
    stride[static_cast<size_t>(d)] = -stride[static_cast<size_t>(d)];
  }
  gather_mapped(ctx, x, x.shape(), dims, stride, base, "ReverseV2");
}

void reverse_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  with_rank(ctx.input(1).shape, 1);
  if (in.rank_known() && in.rank() > 8) fail("reverse does not work on tensors with more than 8 dimensions");
  const Tensor* axis_t = ctx.constant_input(1);
  if (axis_t && in.rank_known()) {
    const int rank = in.rank();
    const std::vector<int64_t> axes = read_ints("ReverseV2", "axis", *axis_t);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i] < 0 ? rank + axes[i] : axes[i];
      if (a < 0 || a >= rank)
        fail("'axis'[" + std::to_string(i) + "] = " + std::to_string(axes[i]) + " is out of valid range [0, " +
             std::to_string(rank - 1));
      if (seen[static_cast<size_t>(a)]) fail("axis " + std::to_string(a) + " specified more than once.");
      seen[static_cast<size_t>(a)] = true;
    }
  }
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), in);
}

// ---- ReverseSequence ---------------------------------------------------------------

// batch_dim / seq_dim as ReverseSequenceOp's constructor reads them (int32 attrs).
int64_t reverse_sequence_dim(const AttrReader& attrs, const char* name) {
  const int64_t v = attrs.integer(name);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    fail(std::string("Attr ") + name + " has value " + std::to_string(v) + " out of range for an int32");
  if (v < 0) fail(std::string("Invalid ") + name + " " + std::to_string(v));
  return v;
}

// reverse_sequence_op.cc: Compute's vector check, then CheckErrors in its order.
void reverse_sequence_kernel(KernelContext& ctx) {
  const int64_t batch_dim = reverse_sequence_dim(ctx.attrs(), "batch_dim");
  const int64_t seq_dim = reverse_sequence_dim(ctx.attrs(), "seq_dim");
  const Tensor& x = input(ctx, 0);
  const Tensor& lens_t = input(ctx, 1);
  if (lens_t.shape().rank() != 1) fail("seq_lengths must be 1-dim, not " + std::to_string(lens_t.shape().rank()));
  const std::vector<int64_t> lens = read_ints("ReverseSequence", "seq_lengths", lens_t);
  const int rank = x.shape().rank();
  if (batch_dim == seq_dim) fail("batch_dim == seq_dim == " + std::to_string(seq_dim));
  if (seq_dim >= rank)
    fail("seq_dim must be < input rank ( " + std::to_string(seq_dim) + " vs. " + std::to_string(rank) + ")");
  if (batch_dim >= rank)
    fail("batch_dim must be < input rank ( " + std::to_string(batch_dim) + " vs. " + std::to_string(rank) + ")");
  const int64_t batch = x.shape().dim(static_cast<int>(batch_dim));
  const int64_t seq = x.shape().dim(static_cast<int>(seq_dim));
  if (static_cast<int64_t>(lens.size()) != batch)
    fail("Length of seq_lengths != input.dims(" + std::to_string(batch_dim) + "), (" + std::to_string(lens.size()) +
         " vs. " + std::to_string(batch) + ")");
  for (size_t d = 0; d < lens.size(); ++d) {
    if (lens[d] < 0) fail("seq_lens(" + std::to_string(d) + ") < 0");
    if (lens[d] > seq) fail("seq_lens(" + std::to_string(d) + ") > input.dims(" + std::to_string(seq_dim) + ")");
  }
  // TensorFlow instantiates the functor for ranks 2 to 5 only.
  if (rank < 2 || rank > 5) fail("ReverseSequenceOp : Unhandled input dimensions: " + std::to_string(rank));
  const std::vector<int64_t> stride = strides_of(x.shape().dims());
  const int64_t batch_stride = stride[static_cast<size_t>(batch_dim)];
  const int64_t seq_stride = stride[static_cast<size_t>(seq_dim)];
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  dispatch_element(x.dtype(), "ReverseSequence", [&](auto tag) {
    using E = decltype(tag);
    const E* in = elements<E>(x);
    E* o = elements<E>(out);
    // Position s < len of a batch row reads position len - 1 - s; the rest are copied.
    for (int64_t i = 0, n = x.num_elements(); i < n; ++i) {
      const int64_t b = (i / batch_stride) % batch;
      const int64_t s = (i / seq_stride) % seq;
      const int64_t len = lens[static_cast<size_t>(b)];
      o[i] = s < len ? in[i + (len - 1 - 2 * s) * seq_stride] : in[i];
    }
  });
}

// array_ops.cc's shape function: seq_lengths a vector whose length merges
// with the input's batch_dim. Negative dims are refused with the kernel's
// words (TensorFlow's kernel refuses them when it is built).
void reverse_sequence_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  const Shape& lens = ctx.input(1).shape;
  with_rank(lens, 1);
  const int64_t seq_dim = reverse_sequence_dim(ctx.attrs(), "seq_dim");
  const int64_t batch_dim = reverse_sequence_dim(ctx.attrs(), "batch_dim");
  if (!in.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const int rank = in.rank();
  if (batch_dim >= rank)
    fail("batch_dim must be < input rank: " + std::to_string(batch_dim) + " vs. " + std::to_string(rank));
  if (seq_dim >= rank)
    fail("seq_dim must be < input rank: " + std::to_string(seq_dim) + " vs. " + std::to_string(rank));
  Shape out = in;
  int64_t& batch = out.dim(static_cast<int>(batch_dim));
  const int64_t n = lens.rank_known() ? lens.dim(0) : Shape::kUnknownDim;
  if (batch != Shape::kUnknownDim && n != Shape::kUnknownDim && batch != n)
    fail("Dimensions must be equal, but are " + std::to_string(batch) + " and " + std::to_string(n));
  if (batch == Shape::kUnknownDim) batch = n;
  ctx.set_output(0, t, std::move(out));
}

// ---- DepthToSpace / SpaceToDepth ---------------------------------------------------

// The checks both kernels share: NHWC only on the CPU, rank 4.
void check_space_depth(KernelContext& ctx, const Tensor& x, bool to_space, int64_t block) {
  const std::string& format = ctx.attrs().string("data_format");
  if (format != "NHWC") fail("Only NHWC data_format supported on CPU. Got " + format);
  // TensorFlow's kernels read block_size into an int.
  if (block > std::numeric_limits<int32_t>::max())
    fail("Attr block_size has value " + std::to_string(block) + " out of range for an int32");
  if (block < 2)
    fail(to_space ? "Block size should be > 1: " + std::to_string(block)
                  : "Block size should be > 1, but was: " + std::to_string(block));
  const int rank = x.shape().rank();
  if (rank != 4)
    fail(to_space ? "Input rank should be: 4 instead of: " + std::to_string(rank)
                  : "Input rank should be 4 instead of " + std::to_string(rank));
}

// The small tensor [N, H, W, bs, bs, C] is the large one [N, H*bs, W*bs, C]
// with its blocks laid out along the depth: depth index (oh * bs + ow) * C + c.
void depth_to_space_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const int64_t bs = ctx.attrs().integer("block_size");
  check_space_depth(ctx, x, true, bs);
  const int64_t n = x.shape().dim(0), h = x.shape().dim(1), w = x.shape().dim(2), depth = x.shape().dim(3);
  if (depth % (bs * bs) != 0)
    fail("Input depth dimension " + std::to_string(depth) + " should be divisible by: " + std::to_string(bs * bs));
  const int64_t c = depth / (bs * bs);
  // Output [n, h, bs, w, bs, c] reads input [n, h, w, (bs_h, bs_w, c)].
  const std::vector<int64_t> view{n, h, bs, w, bs, c};
  checked_elements("DepthToSpace", view);  // the output's size: h * bs and w * bs fit in int64 below
  const std::vector<int64_t> stride{h * w * depth, w * depth, bs * c, depth, c, 1};
  gather_mapped(ctx, x, Shape{n, h * bs, w * bs, c}, view, stride, 0, "DepthToSpace");
}

void space_to_depth_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const int64_t bs = ctx.attrs().integer("block_size");
  check_space_depth(ctx, x, false, bs);
  const int64_t n = x.shape().dim(0), h = x.shape().dim(1), w = x.shape().dim(2), c = x.shape().dim(3);
  if (h % bs != 0 || w % bs != 0)
    fail("Image width " + std::to_string(w) + " and height " + std::to_string(h) +
         " should be divisible by block_size: " + std::to_string(bs));
  // Output [n, h/bs, w/bs, (bs_h, bs_w, c)] reads input [n, (h/bs, bs_h), (w/bs, bs_w), c].
  const std::vector<int64_t> view{n, h / bs, w / bs, bs, bs, c};
  const std::vector<int64_t> stride{h * w * c, bs * w * c, bs * c, w * c, c, 1};
  gather_mapped(ctx, x, Shape{n, h / bs, w / bs, c * bs * bs}, view, stride, 0, "SpaceToDepth");
}

// Shape functions of both, for every data_format (the kernels take NHWC only).
void space_depth_shape(ShapeContext& ctx, bool to_space) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const std::string& format = ctx.attrs().string("data_format");
  const bool vect = format == "NCHW_VECT_C";
  const Shape& in = ctx.input(0).shape;
  with_rank(in, vect ? 5 : 4);
  const int64_t bs = ctx.attrs().integer("block_size");
  if (bs < 2) fail("Block size should be > 1: " + std::to_string(bs));
  if (bs > std::numeric_limits<int32_t>::max())
    fail("Attr block_size has value " + std::to_string(bs) + " out of range for an int32");
  if (!in.rank_known()) {
    ctx.set_output(0, t, unknown_shape(vect ? 5 : 4));
    return;
  }
  const bool nhwc = format == "NHWC";
  const int hi = nhwc ? 1 : 2, wi = nhwc ? 2 : 3, ci = nhwc ? 3 : 1;
  auto divide = [](int64_t d, int64_t by) {
    if (d < 0) return d;
    if (d % by != 0)
      fail("Dimension size must be evenly divisible by " + std::to_string(by) + " but is " + std::to_string(d));
    return d / by;
  };
  const char* op = to_space ? "DepthToSpace" : "SpaceToDepth";
  auto multiply = [op](int64_t d, int64_t by) { return d < 0 ? d : checked_elements(op, {d, by}); };
  Shape out = in;
  out.dim(hi) = to_space ? multiply(in.dim(hi), bs) : divide(in.dim(hi), bs);
  out.dim(wi) = to_space ? multiply(in.dim(wi), bs) : divide(in.dim(wi), bs);
  out.dim(ci) = to_space ? divide(in.dim(ci), bs * bs) : multiply(in.dim(ci), bs * bs);
  ctx.set_output(0, t, std::move(out));
}

void depth_to_space_shape(ShapeContext& ctx) { space_depth_shape(ctx, true); }
void space_to_depth_shape(ShapeContext& ctx) { space_depth_shape(ctx, false); }

}  // namespace

void register_transpose_ops(OpRegistry& r) {
  const std::vector<DType> all = pod_string_dtypes();
  r.add(OpBuilder("Transpose")
            .input("x: T")
            .input("perm: Tperm")
            .output("y: T")
            .attr("T: type")
            .attr("Tperm: {int32, int64} = DT_INT32")
            .shape(transpose_shape)
            .cpu(transpose_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("Permutes the dimensions: output dim i is input dim perm[i]."));
  r.add(OpBuilder("ReverseV2")
            .input("tensor: T")
            .input("axis: Tidx")
            .output("output: T")
            .attr("Tidx: {int32, int64} = DT_INT32")
            .attr("T: {uint8, int8, uint16, int16, int32, int64, bool, bfloat16, half, float, double, complex64, "
                  "complex128, string}")
            .shape(reverse_shape)
            .cpu(reverse_kernel, without(all, {DType::UInt32, DType::UInt64}))
            .moves_bytes_only()
            .category("array")
            .doc("Reverses the order of the elements along the given axes."));
  r.add(OpBuilder("ReverseSequence")
            .input("input: T")
            .input("seq_lengths: Tlen")
            .output("output: T")
            .attr("seq_dim: int")
            .attr("batch_dim: int = 0")
            .attr("T: type")
            .attr("Tlen: {int32, int64} = DT_INT64")
            .shape(reverse_sequence_shape)
            .cpu(reverse_sequence_kernel, all)
            .no_gpu("reads seq_lengths on the host; soft placement runs it on the CPU")
            .category("array")
            .doc("Reverses the first seq_lengths[i] elements along seq_dim of each slice i along batch_dim."));
  for (bool to_space : {true, false})
    r.add(OpBuilder(to_space ? "DepthToSpace" : "SpaceToDepth")
              .input("input: T")
              .output("output: T")
              .attr("T: type")
              .attr("block_size: int >= 2")
              .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
              .shape(to_space ? depth_to_space_shape : space_to_depth_shape)
              .cpu(to_space ? depth_to_space_kernel : space_to_depth_kernel, all)
              .moves_bytes_only()
              .category("array")
              .doc(to_space ? "Moves depth blocks into block_size x block_size spatial blocks (NHWC)."
                            : "Moves block_size x block_size spatial blocks into the depth (NHWC)."));
}

}  // namespace flowlens::ops
