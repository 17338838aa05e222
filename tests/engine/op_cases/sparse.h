#pragma once
// Registry-walk cases for the segment reductions, the sparse-tensor ops and
// the nn ops' further dtypes and layouts (BiasAdd NCHW, the 16-bit floats,
// broadcast cross-entropy labels).
#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_sparse_cases(OpCases& c) {
  const DType f = DType::Float, h = DType::Half, bf = DType::BFloat16, i32 = DType::Int32, i64 = DType::Int64;
  // Value ranges an unsigned dtype can hold.
  auto lo = [](DType t) { return t == DType::UInt8 || t == DType::UInt16 ? 0.0 : -5.0; };

  // ---- nn -----------------------------------------------------------------------------
  for (DType t : {h, bf, DType::Double, DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, i32, i64}) {
    c.add({"BiasAdd", {{"T", t}}, {gen(t, {2, 3}, lo(t), 5), gen(t, {3}, lo(t), 5, 2)}});
    c.add({"BiasAddGrad", {{"T", t}}, {gen(t, {4, 3}, lo(t), 5)}});
  }
  for (int rank : {3, 4, 5}) {
    std::vector<int64_t> dims(static_cast<size_t>(rank), 2);
    dims[1] = 3;
    c.add({"BiasAdd", {{"T", f}, {"data_format", "NCHW"}}, {gen(f, Shape(dims)), gen(f, {3}, -1, 1, 2)}});
    c.add({"BiasAddGrad", {{"T", f}, {"data_format", "NCHW"}}, {gen(f, Shape(dims))}});
  }
  c.add({"BiasAdd", {{"T", f}}, {gen(f, {0, 3}), gen(f, {3})}});
  c.add({"BiasAddGrad", {{"T", i32}}, {gen(i32, {0, 3})}});
  for (DType t : {h, bf, DType::Double}) {
    c.add({"Softmax", {{"T", t}}, {gen(t, {2, 4})}});
    c.add({"SoftmaxCrossEntropyWithLogits", {{"T", t}}, {gen(t, {2, 3}), T(t, {2, 3}, {0, 1, 0, 0.5, 0, 0.5})}});
    c.add({"SparseSoftmaxCrossEntropyWithLogits", {{"T", t}, {"Tlabels", i64}}, {gen(t, {2, 3}), I64({2}, {1, 2})}});
  }
  for (DType t : {f, h, bf, DType::Double}) c.add({"LogSoftmax", {{"T", t}}, {gen(t, {2, 3, 4})}});
  c.add({"SoftmaxCrossEntropyWithLogits", {{"T", f}}, {gen(f, {3, 4}), F({1, 4}, {0.25f, 0.25f, 0.5f, 0})}});
  c.add({"SoftmaxCrossEntropyWithLogits", {{"T", f}}, {gen(f, {4}), gen(f, {2, 1}, 0, 1, 2)}});

  // ---- segment reductions --------------------------------------------------------------
  for (const char* op : {"UnsortedSegmentSum", "UnsortedSegmentMax"}) {
    for (DType t : {f, h, bf, DType::Double, DType::Int8, DType::UInt16, i32, i64})
      c.add({op, {{"T", t}, {"Tindices", i32}}, {gen(t, {4, 2}, lo(t), 5), I32({4}, {0, 2, -1, 0}), I32({}, {3})}});
    c.add({op, {{"T", f}, {"Tindices", i64}, {"Tnumsegments", i64}},
           {gen(f, {2, 3, 2}), I64({2, 3}, {1, 0, 1, 3, -1, 3}), I64({}, {4})}});
    c.add({op, {{"T", f}, {"Tindices", i32}}, {gen(f, {0, 2}), I32({0}, {}), I32({}, {2})}});
  }
  for (const char* op : {"SparseSegmentSum", "SparseSegmentMean"}) {
    for (DType t : {f, h, bf, DType::Double})
      c.add({op, {{"T", t}}, {gen(t, {3, 2}), I32({4}, {0, 2, 1, 1}), I32({4}, {0, 0, 2, 3})}});
    c.add({op, {{"T", f}, {"Tidx", i64}, {"Tsegmentids", i64}}, {gen(f, {3}), I64({2}, {2, 0}), I64({2}, {1, 1})}});
    c.add({op, {{"T", f}}, {gen(f, {3, 2}), I32({0}, {}), I32({0}, {})}});
  }
  for (DType t : {DType::Int8, DType::UInt8, i32, i64})
    c.add({"SparseSegmentSum", {{"T", t}}, {gen(t, {3, 2}, lo(t), 5), I32({3}, {0, 2, 2}), I32({3}, {0, 0, 1})}});
  for (DType t : {f, h, bf, DType::Double})
    c.add({"SparseSegmentMeanGrad", {{"T", t}}, {gen(t, {3, 2}), I32({4}, {0, 2, 1, 1}), I32({4}, {0, 0, 2, 2}), I32({}, {4})}});
  c.add({"SparseSegmentMeanGrad", {{"T", f}, {"Tidx", i64}, {"Tsegmentids", i64}},
         {gen(f, {2}), I64({3}, {1, 1, 0}), I64({3}, {0, 1, 1}), I32({}, {2})}});

  // ---- sparse tensors ---------------------------------------------------------------------
  for (DType t : {f, h, DType::Double, i32, i64, DType::UInt8, DType::Bool})
    c.add({"SparseToDense", {{"T", t}, {"Tindices", i64}},
           {I64({2, 2}, {0, 1, 2, 0}), I64({2}, {3, 2}), gen(t, {2}, 0, 3), gen(t, {}, 0, 3, 2)}});
  c.add({"SparseToDense", {{"T", f}, {"Tindices", i32}}, {I32({3}, {0, 3, 4}), I32({1}, {5}), F({}, {1}), F({}, {0})}});
  c.add({"SparseToDense", {{"T", DType::String}, {"Tindices", i32}, {"validate_indices", false}},
         {I32({}, {1}), I32({1}, {3}), Tensor::from_strings({}, {"x"}), Tensor::from_strings({}, {""})}});
  for (DType t : {f, bf, i32, DType::Bool})
    c.add({"SparseReorder", {{"T", t}}, {I64({3, 2}, {1, 0, 0, 1, 0, 0}), gen(t, {3}, 0, 3), I64({2}, {2, 2})}});
  c.add({"SparseReorder", {{"T", f}}, {I64({2, 1}, {0, 3}), F({2}, {1, 2}), I64({1}, {4})}});
  c.add({"SparseReorder", {{"T", DType::String}}, {I64({2, 1}, {3, 0}), Tensor::from_strings({2}, {"a", "b"}), I64({1}, {4})}});
  c.add({"SparseReshape", {}, {I64({3, 2}, {0, 1, 1, 0, 1, 2}), I64({2}, {2, 3}), I64({3}, {3, -1, 1})}});
  c.add({"SparseReshape", {}, {I64({1, 2}, {1, 1}), I64({2}, {2, 3}), I64({2}, {2, 3})}});
  c.add({"SparseReshape", {}, {I64({0, 2}, {}), I64({2}, {0, 3}), I64({3}, {3, 0, 5})}});
}

}  // namespace flowlens::testing
