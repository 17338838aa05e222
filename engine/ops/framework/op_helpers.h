#pragma once
// Shared helpers for the standard op families: dtype dispatch, input checks,
// attr-derived dtypes, axis handling and OpDef construction. Everything here
// is cheap on the success path (no string building, no std::function); error
// messages are only formatted when a check fails.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/framework/op_registry.h"

namespace flowlens::ops {

// ---- errors ---------------------------------------------------------------

[[noreturn]] void fail(const std::string& message);
// "<op>: unsupported dtype <dtype>" (names the op and dtype).
[[noreturn]] void unsupported_dtype(const char* op, DType t);
// Compact form of a shape for messages: "[2,3]", "[]", "<unknown>".
inline std::string shape_str(const Shape& s) { return s.to_string(); }

// ---- dtype dispatch -------------------------------------------------------
// f is called with a value of the C++ type (float{}, double{} ...); it is a
// template lambda so each family instantiates only what it uses.

template <class F>
inline void dispatch_numeric(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Float: f(float{}); return;
    case DType::Double: f(double{}); return;
    case DType::Int32: f(int32_t{}); return;
    case DType::Int64: f(int64_t{}); return;
    default: unsupported_dtype(op, t);
  }
}

// ---- kernel input checks --------------------------------------------------

// Throws unless ctx has exactly n inputs.
void check_num_inputs(const KernelContext& ctx, int n);
void check_min_inputs(const KernelContext& ctx, int n);
// Throws "<op>: both inputs must have the same dtype, got A and B" when both
// are known (not Invalid, which shape functions use for "unknown") and differ.
void check_same_dtype(std::string_view op, DType a, DType b);
// Input i, throwing if it is an empty (uninitialized) tensor.
const Tensor& input(const KernelContext& ctx, int i);
// Checks a fixed-size, computable dtype for byte-copying kernels (Concat, Pack ...).
void check_copyable(const char* op, DType t);
// True for int32 / int64.
inline bool is_index_type(DType t) { return t == DType::Int32 || t == DType::Int64; }

// Reads an int32/int64 tensor as int64 values (any rank); `what` names it in errors.
std::vector<int64_t> read_ints(const char* op, const char* what, const Tensor& t);
// Reads an int32/int64 scalar (or 1-element tensor).
int64_t read_scalar_int(const char* op, const char* what, const Tensor& t);
// Maps axis in [-rank, rank) to [0, rank); throws with TF's range wording.
int normalize_axis(const char* op, int64_t axis, int rank);

// Row-major helpers.
int64_t product(const std::vector<int64_t>& dims, int begin, int end);
// The element count of `dims` (a shape computed from input: Reshape's,
// Fill's, Tile's ...); throws "<op>: shape [..] ..." when a dim is negative
// or the count overflows int64, before anything is allocated.
int64_t checked_elements(const std::string& op, const std::vector<int64_t>& dims);

// ---- shape-function helpers -----------------------------------------------

// attr `name` if present, else input i's dtype (if that exists), else Invalid.
DType attr_or_input_dtype(const ShapeContext& ctx, const char* name, int i);
// Sets output 0 to input 0's info with dtype from attr T (Identity-like ops).
void unchanged_shape(ShapeContext& ctx);
// Merges two partial shapes that must be equal; throws with `message` + both shapes.
Shape merge_shapes(const Shape& a, const Shape& b, const char* message);
// Unknown rank shape with n dims (n < 0: unknown rank).
Shape unknown_shape(int rank);
// A shape from a constant int tensor (-1 entries stay unknown).
Shape shape_from_tensor(const Tensor& t);

// ---- family registration (one file each) ----------------------------------

void register_state_ops(OpRegistry& r);      // state_ops.cpp
void register_math_ops(OpRegistry& r);       // math_ops.cpp
void register_unary_ops(OpRegistry& r);      // unary_ops.cpp
void register_reduction_ops(OpRegistry& r);  // reduction_ops.cpp
void register_arg_reduce_ops(OpRegistry& r); // arg_reduce_ops.cpp
void register_scan_ops(OpRegistry& r);       // scan_ops.cpp
void register_sequence_ops(OpRegistry& r);   // sequence_ops.cpp
void register_index_ops(OpRegistry& r);      // index_ops.cpp
void register_tile_ops(OpRegistry& r);       // tile_ops.cpp
void register_stitch_ops(OpRegistry& r);     // stitch_ops.cpp
void register_matmul_op(OpRegistry& r);      // matmul_ops.cpp
void register_nn_ops(OpRegistry& r);         // nn_ops.cpp (calls register_softmax_ops)
void register_softmax_ops(OpRegistry& r);    // softmax_ops.cpp
void register_conv_ops(OpRegistry& r);       // conv_ops.cpp (+ depthwise_conv_ops.cpp, fused_conv_ops.cpp)
void register_segment_ops(OpRegistry& r);    // segment_ops.cpp
void register_sparse_ops(OpRegistry& r);     // sparse_ops.cpp
void register_array_ops(OpRegistry& r);      // array_ops.cpp
void register_concat_ops(OpRegistry& r);     // concat_ops.cpp
void register_random_ops(OpRegistry& r);     // random_ops.cpp
void register_string_ops(OpRegistry& r);     // string_ops.cpp
void register_parsing_ops(OpRegistry& r);    // parsing_ops.cpp
void register_summary_ops(OpRegistry& r);    // summary_ops.cpp
void register_logging_ops(OpRegistry& r);    // logging_ops.cpp
void register_resource_ops(OpRegistry& r);        // resource_ops.cpp
void register_tensor_array_ops(OpRegistry& r);    // tensor_array_ops.cpp
void register_stack_ops(OpRegistry& r);           // stack_ops.cpp
void register_resource_gather_op(OpRegistry& r);  // resource_gather_ops.cpp
void register_scatter_ops(OpRegistry& r);         // scatter_ops.cpp: Scatter*, ResourceScatter*
void register_apply_ops(OpRegistry& r);           // apply_ops.cpp
void register_ftrl_ops(OpRegistry& r);            // ftrl_ops.cpp
void register_sparse_apply_ops(OpRegistry& r);    // sparse_apply_ops.cpp
void register_pooling_ops(OpRegistry& r);         // pooling_ops.cpp
void register_batch_norm_ops(OpRegistry& r);      // batch_norm_ops.cpp
void register_lrn_ops(OpRegistry& r);             // lrn_ops.cpp
void register_resize_ops(OpRegistry& r);          // resize_ops.cpp
void register_function_ops(OpRegistry& r);        // function_ops.cpp
void register_dataset_ops(OpRegistry& r);         // dataset_ops.cpp
void register_iterator_ops(OpRegistry& r);        // iterator_ops.cpp
void register_queue_ops(OpRegistry& r);           // queue_ops.cpp

}  // namespace flowlens::ops
