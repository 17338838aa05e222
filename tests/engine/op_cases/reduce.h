#pragma once
// Registry-walk cases for the reduction family: reductions, ArgMax/ArgMin,
// scans, sequences, Where, InvertPermutation, Tile, BroadcastTo,
// DynamicStitch, L2Loss and MatMul, on float32, the 16-bit floats and
// integer types.
#include <cmath>

#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_reduce_cases(OpCases& c) {
  const DType f = DType::Float, h = DType::Half, bf = DType::BFloat16;
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    c.add({op, {{"T", f}}, {gen(f, {2, 3, 4}), I32({2}, {0, 2})}});
    c.add({op, {{"T", f}, {"keep_dims", true}}, {gen(f, {2, 3}), I32({}, {-1})}});
    c.add({op, {{"T", h}, {"Tidx", DType::Int64}}, {gen(h, {3, 2}), I64({1}, {0})}});
    c.add({op, {{"T", bf}}, {gen(bf, {2, 2}), I32({2}, {1, 0})}});
    c.add({op, {{"T", DType::Int32}}, {gen(DType::Int32, {4, 2}, -9, 9), I32({1}, {1})}});
    c.add({op, {{"T", DType::UInt8}}, {gen(DType::UInt8, {3}, 0, 9), I32({1}, {0})}});
    c.add({op, {{"T", f}}, {gen(f, {0, 3}), I32({1}, {0})}});  // empty reduction: the identity
  }
  for (const char* op : {"All", "Any"}) {
    c.add({op, {}, {B({2, 3}, {true, false, true, true, true, true}), I32({1}, {1})}});
    c.add({op, {{"keep_dims", true}, {"Tidx", DType::Int64}}, {B({2, 2}, {true, false, false, false}), I64({}, {0})}});
  }
  for (DType t : {f, h, bf, DType::Double}) c.add({"L2Loss", {{"T", t}}, {gen(t, {2, 3})}});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    c.add({op, {{"T", f}}, {gen(f, {2, 3, 4}), I32({}, {1})}});
    // Ties (first index wins), NaN (never wins), and a slice no value of
    // which beats the scan's start (-inf for ArgMax, +inf for ArgMin: 0).
    c.add({op, {{"T", f}, {"output_type", DType::Int32}},
           {F({3, 4}, {1, 3, NAN, 3, -INFINITY, -INFINITY, -INFINITY, -INFINITY, INFINITY, INFINITY, NAN, -2}),
            I32({}, {-1})}});
    c.add({op, {{"T", f}}, {gen(f, {2, 1500}, -3, 3, 5), I64({}, {1})}});  // long rows: a block per output
    c.add({op, {{"T", h}, {"output_type", DType::Int32}}, {gen(h, {5}), I64({}, {-1})}});
    c.add({op, {{"T", DType::Int16}}, {gen(DType::Int16, {3, 2}, -5, 5), I32({}, {0})}});
  }
  for (const char* op : {"Cumsum", "Cumprod"}) {
    c.add({op, {{"T", f}}, {gen(f, {2, 3}), I32({}, {1})}});
    c.add({op, {{"T", bf}, {"exclusive", true}, {"reverse", true}}, {gen(bf, {4, 2}), I64({}, {0})}});
    c.add({op, {{"T", DType::Int64}, {"reverse", true}}, {gen(DType::Int64, {5}, -3, 3), I32({}, {-1})}});
  }
  c.add({"Range", {}, {I32({}, {2}), I32({}, {11}), I32({}, {3})}});
  c.add({"Range", {{"Tidx", DType::Int64}}, {I64({}, {5}), I64({}, {-4}), I64({}, {-2})}});
  c.add({"Range", {{"Tidx", f}}, {F({}, {0.5f}), F({}, {2}), F({}, {0.3f})}});
  c.add({"Range", {{"Tidx", h}}, {T(h, {}, {0}), T(h, {}, {1}), T(h, {}, {0.25})}});
  c.add({"LinSpace", {{"T", f}}, {F({}, {-1}), F({}, {1}), I32({}, {5})}});
  c.add({"LinSpace", {{"T", bf}, {"Tidx", DType::Int64}}, {T(bf, {}, {0}), T(bf, {}, {3}), I64({}, {4})}});
  c.add({"Where", {}, {B({2, 3}, {true, false, false, true, true, false})}});
  c.add({"Where", {{"T", f}}, {F({3, 1, 2}, {0, 1.5f, 0, 0, -2, 0})}});
  c.add({"Where", {{"T", DType::Int32}}, {I32({4}, {0, 0, 7, 0})}});
  c.add({"InvertPermutation", {}, {I32({4}, {2, 0, 3, 1})}});
  c.add({"InvertPermutation", {{"T", DType::Int64}}, {I64({3}, {1, 2, 0})}});
  c.add({"Tile", {{"T", f}}, {gen(f, {2, 3}), I32({2}, {2, 1})}});
  c.add({"Tile", {{"T", DType::Int32}, {"Tmultiples", DType::Int64}}, {gen(DType::Int32, {2, 1, 2}), I64({3}, {1, 3, 2})}});
  c.add({"BroadcastTo", {{"T", f}}, {gen(f, {3, 1}), I32({3}, {2, 3, 4})}});
  c.add({"BroadcastTo", {{"T", DType::Bool}, {"Tidx", DType::Int64}}, {B({2}, {true, false}), I64({2}, {3, 2})}});
  c.add({"DynamicStitch", {{"T", f}, {"N", 2}},
         {I32({2}, {0, 2}), I32({2, 1}, {1, 3}), gen(f, {2, 3}), gen(f, {2, 1, 3}, -1, 1, 2)}});
  // The interim integer FloorDiv / FloorMod (interim_floor_ops.cpp).
  for (const char* op : {"FloorDiv", "FloorMod"}) {
    c.add({op, {{"T", DType::Int32}}, {I32({2, 3}, {-7, 7, 5, -1, 0, 9}), I32({3}, {2, -3, 4})}});
    c.add({op, {{"T", DType::Int64}}, {I64({2}, {-9, 9}), I64({}, {4})}});
  }
  c.add({"BatchMatMul", {{"T", f}}, {gen(f, {2, 2, 3}), gen(f, {2, 3, 4})}});
  c.add({"BatchMatMul", {{"T", DType::Int64}, {"adj_x", true}}, {gen(DType::Int64, {2, 3, 2}), gen(DType::Int64, {2, 3, 1})}});
  c.add({"BatchMatMulV2", {{"T", f}}, {gen(f, {3, 1, 2, 3}), gen(f, {4, 3, 2})}});
  c.add({"BatchMatMulV2", {{"T", DType::Half}, {"adj_y", true}}, {gen(DType::Half, {2, 3}), gen(DType::Half, {5, 4, 3})}});
  c.add({"BatchMatMulV2", {{"T", DType::Int16}, {"adj_x", true}, {"adj_y", true}},
         {gen(DType::Int16, {2, 1, 3, 2}), gen(DType::Int16, {1, 2, 4, 3})}});
  c.add({"MatMul", {{"T", f}}, {gen(f, {2, 3}), gen(f, {3, 4})}});
  c.add({"MatMul", {{"T", f}, {"transpose_a", true}, {"transpose_b", true}}, {gen(f, {3, 2}), gen(f, {4, 3})}});
  for (DType t : {h, bf, DType::Int16, DType::Int32, DType::Int64})
    c.add({"MatMul", {{"T", t}, {"transpose_b", true}}, {gen(t, {2, 3}), gen(t, {4, 3}, -2, 2, 2)}});
}

}  // namespace flowlens::testing
