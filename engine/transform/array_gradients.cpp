// Gradients of pass-through and shape ops, as array_grad.py builds them:
// Identity, PlaceholderWithDefault, IdentityN, PreventGradient, Reshape,
// ExpandDims, Squeeze, Cast, Transpose, ReverseV2, ReverseSequence,
// DepthToSpace, SpaceToDepth, Split, SplitV, Concat, ConcatV2, Pack, Unpack, Fill. The slicing and
// indexing ops' gradients are in slice_gradients.cpp and gather_gradients.cpp.
#include "transform/array_gradient_util.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

Grads identity_grad(GradContext& c) { return {c.grads[0]}; }

Grads identity_n_grad(GradContext& c) { return c.grads; }

Grads prevent_gradient_grad(GradContext& c) {
  throw Error("Gradient explicitly disabled. Reason: " + c.node.attr_string("message", ""));
}

// _ReshapeGrad: with one unknown dim (and no zero dim) a constant shape with
// -1 there, else the input's shape.
Grads reshape_grad(GradContext& c) {
  const Shape& s = c.input_info[0].shape;
  if (s.rank_known() && !s.fully_defined()) {
    int unknown = 0;
    bool zero = false;
    for (int64_t d : s.dims()) {
      unknown += d < 0;
      zero = zero || d == 0;
    }
    if (unknown == 1 && !zero) return {c.b.reshape(c.grads[0], int_const(c, "Reshape/shape", DType::Int32, s.dims()), c.dtype), ""};
  }
  return {c.b.reshape(c.grads[0], shape_tensor(c, c.inputs[0], c.input_info[0]), c.dtype), ""};
}

// _ReshapeToInput (ExpandDims, Squeeze).
std::string reshape_to_input(GradContext& c) {
  return c.b.reshape(c.grads[0], shape_tensor(c, c.inputs[0], c.input_info[0]), c.dtype);
}

Grads expand_dims_grad(GradContext& c) { return {reshape_to_input(c), ""}; }
Grads squeeze_grad(GradContext& c) { return {reshape_to_input(c)}; }

Grads cast_grad(GradContext& c) {
  const DType src = dtype_base(c.node.attr_type("SrcT", c.input_info[0].dtype));
  const DType dst = dtype_base(c.node.attr_type("DstT", c.output_info[0].dtype));
  if (!dtype_is_floating(src) || !dtype_is_floating(dst)) return {""};
  return {c.b.cast(c.grads[0], dst, src)};
}

Grads transpose_grad(GradContext& c) {  // Transpose(grad, InvertPermutation(perm))
  const DType tperm = input_dtype(c, 1);
  const std::string inverse = c.b.add("InvertPermutation", "InvertPermutation", {c.inputs[1]}, {{"T", AttrValue(tperm)}});
  return {c.b.add("Transpose", "transpose", {c.grads[0], inverse}, {{"T", AttrValue(c.dtype)}, {"Tperm", AttrValue(tperm)}}),
          ""};
}

Grads reverse_grad(GradContext& c) {
  return {c.b.add("ReverseV2", "ReverseV2", {c.grads[0], c.inputs[1]},
                  {{"T", AttrValue(c.dtype)}, {"Tidx", AttrValue(input_dtype(c, 1))}}),
          ""};
}

// _ReverseSequenceGrad: the same reversal undoes itself; seq_lengths gets none.
Grads reverse_sequence_grad(GradContext& c) {
  return {c.b.add("ReverseSequence", "ReverseSequence", {c.grads[0], c.inputs[1]},
                  {{"T", AttrValue(c.dtype)},
                   {"Tlen", AttrValue(c.node.attr_type("Tlen", DType::Int64))},
                   {"seq_dim", AttrValue(c.node.attr_int("seq_dim", 0))},
                   {"batch_dim", AttrValue(c.node.attr_int("batch_dim", 0))}}),
          ""};
}

// DepthToSpace and SpaceToDepth undo each other.
template <bool kToSpace>
Grads space_depth_grad(GradContext& c) {
  const std::string format = c.node.attr_string("data_format", "NHWC");
  const char* op = kToSpace ? "DepthToSpace" : "SpaceToDepth";
  if (format == "NCHW_VECT_C")
    throw Error(std::string("Cannot compute ") + op + " gradient with NCHW_VECT_C. NCHW_VECT_C requires qint8 data type.");
  const char* inverse = kToSpace ? "SpaceToDepth" : "DepthToSpace";
  return {c.b.add(inverse, inverse, {c.grads[0]},
                  {{"T", AttrValue(c.dtype)},
                   {"block_size", AttrValue(c.node.attr_int("block_size", 2))},
                   {"data_format", AttrValue(format)}})};
}

DType out_dtype(GradContext& c) {
  return c.output_info.empty() || c.output_info[0].dtype == DType::Invalid ? c.dtype : c.output_info[0].dtype;
}

// Concatenates the output gradients (zeros where none flows) along `axis`.
std::string concat_grads(GradContext& c, const std::string& axis, DType axis_type) {
  std::vector<std::string> parts;
  for (int i = 0; i < static_cast<int>(c.outputs.size()); ++i) parts.push_back(grad_or_zeros(c, i));
  parts.push_back(axis);
  return c.b.add("ConcatV2", "concat", std::move(parts),
                 {{"T", AttrValue(out_dtype(c))},
                  {"N", AttrValue(static_cast<int64_t>(c.outputs.size()))},
                  {"Tidx", AttrValue(axis_type == DType::Int64 ? DType::Int64 : DType::Int32)}});
}

Grads split_grad(GradContext& c) {  // Split(axis, value)
  return {"", concat_grads(c, c.inputs[0], c.input_info[0].dtype)};
}

Grads splitv_grad(GradContext& c) {  // SplitV(value, size_splits, axis)
  return {concat_grads(c, c.inputs[2], c.input_info[2].dtype), "", ""};
}

// Concat inputs [first, first + n) along `axis`: slices of the gradient at
// ConcatOffset offsets, sized like each input (constants when every input's
// shape is static, else ShapeN, as _ExtractInputShapes does).
Grads concat_slices(GradContext& c, int axis_index, int first, int n) {
  bool all_static = true;
  for (int i = 0; i < n; ++i) all_static = all_static && c.input_info[static_cast<size_t>(first + i)].shape.fully_defined();
  std::vector<std::string> shapes;
  if (all_static) {
    for (int i = 0; i < n; ++i) shapes.push_back(shape_tensor(c, c.inputs[static_cast<size_t>(first + i)], c.input_info[static_cast<size_t>(first + i)]));
  } else {
    const std::vector<std::string> values(c.inputs.begin() + first, c.inputs.begin() + first + n);
    const std::string shape_n = c.b.add("ShapeN", "ShapeN", values,
                                        {{"N", AttrValue(static_cast<int64_t>(n))},
                                         {"T", AttrValue(c.dtype)},
                                         {"out_type", AttrValue(DType::Int32)}});
    for (int i = 0; i < n; ++i) shapes.push_back(tensor_name(shape_n, i));
  }
  std::vector<std::string> co_inputs{c.inputs[static_cast<size_t>(axis_index)]};
  co_inputs.insert(co_inputs.end(), shapes.begin(), shapes.end());
  const std::string offsets =
      c.b.add("ConcatOffset", "ConcatOffset", std::move(co_inputs), {{"N", AttrValue(static_cast<int64_t>(n))}});
  Grads out(c.inputs.size());
  for (int i = 0; i < n; ++i)
    out[static_cast<size_t>(first + i)] =
        c.b.add("Slice", "Slice", {c.grads[0], tensor_name(offsets, i), shapes[static_cast<size_t>(i)]},
                {{"T", AttrValue(c.dtype)}, {"Index", AttrValue(DType::Int32)}});
  return out;
}

Grads concat_grad(GradContext& c) {  // Concat(axis, values...)
  return concat_slices(c, 0, 1, static_cast<int>(c.inputs.size()) - 1);
}

Grads concat_v2_grad(GradContext& c) {  // ConcatV2(values..., axis)
  const int n = static_cast<int>(c.inputs.size()) - 1;
  return concat_slices(c, n, 0, n);
}

Grads pack_grad(GradContext& c) {
  const int n = static_cast<int>(c.inputs.size());
  const std::string u = c.b.add("Unpack", "unstack", {c.grads[0]},
                                {{"T", AttrValue(c.dtype)},
                                 {"num", AttrValue(static_cast<int64_t>(n))},
                                 {"axis", AttrValue(c.node.attr_int("axis", 0))}});
  Grads out;
  for (int i = 0; i < n; ++i) out.push_back(tensor_name(u, i));
  return out;
}

Grads unpack_grad(GradContext& c) {
  std::vector<std::string> parts;
  for (int i = 0; i < static_cast<int>(c.outputs.size()); ++i) parts.push_back(grad_or_zeros(c, i));
  return {c.b.add("Pack", "stack", std::move(parts),
                  {{"T", AttrValue(out_dtype(c))},
                   {"N", AttrValue(static_cast<int64_t>(c.outputs.size()))},
                   {"axis", AttrValue(c.node.attr_int("axis", 0))}})};
}

// _FillGrad: reduce_sum(grad) over every axis: constant axes when the rank is
// known and non-zero (_ReductionDims), else Range(0, Rank(grad), 1).
Grads fill_grad(GradContext& c) {
  const Shape& s = c.output_info[0].shape;
  std::string axes;
  if (s.rank_known() && s.rank() > 0) {
    std::vector<int64_t> all(static_cast<size_t>(s.rank()));
    for (int i = 0; i < s.rank(); ++i) all[static_cast<size_t>(i)] = i;
    axes = int_const(c, "Const", DType::Int32, all);
  } else {
    axes = c.b.add("Range", "range",
                   {int_const(c, "range/start", DType::Int32, {0}, true),
                    c.b.add("Rank", "Rank", {c.grads[0]}, {{"T", AttrValue(c.dtype)}}),
                    int_const(c, "range/delta", DType::Int32, {1}, true)},
                   {{"Tidx", AttrValue(DType::Int32)}});
  }
  return {"", c.b.sum(c.grads[0], axes, c.dtype)};
}

}  // namespace

void add_array_gradients(GradTable& t) {
  t.insert(t.end(), {{"Identity", identity_grad},
                     {"PlaceholderWithDefault", identity_grad},
                     {"IdentityN", identity_n_grad},
                     {"PreventGradient", prevent_gradient_grad},
                     {"Reshape", reshape_grad},
                     {"ExpandDims", expand_dims_grad},
                     {"Squeeze", squeeze_grad},
                     {"Cast", cast_grad},
                     {"Transpose", transpose_grad},
                     {"ReverseV2", reverse_grad},
                     {"ReverseSequence", reverse_sequence_grad},
                     {"DepthToSpace", space_depth_grad<true>},
                     {"SpaceToDepth", space_depth_grad<false>},
                     {"Split", split_grad},
                     {"SplitV", splitv_grad},
                     {"Concat", concat_grad},
                     {"ConcatV2", concat_v2_grad},
                     {"Pack", pack_grad},
                     {"Unpack", unpack_grad},
                     {"Fill", fill_grad}});
  add_slice_gradients(t);
  add_gather_gradients(t);
}

}  // namespace flowlens::grad
