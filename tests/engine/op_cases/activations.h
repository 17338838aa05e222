#pragma once
// Registry-walk cases for the activations beyond Relu and their backprop
// ops, BatchMatMulV3, _FusedMatMul, DecodeRaw and ImageSummary.
#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_activation_cases(OpCases& c) {
  const DType f = DType::Float, d = DType::Double, h = DType::Half, bf = DType::BFloat16;
  auto t = [](DType dtype) { return AttrMap{{"T", AttrValue(dtype)}}; };

  for (const char* op : {"LeakyRelu", "Elu", "Selu", "Softplus", "Softsign", "Relu6"})
    for (DType dtype : {f, d, h, bf}) c.add({op, t(dtype), {gen(dtype, {2, 3}, -3, 3)}});
  c.add({"Relu6", t(DType::Int32), {gen(DType::Int32, {4}, -9, 9)}});
  c.add({"Relu6", t(DType::UInt8), {gen(DType::UInt8, {4}, 0, 12)}});
  c.add({"LeakyRelu", {{"T", AttrValue(f)}, {"alpha", AttrValue(0.5f)}}, {gen(f, {3})}});
  for (const char* op : {"Relu6Grad", "LeakyReluGrad", "EluGrad", "SeluGrad", "SoftplusGrad", "SoftsignGrad"})
    for (DType dtype : {f, h, bf}) c.add({op, t(dtype), {gen(dtype, {2, 3}), gen(dtype, {2, 3}, -2, 7, 2)}});
  c.add({"Relu6Grad", t(DType::Int64), {gen(DType::Int64, {3}, -4, 4), gen(DType::Int64, {3}, -2, 8, 2)}});

  // ---- BatchMatMulV3: TensorFlow's (Ta, Tb, Tout) combinations ----
  auto v3 = [](DType ta, DType tb, DType tout) {
    return AttrMap{{"Ta", AttrValue(ta)}, {"Tb", AttrValue(tb)}, {"Tout", AttrValue(tout)}};
  };
  c.add({"BatchMatMulV3", v3(f, f, f), {gen(f, {3, 1, 2, 3}), gen(f, {4, 3, 2})}});
  c.add({"BatchMatMulV3", v3(bf, bf, bf), {gen(bf, {2, 3}), gen(bf, {2, 3, 2})}});
  auto adj = v3(d, d, d);
  adj["adj_x"] = AttrValue(true);
  c.add({"BatchMatMulV3", adj, {gen(d, {2, 3, 2}), gen(d, {2, 3, 4})}});
  c.add({"BatchMatMulV3", v3(DType::Int8, DType::UInt8, DType::Int32),
         {gen(DType::Int8, {2, 2, 3}, -100, 100), gen(DType::UInt8, {3, 2}, 0, 255)}});
  c.add({"BatchMatMulV3", v3(bf, DType::Int8, bf), {gen(bf, {2, 3}), gen(DType::Int8, {3, 4}, -5, 5)}});

  // ---- _FusedMatMul: the CPU kernel's fusions ----
  for (const std::vector<std::string>& ops : std::vector<std::vector<std::string>>{
           {"BiasAdd"}, {"BiasAdd", "Relu"}, {"BiasAdd", "Relu6"}, {"BiasAdd", "Elu"}, {"BiasAdd", "LeakyRelu"}}) {
    AttrList fused;
    fused.s = ops;
    c.add({"_FusedMatMul",
           {{"T", AttrValue(f)}, {"num_args", AttrValue(int64_t{1})}, {"fused_ops", AttrValue(fused)},
            {"transpose_b", AttrValue(ops.size() == 2)}},
           {gen(f, {2, 3}), ops.size() == 2 ? gen(f, {4, 3}, -2, 2, 2) : gen(f, {3, 4}, -2, 2, 2), gen(f, {4}, -1, 1, 3)}});
  }
  AttrList bias_relu;
  bias_relu.s = {"BiasAdd", "Relu"};
  c.add({"_FusedMatMul", {{"T", AttrValue(bf)}, {"num_args", AttrValue(int64_t{1})}, {"fused_ops", AttrValue(bias_relu)}},
         {gen(bf, {2, 3}), gen(bf, {3, 2}), gen(bf, {2})}});

  // ---- DecodeRaw ----
  c.add({"DecodeRaw", {{"out_type", AttrValue(DType::Int16)}}, {S({2}, {"abcd", "efgh"})}});
  c.add({"DecodeRaw", {{"out_type", AttrValue(DType::Float)}, {"little_endian", AttrValue(false)}},
         {S({1, 1}, {std::string(8, '\x3f')})}});
  c.add({"DecodeRaw", {{"out_type", AttrValue(DType::UInt8)}}, {S({3}, {"", "", ""})}});

  // ---- ImageSummary ----
  c.add({"ImageSummary", {{"T", AttrValue(DType::UInt8)}}, {S({}, {"img"}), gen(DType::UInt8, {2, 3, 4, 1}, 0, 255)}});
  c.add({"ImageSummary", {{"T", AttrValue(f)}, {"max_images", AttrValue(int64_t{1})}}, {S({}, {"f"}), gen(f, {2, 2, 3, 3})}});
  c.add({"ImageSummary", {{"T", AttrValue(h)}}, {S({}, {"h"}), gen(h, {1, 2, 2, 4})}});
  c.add({"ImageSummary", {{"T", AttrValue(d)}}, {S({}, {"d"}), gen(d, {1, 3, 1, 1}, 0, 5)}});
}

}  // namespace flowlens::testing
