// Cumsum, Cumprod: running sums / products along one axis (attrs exclusive,
// reverse). Like Eigen's scan, the running value is kept in the element type
// and rounded at every step; integers wrap on overflow.
#include <type_traits>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

// Integer arithmetic in 64-bit unsigned, so overflow wraps (as TF's does in
// practice) instead of being undefined.
template <class T>
T combine(T a, T b, bool multiply) {
  if constexpr (std::is_integral_v<T>) {
    const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    return static_cast<T>(multiply ? ua * ub : ua + ub);
  } else {
    return static_cast<T>(multiply ? a * b : a + b);
  }
}

template <class T>
void scan_compute(const Tensor& x, int axis, bool multiply, bool exclusive, bool reverse, Tensor& out) {
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t outer = product(dims, 0, axis);
  const int64_t n = dims[static_cast<size_t>(axis)];
  const int64_t inner = product(dims, axis + 1, x.shape().rank());
  const T* in = x.data<T>();
  T* o = out.data<T>();
  const T identity = multiply ? T(1) : T(0);
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      const int64_t base = a * n * inner + c;
      T acc = identity;
      for (int64_t step = 0; step < n; ++step) {
        const int64_t i = base + (reverse ? n - 1 - step : step) * inner;
        if (exclusive) {
          o[i] = acc;
          acc = combine(acc, in[i], multiply);
        } else {
          acc = combine(acc, in[i], multiply);
          o[i] = acc;
        }
      }
    }
}

template <bool kProduct>
void scan_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& axis_t = input(ctx, 1);
  if (axis_t.shape().rank() != 0) fail("ScanOp: axis must be a scalar, not " + shape_str(axis_t.shape()));
  const int rank = x.shape().rank();
  const int64_t raw = read_scalar_int("ScanOp", "axis", axis_t);
  const int64_t axis = raw < 0 ? raw + rank : raw;
  if (axis < 0 || axis >= rank)
    fail("ScanOp: Expected scan axis in the range [" + std::to_string(-rank) + ", " + std::to_string(rank) +
         "), but got " + std::to_string(axis));
  const bool exclusive = ctx.attrs().boolean("exclusive");
  const bool reverse = ctx.attrs().boolean("reverse");
  dispatch<RealTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
    if (out.num_elements() == 0) return;
    scan_compute<T>(x, static_cast<int>(axis), kProduct, exclusive, reverse, out);
  });
}

void scan_shape(ShapeContext& ctx) {
  const Shape& axis = ctx.input(1).shape;
  if (axis.rank_known() && axis.rank() != 0) fail("Shape must be rank 0 but is rank " + std::to_string(axis.rank()));
  unchanged_shape(ctx);
}

}  // namespace

void register_scan_ops(OpRegistry& r) {
  for (bool prod : {false, true})
    r.add(OpBuilder(prod ? "Cumprod" : "Cumsum")
              .input("x: T")
              .input("axis: Tidx")
              .attr("exclusive: bool = false")
              .attr("reverse: bool = false")
              .output("out: T")
              .attr("T: numbertype")
              .attr("Tidx: {int32, int64} = DT_INT32")
              .shape(scan_shape)
              .cpu(prod ? scan_kernel<true> : scan_kernel<false>, dtypes_of<RealTypes>())
              .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
              .category("math")
              .doc(prod ? "Running product along an axis (exclusive: shifted by one; reverse: from the end)."
                        : "Running sum along an axis (exclusive: shifted by one; reverse: from the end)."));
}

}  // namespace flowlens::ops
