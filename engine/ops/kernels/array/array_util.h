#pragma once
// Shared pieces of the array family's kernels (shape_ops, transpose_ops,
// strided_slice_op, gather_ops, pad_ops, unique_ops, concat/pack/split_ops):
// the dtypes they carry, element copies that move strings as well as
// fixed-size values, TensorFlow's formats for index errors, and shapes built
// from input data.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/framework/dtype_dispatch.h"
#include "tensor/copy_rows.h"

namespace flowlens::ops {

// TF_CALL_POD_TYPES less complex: the real numbers and bool.
std::vector<DType> pod_dtypes();
// The POD types and string: TF_CALL_ALL_TYPES as far as FlowLens computes it.
std::vector<DType> pod_string_dtypes();
// `types` less those the op's spec does not allow (ReverseV2 lists no uint32).
std::vector<DType> without(std::vector<DType> types, const std::vector<DType>& excluded);

// Calls f(E{}) where E moves one element of `t` unchanged: an unsigned integer
// of its width for the fixed-size computable dtypes (a byte copy is a value
// copy), std::string for DT_STRING. Zero-initialised E is TensorFlow's zero
// for every one of them (0, 0.0, false, "").
template <class F>
void dispatch_element(DType t, const char* op, F&& f) {
  if (t == DType::String) return f(std::string{});
  if (!dtype_is_computable(t)) unsupported_dtype(op, t);
  switch (dtype_size(t)) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: unsupported_dtype(op, t);
  }
}

// The elements of a host tensor as E (see dispatch_element).
template <class E>
E* elements(Tensor& t) {
  if constexpr (std::is_same_v<E, std::string>) return t.strings().data();
  else return static_cast<E*>(t.raw_data());
}
template <class E>
const E* elements(const Tensor& t) {
  if constexpr (std::is_same_v<E, std::string>) return t.strings().data();
  else return static_cast<const E*>(t.raw_data());
}

// dst's elements from src's strided view (tensor/copy_rows.h's
// gather_mapped), strings included (on the host): host and device memory alike.
// Refuses (naming `op`) dtypes dispatch_element refuses.
void gather_elements(Tensor& dst, const Tensor& src, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& in_stride, int64_t base, const char* op);

// copy_rows in elements, for every dtype dispatch_element takes: strings are
// copied one by one on the host, fixed-size values through copy_rows (so the
// same call serves device memory).
void copy_elements(Tensor& dst, int64_t dst_offset, int64_t dst_pitch, const Tensor& src, int64_t src_offset,
                   int64_t src_pitch, int64_t width, int64_t rows);
// Refuses dtypes copy_elements cannot move (resource, variant, refs, complex).
void check_movable(const char* op, DType t);

// Row-major element strides of `dims`.
std::vector<int64_t> strides_of(const std::vector<int64_t>& dims);
// TensorFlow's SliceDebugString: the multi-index of element `flat` of a
// tensor of `shape`, "[1,2]"; "" for a scalar.
std::string index_string(const Shape& shape, int64_t flat);
// Values joined by `sep` ("4 5" for ConcatOffset, "4, 5" for GatherNd).
std::string join(const std::vector<int64_t>& values, const char* sep);

// An integer tensor of any index dtype (int8, uint8, int16, int32, int64 ...) as int64.
std::vector<int64_t> read_int_values(const char* op, const char* what, const Tensor& t);
// A shape built from input data, as TensorShapeUtils::MakeShape checks it:
// "Dimension -1 must be >= 0", and an element count that fits int64.
Shape make_shape(const std::string& op, std::vector<int64_t> dims);
// An int32 or int64 vector tensor holding `values`.
Tensor int_vector(DType t, const std::vector<int64_t>& values);

// GatherNd's and ScatterNd's bad_indices_policy attr: "", "DEFAULT" and
// "ERROR" fail on the CPU; "IGNORE" skips (gather: zeros, scatter: nothing).
enum class BadIndices { Error, Ignore };
BadIndices bad_indices_policy(const AttrReader& attrs);
// The element offset in a tensor of `dims` (row-major `strides`) of index
// tuple i, the `nd` values idx[i*nd ..]; -1 when one is out of range.
int64_t tuple_offset(const std::vector<int64_t>& idx, int64_t i, int64_t nd, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& strides);
// Index tuple i, for messages.
std::vector<int64_t> index_tuple(const std::vector<int64_t>& idx, int64_t i, int64_t nd);

// InferenceContext::WithRank / WithRankAtLeast for a shape function: nothing
// when the rank is unknown, else "Shape must be rank 1 but is rank 2".
void with_rank(const Shape& s, int rank);
void with_rank_at_least(const Shape& s, int64_t rank);

}  // namespace flowlens::ops

namespace flowlens::ops {

// The array family's files; register_array_ops (array_ops.cpp) calls them all.
void register_shape_ops(OpRegistry& r);      // shape_ops.cpp: Reshape, Shape, ShapeN, Size, Rank, Fill, ExpandDims, Squeeze
void register_transpose_ops(OpRegistry& r);  // transpose_ops.cpp: Transpose, ReverseV2, DepthToSpace, SpaceToDepth
void register_strided_slice_ops(OpRegistry& r);  // strided_slice_ops.cpp: StridedSlice, StridedSliceGrad
void register_slice_op(OpRegistry& r);       // slice_ops.cpp
void register_gather_ops(OpRegistry& r);     // gather_ops.cpp: Gather, GatherV2, GatherNd
void register_scatter_nd_op(OpRegistry& r);  // scatter_nd_ops.cpp
void register_one_hot_op(OpRegistry& r);     // one_hot_ops.cpp
void register_pad_ops(OpRegistry& r);        // pad_ops.cpp: Pad, PadV2, MirrorPad, MirrorPadGrad
void register_unique_ops(OpRegistry& r);     // unique_ops.cpp: Unique, ListDiff
void register_pack_ops(OpRegistry& r);       // pack_ops.cpp: Pack, Unpack
void register_split_ops(OpRegistry& r);      // split_ops.cpp: Split, SplitV

}  // namespace flowlens::ops
