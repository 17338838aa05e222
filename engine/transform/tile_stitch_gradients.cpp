// Gradients of Tile, BroadcastTo and DynamicStitch, built as
// tensorflow/python/ops/array_grad.py and data_flow_grad.py build them.
#include "ops/framework/op_helpers.h"
#include "transform/gradient_functions.h"
#include "transform/shape_grad_helpers.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

std::string reshape(GradContext& c, const std::string& x, const std::string& shape, DType t, DType shape_type) {
  return c.b.add("Reshape", "Reshape", {x, shape},
                 {{"T", AttrValue(t)}, {"Tshape", AttrValue(shape_type)}});
}

// _TileGrad: reshape the gradient to interleaved [multiple, input dim]
// pairs and sum over the multiples.
Grads tile_grad(GradContext& c) {
  const DType mt = input_dtype(c, 1);
  const TensorInfo& xi = c.input_info[0];
  const std::string input_shape = shape_tensor(c, c.inputs[0], xi, mt);
  const std::string stacked = pack_ints(c, "stack", {c.inputs[1], input_shape}, mt);
  const std::string transposed = c.b.add("Transpose", "transpose", {stacked, index_vector(c, {1, 0})},
                                         {{"T", AttrValue(mt)}, {"Tperm", AttrValue(DType::Int32)}});
  const std::string split_shape = reshape(c, transposed, index_vector(c, {-1}), mt, DType::Int32);
  // split_shape has 2 * rank entries, a constant when the rank is known.
  int64_t rank = xi.shape.rank_known() ? xi.shape.rank() : Shape::kUnknownDim;
  const Shape& ms = c.input_info[1].shape;
  if (rank < 0 && ms.rank_known() && ms.rank() == 1) rank = ms.dim(0);
  const std::string size = size_tensor(c, split_shape,
                                       TensorInfo{mt, rank >= 0 ? Shape{2 * rank} : Shape::unknown_rank()});
  const std::string axes = range_from(c, 0, size, 2);
  const std::string g = reshape(c, c.grads[0], split_shape, c.dtype, mt);
  return {c.b.add("Sum", "Sum", {g, axes},
                  {{"T", AttrValue(c.dtype)}, {"Tidx", AttrValue(DType::Int32)}, {"keep_dims", AttrValue(false)}}),
          ""};
}

// _BroadcastToGrad: sum over the broadcast axes (BroadcastGradientArgs),
// keeping dims, and reshape to the input's shape.
Grads broadcast_to_grad(GradContext& c) {
  const DType st = input_dtype(c, 1);
  const std::string input_shape = shape_tensor(c, c.inputs[0], c.input_info[0], st);
  std::string target = c.inputs[1];
  if (const Tensor* v = constant_value(c, target))  // try_evaluate_constant: a fresh Const
    target = index_vector(c, ops::read_ints("BroadcastTo", "shape", *v), st);
  const std::string args = c.b.add("BroadcastGradientArgs", "BroadcastGradientArgs", {target, input_shape},
                                   {{"T", AttrValue(st)}});
  const std::string sum = c.b.add("Sum", "Sum", {c.grads[0], tensor_name(args, 1)},
                                  {{"T", AttrValue(c.dtype)}, {"Tidx", AttrValue(st)}, {"keep_dims", AttrValue(true)}});
  return {reshape(c, sum, input_shape, c.dtype, st), ""};
}

// TF's newest _DynamicStitchGrads: each data slice gets Gather(grad, indices),
// masked to the slices that won the write (a later duplicate index wins, the
// earlier one gets zero). Winners are found by stitching position ids.
Grads dynamic_stitch_grad(GradContext& c) {
  const int n = static_cast<int>(c.inputs.size()) / 2;
  const AttrMap int32_attrs{{"T", AttrValue(DType::Int32)}};
  std::vector<std::string> ids;
  std::string current = index_scalar(c, 0);
  for (int m = 0; m < n; ++m) {
    const std::string& inp = c.inputs[static_cast<size_t>(m)];
    const TensorInfo& info = c.input_info[static_cast<size_t>(m)];
    const std::string count = size_tensor(c, inp, info);
    const std::string flat = c.b.add("Range", "range", {current, c.b.add("AddV2", "add", {current, count}, int32_attrs),
                                                         index_scalar(c, 1)},
                                     {{"Tidx", AttrValue(DType::Int32)}});
    ids.push_back(reshape(c, flat, shape_tensor(c, inp, info), DType::Int32, DType::Int32));
    current = c.b.add("AddV2", "add", {current, count}, int32_attrs);
  }
  std::vector<std::string> stitch_inputs(c.inputs.begin(), c.inputs.begin() + n);
  stitch_inputs.insert(stitch_inputs.end(), ids.begin(), ids.end());
  const std::string stitched = c.b.add("DynamicStitch", "DynamicStitch", std::move(stitch_inputs),
                                       {{"N", AttrValue(static_cast<int64_t>(n))}, {"T", AttrValue(DType::Int32)}});
  const std::string inner_dims =
      c.b.add("Sub", "sub", {rank_tensor(c, c.grads[0], c.output_info[0]), index_scalar(c, 1)}, int32_attrs);
  auto gather = [&](const std::string& params, const std::string& indices, DType t) {
    return c.b.add("GatherV2", "GatherV2", {params, indices, index_scalar(c, 0)},
                   {{"Tparams", AttrValue(t)}, {"Tindices", AttrValue(DType::Int32)},
                    {"Taxis", AttrValue(DType::Int32)}, {"batch_dims", AttrValue(int64_t{0})}});
  };
  Grads out(static_cast<size_t>(n));  // no gradient for the indices
  for (int m = 0; m < n; ++m) {
    const std::string& inp = c.inputs[static_cast<size_t>(m)];
    const std::string value_grad = gather(c.grads[0], inp, c.dtype);
    const std::string is_winner =
        c.b.add("Equal", "Equal", {gather(stitched, inp, DType::Int32), ids[static_cast<size_t>(m)]}, int32_attrs);
    const std::string mask = c.b.cast(is_winner, DType::Bool, c.dtype);
    const std::string winner_shape =
        shape_tensor(c, is_winner, TensorInfo{DType::Bool, c.input_info[static_cast<size_t>(m)].shape});
    const std::string ones = c.b.add("Fill", "ones", {pack_ints(c, "ones/packed", {inner_dims}), index_scalar(c, 1)},
                                     {{"T", AttrValue(DType::Int32)}, {"index_type", AttrValue(DType::Int32)}});
    const std::string mask_shape = concat_ints(c, {winner_shape, ones});
    out.push_back(c.b.binary("Mul", value_grad, reshape(c, mask, mask_shape, c.dtype, DType::Int32), c.dtype));
  }
  return out;
}

}  // namespace

void add_tile_stitch_gradients(GradTable& t) {
  t.insert(t.end(), {{"Tile", tile_grad}, {"BroadcastTo", broadcast_to_grad}, {"DynamicStitch", dynamic_stitch_grad}});
}

}  // namespace flowlens::grad
