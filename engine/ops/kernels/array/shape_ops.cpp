// Ops that change only a tensor's shape or report it: Reshape, ExpandDims,
// Squeeze (the buffer is shared), Shape, ShapeN, Size, Rank (no values
// read), and Fill.
#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

// ---- Reshape ------------------------------------------------------------------

// TensorFlow's ReshapeOp: one -1 at most, no size below -1; the -1 is
// inferred from the input's count, leaving out zero dims when the requested
// shape has one (so [0,3] -> [-1,0] gives [3,0]); then the counts must match.
Shape reshape_target(const Tensor& x, const Tensor& sizes_t) {
  const Shape& ss = sizes_t.shape();
  if (ss.rank() > 1) fail("sizes input must be 1-D, not shape " + shape_str(ss));
  std::vector<int64_t> dims = read_ints("Reshape", "shape", sizes_t);
  int unknown = -1;
  bool sizes_have_zero = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == -1) {
      if (unknown >= 0)
        fail("Only one input size may be -1, not both " + std::to_string(unknown) + " and " + std::to_string(d));
      unknown = static_cast<int>(d);
    } else if (dims[d] < 0) {
      fail("Size " + std::to_string(d) + " must be non-negative, not " + std::to_string(dims[d]));
    } else if (dims[d] == 0) {
      sizes_have_zero = true;
    }
  }
  if (unknown >= 0) {
    std::vector<int64_t> known = dims;
    known[static_cast<size_t>(unknown)] = 1;
    for (int64_t& d : known) d = d == 0 ? 1 : d;
    const int64_t product = checked_elements("Reshape", known);
    std::vector<int64_t> counted;  // the input dims the -1 is inferred from
    bool input_has_zero = false;
    for (int64_t d : x.shape().dims()) {
      if (d > 0 || !sizes_have_zero) counted.push_back(d);
      else input_has_zero = true;
    }
    const int64_t input_count = checked_elements("Reshape", counted);
    const int64_t missing = input_count / product;
    if (!input_has_zero && product * missing != input_count)
      fail("Input to reshape is a tensor with " + std::to_string(input_count) +
           " values, but the requested shape requires a multiple of " + std::to_string(product));
    dims[static_cast<size_t>(unknown)] = missing;
  }
  const int64_t count = checked_elements("Reshape", dims);
  if (count != x.num_elements())
    fail("Input to reshape is a tensor with " + std::to_string(x.num_elements()) +
         " values, but the requested shape has " + std::to_string(count));
  return Shape(std::move(dims));
}

void reshape_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  ctx.set_output(0, x.reshaped(reshape_target(x, input(ctx, 1))));
}

// Known element count of `s`, with the index of its one unknown dim; count -1
// when the rank is unknown or more than one dim is. A count int64 cannot hold
// is an error (a wrapped product would let a huge shape pass for a small one).
std::pair<int64_t, int> known_elements(const Shape& s) {
  int64_t n = 1;
  int unknown = -1;
  for (int i = 0; i < s.rank(); ++i) {
    if (s.dim(i) >= 0) {
      if (__builtin_mul_overflow(n, s.dim(i), &n))
        fail("Reshape: shape " + shape_str(s) + " has more elements than int64 can count");
    } else if (unknown >= 0) {
      return {-1, -1};
    } else {
      unknown = i;
    }
  }
  return {n, unknown};
}

// SetOutputShapeForReshape: the requested shape (a -1 is an unknown dim),
// checked against and completed from the input's known elements.
void reshape_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  Shape out = Shape::unknown_rank();
  if (const Tensor* c = ctx.constant_input(1)) {
    if (c->shape().rank() == 0) {
      if (read_scalar_int("Reshape", "shape", *c) != -1)
        fail("Input tensor must be rank 1, or if its rank 0 it must have value -1 (to represent an unknown shape)");
    } else {
      with_rank(c->shape(), 1);
      out = shape_from_tensor(*c);
    }
  } else if (const Shape& s = ctx.input(1).shape; s.rank_known() && s.rank() == 1 && s.dim(0) >= 0) {
    out = unknown_shape(static_cast<int>(s.dim(0)));
  }
  if (out.rank_known() && in.rank_known()) {
    const auto [out_known, out_unknown] = known_elements(out);
    const auto [in_known, in_unknown] = known_elements(in);
    if (out_known >= 0 && in_known >= 0) {
      if (in_unknown < 0 && out_unknown < 0 && in_known != out_known)
        fail("Cannot reshape a tensor with " + std::to_string(in_known) + " elements to shape " + shape_str(out) +
             " (" + std::to_string(out_known) + " elements)");
      if (in_unknown < 0 && out_unknown >= 0 && out_known > 0) {
        if (in_known % out_known != 0)
          fail("Dimension size must be evenly divisible by " + std::to_string(out_known) + " but is " +
               std::to_string(in_known));
        out.dim(out_unknown) = in_known / out_known;
      }
    }
  }
  ctx.set_output(0, t, std::move(out));
}

// ---- ExpandDims / Squeeze ------------------------------------------------------

void expand_dims_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const Tensor& dim_t = input(ctx, 1);
  if (dim_t.num_elements() != 1) fail("'dim' must be a tensor with a single value");
  const int rank = x.shape().rank();
  int64_t dim = read_ints("ExpandDims", "dim", dim_t)[0];
  if (dim < -1 - rank || dim > rank)
    fail("Tried to expand dim index " + std::to_string(dim) + " for tensor with " + std::to_string(rank) +
         " dimensions.");
  if (dim < 0) dim += rank + 1;
  std::vector<int64_t> dims = x.shape().dims();
  dims.insert(dims.begin() + dim, 1);
  ctx.set_output(0, x.reshaped(Shape(std::move(dims))));
}

void expand_dims_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  const Tensor* dim_t = ctx.constant_input(1);
  if (dim_t && dim_t->num_elements() != 1) fail("'dim' input must be a tensor with a single value");
  if (!dim_t || !in.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  int64_t dim = read_ints("ExpandDims", "dim", *dim_t)[0];
  const int rank = in.rank();
  if (dim < -rank - 1 || dim > rank)
    fail("dim " + std::to_string(dim) + " not in the interval [" + std::to_string(-rank - 1) + ", " +
         std::to_string(rank) + "].");
  if (dim < 0) dim += rank + 1;
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + dim, 1);
  ctx.set_output(0, t, Shape(std::move(dims)));
}

// squeeze_dims wrapped to [0, rank); one out of range fails with the kernel's
// or the shape function's message.
std::vector<int64_t> squeeze_dims(const AttrReader& attrs, int rank, bool kernel) {
  std::vector<int64_t> dims = attrs.list("squeeze_dims").i;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < -rank || dims[i] >= rank) {
      if (kernel)
        fail("Tried to squeeze dim index " + std::to_string(dims[i]) + " for tensor with " + std::to_string(rank) +
             " dimensions.");
      fail("squeeze_dims[" + std::to_string(i) + "] not in [" + std::to_string(-rank) + "," + std::to_string(rank) +
           ").");
    }
    if (dims[i] < 0) dims[i] += rank;
  }
  return dims;
}

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

void squeeze_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const int rank = x.shape().rank();
  const std::vector<int64_t> wanted = squeeze_dims(ctx.attrs(), rank, true);
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = x.shape().dim(i);
    if (contains(wanted, i)) {
      if (d != 1)
        fail("Can not squeeze dim[" + std::to_string(i) + "], expected a dimension of 1, got " + std::to_string(d));
      continue;
    }
    if (wanted.empty() && d == 1) continue;
    dims.push_back(d);
  }
  ctx.set_output(0, x.reshaped(Shape(std::move(dims))));
}

void squeeze_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  if (!in.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const std::vector<int64_t> wanted = squeeze_dims(ctx.attrs(), in.rank(), false);
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    const int64_t d = in.dim(i);
    const bool explicit_match = contains(wanted, i);
    if (d < 0) {
      if (explicit_match) continue;  // assumed to be 1 at run time
      if (wanted.empty()) {
        ctx.set_output(0, t, Shape::unknown_rank());
        return;
      }
    } else if (d == 1) {
      if (explicit_match || wanted.empty()) continue;
    } else if (explicit_match) {
      fail("Can not squeeze dim[" + std::to_string(i) + "], expected a dimension of 1, got " + std::to_string(d));
    }
    dims.push_back(d);
  }
  ctx.set_output(0, t, Shape(std::move(dims)));
}

// ---- Shape / ShapeN / Size / Rank ----------------------------------------------------

void write_shape(Tensor& out, const Shape& s) {
  for (int i = 0; i < s.rank(); ++i) {
    if (out.dtype() == DType::Int64) {
      out.data<int64_t>()[i] = s.dim(i);
      continue;
    }
    if (s.dim(i) > INT32_MAX)
      fail("Shape output type is 32-bit  but dim " + std::to_string(i) + " is " + std::to_string(s.dim(i)));
    out.data<int32_t>()[i] = static_cast<int32_t>(s.dim(i));
  }
}

void shape_kernel(KernelContext& ctx) {
  const DType t = ctx.attrs().type("out_type");
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = input(ctx, i).shape();
    write_shape(ctx.allocate_output(i, t, Shape{s.rank()}), s);
  }
}

void shape_shape(ShapeContext& ctx) {
  const DType t = ctx.attrs().type("out_type");
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Shape& in = ctx.input(i).shape;
    ctx.set_output(i, t, Shape{in.rank_known() ? in.rank() : Shape::kUnknownDim});
  }
}

void size_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const DType t = ctx.attrs().type("out_type");
  Tensor& out = ctx.allocate_output(0, t, Shape{});
  if (t == DType::Int64) {
    out.data<int64_t>()[0] = x.num_elements();
    return;
  }
  if (x.num_elements() > INT32_MAX) fail("Number of elements was larger than representable by 32-bit output type");
  out.data<int32_t>()[0] = static_cast<int32_t>(x.num_elements());
}

void size_shape(ShapeContext& ctx) { ctx.set_output(0, ctx.attrs().type("out_type"), Shape{}); }

void rank_kernel(KernelContext& ctx) {
  ctx.allocate_output(0, DType::Int32, Shape{}).data<int32_t>()[0] = input(ctx, 0).shape().rank();
}

void rank_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Int32, Shape{}); }

// ---- Fill -------------------------------------------------------------------------

void fill_kernel(KernelContext& ctx) {
  const Tensor& dims_t = input(ctx, 0);
  const Tensor& value = input(ctx, 1);
  // Legacy forms TensorFlow still takes: scalar dims, a 1-element value vector.
  if (dims_t.shape().rank() > 1) fail("dims must represent a vector, got shape " + shape_str(dims_t.shape()));
  if (value.shape().rank() > 1 || value.num_elements() != 1)
    fail("value must represent a scalar, got shape " + shape_str(value.shape()));
  Tensor& out = ctx.allocate_output(0, value.dtype(), make_shape("Fill", read_ints("Fill", "dims", dims_t)));
  dispatch_element(value.dtype(), "Fill", [&](auto tag) {
    using E = decltype(tag);
    std::fill_n(elements<E>(out), out.num_elements(), elements<E>(value)[0]);
  });
}

void fill_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 1);
  with_rank(ctx.input(0).shape, 1);
  with_rank(ctx.input(1).shape, 0);
  if (const Tensor* c = ctx.constant_input(0)) {
    std::vector<int64_t> dims = read_ints("Fill", "dims", *c);
    for (int64_t d : dims)
      if (d < 0) fail("Fill dimensions must be >= 0");
    ctx.set_output(0, t, Shape(std::move(dims)));
    return;
  }
  const Shape& d = ctx.input(0).shape;
  ctx.set_output(0, t, d.rank_known() && d.dim(0) >= 0 ? unknown_shape(static_cast<int>(d.dim(0))) : Shape::unknown_rank());
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
  const std::vector<DType> all = pod_string_dtypes();
  r.add(OpBuilder("Reshape")
            .input("tensor: T")
            .input("shape: Tshape")
            .output("output: T")
            .attr("T: type")
            .attr("Tshape: {int32, int64} = DT_INT32")
            .shape(reshape_shape)
            .cpu(reshape_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("The same values in another shape (one size may be -1)."));
  r.add(OpBuilder("ExpandDims")
            .input("input: T")
            .input("dim: Tdim")
            .output("output: T")
            .attr("T: type")
            .attr("Tdim: {int32, int64} = DT_INT32")
            .shape(expand_dims_shape)
            .cpu(expand_dims_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("Inserts a dimension of size 1 at index dim (negative counts from the end)."));
  r.add(OpBuilder("Squeeze")
            .input("input: T")
            .output("output: T")
            .attr("T: type")
            .attr("squeeze_dims: list(int) >= 0 = []")
            .shape(squeeze_shape)
            .cpu(squeeze_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("Removes dimensions of size 1 (those in squeeze_dims, or all)."));
  r.add(OpBuilder("Shape")
            .input("input: T")
            .output("output: out_type")
            .attr("T: type")
            .attr("out_type: {int32, int64} = DT_INT32")
            .shape(shape_shape)
            .cpu(shape_kernel)
            .reads_no_values()
            .not_differentiable("depends only on the input's shape (ops.NotDifferentiable)")
            .category("array")
            .doc("The input's shape as a 1-D tensor."));
  r.add(OpBuilder("ShapeN")
            .input("input: N * T")
            .output("output: N * out_type")
            .attr("N: int")
            .attr("T: type")
            .attr("out_type: {int32, int64} = DT_INT32")
            .shape(shape_shape)
            .cpu(shape_kernel)
            .reads_no_values()
            .not_differentiable("depends only on the inputs' shapes (ops.NotDifferentiable)")
            .category("array")
            .doc("The shapes of N tensors, one 1-D tensor each."));
  r.add(OpBuilder("Size")
            .input("input: T")
            .output("output: out_type")
            .attr("T: type")
            .attr("out_type: {int32, int64} = DT_INT32")
            .shape(size_shape)
            .cpu(size_kernel)
            .reads_no_values()
            .not_differentiable("depends only on the input's shape (ops.NotDifferentiable)")
            .category("array")
            .doc("The input's number of elements."));
  r.add(OpBuilder("Rank")
            .input("input: T")
            .output("output: int32")
            .attr("T: type")
            .shape(rank_shape)
            .cpu(rank_kernel)
            .reads_no_values()
            .not_differentiable("depends only on the input's shape (ops.NotDifferentiable)")
            .category("array")
            .doc("The input's number of dimensions."));
  r.add(OpBuilder("Fill")
            .input("dims: index_type")
            .input("value: T")
            .output("output: T")
            .attr("T: type")
            .attr("index_type: {int32, int64} = DT_INT32")
            .shape(fill_shape)
            .cpu(fill_kernel, all)
            .category("array")
            .doc("A tensor of the given shape filled with one value."));
}

}  // namespace flowlens::ops
