// ArgMax, ArgMin: the index of the largest / smallest value along one axis.
// Each slice is scanned in index order the way Eigen's ArgMax/ArgMin tuple
// reducers do: start from (0, lowest) or (0, highest) and take a value only
// when it compares strictly better, so ties give the first index and NaN
// never wins (an all-NaN slice gives 0).
#include <limits>

#include "ops/kernels/math/arg_reduce_args.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

constexpr int kMaxArgRank = 7;  // TF's HANDLE_DIM cases

template <bool kMax, class T, class Out>
void arg_compute(const ArgReduceArgs& args, const Tensor& x, Tensor& out) {
  const int64_t n = args.n, inner = args.inner;
  const T* in = x.data<T>();
  Out* o = out.data<Out>();
  for (int64_t a = 0; a < args.outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      const T* p = in + a * n * inner + c;
      int64_t best = 0;
      T best_value = kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
      for (int64_t i = 0; i < n; ++i) {
        const T v = p[i * inner];
        if (kMax ? v > best_value : v < best_value) {
          best = i;
          best_value = v;
        }
      }
      o[a * inner + c] = static_cast<Out>(best);
    }
}

template <bool kMax>
void arg_kernel(KernelContext& ctx) {
  const ArgReduceArgs args = arg_reduce_args(ctx);
  const Tensor& x = ctx.input(0);
  dispatch<RealTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, args.out_type, Shape(args.out_dims));
    if (out.num_elements() == 0) return;
    if (args.out_type == DType::Int32) arg_compute<kMax, T, int32_t>(args, x, out);
    else arg_compute<kMax, T, int64_t>(args, x, out);
  });
}

// TF's ArgOpShape.
void arg_shape(ShapeContext& ctx) {
  const DType t = ctx.attrs().type("output_type");
  const Shape& dim_shape = ctx.input(1).shape;
  if (dim_shape.rank_known() && dim_shape.rank() != 0)
    fail("Shape must be rank 0 but is rank " + std::to_string(dim_shape.rank()));
  const Shape& in = ctx.input(0).shape;
  if (!in.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const int rank = in.rank();
  if (rank <= 1) {  // reducing a scalar or a vector gives a scalar
    ctx.set_output(0, t, Shape{});
    return;
  }
  const Tensor* dim_t = ctx.constant_input(1);
  if (!dim_t) {
    ctx.set_output(0, t, unknown_shape(rank - 1));
    return;
  }
  const int64_t dim = read_scalar_int(ctx.node().op.c_str(), "dimension", *dim_t);
  const int64_t axis = dim < 0 ? dim + rank : dim;
  if (axis < 0 || axis >= rank)
    fail("Dimension (" + std::to_string(dim) + ") must be in the range [" + std::to_string(-rank) + ", " +
         std::to_string(rank) + "), where " + std::to_string(rank) + " is the number of dimensions in the input.");
  std::vector<int64_t> dims = in.dims();
  dims.erase(dims.begin() + axis);
  ctx.set_output(0, t, Shape(std::move(dims)));
}

}  // namespace

ArgReduceArgs arg_reduce_args(const KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& dimension = input(ctx, 1);
  if (dimension.shape().rank() != 0)
    fail("dim must be a scalar, but received tensor of shape: " + shape_str(dimension.shape()));
  const int64_t dim = read_scalar_int(ctx.node().op.c_str(), "dimension", dimension);
  const int rank = x.shape().rank();
  const int64_t axis = dim < 0 ? dim + rank : dim;
  if (axis < 0 || axis >= rank)
    fail("Expected dimension in the range [" + std::to_string(-rank) + ", " + std::to_string(rank) + "), but got " +
         std::to_string(dim));
  if (x.shape().dim(static_cast<int>(axis)) == 0)
    fail("Reduction axis " + std::to_string(dim) + " is empty in shape " + shape_str(x.shape()));
  ArgReduceArgs args;
  args.out_type = ctx.attrs().type("output_type");
  if (!is_index_type(args.out_type)) unsupported_dtype(ctx.node().op.c_str(), args.out_type);
  const std::vector<int64_t>& dims = x.shape().dims();
  const int a = static_cast<int>(axis);
  args.outer = product(dims, 0, a);
  args.n = dims[static_cast<size_t>(a)];
  args.inner = product(dims, a + 1, rank);
  args.out_dims = dims;
  args.out_dims.erase(args.out_dims.begin() + a);
  if (rank > kMaxArgRank && args.outer * args.inner > 0)
    fail("Argmax and Argmin only support up to 7 input dimensions, but got " + std::to_string(rank) +
         ". Inputs shape: " + shape_str(x.shape()));
  return args;
}

void register_arg_reduce_ops(OpRegistry& r) {
  for (bool is_max : {true, false})
    r.add(OpBuilder(is_max ? "ArgMax" : "ArgMin")
              .input("input: T")
              .input("dimension: Tidx")
              .output("output: output_type")
              .attr("T: numbertype")
              .attr("Tidx: {int32, int64} = DT_INT32")
              .attr("output_type: {int32, int64} = DT_INT64")
              .shape(arg_shape)
              .cpu(is_max ? arg_kernel<true> : arg_kernel<false>, dtypes_of<RealTypes>())
              .not_differentiable("TensorFlow's gradient is None for both inputs: an index carries no gradient")
              .category("math")
              .doc(is_max ? "Index of the largest value along an axis (first on ties)."
                          : "Index of the smallest value along an axis (first on ties)."));
}

}  // namespace flowlens::ops
