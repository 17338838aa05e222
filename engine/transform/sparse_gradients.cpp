// Gradients of the segment reductions (math_grad.py) and the sparse-tensor
// ops (sparse_grad.py), built from TensorFlow's ops as those functions build
// them, in the dynamic form TensorFlow builds for shapes it does not know
// statically (Shape/Rank ops rather than folded constants).
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

DType input_dtype(GradContext& c, int i, const char* attr) {
  const DType t = c.input_info[static_cast<size_t>(i)].dtype;
  return t != DType::Invalid ? dtype_base(t) : dtype_base(c.node.attr_type(attr, DType::Int32));
}

std::string int32_const(GradContext& c, const std::string& base, int32_t v) {
  return c.b.scalar(base, DType::Int32, v);
}

// array_ops.gather(params, indices): GatherV2 along axis 0.
std::string gather(GradContext& c, const std::string& params, DType tparams, const std::string& indices,
                   DType tindices) {
  return c.b.add("GatherV2", "GatherV2", {params, indices, int32_const(c, "GatherV2/axis", 0)},
                 {{"Tparams", AttrValue(tparams)},
                  {"Tindices", AttrValue(tindices)},
                  {"Taxis", AttrValue(DType::Int32)},
                  {"batch_dims", AttrValue(int64_t{0})}});
}

// array_ops.shape(x)[0]: StridedSlice(Shape(x), [0], [1], [1], shrink_axis_mask=1).
std::string dim0(GradContext& c, const std::string& x, DType t) {
  return c.b.add("StridedSlice", "strided_slice",
                 {c.b.shape(x, t), c.b.int32_vector("strided_slice/stack", {0}),
                  c.b.int32_vector("strided_slice/stack_1", {1}), c.b.int32_vector("strided_slice/stack_2", {1})},
                 {{"T", AttrValue(DType::Int32)},
                  {"Index", AttrValue(DType::Int32)},
                  {"begin_mask", AttrValue(0)},
                  {"end_mask", AttrValue(0)},
                  {"ellipsis_mask", AttrValue(0)},
                  {"new_axis_mask", AttrValue(0)},
                  {"shrink_axis_mask", AttrValue(1)}});
}

// math_ops.range(0, n): Range(0, n, 1) over int32.
std::string range(GradContext& c, const std::string& limit) {
  return c.b.add("Range", "range", {int32_const(c, "range/start", 0), limit, int32_const(c, "range/delta", 1)},
                 {{"Tidx", AttrValue(DType::Int32)}});
}

// math_ops.reduce_sum(x) over every axis: Sum(x, Range(0, Rank(x), 1)).
std::string sum_all(GradContext& c, const std::string& x) {
  return c.b.sum(x, range(c, c.b.add("Rank", "Rank", {x}, {{"T", AttrValue(c.dtype)}})), c.dtype);
}

// ---- _GatherDropNegatives ----------------------------------------------------------

struct DroppedNegatives {
  std::string values;       // params gathered at max(ids, 0), zero where ids < 0
  std::string clipped_ids;  // max(ids, 0)
  std::string is_positive;  // ids >= 0, broadcast to the gathered shape
};

// Gathers params for the non-negative ids and 0 for the negative ones; the
// clipped ids and mask of a first call are reused by a second (`reuse`).
DroppedNegatives gather_drop_negatives(GradContext& c, const std::string& params, const std::string& ids, DType tids,
                                       const DroppedNegatives* reuse = nullptr) {
  DroppedNegatives d;
  d.clipped_ids = reuse ? reuse->clipped_ids
                        : c.b.binary("Maximum", ids, c.b.unary("ZerosLike", ids, tids), tids);
  const std::string gathered = gather(c, params, c.dtype, d.clipped_ids, tids);
  if (reuse) {
    d.is_positive = reuse->is_positive;
  } else {
    const std::string positive =
        c.b.add("GreaterEqual", "GreaterEqual", {ids, c.b.scalar("GreaterEqual/y", tids, 0)}, {{"T", AttrValue(tids)}});
    const std::string positive_shape = c.b.shape(positive, DType::Bool);
    const std::string extra_rank =
        c.b.binary("Sub", c.b.add("Rank", "Rank", {gathered}, {{"T", AttrValue(c.dtype)}}),
                   c.b.add("Rank", "Rank", {positive}, {{"T", AttrValue(DType::Bool)}}), DType::Int32);
    const std::string packed = c.b.add("Pack", "ones/packed", {extra_rank},
                                       {{"N", AttrValue(int64_t{1})}, {"T", AttrValue(DType::Int32)}, {"axis", AttrValue(int64_t{0})}});
    const std::string ones = c.b.add("Fill", "ones", {packed, int32_const(c, "ones/Const", 1)},
                                     {{"T", AttrValue(DType::Int32)}, {"index_type", AttrValue(DType::Int32)}});
    const std::string broadcastable =
        c.b.add("ConcatV2", "concat", {positive_shape, ones, int32_const(c, "concat/axis", 0)},
                {{"N", AttrValue(int64_t{2})}, {"T", AttrValue(DType::Int32)}, {"Tidx", AttrValue(DType::Int32)}});
    const std::string reshaped = c.b.reshape(positive, broadcastable, DType::Bool);
    const std::string all_true =
        c.b.add("Fill", "ones_like", {c.b.shape(gathered, c.dtype), c.b.constant("ones_like/Const", Tensor::scalar<bool>(true))},
                {{"T", AttrValue(DType::Bool)}, {"index_type", AttrValue(DType::Int32)}});
    d.is_positive = c.b.add("LogicalAnd", "LogicalAnd", {reshaped, all_true});
  }
  d.values = c.b.add("SelectV2", "SelectV2", {d.is_positive, gathered, c.b.unary("ZerosLike", gathered, c.dtype)},
                     {{"T", AttrValue(c.dtype)}});
  return d;
}

// ---- segment reductions --------------------------------------------------------------

Grads unsorted_segment_sum_grad(GradContext& c) {
  return {gather_drop_negatives(c, grad_or_zeros(c, 0), c.inputs[1], input_dtype(c, 1, "Tindices")).values, "", ""};
}

// _UnsortedSegmentMinOrMaxGrad: the gradient of each segment is shared
// evenly by the entries equal to its maximum.
Grads unsorted_segment_max_grad(GradContext& c) {
  const DType tids = input_dtype(c, 1, "Tindices");
  const DroppedNegatives outputs = gather_drop_negatives(c, c.outputs[0], c.inputs[1], tids);
  const std::string equal = c.b.add("Equal", "Equal", {c.inputs[0], outputs.values},
                                    {{"T", AttrValue(c.dtype)}, {"incompatible_shape_error", AttrValue(true)}});
  const std::string selected = c.b.add("LogicalAnd", "LogicalAnd", {equal, outputs.is_positive});
  const std::string count = c.b.add(
      "UnsortedSegmentSum", "UnsortedSegmentSum", {c.b.cast(selected, DType::Bool, c.dtype), c.inputs[1], c.inputs[2]},
      {{"T", AttrValue(c.dtype)}, {"Tindices", AttrValue(tids)}, {"Tnumsegments", AttrValue(input_dtype(c, 2, "Tnumsegments"))}});
  const std::string weighted = c.b.binary("RealDiv", grad_or_zeros(c, 0), count, c.dtype);
  const std::string spread = gather_drop_negatives(c, weighted, "", tids, &outputs).values;
  return {c.b.add("SelectV2", "SelectV2", {selected, spread, c.b.unary("ZerosLike", spread, c.dtype)},
                  {{"T", AttrValue(c.dtype)}}),
          "", ""};
}

// UnsortedSegmentSum(Gather(grad, segment_ids), indices, Shape(data)[0]).
Grads sparse_segment_sum_grad(GradContext& c) {
  const std::string rows = dim0(c, c.inputs[0], c.dtype);
  const std::string gathered = gather(c, grad_or_zeros(c, 0), c.dtype, c.inputs[2], input_dtype(c, 2, "Tsegmentids"));
  return {c.b.add("UnsortedSegmentSum", "UnsortedSegmentSum", {gathered, c.inputs[1], rows},
                  {{"T", AttrValue(c.dtype)},
                   {"Tindices", AttrValue(input_dtype(c, 1, "Tidx"))},
                   {"Tnumsegments", AttrValue(DType::Int32)}}),
          "", ""};
}

Grads sparse_segment_mean_grad(GradContext& c) {
  const std::string rows = dim0(c, c.inputs[0], c.dtype);
  return {c.b.add("SparseSegmentMeanGrad", "SparseSegmentMeanGrad", {grad_or_zeros(c, 0), c.inputs[1], c.inputs[2], rows},
                  {{"T", AttrValue(c.dtype)},
                   {"Tidx", AttrValue(input_dtype(c, 1, "Tidx"))},
                   {"Tsegmentids", AttrValue(input_dtype(c, 2, "Tsegmentids"))}}),
          "", ""};
}

// ---- sparse tensors ------------------------------------------------------------------

// _SparseReorderGrad: reorders the entry numbers 0..n-1 the same way and
// gathers the values' gradient through the inverse permutation.
Grads sparse_reorder_grad(GradContext& c) {
  const std::string& indices = c.inputs[0];
  const DType t = c.output_info[1].dtype != DType::Invalid ? dtype_base(c.output_info[1].dtype)
                                                          : dtype_base(c.node.attr_type("T", DType::Float));
  const std::string entries = range(c, dim0(c, indices, DType::Int64));
  const std::string reordered =
      c.b.add("SparseReorder", "SparseReorder", {indices, entries, c.inputs[2]}, {{"T", AttrValue(DType::Int32)}});
  const std::string inverse =
      c.b.add("InvertPermutation", "InvertPermutation", {tensor_name(reordered, 1)}, {{"T", AttrValue(DType::Int32)}});
  return {"", gather(c, grad_or_zeros(c, 1), t, inverse, DType::Int32), ""};
}

// _SparseToDenseGrad: the values get the gradient at their indices, the
// default value the rest of it.
Grads sparse_to_dense_grad(GradContext& c) {
  const DType tindices = input_dtype(c, 0, "Tindices");
  const std::string& g = c.grads[0];
  const std::string values = c.b.add("GatherNd", "GatherNd", {g, c.inputs[0]},
                                     {{"Tparams", AttrValue(c.dtype)}, {"Tindices", AttrValue(tindices)}});
  const std::string rest = c.b.binary("Sub", sum_all(c, g), sum_all(c, values), c.dtype);
  return {c.b.unary("ZerosLike", c.inputs[0], tindices), c.b.unary("ZerosLike", c.inputs[1], tindices), values, rest};
}

}  // namespace

void add_sparse_gradients(GradTable& t) {
  t.insert(t.end(), {{"UnsortedSegmentSum", unsorted_segment_sum_grad},
                     {"UnsortedSegmentMax", unsorted_segment_max_grad},
                     {"SparseSegmentSum", sparse_segment_sum_grad},
                     {"SparseSegmentMean", sparse_segment_mean_grad},
                     {"SparseReorder", sparse_reorder_grad},
                     {"SparseToDense", sparse_to_dense_grad}});
}

}  // namespace flowlens::grad
