#pragma once
// Registry-walk cases of pooling, fused batch norm, LRN and resizing: every op
// in both layouts where it has them, each padding mode, and the 16-bit floats.
#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_pool_norm_cases(OpCases& c) {
  const DType f = DType::Float, h = DType::Half, bf = DType::BFloat16, d = DType::Double, i32 = DType::Int32;
  auto list = [](std::vector<int64_t> v) { return AttrValue(int_list(std::move(v))); };
  auto pool = [&](DType t, const char* padding, bool nchw) {
    AttrMap a{{"T", t},
              {"ksize", list(nchw ? std::vector<int64_t>{1, 1, 3, 2} : std::vector<int64_t>{1, 3, 2, 1})},
              {"strides", list(nchw ? std::vector<int64_t>{1, 1, 2, 2} : std::vector<int64_t>{1, 2, 2, 1})},
              {"padding", std::string(padding)},
              {"data_format", std::string(nchw ? "NCHW" : "NHWC")}};
    return a;
  };
  // [2,5,4,3] NHWC or its NCHW [2,3,5,4]; the pooled output is [2,3,2,3] / [2,3,3,2].
  auto image = [](DType t, bool nchw, uint32_t seed = 1) {
    return gen(t, nchw ? Shape{2, 3, 5, 4} : Shape{2, 5, 4, 3}, -2, 2, seed);
  };
  auto pooled = [](const char* padding, bool nchw) {
    const bool same = std::string(padding) == "SAME";
    const int64_t oh = same ? 3 : 2, ow = 2;
    return nchw ? Shape{2, 3, oh, ow} : Shape{2, oh, ow, 3};
  };
  for (bool nchw : {false, true})
    for (const char* p : {"SAME", "VALID"}) {
      const Tensor x = image(f, nchw);
      c.add({"MaxPool", pool(f, p, nchw), {x}});
      c.add({"AvgPool", pool(f, p, nchw), {x}});
      AttrMap v2{{"T", f}, {"padding", std::string(p)}, {"data_format", std::string(nchw ? "NCHW" : "NHWC")}};
      const Tensor k = I32({4}, nchw ? std::vector<int32_t>{1, 1, 3, 2} : std::vector<int32_t>{1, 3, 2, 1});
      const Tensor s = I32({4}, nchw ? std::vector<int32_t>{1, 1, 2, 2} : std::vector<int32_t>{1, 2, 2, 1});
      c.add({"MaxPoolV2", v2, {x, k, s}});
      const Tensor y = gen(f, pooled(p, nchw), -2, 2, 3);
      c.add({"MaxPoolGrad", pool(f, p, nchw), {x, y, gen(f, pooled(p, nchw), -1, 1, 4)}});
      c.add({"MaxPoolGradV2", v2, {x, y, gen(f, pooled(p, nchw), -1, 1, 4), k, s}});
      c.add({"MaxPoolGradGrad", pool(f, p, nchw), {x, y, image(f, nchw, 5)}});
      c.add({"MaxPoolGradGradV2", v2, {x, y, image(f, nchw, 5), k, s}});
      c.add({"AvgPoolGrad", pool(f, p, nchw),
             {I32({4}, nchw ? std::vector<int32_t>{2, 3, 5, 4} : std::vector<int32_t>{2, 5, 4, 3}),
              gen(f, pooled(p, nchw), -1, 1, 6)}});
    }
  AttrMap e = pool(f, "EXPLICIT", false);
  e["explicit_paddings"] = list({0, 0, 1, 2, 1, 0, 0, 0});
  c.add({"MaxPool", e, {image(f, false)}});
  c.add({"MaxPoolGrad", e, {image(f, false), gen(f, {2, 3, 2, 3}), gen(f, {2, 3, 2, 3}, -1, 1, 2)}});
  for (DType t : {h, bf, d}) {
    c.add({"MaxPool", pool(t, "SAME", false), {image(t, false)}});
    c.add({"AvgPool", pool(t, "SAME", false), {image(t, false)}});
    c.add({"AvgPoolGrad", pool(t, "SAME", false), {I32({4}, {2, 5, 4, 3}), gen(t, {2, 3, 2, 3})}});
    c.add({"MaxPoolGrad", pool(t, "VALID", false), {image(t, false), gen(t, {2, 2, 2, 3}), gen(t, {2, 2, 2, 3})}});
  }
  for (DType t : {i32, DType::UInt8, DType::Int64}) c.add({"MaxPool", pool(t, "VALID", true), {image(t, true)}});

  // ---- batch norm ----------------------------------------------------------------------
  const Tensor empty = Tensor(f, Shape{0});
  auto bn = [&](DType t, bool training, const char* format, float factor = 1.0f) {
    return AttrMap{{"T", t}, {"U", f}, {"epsilon", 0.001f}, {"exponential_avg_factor", factor},
                   {"data_format", std::string(format)}, {"is_training", training}};
  };
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})
    for (const char* format : {"NHWC", "NCHW"}) {
      const bool nhwc = std::string(format) == "NHWC";
      const Shape s = nhwc ? Shape{2, 3, 2, 4} : Shape{2, 4, 3, 2};
      const Tensor x = gen(f, s), scale = gen(f, {4}, 0.5, 2, 2), offset = gen(f, {4}, -1, 1, 3);
      const Tensor mean = gen(f, {4}, -1, 1, 4), var = gen(f, {4}, 0.5, 2, 5);
      c.add({op, bn(f, true, format), {x, scale, offset, empty, empty}});
      c.add({op, bn(f, true, format, 0.25f), {x, scale, offset, mean, var}});
      c.add({op, bn(f, false, format), {x, scale, offset, mean, var}});
      const std::string grad = std::string(op).insert(std::string(op).find("Norm") + 4, "Grad");
      std::vector<Tensor> gin = {gen(f, s, -1, 1, 6), x, scale, mean, var};
      if (std::string(op) == "FusedBatchNormV3") gin.push_back(Tensor::scalar<float>(0));
      c.add({grad, bn(f, true, format), gin});
      c.add({grad, bn(f, false, format), gin});
    }
  for (DType t : {h, bf}) {
    c.add({"FusedBatchNormV3", bn(t, true, "NHWC"), {gen(t, {2, 3, 2, 4}), gen(f, {4}), gen(f, {4}), empty, empty}});
    c.add({"FusedBatchNormGradV2", bn(t, true, "NCHW"),
           {gen(t, {2, 4, 3, 2}), gen(t, {2, 4, 3, 2}, -1, 1, 2), gen(f, {4}), gen(f, {4}), gen(f, {4}, 0.5, 2, 3)}});
  }
  c.add({"FusedBatchNormV3", bn(f, true, "NDHWC"), {gen(f, {2, 2, 3, 2, 4}), gen(f, {4}), gen(f, {4}), empty, empty}});
  c.add({"FusedBatchNormGradV3", bn(f, true, "NCDHW"),
         {gen(f, {2, 4, 2, 3, 2}), gen(f, {2, 4, 2, 3, 2}, -1, 1, 2), gen(f, {4}), gen(f, {4}), gen(f, {4}, 0.5, 2, 3),
          Tensor::scalar<float>(0)}});

  // ---- LRN -----------------------------------------------------------------------------
  for (DType t : {f, h, bf}) {
    const AttrMap a{{"T", t}, {"depth_radius", int64_t{2}}, {"alpha", 0.2f}, {"beta", 0.75f}, {"bias", 1.5f}};
    c.add({"LRN", a, {gen(t, {2, 2, 3, 6})}});
    c.add({"LRNGrad", a, {gen(t, {2, 2, 3, 6}, -1, 1, 2), gen(t, {2, 2, 3, 6}, -1, 1, 3), gen(t, {2, 2, 3, 6}, -1, 1, 4)}});
  }

  // ---- resize --------------------------------------------------------------------------
  for (int mode = 0; mode < 3; ++mode)
    for (DType t : {f, d, h, DType::UInt8, i32}) {
      const AttrMap a{{"T", t}, {"align_corners", mode == 1}, {"half_pixel_centers", mode == 2}};
      c.add({"ResizeBilinear", a, {gen(t, {2, 3, 4, 2}, 0, 5), I32({2}, {5, 3})}});
      c.add({"ResizeNearestNeighbor", a, {gen(t, {2, 3, 4, 2}, 0, 5), I32({2}, {5, 7})}});
      if (t != DType::UInt8 && t != i32)
        c.add({"ResizeBilinearGrad", a, {gen(f, {2, 5, 3, 2}), gen(t, {2, 3, 4, 2})}});
      if (t != DType::UInt8 || mode == 0) c.add({"ResizeNearestNeighborGrad", a, {gen(t, {2, 5, 7, 2}, 0, 5), I32({2}, {3, 4})}});
    }
}

}  // namespace flowlens::testing
