// Gradients of activations, the bias ops, the softmax family and the
// cross-entropy losses, built from TensorFlow's ops as nn_grad.py builds
// them. Where nn_grad.py folds a statically known shape or rank into a
// constant, the dynamic form it builds for unknown shapes is used (Shape,
// Rank, Fill), so one graph serves every input shape.
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

Grads relu_grad(GradContext& c) { return {c.b.binary("ReluGrad", c.grads[0], c.outputs[0], c.dtype)}; }
Grads sigmoid_grad(GradContext& c) { return {c.b.binary("SigmoidGrad", c.outputs[0], c.grads[0], c.dtype)}; }
Grads tanh_grad(GradContext& c) { return {c.b.binary("TanhGrad", c.outputs[0], c.grads[0], c.dtype)}; }

std::string int32_const(GradContext& c, const std::string& base, int32_t v) {
  return c.b.scalar(base, DType::Int32, v);
}

// ---- bias ops -----------------------------------------------------------------------

Grads bias_add_grad(GradContext& c) {
  AttrMap attrs{{"T", AttrValue(c.dtype)}};
  if (const AttrValue* f = c.node.find_attr("data_format")) attrs["data_format"] = *f;
  return {c.grads[0], c.b.add("BiasAddGrad", "BiasAddGrad", {c.grads[0]}, std::move(attrs))};
}

// _BiasAddGradV1: the bias gets Sum(g, Range(0, Rank(g) - 1, 1)).
Grads bias_add_v1_grad(GradContext& c) {
  const std::string& g = c.grads[0];
  const std::string rank = c.b.add("Rank", "Rank", {g}, {{"T", AttrValue(c.dtype)}});
  const std::string limit = c.b.binary("Sub", rank, int32_const(c, "sub/y", 1), DType::Int32);
  const std::string axes = c.b.add("Range", "range", {int32_const(c, "range/start", 0), limit, int32_const(c, "range/delta", 1)},
                                   {{"Tidx", AttrValue(DType::Int32)}});
  return {g, c.b.sum(g, axes, c.dtype)};
}

// x[begin:end] of an int32 vector, with TensorFlow's masks for an omitted
// begin (bit 0 of begin_mask) or end (bit 0 of end_mask).
std::string slice1(GradContext& c, const std::string& x, int32_t begin, int32_t end, bool from_start, bool to_end) {
  return c.b.add("StridedSlice", "strided_slice",
                 {x, c.b.int32_vector("strided_slice/stack", {begin}), c.b.int32_vector("strided_slice/stack_1", {end}),
                  c.b.int32_vector("strided_slice/stack_2", {1})},
                 {{"T", AttrValue(DType::Int32)},
                  {"Index", AttrValue(DType::Int32)},
                  {"begin_mask", AttrValue(from_start ? 1 : 0)},
                  {"end_mask", AttrValue(to_end ? 1 : 0)},
                  {"ellipsis_mask", AttrValue(0)},
                  {"new_axis_mask", AttrValue(0)},
                  {"shrink_axis_mask", AttrValue(0)}});
}

// array_ops.ones_like of an int32 vector: Fill(Shape(x), 1).
std::string ones_like(GradContext& c, const std::string& x) {
  return c.b.add("Fill", "ones_like", {c.b.shape(x, DType::Int32), int32_const(c, "ones_like/Const", 1)},
                 {{"T", AttrValue(DType::Int32)}, {"index_type", AttrValue(DType::Int32)}});
}

std::string concat(GradContext& c, const std::vector<std::string>& parts) {
  std::vector<std::string> in = parts;
  in.push_back(int32_const(c, "concat/axis", 0));
  return c.b.add("ConcatV2", "concat", std::move(in),
                 {{"N", AttrValue(static_cast<int64_t>(parts.size()))},
                  {"T", AttrValue(DType::Int32)},
                  {"Tidx", AttrValue(DType::Int32)}});
}

// _BiasAddGradGrad: the incoming [C] gradient reshaped to broadcast along
// the channel axis and tiled to out_backprop's shape.
Grads bias_add_grad_grad(GradContext& c) {
  const AttrValue* f = c.node.find_attr("data_format");
  const std::string* format = f ? f->get_if<std::string>() : nullptr;
  const bool nchw = format && *format == "NCHW";
  const std::string shape = shape_of(c, 0);
  const std::string bias_shape = c.b.shape(c.grads[0], c.dtype);
  const std::string one = c.b.int32_vector("concat/values_1", {1});
  std::string expanded_shape, multiples;
  if (nchw) {
    const std::string first = slice1(c, shape, 0, 1, true, false);  // shape[:1]
    const std::string rest = slice1(c, shape, 2, 0, false, true);   // shape[2:]
    expanded_shape = concat(c, {ones_like(c, first), bias_shape, ones_like(c, rest)});
    multiples = concat(c, {first, one, rest});
  } else {
    const std::string lead = slice1(c, shape, 0, -1, true, false);  // shape[:-1]
    expanded_shape = concat(c, {ones_like(c, lead), bias_shape});
    multiples = concat(c, {lead, one});
  }
  const std::string expanded = c.b.reshape(c.grads[0], expanded_shape, c.dtype);
  return {c.b.add("Tile", "Tile", {expanded, multiples}, {{"T", AttrValue(c.dtype)}, {"Tmultiples", AttrValue(DType::Int32)}})};
}

// ---- softmax family ---------------------------------------------------------------------

// dx = (g - sum(g * y, -1, keep_dims)) * y
Grads softmax_grad(GradContext& c) {
  const std::string& y = c.outputs[0];
  const std::string& g = c.grads[0];
  const std::string axis = c.b.int32_vector("Sum/reduction_indices", {-1});
  const std::string s = c.b.sum(c.b.binary("Mul", g, y, c.dtype), axis, c.dtype, true);
  return {c.b.binary("Mul", c.b.binary("Sub", g, s, c.dtype), y, c.dtype)};
}

// dx = g - sum(g, -1, keep_dims) * exp(y)
Grads log_softmax_grad(GradContext& c) {
  const std::string& g = c.grads[0];
  const std::string softmax = c.b.unary("Exp", c.outputs[0], c.dtype);
  const std::string s = c.b.sum(g, int32_const(c, "Sum/reduction_indices", -1), c.dtype, true);
  return {c.b.binary("Sub", g, c.b.binary("Mul", s, softmax, c.dtype), c.dtype)};
}

// _BroadcastMul's expand_dims(vec, -1) of the [batch] loss gradient. TensorFlow
// builds ExpandDims; Reshape to [-1, 1] gives the same [batch, 1] tensor with
// an op every FlowLens build has.
std::string expand_last(GradContext& c, const std::string& vec) {
  return c.b.reshape(vec, c.b.int32_vector("ExpandDims/dim", {-1, 1}), c.dtype);
}

std::string expand_dims(GradContext& c, const std::string& x, int32_t axis) {
  return c.b.add("ExpandDims", "ExpandDims", {x, int32_const(c, "ExpandDims/dim", axis)},
                 {{"T", AttrValue(c.dtype)}, {"Tdim", AttrValue(DType::Int32)}});
}

// _SoftmaxCrossEntropyWithLogitsGrad: logits get g_loss * backprop, plus,
// when a gradient flows into the backprop output (second order), the
// softmax Jacobian applied to it; labels get g_loss * -log_softmax(logits).
Grads xent_grad(GradContext& c) {
  const std::string& logits = c.inputs[0];
  const std::string g_loss = expand_last(c, grad_or_zeros(c, 0));
  std::string grad = c.b.binary("Mul", g_loss, c.outputs[1], c.dtype);
  if (const std::string& gg = c.grads[1]; !gg.empty()) {
    const std::string softmax = c.b.unary("Softmax", logits, c.dtype);
    const std::string product =
        c.b.add("BatchMatMulV2", "MatMul", {expand_dims(c, gg, 1), expand_dims(c, softmax, 2)},
                {{"T", AttrValue(c.dtype)}, {"adj_x", AttrValue(false)}, {"adj_y", AttrValue(false)}});
    AttrList axis1;
    axis1.i = {1};
    const std::string squeezed =
        c.b.add("Squeeze", "Squeeze", {product}, {{"T", AttrValue(c.dtype)}, {"squeeze_dims", AttrValue(axis1)}});
    const std::string term = c.b.binary("Mul", c.b.binary("Sub", gg, squeezed, c.dtype), softmax, c.dtype);
    grad = c.b.binary("AddV2", grad, term, c.dtype);
  }
  const std::string neg_log_softmax = c.b.unary("Neg", c.b.unary("LogSoftmax", logits, c.dtype), c.dtype);
  return {grad, c.b.binary("Mul", g_loss, neg_log_softmax, c.dtype)};
}

// Logits get g_loss * backprop; the integer labels none.
Grads sparse_xent_grad(GradContext& c) {
  if (c.grads[0].empty()) return {"", ""};
  return {c.b.binary("Mul", expand_last(c, c.grads[0]), c.outputs[1], c.dtype), ""};
}

}  // namespace

void add_nn_gradients(GradTable& t) {
  t.insert(t.end(), {{"Relu", relu_grad},
                     {"Sigmoid", sigmoid_grad},
                     {"Tanh", tanh_grad},
                     {"BiasAdd", bias_add_grad},
                     {"BiasAddV1", bias_add_v1_grad},
                     {"BiasAddGrad", bias_add_grad_grad},
                     {"Softmax", softmax_grad},
                     {"LogSoftmax", log_softmax_grad},
                     {"SoftmaxCrossEntropyWithLogits", xent_grad},
                     {"SparseSoftmaxCrossEntropyWithLogits", sparse_xent_grad}});
}

}  // namespace flowlens::grad
