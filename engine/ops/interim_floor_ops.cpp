// Interim FloorDiv and FloorMod on int32/int64 with broadcasting: the integer
// shape arithmetic TensorFlow's reduction gradients build (math_ops.
// reduced_shape wraps axes with FloorMod, _MeanGrad divides element counts
// with FloorDiv) on inputs of unknown shape. The element-wise math family
// owns these ops; register_interim_floor_ops runs after every family and adds
// each only when that family has not, so its full versions always win.
#include <limits>

#include "ops/broadcast.h"
#include "ops/dtype_dispatch.h"
#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

// Python's // and %: the quotient rounds toward -inf, the remainder takes the
// divisor's sign. y == -1 is special-cased: x / -1 overflows for the lowest x.
struct FloorDivF {
  template <class T> T operator()(T x, T y) const {
    if (y == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(x));
    const T q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? T(q - 1) : q;
  }
};
struct FloorModF {
  template <class T> T operator()(T x, T y) const {
    if (y == T(-1)) return T(0);
    const T r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? T(r + y) : r;
  }
};

template <class F>
void floor_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  check_same_dtype(ctx.node().op, a.dtype(), b.dtype());
  dispatch<IndexTypes>(a.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* pb = b.data<T>();
    for (int64_t i = 0, n = b.num_elements(); i < n; ++i)
      if (pb[i] == 0) fail("Integer division by zero");
    BroadcastPlan plan;
    make_broadcast_plan(a.shape(), b.shape(), plan);
    Tensor& out = ctx.allocate_output(0, a.dtype(), broadcast_shape(a.shape(), b.shape()));
    broadcast_apply(plan, a.data<T>(), pb, out.data<T>(), F{});
  });
}

void floor_shape(ShapeContext& ctx) {
  const DType ta = dtype_base(ctx.input(0).dtype), tb = dtype_base(ctx.input(1).dtype);
  check_same_dtype(ctx.node().op, ta, tb);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", ta != DType::Invalid ? 0 : 1),
                 broadcast_static_shape(ctx.input(0).shape, ctx.input(1).shape));
}

}  // namespace

void register_interim_floor_ops(OpRegistry& r) {
  if (!r.find("FloorDiv"))
    r.add(OpBuilder("FloorDiv")
              .input("x: T")
              .input("y: T")
              .output("z: T")
              .attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, complex128}")
              .shape(floor_shape)
              .cpu(floor_kernel<FloorDivF>, dtypes_of<IndexTypes>())
              .not_differentiable("TensorFlow's gradient is None for both inputs")
              .no_gpu("interim integer version for shape arithmetic; runs on the CPU")
              .category("math")
              .doc("x // y with broadcasting: the quotient rounded toward -infinity."));
  if (!r.find("FloorMod"))
    r.add(OpBuilder("FloorMod")
              .input("x: T")
              .input("y: T")
              .output("z: T")
              .attr("T: {int32, int64, bfloat16, half, float, double}")
              .shape(floor_shape)
              .cpu(floor_kernel<FloorModF>, dtypes_of<IndexTypes>())
              .no_gradient("interim integer version for shape arithmetic; the math family's FloorMod has TF's gradient")
              .no_gpu("interim integer version for shape arithmetic; runs on the CPU")
              .category("math")
              .doc("x % y with broadcasting: the remainder takes the sign of y."));
}

}  // namespace flowlens::ops
