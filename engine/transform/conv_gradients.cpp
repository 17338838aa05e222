// Gradients of the convolutions, built as nn_grad.py builds them: Conv2D's
// input and filter gradients are Conv2DBackpropInput and
// Conv2DBackpropFilter of the two shapes one ShapeN gives; each backprop's
// gradients are the other backprop and a Conv2D; the depthwise ops the same
// with their depthwise counterparts and Shape. Every node carries the
// forward node's convolution attrs (strides, padding, explicit_paddings,
// dilations, data_format, and use_cudnn_on_gpu for the Conv2D family).
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

// The forward node's convolution attrs, with T.
AttrMap conv_attrs(GradContext& c) {
  AttrMap attrs{{"T", AttrValue(c.dtype)}};
  for (const char* name : {"strides", "padding", "explicit_paddings", "dilations", "data_format", "use_cudnn_on_gpu"})
    if (const AttrValue* v = c.node.find_attr(name)) attrs[name] = *v;
  return attrs;
}

// The depthwise ops have no use_cudnn_on_gpu.
AttrMap depthwise_attrs(GradContext& c) {
  AttrMap attrs = conv_attrs(c);
  attrs.erase("use_cudnn_on_gpu");
  return attrs;
}

std::string add(GradContext& c, const char* op, std::vector<std::string> inputs, AttrMap attrs) {
  return c.b.add(op, op, std::move(inputs), std::move(attrs));
}

// _Conv2DGrad: shape_0, shape_1 = shape_n([input, filter]).
Grads conv2d_grad(GradContext& c) {
  const std::string shape_n = c.b.add("ShapeN", "ShapeN", {c.inputs[0], c.inputs[1]},
                                      {{"N", AttrValue(int64_t{2})}, {"T", AttrValue(c.dtype)}, {"out_type", AttrValue(DType::Int32)}});
  const std::string& g = c.grads[0];
  return {add(c, "Conv2DBackpropInput", {tensor_name(shape_n, 0), c.inputs[1], g}, conv_attrs(c)),
          add(c, "Conv2DBackpropFilter", {c.inputs[0], tensor_name(shape_n, 1), g}, conv_attrs(c))};
}

// _Conv2DBackpropInputGrad: none for input_sizes; the filter gets
// Conv2DBackpropFilter(grad, shape(filter), out_backprop), out_backprop
// gets Conv2D(grad, filter).
Grads conv2d_backprop_input_grad(GradContext& c) {
  const std::string& g = c.grads[0];
  return {"", add(c, "Conv2DBackpropFilter", {g, shape_of(c, 1), c.inputs[2]}, conv_attrs(c)),
          add(c, "Conv2D", {g, c.inputs[1]}, conv_attrs(c))};
}

// _Conv2DBackpropFilterGrad: the input gets Conv2DBackpropInput(shape(input),
// grad, out_backprop), none for filter_sizes, out_backprop gets Conv2D(input, grad).
Grads conv2d_backprop_filter_grad(GradContext& c) {
  const std::string& g = c.grads[0];
  return {add(c, "Conv2DBackpropInput", {shape_of(c, 0), g, c.inputs[2]}, conv_attrs(c)), "",
          add(c, "Conv2D", {c.inputs[0], g}, conv_attrs(c))};
}

// _DepthwiseConv2dNativeGrad.
Grads depthwise_grad(GradContext& c) {
  const std::string& g = c.grads[0];
  return {add(c, "DepthwiseConv2dNativeBackpropInput", {shape_of(c, 0), c.inputs[1], g}, depthwise_attrs(c)),
          add(c, "DepthwiseConv2dNativeBackpropFilter", {c.inputs[0], shape_of(c, 1), g}, depthwise_attrs(c))};
}

// _DepthwiseConv2dNativeBackpropInputGrad.
Grads depthwise_backprop_input_grad(GradContext& c) {
  const std::string& g = c.grads[0];
  return {"", add(c, "DepthwiseConv2dNativeBackpropFilter", {g, shape_of(c, 1), c.inputs[2]}, depthwise_attrs(c)),
          add(c, "DepthwiseConv2dNative", {g, c.inputs[1]}, depthwise_attrs(c))};
}

// _DepthwiseConv2dNativeBackpropFilterGrad.
Grads depthwise_backprop_filter_grad(GradContext& c) {
  const std::string& g = c.grads[0];
  return {add(c, "DepthwiseConv2dNativeBackpropInput", {shape_of(c, 0), g, c.inputs[2]}, depthwise_attrs(c)), "",
          add(c, "DepthwiseConv2dNative", {c.inputs[0], g}, depthwise_attrs(c))};
}

}  // namespace

void add_conv_gradients(GradTable& t) {
  t.insert(t.end(), {{"Conv2D", conv2d_grad},
                     {"Conv2DBackpropInput", conv2d_backprop_input_grad},
                     {"Conv2DBackpropFilter", conv2d_backprop_filter_grad},
                     {"DepthwiseConv2dNative", depthwise_grad},
                     {"DepthwiseConv2dNativeBackpropInput", depthwise_backprop_input_grad},
                     {"DepthwiseConv2dNativeBackpropFilter", depthwise_backprop_filter_grad}});
}

}  // namespace flowlens::grad
