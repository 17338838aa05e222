#pragma once
// Registry-walk cases for the element-wise math family: every op, on the
// 16-bit floats and integer types where TensorFlow's CPU kernels take them,
// with broadcasting both ways.
#include <cmath>

#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_math_cases(OpCases& c) {
  const DType f = DType::Float, d = DType::Double, h = DType::Half, bf = DType::BFloat16;
  auto t = [](DType dtype) { return AttrMap{{"T", AttrValue(dtype)}}; };

  // ---- unary ----
  for (const char* op : {"Abs", "Sign", "Floor", "Ceil", "Round", "Rint", "Sin", "Cos", "Erf", "Expm1", "Exp", "Tanh",
                         "Sigmoid", "Neg", "Square", "Relu"})
    for (DType dtype : {f, h, bf, d}) c.add({op, t(dtype), {gen(dtype, {2, 3})}});
  for (const char* op : {"Reciprocal", "Inv", "Log", "Log1p", "Sqrt", "Rsqrt"})
    for (DType dtype : {f, h, bf}) c.add({op, t(dtype), {gen(dtype, {2, 3}, 0.25, 3.0)}});
  c.add({"Abs", t(DType::Int8), {gen(DType::Int8, {5}, -100, 100)}});
  c.add({"Sign", t(DType::Int32), {gen(DType::Int32, {5}, -3, 3)}});
  c.add({"Round", t(DType::Int64), {gen(DType::Int64, {5}, -9, 9)}});
  c.add({"Neg", t(DType::Int16), {gen(DType::Int16, {2, 2}, -9, 9)}});
  c.add({"Square", t(DType::UInt8), {gen(DType::UInt8, {4}, 0, 15)}});
  c.add({"Relu", t(DType::Int32), {gen(DType::Int32, {4}, -5, 5)}});
  for (const char* op : {"RsqrtGrad", "ReciprocalGrad", "InvGrad", "SqrtGrad", "TanhGrad", "SigmoidGrad"})
    for (DType dtype : {f, h, d}) c.add({op, t(dtype), {gen(dtype, {2, 3}, 0.2, 0.9), gen(dtype, {2, 3}, -1, 1, 2)}});
  c.add({"ReluGrad", t(bf), {gen(bf, {3}), gen(bf, {3}, -1, 1, 2)}});
  c.add({"ReluGrad", t(DType::Int64), {gen(DType::Int64, {3}, -4, 4), gen(DType::Int64, {3}, -4, 4, 2)}});

  // ---- binary with broadcasting ----
  auto both_ways = [&](const char* op, DType dtype, double lo, double hi, double ylo, double yhi) {
    c.add({op, t(dtype), {gen(dtype, {2, 3}, lo, hi), gen(dtype, {3}, ylo, yhi, 2)}});
    c.add({op, t(dtype), {gen(dtype, {2, 1}, ylo, yhi, 3), gen(dtype, {1, 4}, ylo, yhi, 4)}});
  };
  both_ways("Add", bf, -2, 2, -2, 2);
  both_ways("Add", DType::Int8, -50, 50, -50, 50);
  both_ways("AddV2", DType::UInt16, 0, 900, 0, 900);
  both_ways("Sub", DType::Int8, -50, 50, -50, 50);
  both_ways("Sub", h, -2, 2, -2, 2);
  both_ways("Mul", DType::UInt32, 0, 90, 0, 90);
  both_ways("Mul", bf, -2, 2, -2, 2);
  both_ways("Maximum", h, -2, 2, -2, 2);
  both_ways("Minimum", DType::Int64, -9, 9, -9, 9);
  both_ways("SquaredDifference", f, -2, 2, -2, 2);
  both_ways("SquaredDifference", DType::Int32, -9, 9, -9, 9);
  both_ways("SquaredDifference", bf, -2, 2, -2, 2);
  both_ways("Pow", f, 0.5, 2, -2, 2);
  both_ways("Pow", h, 0.5, 2, -2, 2);
  both_ways("Pow", DType::Int64, -5, 5, 0, 4);
  both_ways("RealDiv", bf, -2, 2, 0.5, 2);
  both_ways("Div", f, -2, 2, 0.5, 2);
  both_ways("Div", DType::Int16, -50, 50, 1, 7);
  both_ways("DivNoNan", f, -2, 2, -1, 1);
  both_ways("DivNoNan", h, -2, 2, -1, 1);
  both_ways("DivNoNan", d, -2, 2, -1, 1);
  both_ways("TruncateDiv", DType::Int32, -50, 50, 1, 7);
  both_ways("TruncateDiv", DType::UInt8, 0, 200, 1, 7);
  both_ways("FloorDiv", DType::Int64, -50, 50, -7, -1);
  both_ways("FloorDiv", bf, -5, 5, 0.5, 2);
  for (const char* op : {"FloorMod", "Mod", "TruncateMod"}) {
    both_ways(op, DType::Int32, -50, 50, 1, 7);
    both_ways(op, d, -5, 5, 0.5, 2);
    both_ways(op, h, -5, 5, -2, -0.5);
  }
  c.add({"AddN", {{"T", AttrValue(DType::Int32)}, {"N", AttrValue(2)}}, {gen(DType::Int32, {3}, -9, 9), gen(DType::Int32, {3}, -9, 9, 2)}});
  c.add({"AddN", {{"T", AttrValue(h)}, {"N", AttrValue(3)}}, {gen(h, {2, 2}), gen(h, {2, 2}, -1, 1, 2), gen(h, {2, 2}, 0, 1, 3)}});

  // ---- comparisons and logic ----
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
    both_ways(op, f, -2, 2, -2, 2);
    both_ways(op, h, -2, 2, -2, 2);
    both_ways(op, DType::UInt8, 0, 9, 0, 9);
  }
  for (const char* op : {"Equal", "NotEqual"}) {
    both_ways(op, DType::Int64, -2, 2, -2, 2);
    both_ways(op, DType::Bool, 0, 1, 0, 1);
    both_ways(op, bf, -1, 1, -1, 1);
    c.add({op, {{"T", AttrValue(f)}, {"incompatible_shape_error", AttrValue(false)}}, {gen(f, {2, 3}), gen(f, {4})}});
    // Equal values and NaN (unequal to itself), broadcast.
    c.add({op, t(f), {F({2, 3}, {1, NAN, -0.f, 2, 3, NAN}), F({3}, {1, NAN, 0})}});
  }
  for (const char* op : {"LogicalAnd", "LogicalOr"})
    c.add({op, {}, {gen(DType::Bool, {2, 3}, 0, 1), gen(DType::Bool, {3}, 0, 1, 2)}});
  c.add({"LogicalNot", {}, {gen(DType::Bool, {2, 3}, 0, 1)}});
  for (const char* op : {"IsFinite", "IsNan", "IsInf"})
    for (DType dtype : {f, h, bf, d})
      c.add({op, t(dtype), {T(dtype, {2, 3}, {1.5, -0.0, INFINITY, -INFINITY, NAN, -2.0})}});

  // ---- select and clip ----
  c.add({"Select", t(f), {gen(DType::Bool, {}, 0, 1), gen(f, {2, 3}), gen(f, {2, 3}, -1, 1, 2)}});
  c.add({"Select", t(DType::Int32), {gen(DType::Bool, {2}, 0, 1), gen(DType::Int32, {2, 3}, -9, 9), gen(DType::Int32, {2, 3}, -9, 9, 2)}});
  c.add({"Select", t(h), {gen(DType::Bool, {4}, 0, 1), gen(h, {4}), gen(h, {4}, -1, 1, 2)}});
  c.add({"SelectV2", t(bf), {gen(DType::Bool, {2, 1}, 0, 1), gen(bf, {3}), gen(bf, {}, -1, 1, 2)}});
  c.add({"SelectV2", t(DType::Bool), {gen(DType::Bool, {3}, 0, 1), gen(DType::Bool, {2, 3}, 0, 1, 2), gen(DType::Bool, {2, 1}, 0, 1, 3)}});
  c.add({"Select", t(f), {gen(DType::Bool, {3}, 0, 1), gen(f, {3, 2, 2}), gen(f, {3, 2, 2}, -1, 1, 2)}});  // rows
  c.add({"Select", t(f), {gen(DType::Bool, {2, 3}, 0, 1, 4), gen(f, {2, 3}), gen(f, {2, 3}, -1, 1, 2)}});
  c.add({"SelectV2", t(f), {gen(DType::Bool, {2, 1, 3}, 0, 1), gen(f, {4, 1}), gen(f, {}, -1, 1, 2)}});
  c.add({"ClipByValue", t(f), {gen(f, {2, 3}), F({}, {-0.5f}), F({}, {0.5f})}});
  c.add({"ClipByValue", t(f), {F({4}, {NAN, -3, 0.25f, 9}), gen(f, {4}, -1, 0, 2), F({}, {1})}});
  c.add({"ClipByValue", t(DType::Int16), {gen(DType::Int16, {4}, -9, 9), gen(DType::Int16, {4}, -9, 0, 2), T(DType::Int16, {}, {3})}});
  c.add({"ClipByValue", t(h), {gen(h, {2, 2}), gen(h, {2, 2}, -1, 0, 2), gen(h, {}, 0, 1, 3)}});

  // ---- Cast, ZerosLike, OnesLike ----
  auto cast = [](DType src, DType dst, bool truncate = false) {
    return AttrMap{{"SrcT", AttrValue(src)}, {"DstT", AttrValue(dst)}, {"Truncate", AttrValue(truncate)}};
  };
  c.add({"Cast", cast(h, DType::Int8), {gen(h, {4}, -100, 100)}});
  c.add({"Cast", cast(DType::Bool, bf), {gen(DType::Bool, {4}, 0, 1)}});
  c.add({"Cast", cast(DType::UInt64, d), {gen(DType::UInt64, {4}, 0, 1000)}});
  c.add({"Cast", cast(f, h, true), {gen(f, {2, 2})}});
  // Between the floating types that live in device memory (a GPU kernel casts them).
  c.add({"Cast", cast(f, h), {gen(f, {2, 3}, -70000, 70000)}});  // past float16's range too
  c.add({"Cast", cast(f, bf), {gen(f, {2, 3})}});
  c.add({"Cast", cast(f, bf, true), {gen(f, {2, 3})}});
  c.add({"Cast", cast(h, f), {gen(h, {2, 3})}});
  c.add({"Cast", cast(bf, f), {gen(bf, {2, 3})}});
  c.add({"Cast", cast(h, bf), {gen(h, {2, 3})}});
  c.add({"Cast", cast(bf, h), {gen(bf, {2, 3})}});
  c.add({"Cast", cast(d, bf), {gen(d, {2, 2})}});
  c.add({"Cast", cast(DType::Int16, DType::Int16), {gen(DType::Int16, {3}, -9, 9)}});
  c.add({"ZerosLike", t(DType::Bool), {gen(DType::Bool, {3}, 0, 1)}});
  c.add({"ZerosLike", t(h), {gen(h, {2, 2})}});
  c.add({"OnesLike", t(bf), {gen(bf, {2})}});
  c.add({"OnesLike", t(DType::UInt16), {gen(DType::UInt16, {0, 2}, 0, 9)}});

  c.add({"BroadcastGradientArgs", t(DType::Int64), {I64({3}, {2, 1, 3}), I64({1}, {1})}});
}

}  // namespace flowlens::testing
