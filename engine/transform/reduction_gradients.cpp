// Gradients of the reductions (Sum, Mean, Max, Min, Prod, L2Loss), the scans
// (Cumsum, Cumprod), MatMul and BatchMatMul(V2), built the way tensorflow/python/ops/
// math_grad.py and nn_grad.py build them, from TensorFlow's ops only.
#include "ops/framework/op_helpers.h"
#include "transform/gradient_functions.h"
#include "transform/shape_grad_helpers.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

AttrMap typed(DType t) { return {{"T", AttrValue(t)}}; }

std::string reshape(GradContext& c, const std::string& x, const std::string& shape, DType t) {
  return c.b.add("Reshape", "Reshape", {x, shape}, {{"T", AttrValue(t)}, {"Tshape", AttrValue(DType::Int32)}});
}

std::string tile(GradContext& c, const std::string& x, const std::string& multiples) {
  return c.b.add("Tile", "Tile", {x, multiples}, {{"T", AttrValue(c.dtype)}, {"Tmultiples", AttrValue(DType::Int32)}});
}

std::string broadcast_to(GradContext& c, const std::string& x, const std::string& shape) {
  return c.b.add("BroadcastTo", "BroadcastTo", {x, shape},
                 {{"T", AttrValue(c.dtype)}, {"Tidx", AttrValue(DType::Int32)}});
}

// reduce_prod of a 1-D int32 tensor (axis None: Const [0]).
std::string prod_all(GradContext& c, const std::string& v) {
  return c.b.add("Prod", "Prod", {v, index_vector(c, {0})},
                 {{"T", AttrValue(DType::Int32)}, {"Tidx", AttrValue(DType::Int32)}, {"keep_dims", AttrValue(false)}});
}

// ---- Sum / Mean: _SumGrad ----------------------------------------------------------

// _SumGrad's input gradient. With a known rank and constant axes it takes
// TF's fast paths (Reshape + Tile with constants); otherwise Shape,
// reduced_shape, Reshape and BroadcastTo.
std::string sum_grad_value(GradContext& c) {
  const std::string& x = c.inputs[0];
  const TensorInfo& xi = c.input_info[0];
  const Shape& in = xi.shape;
  const std::string& grad = c.grads[0];
  if (const Tensor* axes = constant_value(c, c.inputs[1]); axes && in.rank_known()) {
    const int rank = in.rank();
    const std::vector<int64_t> a = ops::read_ints("Sum", "reduction_indices", *axes);
    bool all = axes->shape().rank() == 1 && static_cast<int>(a.size()) == rank;  // np.array_equal(axes, arange(rank))
    for (int i = 0; all && i < rank; ++i) all = a[static_cast<size_t>(i)] == i;
    if (all) {
      const std::string ones = index_vector(c, std::vector<int64_t>(static_cast<size_t>(rank), 1));
      return tile(c, reshape(c, grad, ones, c.dtype), shape_tensor(c, x, xi));
    }
    if (in.fully_defined()) {
      std::vector<int64_t> kept = in.dims(), scaling(static_cast<size_t>(rank));
      for (int64_t v : a) kept[static_cast<size_t>(ops::normalize_axis("Sum", v, rank))] = 1;
      for (size_t i = 0; i < kept.size(); ++i) scaling[i] = in.dims()[i] / std::max<int64_t>(kept[i], 1);
      return tile(c, reshape(c, grad, index_vector(c, kept), c.dtype), index_vector(c, scaling));
    }
  }
  const std::string input_shape = shape_tensor(c, x, xi);
  std::string g = grad;
  if (!attrs_of(c).boolean("keep_dims"))
    g = reshape(c, g, reduced_shape(c, input_shape, xi, c.inputs[1], c.input_info[1]), c.dtype);
  return broadcast_to(c, g, input_shape);
}

Grads sum_grad(GradContext& c) { return {sum_grad_value(c), ""}; }

// The summed gradient divided by the number of elements each output averages:
// a Const when both shapes are static, else
// FloorDiv(Prod(Shape(x)), Maximum(Prod(Shape(y)), 1)) cast to the dtype.
Grads mean_grad(GradContext& c) {
  const std::string sum = sum_grad_value(c);
  const Shape& in = c.input_info[0].shape;
  const Shape& out = c.output_info[0].shape;
  if (in.fully_defined() && out.fully_defined()) {
    const int64_t factor = in.num_elements() / std::max<int64_t>(out.num_elements(), 1);
    return {c.b.binary("RealDiv", sum, real_scalar(c, c.dtype, static_cast<double>(factor)), c.dtype), ""};
  }
  const std::string in_size = prod_all(c, shape_tensor(c, c.inputs[0], c.input_info[0]));
  const std::string out_size = prod_all(c, shape_tensor(c, c.outputs[0], c.output_info[0]));
  const std::string factor = c.b.binary(
      "FloorDiv", in_size, c.b.binary("Maximum", out_size, index_scalar(c, 1), DType::Int32), DType::Int32);
  return {c.b.binary("RealDiv", sum, c.b.cast(factor, DType::Int32, c.dtype), c.dtype), ""};
}

// ---- Max / Min: _MinOrMaxGrad ---------------------------------------------------------

// The gradient goes to the elements equal to the result, split evenly
// between ties.
Grads min_or_max_grad(GradContext& c) {
  const std::string& x = c.inputs[0];
  const std::string& axes = c.inputs[1];
  const std::string input_shape = shape_tensor(c, x, c.input_info[0]);
  std::string y = c.outputs[0], g = c.grads[0], kept;
  if (!attrs_of(c).boolean("keep_dims")) {
    kept = reduced_shape(c, input_shape, c.input_info[0], axes, c.input_info[1]);
    y = reshape(c, y, kept, c.dtype);
    g = reshape(c, g, kept, c.dtype);
  } else {
    kept = shape_tensor(c, y, c.output_info[0]);
  }
  const std::string equal = c.b.add("Equal", "Equal", {y, x}, typed(c.dtype));
  const std::string indicators = c.b.cast(equal, DType::Bool, c.dtype);
  const std::string count =
      c.b.add("Sum", "Sum", {indicators, axes},
              {{"T", AttrValue(c.dtype)}, {"Tidx", AttrValue(input_dtype(c, 1))}, {"keep_dims", AttrValue(false)}});
  const std::string num_selected = reshape(c, count, kept, c.dtype);
  return {c.b.binary("Mul", c.b.binary("RealDiv", indicators, num_selected, c.dtype), g, c.dtype), ""};
}

// ---- Prod: _ProdGrad --------------------------------------------------------------------

// The product of all other elements, without dividing by the element (so
// zeros work): the reduced dims are moved to the front and flattened, and the
// two exclusive cumulative products (forward, reverse) are multiplied.
Grads prod_grad(GradContext& c) {
  const std::string& x = c.inputs[0];
  const std::string& axes = c.inputs[1];
  const TensorInfo& xi = c.input_info[0];
  const DType axes_type = input_dtype(c, 1);
  const AttrMap int32_attrs = typed(DType::Int32);
  const std::string input_shape = shape_tensor(c, x, xi);
  std::string indices = c.b.add("Reshape", "Reshape", {axes, index_vector(c, {-1})},
                                {{"T", AttrValue(axes_type)}, {"Tshape", AttrValue(DType::Int32)}});
  std::string g = c.grads[0];
  if (!attrs_of(c).boolean("keep_dims"))
    g = reshape(c, g, reduced_shape(c, input_shape, xi, axes, c.input_info[1]), c.dtype);
  g = broadcast_to(c, g, input_shape);
  // TF adds the int32 rank to the axes as they are (an int64 axes tensor
  // makes its Python fail); casting them first keeps the graph valid.
  if (axes_type != DType::Int32) indices = c.b.cast(indices, axes_type, DType::Int32);
  const std::string rank = rank_tensor(c, x, xi);
  const std::string reduced =
      c.b.add("FloorMod", "mod", {c.b.add("AddV2", "add", {indices, rank}, int32_attrs), rank}, int32_attrs);
  const std::string other = c.b.add("ListDiff", "ListDiff", {range_from(c, 0, rank, 1), reduced},
                                    {{"T", AttrValue(DType::Int32)}, {"out_idx", AttrValue(DType::Int32)}});
  const std::string perm = concat_ints(c, {reduced, other});
  auto gathered_count = [&](const std::string& idx) {
    return prod_all(c, c.b.add("GatherV2", "GatherV2", {input_shape, idx, index_scalar(c, 0)},
                               {{"Tparams", AttrValue(DType::Int32)}, {"Tindices", AttrValue(DType::Int32)},
                                {"Taxis", AttrValue(DType::Int32)}, {"batch_dims", AttrValue(int64_t{0})}}));
  };
  const std::string packed = pack_ints(c, "Reshape/shape", {gathered_count(reduced), gathered_count(other)});
  auto transpose = [&](const std::string& v, const std::string& p) {
    return c.b.add("Transpose", "transpose", {v, p}, {{"T", AttrValue(c.dtype)}, {"Tperm", AttrValue(DType::Int32)}});
  };
  const std::string permuted = transpose(x, perm);
  const std::string permuted_shape = c.b.shape(permuted, c.dtype);
  const std::string reshaped = reshape(c, permuted, packed, c.dtype);
  auto cumprod = [&](bool reverse) {
    return c.b.add("Cumprod", "Cumprod", {reshaped, index_scalar(c, 0)},
                   {{"T", AttrValue(c.dtype)}, {"Tidx", AttrValue(DType::Int32)}, {"exclusive", AttrValue(true)},
                    {"reverse", AttrValue(reverse)}});
  };
  const std::string y = reshape(c, c.b.binary("Mul", cumprod(false), cumprod(true), c.dtype), permuted_shape, c.dtype);
  const std::string inverse = c.b.add("InvertPermutation", "InvertPermutation", {perm}, int32_attrs);
  const std::string out = c.b.binary("Mul", g, transpose(y, inverse), c.dtype);
  return {reshape(c, out, input_shape, c.dtype), ""};
}

// ---- L2Loss, Cumsum, Cumprod -------------------------------------------------------------

Grads l2loss_grad(GradContext& c) { return {c.b.binary("Mul", c.inputs[0], c.grads[0], c.dtype)}; }

std::string cumulative(GradContext& c, const char* op, const std::string& x, bool reverse) {
  const AttrReader a = attrs_of(c);
  return c.b.add(op, op, {x, c.inputs[1]},
                 {{"T", AttrValue(c.dtype)}, {"Tidx", AttrValue(input_dtype(c, 1))},
                  {"exclusive", AttrValue(a.boolean("exclusive"))}, {"reverse", AttrValue(reverse)}});
}

Grads cumsum_grad(GradContext& c) {
  return {cumulative(c, "Cumsum", c.grads[0], !attrs_of(c).boolean("reverse")), ""};
}

// TF's newest _CumprodGrad: cumsum(cumprod(x) * grad, reversed) / x, with
// DivNoNan so that zeros in x give 0 instead of NaN.
Grads cumprod_grad(GradContext& c) {
  const bool reverse = attrs_of(c).boolean("reverse");
  const std::string prod = cumulative(c, "Cumprod", c.inputs[0], reverse);
  const std::string out = cumulative(c, "Cumsum", c.b.binary("Mul", prod, c.grads[0], c.dtype), !reverse);
  return {c.b.binary("DivNoNan", out, c.inputs[0], c.dtype), ""};
}

// ---- MatMul ----------------------------------------------------------------------------------

std::string matmul(GradContext& c, const std::string& a, const std::string& b, bool ta, bool tb) {
  return c.b.add("MatMul", "MatMul", {a, b},
                 {{"T", AttrValue(c.dtype)}, {"transpose_a", AttrValue(ta)}, {"transpose_b", AttrValue(tb)}});
}

Grads matmul_grad(GradContext& c) {
  const AttrReader attrs = attrs_of(c);
  const bool ta = attrs.boolean("transpose_a");
  const bool tb = attrs.boolean("transpose_b");
  const std::string& a = c.inputs[0];
  const std::string& b = c.inputs[1];
  const std::string& g = c.grads[0];
  if (!ta && !tb) return {matmul(c, g, b, false, true), matmul(c, a, g, true, false)};
  if (!ta && tb) return {matmul(c, g, b, false, false), matmul(c, g, a, true, false)};
  if (ta && !tb) return {matmul(c, b, g, false, true), matmul(c, a, g, false, false)};
  return {matmul(c, b, g, true, true), matmul(c, g, a, true, true)};
}

// ---- BatchMatMul / BatchMatMulV2 ------------------------------------------------------------

// math_ops.matmul(a, b, adjoint_a, adjoint_b) on batches: BatchMatMulV2.
std::string batch_matmul(GradContext& c, const std::string& a, const std::string& b, bool adj_a, bool adj_b) {
  return c.b.add("BatchMatMulV2", "MatMul", {a, b},
                 {{"T", AttrValue(c.dtype)}, {"adj_x", AttrValue(adj_a)}, {"adj_y", AttrValue(adj_b)}});
}

// _BatchMatMul and _BatchMatMulV2: the products of MatMul's gradient per
// matrix; V2 then sums each over the batch dimensions it was broadcast along
// (BroadcastGradientArgs of the batch shapes), unless both batch shapes are
// statically known and equal.
Grads batch_matmul_grad(GradContext& c, bool broadcast) {
  const AttrReader attrs = attrs_of(c);
  const bool adj_x = attrs.boolean("adj_x"), adj_y = attrs.boolean("adj_y");
  const std::string& x = c.inputs[0];
  const std::string& y = c.inputs[1];
  const std::string& g = c.grads[0];
  std::string gx, gy;
  if (!adj_x && !adj_y) gx = batch_matmul(c, g, y, false, true), gy = batch_matmul(c, x, g, true, false);
  else if (!adj_x) gx = batch_matmul(c, g, y, false, false), gy = batch_matmul(c, g, x, true, false);
  else if (!adj_y) gx = batch_matmul(c, y, g, false, true), gy = batch_matmul(c, x, g, false, false);
  else gx = batch_matmul(c, y, g, true, true), gy = batch_matmul(c, g, x, true, true);
  if (!broadcast) return {gx, gy};
  const Shape& sx = c.input_info[0].shape;
  const Shape& sy = c.input_info[1].shape;
  const bool may_have_batch = !sx.rank_known() || sx.rank() > 2 || !sy.rank_known() || sy.rank() > 2;
  auto batch_of = [](const Shape& s) { return std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2); };
  const bool batch_shapes_match = sx.rank_known() && sy.rank_known() && sx.fully_defined() && sy.fully_defined() &&
                                  batch_of(sx) == batch_of(sy);
  if (!may_have_batch || batch_shapes_match) return {gx, gy};
  const std::string shape_x = shape_tensor(c, x, c.input_info[0]);  // array_ops.shape: a Const when known
  const std::string shape_y = shape_tensor(c, y, c.input_info[1]);
  auto batch_shape = [&](const std::string& shape) {  // shape[:-2]
    return strided_slice(c, shape, DType::Int32, int_const(c, "stack", DType::Int32, {0}),
                         int_const(c, "stack_1", DType::Int32, {-2}), int_const(c, "stack_2", DType::Int32, {1}),
                         DType::Int32, 1, 0);
  };
  const std::string args = c.b.add("BroadcastGradientArgs", "BroadcastGradientArgs",
                                   {batch_shape(shape_x), batch_shape(shape_y)}, {{"T", AttrValue(DType::Int32)}});
  auto sum_to = [&](const std::string& grad, const std::string& axes, const std::string& shape) {
    const std::string sum = c.b.add("Sum", "Sum", {grad, axes},
                                    {{"T", AttrValue(c.dtype)}, {"Tidx", AttrValue(DType::Int32)},
                                     {"keep_dims", AttrValue(false)}});
    return reshape(c, sum, shape, c.dtype);
  };
  return {sum_to(gx, tensor_name(args, 0), shape_x), sum_to(gy, tensor_name(args, 1), shape_y)};
}

Grads batch_matmul_v1_grad(GradContext& c) { return batch_matmul_grad(c, false); }
Grads batch_matmul_v2_grad(GradContext& c) { return batch_matmul_grad(c, true); }

}  // namespace

void add_reduction_gradients(GradTable& t) {
  t.insert(t.end(), {{"Sum", sum_grad},
                     {"Mean", mean_grad},
                     {"Max", min_or_max_grad},
                     {"Min", min_or_max_grad},
                     {"Prod", prod_grad},
                     {"L2Loss", l2loss_grad},
                     {"Cumsum", cumsum_grad},
                     {"Cumprod", cumprod_grad},
                     {"MatMul", matmul_grad},
                     {"BatchMatMul", batch_matmul_v1_grad},
                     {"BatchMatMulV2", batch_matmul_v2_grad},
                     {"BatchMatMulV3", batch_matmul_v2_grad}});  // math_grad.py registers _BatchMatMulV2 for both
}

}  // namespace flowlens::grad
