// Gradients of the indexing ops, as array_grad.py builds them. Gather and
// GatherV2 along a constant axis 0 give TensorFlow an IndexedSlices; FlowLens
// gradients are dense, so the graph holds what TensorFlow adds when that
// IndexedSlices meets a dense consumer: UnsortedSegmentSum(values, indices,
// dense_shape[0]). Other axes (and batch_dims) take _GatherV2Grad's dense path.
// GatherNd's gradient is ScatterNd (or, for [n, 1] indices, the same
// UnsortedSegmentSum), ScatterNd's is GatherNd.
#include "transform/array_gradient_util.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

// array_ops.size(x): a Const when x's shape is static, else a Size node.
std::string size_tensor(GradContext& c, const std::string& x, const TensorInfo& info) {
  if (info.shape.fully_defined()) return int_const(c, "Size", DType::Int32, {info.shape.num_elements()}, true);
  const DType t = info.dtype == DType::Invalid ? DType::Int32 : dtype_base(info.dtype);
  return c.b.add("Size", "Size", {x}, {{"T", AttrValue(t)}, {"out_type", AttrValue(DType::Int32)}});
}

std::string expand_dims0(GradContext& c, const std::string& x) {
  return c.b.add("ExpandDims", "ExpandDims", {x, int_const(c, "ExpandDims/dim", DType::Int32, {0}, true)},
                 {{"T", AttrValue(DType::Int32)}, {"Tdim", AttrValue(DType::Int32)}});
}

std::string concat(GradContext& c, std::vector<std::string> parts, DType t) {
  const auto n = static_cast<int64_t>(parts.size());
  parts.push_back(int_const(c, "concat/axis", DType::Int32, {0}, true));
  return c.b.add("ConcatV2", "concat", std::move(parts),
                 {{"T", AttrValue(t)}, {"N", AttrValue(n)}, {"Tidx", AttrValue(DType::Int32)}});
}

std::string reshape(GradContext& c, const std::string& x, const std::string& shape, DType t) {
  return c.b.add("Reshape", "Reshape", {x, shape}, {{"T", AttrValue(t)}, {"Tshape", AttrValue(DType::Int32)}});
}

std::string pack(GradContext& c, const std::string& x, DType t) {
  return c.b.add("Pack", "stack", {x}, {{"T", AttrValue(t)}, {"N", AttrValue(int64_t{1})}, {"axis", AttrValue(int64_t{0})}});
}

std::string range(GradContext& c, const std::string& start, const std::string& limit, DType t) {
  return c.b.add("Range", "range", {start, limit, int_const(c, "range/delta", t, {1}, true)}, {{"Tidx", AttrValue(t)}});
}

std::string segment_sum(GradContext& c, const std::string& values, const std::string& indices, DType index,
                        const std::string& num_segments) {
  return c.b.add("UnsortedSegmentSum", "UnsortedSegmentSum", {values, indices, num_segments},
                 {{"T", AttrValue(c.dtype)}, {"Tindices", AttrValue(index)}, {"Tnumsegments", AttrValue(DType::Int32)}});
}

// _GatherGrad, and _GatherV2Grad for a constant axis 0: the IndexedSlices
// (Reshape(grad, [N] + params.shape[1:]), Reshape(indices, [N]),
// shape(params)) made dense.
std::string gather_axis0_grad(GradContext& c) {
  const DType index = input_dtype(c, 1);
  const std::string params_shape = shape_tensor(c, c.inputs[0], c.input_info[0]);
  const std::string size = expand_dims0(c, size_tensor(c, c.inputs[1], c.input_info[1]));
  const std::string tail = strided_slice(c, params_shape, DType::Int32, int_const(c, "stack", DType::Int32, {1}),
                                         int_const(c, "stack_1", DType::Int32, {0}),
                                         int_const(c, "stack_2", DType::Int32, {1}), DType::Int32, 0, 1);
  const std::string values = reshape(c, c.grads[0], concat(c, {size, tail}, DType::Int32), c.dtype);
  const std::string indices = reshape(c, c.inputs[1], size, index);
  return segment_sum(c, values, indices, index, element(c, params_shape, DType::Int32, 0));
}

Grads gather_grad(GradContext& c) { return {gather_axis0_grad(c), ""}; }

// _GetBatchIndices: indices offset by each batch's position in the
// flattened batch dims.
std::string batch_indices(GradContext& c, const std::string& params_shape, int64_t batch_dims) {
  const DType index = input_dtype(c, 1);
  std::string result = c.inputs[1];
  const std::string shape = index == DType::Int32 ? params_shape : c.b.cast(params_shape, DType::Int32, index);
  std::string accum = int_const(c, "ones", index, {1}, true);
  for (int64_t dim = batch_dims; dim > 0; --dim) {
    const std::string dim_value = element(c, shape, index, dim - 1);
    accum = c.b.binary("Mul", accum, element(c, shape, index, dim), index);
    std::string dim_indices = c.b.add("Range", "range", {int_const(c, "zeros", index, {0}, true), dim_value,
                                                         int_const(c, "ones", index, {1}, true)},
                                      {{"Tidx", AttrValue(index)}});
    dim_indices = c.b.binary("Mul", dim_indices, accum, index);
    auto tile_ones = [&](const std::string& multiples) {
      return c.b.add("Tile", "Tile", {int_const(c, "Tile/input", DType::Int32, {1}), multiples},
                     {{"T", AttrValue(DType::Int32)}, {"Tmultiples", AttrValue(DType::Int32)}});
    };
    const std::string rest = c.b.binary("Sub", rank_tensor(c, c.inputs[1], c.input_info[1]),
                                        int_const(c, "sub/y", DType::Int32, {dim}, true), DType::Int32);
    const std::string dim_shape = concat(c, {tile_ones(int_const(c, "Tile/multiples", DType::Int32, {dim - 1})),
                                             pack(c, dim_value, index), tile_ones(pack(c, rest, DType::Int32))},
                                         DType::Int32);
    result = c.b.binary("AddV2", result, reshape(c, dim_indices, dim_shape, index), index);
  }
  return result;
}

// _GatherV2Grad's dense path: the gathered axis moved behind the batch dims,
// UnsortedSegmentSum over it (_BatchGatherGrad), and moved back.
std::string gather_v2_dense_grad(GradContext& c, int64_t batch_dims) {
  const DType index = input_dtype(c, 1);
  const DType tax = input_dtype(c, 2);
  const std::string& axis = c.inputs[2];
  const std::string params_shape = shape_tensor(c, c.inputs[0], c.input_info[0]);
  const std::string indices_size = expand_dims0(c, size_tensor(c, c.inputs[1], c.input_info[1]));
  const std::string axis_1 = c.b.binary("AddV2", axis, int_const(c, "add/y", tax, {1}, true), tax);
  auto cst = [&](const char* base, std::vector<int64_t> v, DType t) { return int_const(c, base, t, v); };
  const std::string outer_shape = strided_slice(c, params_shape, DType::Int32, cst("stack", {0}, tax), pack(c, axis, tax),
                                                cst("stack_2", {1}, tax), tax, 1, 0);
  const std::string from_axis = strided_slice(c, params_shape, DType::Int32, pack(c, axis, tax), cst("stack_1", {0}, tax),
                                              cst("stack_2", {1}, tax), tax, 0, 1);
  const std::string inner_shape = strided_slice(c, from_axis, DType::Int32, cst("stack", {1}, DType::Int32),
                                                cst("stack_1", {0}, DType::Int32), cst("stack_2", {1}, DType::Int32),
                                                DType::Int32, 0, 1);
  const std::string values_shape = concat(c, {outer_shape, cst("concat/values_1", {-1}, DType::Int32), inner_shape}, DType::Int32);
  auto size_of = [&](const std::string& x) {
    return c.b.add("Size", "Size", {x}, {{"T", AttrValue(DType::Int32)}, {"out_type", AttrValue(DType::Int32)}});
  };
  const std::string values_dims = size_of(values_shape);
  const std::string axis_dims = size_of(outer_shape);
  auto scalar = [&](int64_t v) { return int_const(c, "Const", DType::Int32, {v}, true); };
  const std::string outer_batches = range(c, scalar(0), scalar(batch_dims), DType::Int32);
  const std::string batch_axis = range(c, scalar(batch_dims), axis_dims, DType::Int32);
  const std::string inner_axes =
      range(c, c.b.binary("AddV2", axis_dims, scalar(1), DType::Int32), values_dims, DType::Int32);
  const std::string values = reshape(c, c.grads[0], values_shape, c.dtype);
  const std::string transpose_dims =
      concat(c, {outer_batches, pack(c, axis_dims, DType::Int32), batch_axis, inner_axes}, DType::Int32);
  auto transpose = [&](const std::string& x, const std::string& perm) {
    return c.b.add("Transpose", "transpose", {x, perm}, {{"T", AttrValue(c.dtype)}, {"Tperm", AttrValue(DType::Int32)}});
  };
  const std::string values_t = transpose(values, transpose_dims);
  const std::string params_shape_t =
      c.b.add("GatherV2", "GatherV2", {params_shape, transpose_dims, scalar(0)},
              {{"Tparams", AttrValue(DType::Int32)}, {"Tindices", AttrValue(DType::Int32)},
               {"Taxis", AttrValue(DType::Int32)}, {"batch_dims", AttrValue(int64_t{0})}});
  std::string gather_dim_size = strided_slice(c, params_shape, DType::Int32, pack(c, axis, tax), pack(c, axis_1, tax),
                                              cst("stack_2", {1}, tax), tax, 0, 0, 1);
  // _BatchGatherGrad
  const std::string sizes = expand_dims0(c, size_tensor(c, c.inputs[1], c.input_info[1]));
  std::string flat_values = values_t, indices = c.inputs[1], outer = "", flat_shape = "";
  if (batch_dims > 0) {
    const std::string vs = c.b.shape(values_t, c.dtype);
    outer = strided_slice(c, vs, DType::Int32, cst("stack", {0}, DType::Int32), cst("stack_1", {batch_dims}, DType::Int32),
                          cst("stack_2", {1}, DType::Int32), DType::Int32, 1, 0);
    const std::string after_batch = strided_slice(c, vs, DType::Int32, cst("stack", {batch_dims}, DType::Int32),
                                                  cst("stack_1", {0}, DType::Int32), cst("stack_2", {1}, DType::Int32),
                                                  DType::Int32, 0, 1);
    const std::string inner = strided_slice(c, after_batch, DType::Int32, cst("stack", {1}, DType::Int32),
                                            cst("stack_1", {0}, DType::Int32), cst("stack_2", {1}, DType::Int32),
                                            DType::Int32, 0, 1);
    const std::string batch_size = c.b.add("Prod", "Prod", {outer, cst("Prod/reduction_indices", {0}, DType::Int32)},
                                           {{"T", AttrValue(DType::Int32)}, {"Tidx", AttrValue(DType::Int32)},
                                            {"keep_dims", AttrValue(false)}});
    flat_shape = concat(c, {cst("concat/values_0", {-1}, DType::Int32), inner}, DType::Int32);
    gather_dim_size = c.b.binary("Mul", gather_dim_size, batch_size, DType::Int32);
    indices = batch_indices(c, params_shape_t, batch_dims);
    flat_values = reshape(c, values_t, flat_shape, c.dtype);
  }
  std::string grad = segment_sum(c, flat_values, reshape(c, indices, sizes, index), index, gather_dim_size);
  if (batch_dims > 0) grad = reshape(c, grad, concat(c, {outer, flat_shape}, DType::Int32), c.dtype);
  const std::string invert_dims =
      concat(c, {outer_batches, c.b.binary("AddV2", batch_axis, scalar(1), DType::Int32),
                 cst("concat/values_2", {batch_dims}, DType::Int32), inner_axes},
             DType::Int32);
  return c.b.reshape(transpose(grad, invert_dims), shape_tensor(c, c.inputs[0], c.input_info[0]), c.dtype);
}

Grads gather_v2_grad(GradContext& c) {
  int64_t batch_dims = c.node.attr_int("batch_dims", 0);
  if (batch_dims < 0) {
    const Shape& is = c.input_info[1].shape;
    if (!is.rank_known())
      throw Error("Currently, it is unsupported to take the gradient of tf.gather when batch_dims < 0 and the rank "
                  "of the indices is unknown. Please pass a positive batch_dims or use tf.ensure_shape to update "
                  "the shape of indices when calling tf.gather. Got batch_dims=" + std::to_string(batch_dims) +
                  " and indices=" + c.inputs[1]);
    batch_dims += is.rank();
  }
  // tensor_util.constant_value(axis) == 0; an axis that is not a Const takes the dense path.
  const Tensor* axis = constant_value(c, c.inputs[2]);
  bool axis0 = false;
  if (axis && axis->num_elements() == 1 && axis->dtype() == DType::Int32) axis0 = axis->data<int32_t>()[0] == 0;
  if (axis && axis->num_elements() == 1 && axis->dtype() == DType::Int64) axis0 = axis->data<int64_t>()[0] == 0;
  return {axis0 ? gather_axis0_grad(c) : gather_v2_dense_grad(c, batch_dims), "", ""};
}

// _GatherNdGrad: for static [n, 1] indices an IndexedSlices (made dense here),
// else ScatterNd(indices, grad, shape(params)).
Grads gather_nd_grad(GradContext& c) {
  const DType index = input_dtype(c, 1);
  const Shape& is = c.input_info[1].shape;
  const std::string ref_shape = shape_tensor(c, c.inputs[0], c.input_info[0], index);
  if (is.rank_known() && is.rank() == 2 && is.dim(1) == 1) {
    AttrList axis;
    axis.i = {-1};
    const std::string squeezed = c.b.add("Squeeze", "Squeeze", {c.inputs[1]},
                                         {{"T", AttrValue(index)}, {"squeeze_dims", AttrValue(std::move(axis))}});
    const std::string rows = element(c, ref_shape, index, 0);
    return {c.b.add("UnsortedSegmentSum", "UnsortedSegmentSum", {c.grads[0], squeezed, rows},
                    {{"T", AttrValue(c.dtype)}, {"Tindices", AttrValue(index)}, {"Tnumsegments", AttrValue(index)}}),
            ""};
  }
  return {c.b.add("ScatterNd", "ScatterNd", {c.inputs[1], c.grads[0], ref_shape},
                  {{"T", AttrValue(c.dtype)},
                   {"Tindices", AttrValue(index)},
                   {"bad_indices_policy", AttrValue(c.node.attr_string("bad_indices_policy", ""))}}),
          ""};
}

Grads scatter_nd_grad(GradContext& c) {  // updates get GatherNd(grad, indices)
  return {"",
          c.b.add("GatherNd", "GatherNd", {c.grads[0], c.inputs[0]},
                  {{"Tparams", AttrValue(c.dtype)},
                   {"Tindices", AttrValue(input_dtype(c, 0))},
                   {"bad_indices_policy", AttrValue(std::string())}}),
          ""};
}

}  // namespace

void add_gather_gradients(GradTable& t) {
  t.insert(t.end(), {{"Gather", gather_grad},
                     {"GatherV2", gather_v2_grad},
                     {"GatherNd", gather_nd_grad},
                     {"ScatterNd", scatter_nd_grad}});
}

}  // namespace flowlens::grad
