#pragma once
// Registry-walk cases for the convolutions (conv_ops.cpp,
// depthwise_conv_ops.cpp, fused_conv_ops.cpp): each op in both layouts,
// every padding, strides and dilations, and every dtype its kernel takes.
#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_conv_cases(OpCases& c) {
  const DType f = DType::Float;
  auto attrs = [](DType t, bool nchw, const char* padding, int64_t stride, int64_t dilation) {
    AttrMap a{{"T", AttrValue(t)}, {"padding", AttrValue(std::string(padding))},
              {"data_format", AttrValue(std::string(nchw ? "NCHW" : "NHWC"))}};
    a["strides"] = AttrValue(int_list(nchw ? std::vector<int64_t>{1, 1, stride, stride} : std::vector<int64_t>{1, stride, stride, 1}));
    a["dilations"] = AttrValue(int_list(nchw ? std::vector<int64_t>{1, 1, dilation, 1} : std::vector<int64_t>{1, dilation, 1, 1}));
    if (std::string(padding) == "EXPLICIT")
      a["explicit_paddings"] = AttrValue(int_list(nchw ? std::vector<int64_t>{0, 0, 0, 0, 1, 0, 2, 1} : std::vector<int64_t>{0, 0, 1, 0, 2, 1, 0, 0}));
    return a;
  };
  // Input 2x6x5 with 4 channels, 3x2 filters; the output's size follows each geometry.
  struct Geo {
    bool nchw;
    const char* padding;
    int64_t stride, dilation, out_h, out_w;
  };
  const Geo geos[] = {{false, "VALID", 1, 1, 4, 4}, {true, "SAME", 2, 1, 3, 3}, {false, "EXPLICIT", 1, 2, 3, 7},
                      {true, "VALID", 2, 2, 1, 2}};
  auto shape = [](bool nchw, int64_t n, int64_t h, int64_t w, int64_t ch) { return nchw ? Shape{n, ch, h, w} : Shape{n, h, w, ch}; };
  auto sizes = [](const Shape& s) {
    std::vector<int32_t> v;
    for (int64_t d : s.dims()) v.push_back(static_cast<int32_t>(d));
    return I32({static_cast<int64_t>(v.size())}, v);
  };
  for (const Geo& g : geos)
    for (DType t : {f, DType::Double, DType::Half, DType::BFloat16}) {
      const AttrMap a = attrs(t, g.nchw, g.padding, g.stride, g.dilation);
      const Shape in = shape(g.nchw, 2, 6, 5, 4), out = shape(g.nchw, 2, g.out_h, g.out_w, 3);
      const Shape dw_out = shape(g.nchw, 2, g.out_h, g.out_w, 8);
      c.add({"Conv2D", a, {gen(t, in), gen(t, {3, 2, 4, 3}, -2, 2, 2)}});
      c.add({"Conv2DBackpropInput", a, {sizes(in), gen(t, {3, 2, 4, 3}), gen(t, out, -2, 2, 3)}});
      c.add({"Conv2DBackpropFilter", a, {gen(t, in), I32({4}, {3, 2, 4, 3}), gen(t, out, -2, 2, 3)}});
      AttrMap d = a;
      d.erase("use_cudnn_on_gpu");
      c.add({"DepthwiseConv2dNative", d, {gen(t, in), gen(t, {3, 2, 4, 2}, -2, 2, 2)}});
      c.add({"DepthwiseConv2dNativeBackpropInput", d, {sizes(in), gen(t, {3, 2, 4, 2}), gen(t, dw_out, -2, 2, 3)}});
      c.add({"DepthwiseConv2dNativeBackpropFilter", d, {gen(t, in), I32({4}, {3, 2, 4, 2}), gen(t, dw_out, -2, 2, 3)}});
      if (t == DType::BFloat16) continue;
      AttrMap fused = a;
      AttrList ops;
      ops.s = {"BiasAdd", "Relu"};
      fused["fused_ops"] = AttrValue(ops);
      fused["num_args"] = AttrValue(int64_t{1});
      c.add({"_FusedConv2D", fused, {gen(t, in), gen(t, {3, 2, 4, 3}), gen(t, {3})}});
      ops.s = {"FusedBatchNorm", "LeakyRelu"};
      fused["fused_ops"] = AttrValue(ops);
      fused["num_args"] = AttrValue(int64_t{4});
      c.add({"_FusedConv2D", fused, {gen(t, in), gen(t, {3, 2, 4, 3}), gen(t, {3}), gen(t, {3}), gen(t, {3}), gen(t, {3}, 0.5, 2)}});
    }
  // int32 Conv2D and Conv2DBackpropInput; grouped Conv2D; input_sizes of two values.
  const AttrMap i = attrs(DType::Int32, false, "SAME", 1, 1);
  c.add({"Conv2D", i, {gen(DType::Int32, {1, 4, 4, 2}), gen(DType::Int32, {2, 2, 2, 3})}});
  c.add({"Conv2DBackpropInput", i, {I32({4}, {1, 4, 4, 2}), gen(DType::Int32, {2, 2, 2, 3}), gen(DType::Int32, {1, 4, 4, 3})}});
  const AttrMap v = attrs(f, false, "VALID", 1, 1);
  c.add({"Conv2D", v, {gen(f, {1, 4, 4, 4}), gen(f, {2, 2, 2, 6})}});
  c.add({"Conv2DBackpropInput", v, {I32({2}, {4, 4}), gen(f, {2, 2, 2, 6}), gen(f, {1, 3, 3, 6})}});
}

}  // namespace flowlens::testing
