// Shape manipulation: Reshape, Shape, Size, Rank, Fill.
#include <cstring>

#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

// ---- Reshape ------------------------------------------------------------------

// Resolves a requested shape (one -1 allowed) against `count` input elements
// (count < 0: unknown, the -1 stays unknown). Throws TF's messages.
std::vector<int64_t> resolve_reshape(std::vector<int64_t> dims, int64_t count) {
  int unknown = -1;
  int64_t product = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown >= 0)
        fail("Only one input size may be -1, not both " + std::to_string(unknown) + " and " + std::to_string(i));
      unknown = static_cast<int>(i);
    } else if (dims[i] < 0) {
      fail("Size " + std::to_string(i) + " must be non-negative, not " + std::to_string(dims[i]));
    } else {
      product *= dims[i];
    }
  }
  if (count < 0) return dims;
  if (unknown >= 0) {
    if (product == 0) {
      if (count != 0)
        fail("Reshape cannot infer the missing input size for an empty tensor unless all specified input sizes "
             "are non-zero");
      dims[static_cast<size_t>(unknown)] = 0;
    } else {
      if (count % product != 0)
        fail("Input to reshape is a tensor with " + std::to_string(count) +
             " values, but the requested shape requires a multiple of " + std::to_string(product));
      dims[static_cast<size_t>(unknown)] = count / product;
    }
  } else if (product != count) {
    fail("Input to reshape is a tensor with " + std::to_string(count) + " values, but the requested shape has " +
         std::to_string(product));
  }
  return dims;
}

void reshape_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& shape = input(ctx, 1);
  if (shape.shape().rank() > 1) fail("Reshape: shape must be a vector, got shape " + shape_str(shape.shape()));
  std::vector<int64_t> dims = resolve_reshape(read_ints("Reshape", "shape", shape), x.num_elements());
  ctx.set_output(0, x.reshaped(Shape(std::move(dims))));
}

void reshape_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  if (const Tensor* c = ctx.constant_input(1)) {
    if (c->shape().rank() > 1) fail("Reshape: shape must be a vector, got shape " + shape_str(c->shape()));
    std::vector<int64_t> dims = resolve_reshape(read_ints("Reshape", "shape", *c), in.num_elements());
    for (auto& d : dims)
      if (d < 0) d = Shape::kUnknownDim;
    ctx.set_output(0, t, Shape(std::move(dims)));
    return;
  }
  const Shape& s = ctx.input(1).shape;
  ctx.set_output(0, t, s.rank_known() && s.rank() == 1 ? unknown_shape(static_cast<int>(s.dim(0))) : Shape::unknown_rank());
}

// ---- Shape / Size / Rank --------------------------------------------------------

DType out_type(const Node& n) {
  DType t = dtype_base(n.attr_type("out_type", DType::Int32));
  if (!is_index_type(t)) fail(n.op + ": out_type must be int32 or int64, got " + dtype_name(t));
  return t;
}

void shape_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  const DType t = out_type(ctx.node());
  const int r = x.shape().rank();
  Tensor& out = ctx.allocate_output(0, t, Shape{r});
  for (int i = 0; i < r; ++i) {
    if (t == DType::Int32) out.data<int32_t>()[i] = static_cast<int32_t>(x.shape().dim(i));
    else out.data<int64_t>()[i] = x.shape().dim(i);
  }
}

void shape_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  ctx.set_output(0, out_type(ctx.node()), Shape{in.rank_known() ? in.rank() : Shape::kUnknownDim});
}

void size_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  const DType t = out_type(ctx.node());
  Tensor& out = ctx.allocate_output(0, t, Shape{});
  if (t == DType::Int32) out.data<int32_t>()[0] = static_cast<int32_t>(x.num_elements());
  else out.data<int64_t>()[0] = x.num_elements();
}

void size_shape(ShapeContext& ctx) { ctx.set_output(0, out_type(ctx.node()), Shape{}); }

void rank_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  Tensor& out = ctx.allocate_output(0, DType::Int32, Shape{});
  out.data<int32_t>()[0] = x.shape().rank();
}

void rank_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Int32, Shape{}); }

// ---- Fill -----------------------------------------------------------------------

void fill_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& dims_t = input(ctx, 0);
  const Tensor& value = input(ctx, 1);
  if (dims_t.shape().rank() != 1) fail("dims must be a vector, got shape " + shape_str(dims_t.shape()));
  if (value.shape().rank() != 0) fail("value must be a scalar, got shape " + shape_str(value.shape()));
  check_copyable("Fill", value.dtype());
  std::vector<int64_t> dims = read_ints("Fill", "dims", dims_t);
  for (int64_t d : dims)
    if (d < 0) fail("Fill: dims must be non-negative, got " + shape_str(Shape(dims)));
  Tensor& out = ctx.allocate_output(0, value.dtype(), Shape(std::move(dims)));
  const int64_t n = out.num_elements();
  switch (dtype_size(value.dtype())) {
    case 1: std::memset(out.raw_data(), *static_cast<const uint8_t*>(value.raw_data()), static_cast<size_t>(n)); break;
    case 4: {
      uint32_t v;
      std::memcpy(&v, value.raw_data(), 4);
      auto* o = static_cast<uint32_t*>(out.raw_data());
      for (int64_t i = 0; i < n; ++i) o[i] = v;
      break;
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, value.raw_data(), 8);
      auto* o = static_cast<uint64_t*>(out.raw_data());
      for (int64_t i = 0; i < n; ++i) o[i] = v;
      break;
    }
    default: {
      const size_t sz = dtype_size(value.dtype());
      auto* o = static_cast<char*>(out.raw_data());
      for (int64_t i = 0; i < n; ++i) std::memcpy(o + static_cast<size_t>(i) * sz, value.raw_data(), sz);
    }
  }
}

void fill_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 1);
  const Shape& v = ctx.input(1).shape;
  if (v.rank_known() && v.rank() != 0) fail("value must be a scalar, got shape " + shape_str(v));
  if (const Tensor* c = ctx.constant_input(0)) {
    if (c->shape().rank() != 1) fail("dims must be a vector, got shape " + shape_str(c->shape()));
    std::vector<int64_t> dims = read_ints("Fill", "dims", *c);
    for (int64_t d : dims)
      if (d < 0) fail("Fill: dims must be non-negative, got " + shape_str(Shape(dims)));
    ctx.set_output(0, t, Shape(std::move(dims)));
    return;
  }
  const Shape& d = ctx.input(0).shape;
  if (d.rank_known() && d.rank() != 1) fail("dims must be a vector, got shape " + shape_str(d));
  ctx.set_output(0, t, d.rank_known() ? unknown_shape(static_cast<int>(d.dim(0))) : Shape::unknown_rank());
}

}  // namespace

void register_array_ops(OpRegistry& r) {
  r.add(OpBuilder("Reshape")
            .input("tensor: T")
            .input("shape: Tshape")
            .output("output: T")
            .attr("T: type")
            .attr("Tshape: {int32, int64} = DT_INT32")
            .shape(reshape_shape)
            .cpu(reshape_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("The same values in another shape."));
  for (const char* name : {"Shape", "Size"})
    r.add(OpBuilder(name)
              .input("input: T")
              .output("output: out_type")
              .attr("T: type")
              .attr("out_type: {int32, int64} = DT_INT32")
              .shape(std::string(name) == "Shape" ? shape_shape : size_shape)
              .cpu(std::string(name) == "Shape" ? shape_kernel : size_kernel)
              .reads_no_values()
              .not_differentiable("depends only on the input's shape")
              .category("array")
              .doc(std::string(name) == "Shape" ? "The input's shape as a 1-D tensor." : "The input's number of elements."));
  r.add(OpBuilder("Rank")
            .input("input: T")
            .output("output: int32")
            .attr("T: type")
            .shape(rank_shape)
            .cpu(rank_kernel)
            .reads_no_values()
            .not_differentiable("depends only on the input's shape")
            .category("array")
            .doc("The input's number of dimensions."));
  r.add(OpBuilder("Fill")
            .input("dims: index_type")
            .input("value: T")
            .output("output: T")
            .attr("T: type")
            .attr("index_type: {int32, int64} = DT_INT32")
            .shape(fill_shape)
            .cpu(fill_kernel)
            .category("array")
            .doc("A tensor of the given shape filled with one value."));
}

}  // namespace flowlens::ops
