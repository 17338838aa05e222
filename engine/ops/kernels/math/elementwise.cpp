// Shared pieces of the element-wise family (elementwise.h): input checks,
// shape functions, TensorFlow's BCast reduction indices and the op built on
// them, BroadcastGradientArgs.
#include "ops/kernels/math/elementwise.h"

#include <algorithm>

namespace flowlens::ops {

DType binary_inputs_dtype(const KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const DType t = input(ctx, 0).dtype();
  check_same_dtype(ctx.node().op, t, input(ctx, 1).dtype());
  return t;
}

namespace {

DType binary_dtype(ShapeContext& ctx) {
  const DType ta = dtype_base(ctx.input(0).dtype), tb = dtype_base(ctx.input(1).dtype);
  check_same_dtype(ctx.node().op, ta, tb);
  return attr_or_input_dtype(ctx, "T", ta != DType::Invalid ? 0 : 1);
}

}  // namespace

void broadcast_binary_shape(ShapeContext& ctx) {
  const DType t = binary_dtype(ctx);
  ctx.set_output(0, t, broadcast_static_shape(ctx.input(0).shape, ctx.input(1).shape));
}

void broadcast_predicate_shape(ShapeContext& ctx) {
  binary_dtype(ctx);
  ctx.set_output(0, DType::Bool, broadcast_static_shape(ctx.input(0).shape, ctx.input(1).shape));
}

void first_input_shape(ShapeContext& ctx) {
  check_same_dtype(ctx.node().op, dtype_base(ctx.input(0).dtype), dtype_base(ctx.input(1).dtype));
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), ctx.input(0).shape);
}

void merge_both_inputs_shape(ShapeContext& ctx) {
  check_same_dtype(ctx.node().op, dtype_base(ctx.input(0).dtype), dtype_base(ctx.input(1).dtype));
  Shape s = merge_shapes(ctx.input(0).shape, ctx.input(1).shape,
                         (ctx.node().op + ": inputs must have the same shape").c_str());
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), std::move(s));
}

void check_inputs_same_shape(const KernelContext& ctx, int n) {
  const Shape& first = input(ctx, 0).shape();
  for (int i = 1; i < n; ++i) {
    const Shape& s = input(ctx, i).shape();
    if (!(s == first))
      fail("Inputs to operation " + ctx.node().name + " of type " + ctx.node().op +
           " must have the same size and shape.  Input 0: " + shape_str(first) + " != input " + std::to_string(i) +
           ": " + shape_str(s));
  }
}

// A line-by-line reading of BCastList<2>'s reduction indices
// (tensorflow/core/util/bcast.h) with fewer_dims_optimization on; the
// reshape/bcast vectors it also builds do not affect these lists.
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> bcast_reduce_indices(
    const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  std::pair<std::vector<int64_t>, std::vector<int64_t>> out;
  if (x == y) return out;  // the fast path leaves both lists empty
  const size_t rank = std::max(x.size(), y.size());
  // Dim j counted from the innermost, 1 beyond an input's rank.
  auto dim = [](const std::vector<int64_t>& s, size_t j) { return j < s.size() ? s[s.size() - 1 - j] : int64_t{1}; };
  for (size_t j = 0; j < rank; ++j) {
    const int64_t a = dim(x, j), b = dim(y, j);
    const auto axis = static_cast<int64_t>(rank - 1 - j);
    if (a == 1 && b == 1) {  // no input sets the output dim: both reduce over it
      out.first.push_back(axis);
      out.second.push_back(axis);
    } else if (a == 1) {
      out.first.push_back(axis);
    } else if (b == 1) {
      out.second.push_back(axis);
    } else if (a != b) {
      return std::nullopt;
    }
  }
  std::reverse(out.first.begin(), out.first.end());
  std::reverse(out.second.begin(), out.second.end());
  return out;
}

namespace {

// ---- BroadcastGradientArgs(s0, s1) -> (r0, r1) ---------------------------------------

template <class T>
Tensor index_vector(const std::vector<int64_t>& v) {
  Tensor out(DTypeOf<T>::value, Shape{static_cast<int64_t>(v.size())});
  T* o = out.data<T>();
  for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<T>(v[i]);
  return out;
}

void bcast_args_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  std::vector<int64_t> shapes[2];
  for (int i = 0; i < 2; ++i) {
    const Tensor& in = input(ctx, i);
    if (in.shape().rank() != 1) fail("In[" + std::to_string(i) + "] must be a vector." + shape_str(in.shape()));
    shapes[i] = read_ints("BroadcastGradientArgs", i == 0 ? "s0" : "s1", in);
  }
  const DType t = binary_inputs_dtype(ctx);
  auto r = bcast_reduce_indices(shapes[0], shapes[1]);
  if (!r)
    fail("Incompatible shapes: " + shape_str(Shape(shapes[0])) + " vs. " + shape_str(Shape(shapes[1])));
  dispatch<IndexTypes>(t, "BroadcastGradientArgs", [&](auto tag) {
    using T = decltype(tag);
    ctx.set_output(0, index_vector<T>(r->first));
    ctx.set_output(1, index_vector<T>(r->second));
  });
}

// TensorFlow's shape function gives two vectors of unknown length; with both
// shapes constant the lengths are known, so they are computed.
void bcast_args_shape(ShapeContext& ctx) {
  for (int i = 0; i < 2; ++i) {
    const Shape& s = ctx.input(i).shape;
    if (s.rank_known() && s.rank() != 1)
      fail("Shape must be rank 1 but is rank " + std::to_string(s.rank()) + " for BroadcastGradientArgs");
  }
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  Shape r0 = unknown_shape(1), r1 = unknown_shape(1);
  const Tensor* c0 = ctx.constant_input(0);
  const Tensor* c1 = ctx.constant_input(1);
  if (c0 && c1) {
    auto r = bcast_reduce_indices(read_ints("BroadcastGradientArgs", "s0", *c0),
                                  read_ints("BroadcastGradientArgs", "s1", *c1));
    if (r) {
      r0 = Shape{static_cast<int64_t>(r->first.size())};
      r1 = Shape{static_cast<int64_t>(r->second.size())};
    }
  }
  ctx.set_output(0, t, std::move(r0));
  ctx.set_output(1, t, std::move(r1));
}

}  // namespace

void register_bcast_ops(OpRegistry& r) {
  r.add(OpBuilder("BroadcastGradientArgs")
            .input("s0: T")
            .input("s1: T")
            .output("r0: T")
            .output("r1: T")
            .attr("T: {int32, int64} = DT_INT32")
            .shape(bcast_args_shape)
            .cpu(bcast_args_kernel, dtypes_of<IndexTypes>())
            .not_differentiable("shape arithmetic (TensorFlow: ops.NotDifferentiable)")
            .no_gpu("shape arithmetic on host-memory vectors")
            .category("math")
            .doc("The axes to sum each input's gradient over, for a broadcasting binary op (TensorFlow's BCast)."));
}

}  // namespace flowlens::ops
