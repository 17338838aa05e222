// Tile(input, multiples) and BroadcastTo(input, shape): both repeat the input
// along its dimensions (BroadcastTo is a tile of size-1 dims after right-
// aligning the ranks), so one copy routine serves both, in host or device
// memory. Any fixed-size dtype and strings are copied; shapes computed from
// the inputs are checked before anything is allocated.
#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

// out[i...] = in[i % in_dims ...], for in_dims of out's rank dividing out_dims:
// one strided gather (tensor/copy_rows.h), so a device runs it too. A tiled
// dim d becomes two in the view, the repeat (stride 0) and the input's
// extent; a broadcast one (in_dims 1) is a stride-0 dim.
void tile_copy(const Tensor& in, const std::vector<int64_t>& in_dims, Tensor& out, const char* op) {
  const std::vector<int64_t>& out_dims = out.shape().dims();
  const std::vector<int64_t> in_stride = strides_of(in_dims);
  std::vector<int64_t> view, stride;
  for (std::size_t d = 0; d < out_dims.size(); ++d) {
    if (in_dims[d] == out_dims[d]) {
      view.push_back(out_dims[d]), stride.push_back(in_stride[d]);
    } else if (in_dims[d] == 1) {
      view.push_back(out_dims[d]), stride.push_back(0);
    } else {
      view.push_back(out_dims[d] / in_dims[d]), stride.push_back(0);
      view.push_back(in_dims[d]), stride.push_back(in_stride[d]);
    }
  }
  gather_elements(out, in, view, stride, 0, op);
}

void check_tileable(const char* op, DType t) {
  if (t != DType::String) check_copyable(op, t);
}

// ---- Tile ------------------------------------------------------------------------

void tile_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& m = input(ctx, 1);
  check_tileable("Tile", x.dtype());
  if (m.shape().rank() != 1) fail("Expected multiples to be 1-D, but got shape " + shape_str(m.shape()));
  const int rank = x.shape().rank();
  if (m.num_elements() != rank)
    fail("Expected multiples argument to be a vector of length " + std::to_string(rank) + " but got length " +
         std::to_string(m.num_elements()));
  const std::vector<int64_t> multiples = read_ints("Tile", "multiples", m);
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const int64_t k = multiples[static_cast<size_t>(i)];
    if (k < 0) fail("Expected multiples[" + std::to_string(i) + "] >= 0, but got " + std::to_string(k));
    if (__builtin_mul_overflow(x.shape().dim(i), k, &dims[static_cast<size_t>(i)]))
      fail("Tile: output dimension " + std::to_string(i) + " overflows int64");
  }
  checked_elements("Tile", dims);
  if (Shape(dims) == x.shape()) {  // every multiple 1 (or a scalar): the input itself
    ctx.set_output(0, x);
    return;
  }
  tile_copy(x, x.shape().dims(), ctx.allocate_output(0, x.dtype(), Shape(dims)), "Tile");
}

// TF's Tile shape function: multiples (as a shape) times the input's dims.
void tile_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  const Shape& m = ctx.input(1).shape;
  if (m.rank_known() && m.rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(m.rank()));
  int rank = in.rank_known() ? in.rank() : -1;
  if (rank >= 0 && m.rank_known() && m.dim(0) >= 0 && m.dim(0) != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(m.dim(0)));
  if (rank < 0 && m.rank_known() && m.dim(0) >= 0) rank = static_cast<int>(m.dim(0));
  if (rank < 0) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const Tensor* c = ctx.constant_input(1);
  std::vector<int64_t> multiples = c ? read_ints("Tile", "multiples", *c) : std::vector<int64_t>{};
  if (c && static_cast<int>(multiples.size()) != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(multiples.size()));
  std::vector<int64_t> dims(static_cast<size_t>(rank), Shape::kUnknownDim);
  for (int i = 0; i < rank && c; ++i) {
    const int64_t k = multiples[static_cast<size_t>(i)];
    const int64_t d = in.rank_known() ? in.dim(i) : Shape::kUnknownDim;
    int64_t product = 0;
    if (k >= 0 && d >= 0 && !__builtin_mul_overflow(d, k, &product)) dims[static_cast<size_t>(i)] = product;
    else if (k == 0) dims[static_cast<size_t>(i)] = 0;
  }
  ctx.set_output(0, t, Shape(std::move(dims)));
}

// ---- BroadcastTo ------------------------------------------------------------------

// The target shape (TF's tensor::MakeShape).
std::vector<int64_t> target_shape(const Tensor& shape) {
  if (shape.shape().rank() != 1)
    fail("shape must be a vector of {int32,int64}, got shape " + shape_str(shape.shape()));
  std::vector<int64_t> dims = read_ints("BroadcastTo", "shape", shape);
  for (int64_t d : dims)
    if (d < 0) fail("Dimension " + std::to_string(d) + " must be >= 0");
  checked_elements("BroadcastTo", dims);
  return dims;
}

void broadcast_to_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  check_tileable("BroadcastTo", x.dtype());
  const std::vector<int64_t> out_dims = target_shape(input(ctx, 1));
  const Shape& in = x.shape();
  if (Shape(out_dims) == in) {
    ctx.set_output(0, x);
    return;
  }
  const int out_rank = static_cast<int>(out_dims.size()), in_rank = in.rank();
  if (in_rank > out_rank)
    fail("Rank of input (" + std::to_string(in_rank) + ") must be no greater than rank of output shape (" +
         std::to_string(out_rank) + ").");
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(out_dims));
  if (out.num_elements() == 0) return;  // TF returns before checking compatibility
  std::vector<int64_t> in_dims(static_cast<size_t>(out_rank), 1);  // right-aligned
  for (int i = 0; i < in_rank; ++i) {
    const int64_t a = in.dim(i), b = out_dims[static_cast<size_t>(out_rank - in_rank + i)];
    if (a != b && a != 1 && b != 1) fail("Incompatible shapes: " + shape_str(in) + " vs. " + shape_str(Shape(out_dims)));
    if (a != b && a != 1)
      fail("Unable to broadcast tensor of shape " + shape_str(in) + " to tensor of shape " + shape_str(Shape(out_dims)));
    in_dims[static_cast<size_t>(out_rank - in_rank + i)] = a;
  }
  tile_copy(x, in_dims, out, "BroadcastTo");
}

// TF's BroadcastTo shape function: the target shape, with input dims > 1
// merged into it from the right.
void broadcast_to_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& shape_in = ctx.input(1).shape;
  if (shape_in.rank_known() && shape_in.rank() != 1)
    fail("Shape must be rank 1 but is rank " + std::to_string(shape_in.rank()));
  Shape out = Shape::unknown_rank();
  if (const Tensor* c = ctx.constant_input(1)) out = shape_from_tensor(*c);
  else if (shape_in.rank_known() && shape_in.dim(0) >= 0) out = unknown_shape(static_cast<int>(shape_in.dim(0)));
  const Shape& in = ctx.input(0).shape;
  if (!out.rank_known() || !in.rank_known()) {
    ctx.set_output(0, t, out);
    return;
  }
  const int out_rank = out.rank(), in_rank = in.rank();
  if (in_rank > out_rank)
    fail("Shape must be at most rank " + std::to_string(out_rank) + " but is rank " + std::to_string(in_rank));
  for (int i = 0; i < in_rank; ++i) {
    const int64_t a = in.dim(in_rank - 1 - i);
    int64_t& b = out.dim(out_rank - 1 - i);
    if (a <= 1) continue;
    if (b >= 0 && b != a)
      fail("Dimensions must be equal, but are " + std::to_string(a) + " and " + std::to_string(b));
    b = a;
  }
  ctx.set_output(0, t, out);
}

}  // namespace

void register_tile_ops(OpRegistry& r) {
  r.add(OpBuilder("Tile")
            .input("input: T")
            .input("multiples: Tmultiples")
            .output("output: T")
            .attr("T: type")
            .attr("Tmultiples: {int32, int64} = DT_INT32")
            .shape(tile_shape)
            .cpu(tile_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Repeats the input multiples[i] times along dimension i."));
  r.add(OpBuilder("BroadcastTo")
            .input("input: T")
            .input("shape: Tidx")
            .output("output: T")
            .attr("T: type")
            .attr("Tidx: {int32, int64} = DT_INT32")
            .shape(broadcast_to_shape)
            .cpu(broadcast_to_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("The input broadcast (NumPy rules, right-aligned) to the given shape."));
}

}  // namespace flowlens::ops
