// Gradients of pass-through and shape ops: Identity, PlaceholderWithDefault,
// Reshape, Cast, Split, SplitV, Concat, ConcatV2, Pack, Unpack, Fill.
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

Grads identity_grad(GradContext& c) { return {c.grads[0]}; }

Grads reshape_grad(GradContext& c) { return {c.b.reshape(c.grads[0], shape_of(c, 0), c.dtype), ""}; }

Grads cast_grad(GradContext& c) {
  const DType src = dtype_base(c.node.attr_type("SrcT", c.input_info[0].dtype));
  const DType dst = dtype_base(c.node.attr_type("DstT", c.output_info[0].dtype));
  if (!dtype_is_floating(src) || !dtype_is_floating(dst)) return {""};
  return {c.b.cast(c.grads[0], dst, src)};
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
// ConcatOffset offsets, sized like each input.
Grads concat_slices(GradContext& c, int axis_index, int first, int n) {
  std::vector<std::string> co_inputs{c.inputs[static_cast<size_t>(axis_index)]};
  std::vector<std::string> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(shape_of(c, first + i));
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

Grads fill_grad(GradContext& c) {  // Fill(dims, value): value gets the sum of the gradient
  const std::string flat = c.b.reshape(c.grads[0], c.b.int32_vector("Reshape/shape", {-1}), c.dtype);
  return {"", c.b.sum(flat, c.b.int32_vector("Sum/reduction_indices", {0}), c.dtype)};
}

}  // namespace

void add_array_gradients(GradTable& t) {
  t.insert(t.end(), {{"Identity", identity_grad},
                     {"PlaceholderWithDefault", identity_grad},
                     {"Reshape", reshape_grad},
                     {"Cast", cast_grad},
                     {"Split", split_grad},
                     {"SplitV", splitv_grad},
                     {"Concat", concat_grad},
                     {"ConcatV2", concat_v2_grad},
                     {"Pack", pack_grad},
                     {"Unpack", unpack_grad},
                     {"Fill", fill_grad}});
}

}  // namespace flowlens::grad
