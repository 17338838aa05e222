// ResourceGather: rows of a resource variable, TensorFlow's
// ResourceGatherOp with batch_dims. The output shape is
// params.shape[:batch_dims] + indices.shape[batch_dims:] + params.shape[batch_dims+1:].
//
// Like TensorFlow's CPU kernel it ignores validate_indices and always checks
// indices; with batch_dims > 0 it checks them against the flattened batch
// (TensorFlow adds each batch's offset first), so an index past its own
// batch's rows can read the next batch's, as in TensorFlow.
#include <limits>

#include "ops/kernels/array/gather_args.h"
#include "ops/resources/resource_variable.h"
#include "ops/kernels/training/training_kernel.h"
#include "ops/kernels/state/variable_shapes.h"

namespace flowlens::ops {
namespace {

void resource_gather_shape(ShapeContext& ctx) {
  const DType dtype = dtype_base(ctx.attrs().type("dtype"));
  const int64_t batch_dims = ctx.attrs().integer("batch_dims");
  if (batch_dims < 0) fail("batch_dims is negative (" + std::to_string(batch_dims) + ")");
  const Shape params = variable_info(ctx, 0).shape;
  const Shape& indices = ctx.input(1).shape;
  const int bd = static_cast<int>(batch_dims);
  tf_with_rank_at_least(params, bd + 1);
  tf_with_rank_at_least(indices, bd);
  if (!params.rank_known() || !indices.rank_known()) {
    ctx.set_output(0, dtype, Shape::unknown_rank());
    return;
  }
  std::vector<int64_t> dims(params.dims().begin(), params.dims().begin() + bd);
  dims.insert(dims.end(), indices.dims().begin() + bd, indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + bd + 1, params.dims().end());
  ctx.set_output(0, dtype, Shape(std::move(dims)));
}

// TensorFlow's SliceDebugString: flat position i of `shape` as "[1,0]".
std::string multi_index(const Shape& shape, int64_t i) {
  if (shape.rank() == 0) return "";
  std::vector<int64_t> at(static_cast<size_t>(shape.rank()));
  for (int d = shape.rank() - 1; d >= 0; --d) {
    at[static_cast<size_t>(d)] = i % shape.dim(d);
    i /= shape.dim(d);
  }
  std::string s = "[";
  for (size_t d = 0; d < at.size(); ++d) s += (d ? "," : "") + std::to_string(at[d]);
  return s + "]";
}

void resource_gather_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const ResourceHandle& h = handle_input(ctx, 0);
  const Tensor params = existing_value(h, ReadFailure::NotFound).to_host();
  const GatherPlan plan = resource_gather_plan(ctx, params, input(ctx, 1), ctx.attrs().integer("batch_dims"));
  Tensor& out = ctx.allocate_output(0, params.dtype(), Shape(plan.dims));
  copy_gathered_rows(plan, params, out);
}

}  // namespace

GatherPlan resource_gather_plan(const KernelContext& ctx, const Tensor& params, const Tensor& indices,
                                int64_t batch_dims) {
  if (params.shape().rank() < 1) fail("params must be at least 1 dimensional");
  if (batch_dims < 0) fail("batch_dims is negative (" + std::to_string(batch_dims) + ")");
  if (params.shape().rank() < batch_dims)
    fail("params must have at least " + std::to_string(batch_dims) +
         " (batch_dims) dimensions but it has shape " + shape_str(params.shape()));
  const int bd = static_cast<int>(batch_dims);
  const Shape& ps = params.shape();
  const Shape& is = indices.shape();
  const int64_t index_max =
      indices.dtype() == DType::Int32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  if (ps.dim(0) > index_max)
    fail("params.shape[0] too large for " + tf_type_name(indices.dtype()) + " indexing: " + std::to_string(ps.dim(0)) +
         " > " + std::to_string(index_max));
  // TensorFlow's shape function guarantees these; its kernel would misread
  // memory without them.
  if (bd > 0 && (bd >= ps.rank() || is.rank() < bd))
    fail("ResourceGather: batch_dims " + std::to_string(bd) + " needs params of rank > " + std::to_string(bd) +
         " and indices of rank >= " + std::to_string(bd) + ", got " + shape_str(ps) + " and " + shape_str(is));
  for (int d = 0; d < bd; ++d)
    if (is.dim(d) != ps.dim(d))
      fail("ResourceGather: indices.shape[" + std::to_string(d) + "] = " + std::to_string(is.dim(d)) +
           " does not match params.shape[" + std::to_string(d) + "] = " + std::to_string(ps.dim(d)));

  GatherPlan plan;
  plan.dims.assign(ps.dims().begin(), ps.dims().begin() + bd);
  plan.dims.insert(plan.dims.end(), is.dims().begin() + bd, is.dims().end());
  plan.dims.insert(plan.dims.end(), ps.dims().begin() + bd + 1, ps.dims().end());
  checked_elements(ctx.node().op, plan.dims);
  if (params.dtype() != DType::String) check_copyable("ResourceGather", params.dtype());
  std::vector<int64_t> idx = read_ints("ResourceGather", "indices", indices);
  const int64_t n = static_cast<int64_t>(idx.size());
  if (n == 0) return plan;

  int64_t batch_size = 1, gather_dim = 1;
  for (int d = 0; d < bd; ++d) batch_size *= ps.dim(d);
  for (int d = 0; d <= bd; ++d) gather_dim *= ps.dim(d);
  for (int d = bd + 1; d < ps.rank(); ++d) plan.inner *= ps.dim(d);
  if (bd > 0) {  // AddBatchOffsets
    const int64_t per_batch = n / batch_size;
    for (int64_t i = 0; i < n; ++i) idx[static_cast<size_t>(i)] += ps.dim(bd) * (i / per_batch);
  }
  for (int64_t i = 0; i < n; ++i)
    if (idx[static_cast<size_t>(i)] < 0 || idx[static_cast<size_t>(i)] >= gather_dim)
      fail("indices" + multi_index(is, i) + " = " + std::to_string(idx[static_cast<size_t>(i)]) + " is not in [0, " +
           std::to_string(ps.dim(0)) + ")");
  if (plan.inner > 0) plan.source_rows = std::move(idx);
  return plan;
}

void register_resource_gather_op(OpRegistry& r) {
  r.add(OpBuilder("ResourceGather")
            .input("resource: resource")
            .input("indices: Tindices")
            .attr("batch_dims: int = 0")
            .attr("validate_indices: bool = true")
            .output("output: dtype")
            .attr("dtype: type")
            .attr("Tindices: {int32,int64}")
            .shape(resource_gather_shape)
            .cpu(resource_gather_kernel)
            .category("state")
            .doc("Rows of a resource variable picked by indices (batch_dims as GatherV2)."));
}

}  // namespace flowlens::ops
