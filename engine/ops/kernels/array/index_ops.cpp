// Index computations: Where (the coordinates of the non-zero / true
// elements, row-major, int64) and InvertPermutation (inv[p[i]] = i).
#include <limits>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

// TF's CPU WhereOp: every number type and bool except float16, which it
// refuses on purpose.
using WhereTypes = TypeList<float, double, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                            uint64_t, bool>;
constexpr int kMaxWhereRank = 8;  // TF's HANDLE_DIM cases

template <class T>
int64_t count_true(const Tensor& x) {
  const T* p = x.data<T>();
  int64_t n = 0;
  for (int64_t i = 0, e = x.num_elements(); i < e; ++i) n += p[i] != T(0);
  return n;
}

void where_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  if (x.dtype() == DType::Half)
    fail("No WhereOp available for float16/half type on CPU; dying in CPU WhereOp to avoid silently creating "
         "costly copies from device.");
  dispatch<WhereTypes>(x.dtype(), "Where", [&](auto tag) {
    using T = decltype(tag);
    const int rank = x.shape().rank();
    const int64_t found = count_true<T>(x);
    int64_t* o = ctx.allocate_output(0, DType::Int64, Shape{found, rank}).data<int64_t>();
    if (rank == 0 || rank > kMaxWhereRank) fail("WhereOp : Unhandled input dimensions: " + std::to_string(rank));
    const std::vector<int64_t>& dims = x.shape().dims();
    std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d)
      strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d) + 1] * dims[static_cast<size_t>(d) + 1];
    const T* p = x.data<T>();
    for (int64_t i = 0, e = x.num_elements(); i < e; ++i) {
      if (!(p[i] != T(0))) continue;
      int64_t rest = i;
      for (int d = 0; d < rank; ++d, ++o) {
        *o = rest / strides[static_cast<size_t>(d)];
        rest -= *o * strides[static_cast<size_t>(d)];
      }
    }
  });
}

// [num_true, rank]: num_true is known only from a constant input (TF leaves
// it unknown; counting it is the same answer, earlier).
void where_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const int64_t rank = in.rank_known() ? in.rank() : Shape::kUnknownDim;
  int64_t found = Shape::kUnknownDim;
  if (const Tensor* c = ctx.constant_input(0); c && c->dtype() != DType::Half)
    dispatch<WhereTypes>(c->dtype(), "Where", [&](auto tag) { found = count_true<decltype(tag)>(*c); });
  ctx.set_output(0, DType::Int64, Shape{found, rank});
}

// ---- InvertPermutation -----------------------------------------------------------

void invert_permutation_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  if (x.shape().rank() != 1) fail("invert_permutation expects a 1D vector.");
  const int64_t n = x.num_elements();
  if (n > std::numeric_limits<int32_t>::max())
    fail("permutation of nonnegative int32s must have <= int32 max elements");
  const std::vector<int64_t> p = read_ints("InvertPermutation", "x", x);
  std::vector<int64_t> inv(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = p[static_cast<size_t>(i)];
    if (d < 0 || d >= n) fail(std::to_string(d) + " is not between 0 and " + std::to_string(n));
    if (inv[static_cast<size_t>(d)] != -1) fail(std::to_string(d) + " is duplicated in the input.");
    inv[static_cast<size_t>(d)] = i;
  }
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  for (int64_t i = 0; i < n; ++i) {
    if (x.dtype() == DType::Int32) out.data<int32_t>()[i] = static_cast<int32_t>(inv[static_cast<size_t>(i)]);
    else out.data<int64_t>()[i] = inv[static_cast<size_t>(i)];
  }
}

void invert_permutation_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  if (in.rank_known() && in.rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(in.rank()));
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), in.rank_known() ? in : unknown_shape(1));
}

}  // namespace

void register_index_ops(OpRegistry& r) {
  r.add(OpBuilder("Where")
            .input("input: T")
            .output("index: int64")
            .attr("T: {numbertype, bool} = DT_BOOL")
            .shape(where_shape)
            .cpu(where_kernel, dtypes_of<WhereTypes>())
            .no_gradient("TensorFlow registers no gradient for Where: its int64 output carries none")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("Coordinates of the true (non-zero) elements, one row each, in row-major order."));
  r.add(OpBuilder("InvertPermutation")
            .input("x: T")
            .output("y: T")
            .attr("T: {int32, int64} = DT_INT32")
            .shape(invert_permutation_shape)
            .cpu(invert_permutation_kernel, dtypes_of<IndexTypes>())
            .not_differentiable("TensorFlow registers InvertPermutation as NotDifferentiable")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("The inverse permutation: y[x[i]] = i."));
}

}  // namespace flowlens::ops
