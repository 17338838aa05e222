#pragma once
// Registry-walk cases for the array family: shape ops, Transpose,
// StridedSlice, Gather/Scatter, OneHot, padding, Unique/ListDiff, the
// pass-through ops and the joins and splits on more dtypes (16-bit floats,
// small integers, bool, string) than core.h covers.
#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_array_cases(OpCases& c) {
  const DType f = DType::Float, h = DType::Half, bf = DType::BFloat16;
  const DType i8 = DType::Int8, i16 = DType::Int16, u8 = DType::UInt8, i32 = DType::Int32, i64 = DType::Int64;
  const Tensor words = S({2, 3}, {"a", "b", "c", "d", "e", "f"});

  c.add({"Reshape", {{"T", h}}, {gen(h, {2, 3}), I64({2}, {-1, 2})}});
  c.add({"Reshape", {{"T", DType::String}}, {words, I32({1}, {6})}});
  c.add({"ExpandDims", {{"T", bf}}, {gen(bf, {2, 3}), I32({}, {-1})}});
  c.add({"ExpandDims", {{"T", i8}, {"Tdim", i64}}, {gen(i8, {2}), I64({1}, {0})}});
  c.add({"Squeeze", {{"T", f}}, {gen(f, {1, 3, 1})}});
  c.add({"Squeeze", {{"T", i16}, {"squeeze_dims", int_list({-1})}}, {gen(i16, {1, 3, 1})}});
  c.add({"ShapeN", {{"T", f}, {"N", 2}, {"out_type", i64}}, {gen(f, {2, 3}), gen(f, {4})}});
  c.add({"Fill", {{"T", h}}, {I32({2}, {2, 2}), T(h, {}, {1.5})}});
  c.add({"Fill", {{"T", DType::String}, {"index_type", i64}}, {I64({1}, {3}), S({}, {"x"})}});

  c.add({"Transpose", {{"T", h}}, {gen(h, {2, 3, 4}), I32({3}, {2, 0, 1})}});
  c.add({"Transpose", {{"T", i32}, {"Tperm", i64}}, {gen(i32, {3, 2}), I64({2}, {-1, 0})}});
  c.add({"Transpose", {{"T", DType::String}}, {words, I32({2}, {1, 0})}});
  c.add({"ReverseV2", {{"T", bf}}, {gen(bf, {2, 3}), I32({2}, {1, 0})}});
  c.add({"ReverseV2", {{"T", i8}, {"Tidx", i64}}, {gen(i8, {2, 3}), I64({1}, {-1})}});
  c.add({"ReverseSequence", {{"T", f}, {"Tlen", i64}, {"seq_dim", 1}}, {gen(f, {3, 4}), I64({3}, {2, 4, 0})}});
  c.add({"ReverseSequence", {{"T", u8}, {"Tlen", i32}, {"seq_dim", 0}, {"batch_dim", 2}},
         {gen(u8, {3, 2, 2}, 0, 9), I32({2}, {3, 1})}});
  c.add({"DepthToSpace", {{"T", f}, {"block_size", 2}}, {gen(f, {1, 2, 2, 8})}});
  c.add({"DepthToSpace", {{"T", u8}, {"block_size", 2}}, {gen(u8, {2, 1, 1, 4}, 0, 9)}});
  c.add({"SpaceToDepth", {{"T", h}, {"block_size", 2}}, {gen(h, {1, 4, 4, 2})}});

  // x[1:3, ::-1], x[..., 1:2] with a shrink, x[tf.newaxis, 0:2], x[1, 0:4:2].
  c.add({"StridedSlice", {{"T", f}, {"Index", i32}},
         {gen(f, {4, 5}), I32({2}, {1, 0}), I32({2}, {3, 0}), I32({2}, {1, -1})}});
  c.add({"StridedSlice", {{"T", h}, {"Index", i32}, {"end_mask", 2}},
         {gen(h, {4, 5}), I32({2}, {1, 0}), I32({2}, {3, 0}), I32({2}, {1, -1})}});
  c.add({"StridedSlice", {{"T", i8}, {"Index", i64}, {"ellipsis_mask", 1}, {"shrink_axis_mask", 2}},
         {gen(i8, {2, 3, 4}), I64({2}, {0, 1}), I64({2}, {0, 2}), I64({2}, {1, 1})}});
  c.add({"StridedSlice", {{"T", bf}, {"Index", i32}, {"new_axis_mask", 1}},
         {gen(bf, {3, 4}), I32({2}, {0, 0}), I32({2}, {0, 2}), I32({2}, {1, 1})}});
  c.add({"StridedSlice", {{"T", DType::String}, {"Index", i32}, {"shrink_axis_mask", 1}},
         {words, I32({2}, {1, 0}), I32({2}, {2, 3}), I32({2}, {1, 2})}});
  c.add({"StridedSliceGrad", {{"T", f}, {"Index", i32}},
         {I32({2}, {4, 5}), I32({2}, {1, 0}), I32({2}, {3, 5}), I32({2}, {1, 2}), gen(f, {2, 3})}});
  c.add({"StridedSliceGrad", {{"T", h}, {"Index", i64}, {"shrink_axis_mask", 1}},
         {I64({2}, {3, 4}), I64({2}, {-1, 0}), I64({2}, {0, 4}), I64({2}, {1, 1}), gen(h, {4})}});
  c.add({"Slice", {{"T", h}, {"Index", i64}}, {gen(h, {3, 4}), I64({2}, {1, 1}), I64({2}, {2, -1})}});
  c.add({"Slice", {{"T", DType::String}, {"Index", i32}}, {words, I32({2}, {0, 1}), I32({2}, {2, 2})}});

  c.add({"Gather", {{"Tparams", bf}, {"Tindices", i32}}, {gen(bf, {5, 3}), I32({2, 2}, {4, 0, 2, 2})}});
  c.add({"GatherV2", {{"Tparams", f}, {"Tindices", i64}, {"Taxis", i32}},
         {gen(f, {2, 3, 4}), I64({2}, {2, 0}), I32({}, {1})}});
  c.add({"GatherV2", {{"Tparams", f}, {"Tindices", i32}, {"Taxis", i32}, {"batch_dims", 1}},
         {gen(f, {2, 3, 4}), I32({2, 2}, {3, 0, 1, 1}), I32({}, {2})}});  // rows per batch and outer index
  c.add({"GatherV2", {{"Tparams", i16}, {"Tindices", i32}, {"Taxis", i64}, {"batch_dims", 1}},
         {gen(i16, {2, 3, 4}), I32({2, 2}, {0, 2, 1, 1}), I64({}, {-2})}});
  c.add({"GatherV2", {{"Tparams", DType::String}, {"Tindices", i32}, {"Taxis", i32}}, {words, I32({1}, {1}), I32({}, {0})}});
  c.add({"GatherNd", {{"Tparams", f}, {"Tindices", i32}}, {gen(f, {3, 4}), I32({2, 2}, {0, 3, 2, 1})}});
  c.add({"GatherNd", {{"Tparams", h}, {"Tindices", i64}}, {gen(h, {3, 4}), I64({2, 1}, {2, 0})}});
  c.add({"ScatterNd", {{"T", f}, {"Tindices", i32}}, {I32({3, 1}, {4, 0, 4}), gen(f, {3, 2}), I32({2}, {5, 2})}});
  c.add({"ScatterNd", {{"T", i32}, {"Tindices", i64}}, {I64({2, 2}, {0, 1, 1, 0}), gen(i32, {2}), I64({2}, {2, 2})}});
  c.add({"OneHot", {{"T", f}, {"TI", i32}}, {I32({4}, {0, 3, -1, 5}), I32({}, {4}), F({}, {1}), F({}, {0})}});
  c.add({"OneHot", {{"T", h}, {"axis", 0}}, {I64({2, 2}, {1, 0, 2, 1}), I32({}, {3}), T(h, {}, {5}), T(h, {}, {-1})}});
  c.add({"OneHot", {{"T", DType::String}, {"TI", u8}}, {T(u8, {2}, {1, 0}), I32({}, {2}), S({}, {"y"}), S({}, {"n"})}});

  c.add({"Pad", {{"T", h}}, {gen(h, {2, 3}), I32({2, 2}, {1, 0, 2, 1})}});
  c.add({"Pad", {{"T", DType::String}, {"Tpaddings", i64}}, {words, I64({2, 2}, {0, 1, 1, 0})}});
  c.add({"PadV2", {{"T", i16}}, {gen(i16, {2, 2}), I32({2, 2}, {1, 1, 0, 2}), T(i16, {}, {7})}});
  c.add({"PadV2", {{"T", f}}, {gen(f, {2, 3}), I32({2, 2}, {0, 1, 2, 1}), F({}, {-1.5f})}});
  c.add({"MirrorPad", {{"T", f}, {"mode", "REFLECT"}}, {gen(f, {3, 4}), I32({2, 2}, {1, 1, 2, 0})}});
  c.add({"MirrorPad", {{"T", f}, {"mode", "SYMMETRIC"}},  // an image's rows and columns; channels unpadded
         {gen(f, {1, 3, 4, 2}), I32({4, 2}, {0, 0, 2, 1, 1, 3, 0, 0})}});
  c.add({"MirrorPad", {{"T", DType::Bool}, {"mode", "SYMMETRIC"}, {"Tpaddings", i64}},
         {gen(DType::Bool, {2, 2}, 0, 1), I64({2, 2}, {2, 0, 1, 2})}});
  c.add({"MirrorPadGrad", {{"T", f}, {"mode", "REFLECT"}}, {gen(f, {5, 6}), I32({2, 2}, {1, 1, 2, 0})}});
  c.add({"MirrorPadGrad", {{"T", bf}, {"mode", "SYMMETRIC"}}, {gen(bf, {4, 4}), I32({2, 2}, {2, 0, 1, 1})}});

  c.add({"Unique", {{"T", i32}}, {I32({6}, {4, 1, 4, 2, 1, 7})}});
  c.add({"Unique", {{"T", h}, {"out_idx", i64}}, {T(h, {4}, {0.5, -1, 0.5, 2})}});
  c.add({"Unique", {{"T", DType::String}}, {S({3}, {"b", "a", "b"})}});
  c.add({"ListDiff", {{"T", f}}, {F({5}, {1, 2, 3, 2, 5}), F({2}, {2, 4})}});
  c.add({"ListDiff", {{"T", i64}, {"out_idx", i64}}, {I64({3}, {7, 8, 9}), I64({0}, {})}});

  c.add({"IdentityN", {{"T", type_list({f, i32})}}, {gen(f, {2}), gen(i32, {3})}});
  c.add({"Snapshot", {{"T", h}}, {gen(h, {2, 3})}});
  c.add({"PreventGradient", {{"T", f}, {"message", "not here"}}, {gen(f, {2})}});

  c.add({"ConcatV2", {{"T", h}, {"N", 2}}, {gen(h, {2, 1}), gen(h, {2, 2}), I32({}, {-1})}});
  c.add({"Concat", {{"T", DType::String}, {"N", 2}}, {I32({}, {0}), words, S({1, 3}, {"g", "h", "i"})}});
  c.add({"ConcatOffset", {{"N", 3}, {"shape_type", i64}},
         {I32({}, {-1}), I64({2}, {2, 3}), I64({2}, {2, 0}), I64({2}, {2, 5})}});
  c.add({"Pack", {{"T", i8}, {"N", 2}, {"axis", -1}}, {gen(i8, {2}), gen(i8, {2})}});
  c.add({"Pack", {{"T", DType::String}, {"N", 2}}, {S({}, {"p"}), S({}, {"q"})}});
  c.add({"Unpack", {{"T", bf}, {"num", 2}}, {gen(bf, {2, 3})}});
  c.add({"Split", {{"T", DType::String}, {"num_split", 3}}, {I32({}, {-1}), words}});
  c.add({"SplitV", {{"T", h}, {"num_split", 2}, {"Tlen", i8}}, {gen(h, {4, 2}), T(i8, {2}, {-1, 1}), I32({}, {0})}});
}

}  // namespace flowlens::testing
