// Indexing ops: Gather and GatherV2 (slices along an axis, optionally per
// batch) and GatherNd (slices addressed by index tuples). Indices are
// range-checked on the CPU with TensorFlow's messages before anything is read.
#include "ops/kernels/array/array_util.h"
#include "ops/kernels/array/gather_args.h"

namespace flowlens::ops {
namespace {

// ---- Gather / GatherV2 ---------------------------------------------------------

void gather_kernel(KernelContext& ctx) {
  const GatherPlan plan = gather_plan(ctx);
  const Tensor& params = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, params.dtype(), Shape(plan.dims));
  copy_gathered_rows(plan, params, out);
}

// Concatenates partial shapes (unknown rank if either is).
Shape concat_shapes(const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known()) return Shape::unknown_rank();
  std::vector<int64_t> d = a.dims();
  d.insert(d.end(), b.dims().begin(), b.dims().end());
  return Shape(std::move(d));
}

Shape subshape(const Shape& s, int begin, int end) {
  if (!s.rank_known()) return Shape::unknown_rank();
  return Shape(std::vector<int64_t>(s.dims().begin() + begin, s.dims().begin() + end));
}

void gather_shape(ShapeContext& ctx) {
  const Shape& params = ctx.input(0).shape;
  with_rank_at_least(params, 1);
  const Shape tail = params.rank_known() ? subshape(params, 1, params.rank()) : Shape::unknown_rank();
  ctx.set_output(0, attr_or_input_dtype(ctx, "Tparams", 0), concat_shapes(ctx.input(1).shape, tail));
}

void gather_v2_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "Tparams", 0);
  const Shape& params = ctx.input(0).shape;
  const Shape& indices = ctx.input(1).shape;
  with_rank_at_least(params, 1);
  with_rank(ctx.input(2).shape, 0);
  const Tensor* axis_t = ctx.constant_input(2);
  if (!axis_t) {
    // TensorFlow gives rank(params) + rank(indices) - 1 here, which is wrong
    // for batch_dims != 0: the batch dims are counted once.
    int64_t batch_dims = ctx.attrs().integer("batch_dims");
    if (batch_dims < 0 && indices.rank_known()) batch_dims += indices.rank();
    const bool known = params.rank_known() && indices.rank_known() && batch_dims >= 0;
    ctx.set_output(0, t, known ? unknown_shape(static_cast<int>(params.rank() + indices.rank() - 1 - batch_dims))
                               : Shape::unknown_rank());
    return;
  }
  // |v| and v + 1 saturate: axis and batch_dims come from the graph.
  auto magnitude = [](int64_t v) { return v == INT64_MIN ? INT64_MAX : v < 0 ? -v : v; };
  auto plus_one = [](int64_t v) { return v == INT64_MAX ? v : v + 1; };
  int64_t axis = read_scalar_int("GatherV2", "axis", *axis_t);
  with_rank_at_least(params, axis < 0 ? magnitude(axis) : plus_one(axis));
  int64_t batch_dims = ctx.attrs().integer("batch_dims");
  with_rank_at_least(indices, magnitude(batch_dims));
  if (batch_dims < 0 && indices.rank_known()) batch_dims += indices.rank();
  with_rank_at_least(params, plus_one(batch_dims));
  if (!params.rank_known() || !indices.rank_known() || batch_dims < 0) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  if (axis < 0) axis += params.rank();
  const Shape out = concat_shapes(subshape(params, 0, static_cast<int>(axis)),
                                  subshape(indices, static_cast<int>(batch_dims), indices.rank()));
  ctx.set_output(0, t, concat_shapes(out, subshape(params, static_cast<int>(axis) + 1, params.rank())));
}

// ---- GatherNd / ScatterNd ------------------------------------------------------------

void gather_nd_kernel(KernelContext& ctx) {
  const Tensor& params = input(ctx, 0);
  const Tensor& indices = input(ctx, 1);
  const BadIndices policy = bad_indices_policy(ctx.attrs());
  const int prank = params.shape().rank(), irank = indices.shape().rank();
  if (prank < 1) fail("params must be at least a vector");
  if (irank < 1) fail("indices must be at least a vector");
  const int64_t nd = indices.shape().dim(irank - 1);
  if (nd > prank)
    fail("index innermost dimension length must be <= params rank; saw: " + std::to_string(nd) + " vs. " +
         std::to_string(prank));
  const std::vector<int64_t>& pd = params.shape().dims();
  const Shape outer_shape(std::vector<int64_t>(indices.shape().dims().begin(), indices.shape().dims().end() - 1));
  std::vector<int64_t> dims = outer_shape.dims();
  dims.insert(dims.end(), pd.begin() + nd, pd.end());
  checked_elements("GatherNd", dims);
  Tensor& out = ctx.allocate_output(0, params.dtype(), Shape(std::move(dims)));
  const int64_t n = product(outer_shape.dims(), 0, outer_shape.rank());
  if (n == 0) return;
  if (params.num_elements() == 0)
    fail("Requested more than 0 entries, but params is empty.  Params shape: " + shape_str(params.shape()));
  const std::vector<int64_t> idx = read_ints("GatherNd", "indices", indices);
  const std::vector<int64_t> strides = strides_of(pd);
  const int64_t slice = product(pd, static_cast<int>(nd), prank);
  dispatch_element(params.dtype(), "GatherNd", [&](auto tag) {
    using E = decltype(tag);
    const E* in = elements<E>(params);
    E* o = elements<E>(out);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t off = tuple_offset(idx, i, nd, pd, strides);
      if (off >= 0) {
        std::copy_n(in + off, slice, o + i * slice);
      } else if (policy == BadIndices::Ignore) {
        std::fill_n(o + i * slice, slice, E{});
      } else {
        fail("indices" + index_string(outer_shape, i) + " = [" + join(index_tuple(idx, i, nd), ", ") +
             "] does not index into param shape " + shape_str(params.shape()));
      }
    }
  });
}

void gather_nd_shape(ShapeContext& ctx) {
  const Shape& params = ctx.input(0).shape;
  const Shape& indices = ctx.input(1).shape;
  const DType t = attr_or_input_dtype(ctx, "Tparams", 0);
  with_rank_at_least(indices, 1);
  const int64_t nd = indices.rank_known() ? indices.dim(indices.rank() - 1) : -1;
  if (!params.rank_known() || nd < 0) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  if (nd > params.rank())
    fail("indices.shape[-1] must be <= params.rank, but saw indices shape: " + shape_str(indices) +
         " and params shape: " + shape_str(params));
  ctx.set_output(0, t, concat_shapes(subshape(indices, 0, indices.rank() - 1),
                                     subshape(params, static_cast<int>(nd), params.rank())));
}

}  // namespace

GatherPlan gather_plan(const KernelContext& ctx) {
  if (ctx.node().op == "Gather") {
    check_num_inputs(ctx, 2);
    return gather_plan(ctx, input(ctx, 0), input(ctx, 1), 0, 0);
  }
  check_num_inputs(ctx, 3);
  const Tensor& axis_t = input(ctx, 2);
  if (axis_t.shape().rank() != 0) fail("axis must be scalar");
  return gather_plan(ctx, input(ctx, 0), input(ctx, 1), read_scalar_int("GatherV2", "axis", axis_t),
                     ctx.attrs().integer("batch_dims"));
}

// params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis+1:].
GatherPlan gather_plan(const KernelContext& ctx, const Tensor& params, const Tensor& indices, int64_t axis,
                       int64_t batch_dims) {
  const int prank = params.shape().rank();
  const int irank = indices.shape().rank();
  if (prank < 1) fail("params must be at least 1 dimensional");
  if (axis < -prank || axis >= prank)
    fail("Expected axis in the range [" + std::to_string(-prank) + ", " + std::to_string(prank) + "), but got " +
         std::to_string(axis));
  if (axis < 0) axis += prank;
  if (batch_dims != 0) {
    if (batch_dims < 0) batch_dims += irank;
    if (batch_dims < -irank || batch_dims > irank)
      fail("Expected batch_dims in the range [" + std::to_string(-irank) + ", " + std::to_string(irank) +
           "], but got " + std::to_string(batch_dims));
    if (batch_dims >= prank)
      fail("batch_dims (" + std::to_string(batch_dims) + ") must be less than rank(params) (" +
           std::to_string(prank) + ").");
    if (axis < batch_dims)
      fail("batch_dims (" + std::to_string(batch_dims) + ") must be less than or equal to axis (" +
           std::to_string(axis) + ").");
    for (int i = 0; i < batch_dims; ++i)
      if (params.shape().dim(i) != indices.shape().dim(i))
        fail("params.shape[" + std::to_string(i) + "]: " + std::to_string(params.shape().dim(i)) +
             " should be equal to indices.shape[" + std::to_string(i) + "]: " + std::to_string(indices.shape().dim(i)));
  }
  const auto a = static_cast<int>(axis);
  const auto bd = static_cast<int>(batch_dims);
  const int64_t gather_size = params.shape().dim(a);
  if (indices.dtype() == DType::Int32 && gather_size > INT32_MAX)
    fail("params.shape[" + std::to_string(a) + "] too large for int32 indexing: " + std::to_string(gather_size) +
         " > " + std::to_string(INT32_MAX));
  const std::vector<int64_t>& pd = params.shape().dims();
  GatherPlan plan;
  plan.dims.assign(pd.begin(), pd.begin() + a);
  plan.dims.insert(plan.dims.end(), indices.shape().dims().begin() + bd, indices.shape().dims().end());
  plan.dims.insert(plan.dims.end(), pd.begin() + a + 1, pd.end());
  checked_elements(ctx.node().op, plan.dims);
  const std::vector<int64_t> idx = read_ints(ctx.node().op.c_str(), "indices", indices);
  const int64_t batch = product(pd, 0, bd), outer = product(pd, bd, a);
  plan.inner = product(pd, a + 1, prank);
  if (idx.empty() || batch * outer == 0) return plan;  // indices go unchecked, as in TensorFlow
  const int64_t n = product(indices.shape().dims(), bd, irank);
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < 0 || idx[i] >= gather_size)
      fail("indices" + index_string(indices.shape(), static_cast<int64_t>(i)) + " = " + std::to_string(idx[i]) +
           " is not in [0, " + std::to_string(gather_size) + ")");
  // Empty rows: nothing to move, and no row list as long as the outer dims.
  if (plan.inner == 0) return plan;
  plan.source_rows.reserve(static_cast<size_t>(batch * outer * n));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t p = 0; p < outer; ++p)
      for (int64_t k = 0; k < n; ++k)
        plan.source_rows.push_back((b * outer + p) * gather_size + idx[static_cast<size_t>(b * n + k)]);
  return plan;
}

void copy_gathered_rows(const GatherPlan& plan, const Tensor& params, Tensor& out) {
  const int64_t inner = plan.inner;
  if (inner == 0) return;
  dispatch_element(params.dtype(), "Gather", [&](auto tag) {
    using E = decltype(tag);
    const E* in = elements<E>(params);
    E* o = elements<E>(out);
    for (size_t r = 0; r < plan.source_rows.size(); ++r)
      std::copy_n(in + plan.source_rows[r] * inner, inner, o + static_cast<int64_t>(r) * inner);
  });
}

void register_gather_ops(OpRegistry& r) {
  const std::vector<DType> all = pod_string_dtypes();
  r.add(OpBuilder("Gather")
            .input("params: Tparams")
            .input("indices: Tindices")
            .attr("validate_indices: bool = true")
            .output("output: Tparams")
            .attr("Tparams: type")
            .attr("Tindices: {int32,int64}")
            .shape(gather_shape)
            .cpu(gather_kernel, all, "Tparams")
            .category("array")
            .doc("Rows of params at the given indices (axis 0)."));
  r.add(OpBuilder("GatherV2")
            .input("params: Tparams")
            .input("indices: Tindices")
            .input("axis: Taxis")
            .attr("batch_dims: int = 0")
            .output("output: Tparams")
            .attr("Tparams: type")
            .attr("Tindices: {int32,int64}")
            .attr("Taxis: {int32,int64}")
            .shape(gather_v2_shape)
            .cpu(gather_kernel, all, "Tparams")
            .category("array")
            .doc("Slices of params at the given indices along axis, per batch for the first batch_dims dims."));
  r.add(OpBuilder("GatherNd")
            .input("params: Tparams")
            .input("indices: Tindices")
            .output("output: Tparams")
            .attr("Tparams: type")
            .attr("Tindices: {int32,int64}")
            .attr("bad_indices_policy: string = ''")
            .shape(gather_nd_shape)
            .cpu(gather_nd_kernel, all, "Tparams")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("Slices of params addressed by the index tuples in the last dimension of indices."));
}

}  // namespace flowlens::ops
