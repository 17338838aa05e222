// Gradients of pooling, fused batch norm, LRN and resizing, built as
// TensorFlow's nn_grad.py and image_grad.py build them:
// - MaxPool -> MaxPoolGrad, MaxPoolV2 -> MaxPoolGradV2, AvgPool -> AvgPoolGrad,
//   AvgPoolGrad -> AvgPool of the gradient; MaxPoolGrad -> MaxPoolGradGrad (and the
//   V2 forms), MaxPoolGradGrad -> MaxPoolGrad; orig_input and orig_output of the
//   grad ops get zeros.
// - FusedBatchNorm{,V2,V3} -> FusedBatchNormGrad{,V2,V3}: in training with the
//   reserve spaces, in inference with the population mean and variance inputs.
//   TensorFlow transposes NCHW inputs to NHWC for the inference form because its
//   kernel takes only NHWC there; FusedBatchNormGrad here takes both layouts, so
//   data_format is passed through (same values, no transposes).
// - LRN -> LRNGrad; ResizeBilinear -> ResizeBilinearGrad; ResizeNearestNeighbor ->
//   ResizeNearestNeighborGrad with the image's [height, width].
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

AttrMap copy_attrs(const Node& n, std::initializer_list<const char*> names) {
  AttrMap m;
  for (const char* name : names)
    if (const AttrValue* v = n.find_attr(name)) m[name] = *v;
  return m;
}

AttrMap pool_attrs(GradContext& c, bool explicit_paddings, bool window_attrs = true) {
  AttrMap m = window_attrs ? copy_attrs(c.node, {"ksize", "strides", "padding", "data_format"})
                           : copy_attrs(c.node, {"padding", "data_format"});
  if (explicit_paddings)
    if (const AttrValue* v = c.node.find_attr("explicit_paddings")) m["explicit_paddings"] = *v;
  m["T"] = AttrValue(c.input_info[0].dtype);
  return m;
}

std::string zeros_like(GradContext& c, int input) {
  return c.b.unary("ZerosLike", c.inputs[static_cast<size_t>(input)], c.input_info[static_cast<size_t>(input)].dtype);
}

void refuse_explicit(GradContext& c) {
  if (const AttrValue* p = c.node.find_attr("padding"))
    if (const std::string* s = p->get_if<std::string>(); s && *s == "EXPLICIT")
      throw Error(c.node.name + ": MaxPoolGrad with EXPLICIT padding has no gradient (TensorFlow's MaxPoolGradGrad "
                                "takes SAME or VALID padding only)");
}

// ---- pooling ------------------------------------------------------------------------

Grads max_pool_grad(GradContext& c) {
  return {c.b.add("MaxPoolGrad", "MaxPoolGrad", {c.inputs[0], c.outputs[0], grad_or_zeros(c, 0)}, pool_attrs(c, true))};
}

Grads max_pool_v2_grad(GradContext& c) {
  return {c.b.add("MaxPoolGradV2", "MaxPoolGradV2",
                  {c.inputs[0], c.outputs[0], grad_or_zeros(c, 0), c.inputs[1], c.inputs[2]}, pool_attrs(c, false, false)),
          "", ""};
}

Grads avg_pool_grad(GradContext& c) {
  return {c.b.add("AvgPoolGrad", "AvgPoolGrad", {shape_of(c, 0), grad_or_zeros(c, 0)}, pool_attrs(c, false))};
}

// _AvgPoolGradGrad: the shape input gets none; the gradient input AvgPool(grad).
Grads avg_pool_grad_grad(GradContext& c) {
  AttrMap m = copy_attrs(c.node, {"ksize", "strides", "padding", "data_format"});
  m["T"] = AttrValue(c.input_info[1].dtype);
  return {"", c.b.add("AvgPool", "AvgPool", {grad_or_zeros(c, 0)}, std::move(m))};
}

Grads max_pool_grad_grad(GradContext& c) {
  refuse_explicit(c);
  return {zeros_like(c, 0), zeros_like(c, 1),
          c.b.add("MaxPoolGradGrad", "MaxPoolGradGrad", {c.inputs[0], c.inputs[1], grad_or_zeros(c, 0)},
                  pool_attrs(c, false))};
}

Grads max_pool_grad_v2_grad(GradContext& c) {
  return {zeros_like(c, 0), zeros_like(c, 1),
          c.b.add("MaxPoolGradGradV2", "MaxPoolGradGradV2",
                  {c.inputs[0], c.inputs[1], grad_or_zeros(c, 0), c.inputs[3], c.inputs[4]}, pool_attrs(c, false, false)),
          "", ""};
}

Grads max_pool_grad_grad_grad(GradContext& c) {
  return {zeros_like(c, 0), zeros_like(c, 1),
          c.b.add("MaxPoolGrad", "MaxPoolGrad", {c.inputs[0], c.inputs[1], grad_or_zeros(c, 0)}, pool_attrs(c, false))};
}

// ---- batch norm ---------------------------------------------------------------------

// _BaseFusedBatchNormGrad; version 0, 1, 2 for FusedBatchNorm, V2, V3.
Grads fused_batch_norm_grad(GradContext& c, int version) {
  const AttrValue* t = c.node.find_attr("is_training");
  const bool training = !t || !t->get_if<bool>() || *t->get_if<bool>();
  AttrMap m = copy_attrs(c.node, {"epsilon", "data_format"});
  m["is_training"] = AttrValue(training);
  m["T"] = AttrValue(c.input_info[0].dtype);
  if (version > 0) m["U"] = AttrValue(DType::Float);
  std::vector<std::string> in = {grad_or_zeros(c, 0), c.inputs[0], c.inputs[1]};
  if (training) in.insert(in.end(), {c.outputs[3], c.outputs[4]});
  else in.insert(in.end(), {c.inputs[3], c.inputs[4]});
  if (version == 2) in.push_back(c.outputs[5]);
  static const char* const kOps[] = {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"};
  const std::string g = c.b.add(kOps[version], kOps[version], std::move(in), std::move(m));
  return {g, tensor_name(g, 1), tensor_name(g, 2), "", ""};
}

Grads fused_batch_norm_v1_grad(GradContext& c) { return fused_batch_norm_grad(c, 0); }
Grads fused_batch_norm_v2_grad(GradContext& c) { return fused_batch_norm_grad(c, 1); }
Grads fused_batch_norm_v3_grad(GradContext& c) { return fused_batch_norm_grad(c, 2); }

// ---- LRN and resizing -------------------------------------------------------------------

Grads lrn_grad(GradContext& c) {
  AttrMap m = copy_attrs(c.node, {"depth_radius", "bias", "alpha", "beta"});
  m["T"] = AttrValue(c.dtype);
  return {c.b.add("LRNGrad", "LRNGrad", {grad_or_zeros(c, 0), c.inputs[0], c.outputs[0]}, std::move(m))};
}

bool differentiable(DType t) { return t == DType::Float || t == DType::Double || t == DType::Half || t == DType::BFloat16; }

Grads resize_bilinear_grad(GradContext& c) {
  const DType t = c.input_info[0].dtype;
  if (!differentiable(t)) return {"", ""};
  AttrMap m = copy_attrs(c.node, {"align_corners", "half_pixel_centers"});
  m["T"] = AttrValue(t);
  return {c.b.add("ResizeBilinearGrad", "ResizeBilinearGrad", {grad_or_zeros(c, 0), c.inputs[0]}, std::move(m)), ""};
}

// The gradient goes to ResizeNearestNeighborGrad with size = shape(image)[1:3].
Grads resize_nearest_grad(GradContext& c) {
  const DType t = c.input_info[0].dtype;
  if (!differentiable(t)) return {"", ""};
  const std::string hw = c.b.add(
      "StridedSlice", "strided_slice",
      {shape_of(c, 0), c.b.int32_vector("strided_slice/stack", {1}), c.b.int32_vector("strided_slice/stack_1", {3}),
       c.b.int32_vector("strided_slice/stack_2", {1})},
      {{"T", AttrValue(DType::Int32)},
       {"Index", AttrValue(DType::Int32)},
       {"begin_mask", AttrValue(0)},
       {"end_mask", AttrValue(0)},
       {"ellipsis_mask", AttrValue(0)},
       {"new_axis_mask", AttrValue(0)},
       {"shrink_axis_mask", AttrValue(0)}});
  AttrMap m = copy_attrs(c.node, {"align_corners", "half_pixel_centers"});
  m["T"] = AttrValue(t);
  return {c.b.add("ResizeNearestNeighborGrad", "ResizeNearestNeighborGrad", {grad_or_zeros(c, 0), hw}, std::move(m)),
          ""};
}

}  // namespace

void add_pool_norm_gradients(GradTable& t) {
  t.insert(t.end(), {{"MaxPool", max_pool_grad},
                     {"MaxPoolV2", max_pool_v2_grad},
                     {"AvgPool", avg_pool_grad},
                     {"AvgPoolGrad", avg_pool_grad_grad},
                     {"MaxPoolGrad", max_pool_grad_grad},
                     {"MaxPoolGradV2", max_pool_grad_v2_grad},
                     {"MaxPoolGradGrad", max_pool_grad_grad_grad},
                     {"FusedBatchNorm", fused_batch_norm_v1_grad},
                     {"FusedBatchNormV2", fused_batch_norm_v2_grad},
                     {"FusedBatchNormV3", fused_batch_norm_v3_grad},
                     {"LRN", lrn_grad},
                     {"ResizeBilinear", resize_bilinear_grad},
                     {"ResizeNearestNeighbor", resize_nearest_grad}});
}

}  // namespace flowlens::grad
