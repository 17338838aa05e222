// Gradients of the slicing and padding ops, as array_grad.py builds them:
// StridedSlice (StridedSliceGrad), StridedSliceGrad (StridedSlice), Slice (Pad
// with the begin and end margins), Pad / PadV2 (Slice of the padded region),
// MirrorPad (MirrorPadGrad) and MirrorPadGrad (MirrorPad).
#include "transform/array_gradient_util.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

AttrMap slice_masks(GradContext& c) {
  AttrMap m;
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
    m[mask] = AttrValue(c.node.attr_int(mask, 0));
  return m;
}

// StridedSliceGrad(shape(x) as begin's dtype, begin, end, strides, grad).
Grads strided_slice_grad(GradContext& c) {
  const DType index = input_dtype(c, 1);
  AttrMap attrs = slice_masks(c);
  attrs["T"] = AttrValue(c.dtype);
  attrs["Index"] = AttrValue(index);
  const std::string shape = shape_tensor(c, c.inputs[0], c.input_info[0], index);
  return {c.b.add("StridedSliceGrad", "StridedSliceGrad", {shape, c.inputs[1], c.inputs[2], c.inputs[3], c.grads[0]},
                  std::move(attrs)),
          "", "", "", ""};
}

Grads strided_slice_grad_grad(GradContext& c) {
  AttrMap attrs = slice_masks(c);
  attrs["T"] = AttrValue(c.dtype);
  attrs["Index"] = AttrValue(input_dtype(c, 1));
  return {"", "", "", "",
          c.b.add("StridedSlice", "StridedSlice", {c.grads[0], c.inputs[1], c.inputs[2], c.inputs[3]}, std::move(attrs))};
}

// Pack([values...]) of int32 scalars.
std::string stack(GradContext& c, std::vector<std::string> values) {
  const auto n = static_cast<int64_t>(values.size());
  return c.b.add("Pack", "stack", std::move(values),
                 {{"T", AttrValue(DType::Int32)}, {"N", AttrValue(n)}, {"axis", AttrValue(int64_t{0})}});
}

// _SliceGrad: Pad(grad, [[begin], [shape(x) - shape(y) - begin]]) as an
// [rank, 2] matrix of begin's dtype.
Grads slice_grad(GradContext& c) {
  const DType index = input_dtype(c, 1);
  const std::string& begin = c.inputs[1];
  const std::string input_rank = rank_tensor(c, c.inputs[0], c.input_info[0]);
  const std::string slice_size = shape_tensor(c, c.outputs[0], c.output_info[0], index);
  const std::string shape = stack(c, {input_rank, int_const(c, "stack/1", DType::Int32, {1}, true)});
  auto reshape = [&](const std::string& x) {
    return c.b.add("Reshape", "Reshape", {x, shape}, {{"T", AttrValue(index)}, {"Tshape", AttrValue(DType::Int32)}});
  };
  const std::string before_pad = reshape(begin);
  const std::string x_shape = shape_tensor(c, c.inputs[0], c.input_info[0], index);
  const std::string after = c.b.binary("Sub", c.b.binary("Sub", x_shape, slice_size, index), begin, index);
  const std::string after_pad = reshape(after);
  const std::string paddings =
      c.b.add("ConcatV2", "concat", {before_pad, after_pad, int_const(c, "concat/axis", DType::Int32, {1}, true)},
              {{"T", AttrValue(index)}, {"N", AttrValue(int64_t{2})}, {"Tidx", AttrValue(DType::Int32)}});
  return {c.b.add("Pad", "Pad", {c.grads[0], paddings}, {{"T", AttrValue(c.dtype)}, {"Tpaddings", AttrValue(index)}}),
          "", ""};
}

// _PadGrad: Slice(grad, paddings[:, 0], shape(x)).
Grads pad_grad(GradContext& c) {
  const DType index = input_dtype(c, 1);
  const std::string size = stack(c, {rank_tensor(c, c.inputs[0], c.input_info[0]),
                                     int_const(c, "stack/1", DType::Int32, {1}, true)});
  const std::string pad_before = c.b.add("Slice", "Slice", {c.inputs[1], int_const(c, "Slice/begin", DType::Int32, {0, 0}), size},
                                         {{"T", AttrValue(index)}, {"Index", AttrValue(DType::Int32)}});
  const std::string begin = c.b.add("Reshape", "Reshape", {pad_before, int_const(c, "Reshape/shape", DType::Int32, {-1})},
                                    {{"T", AttrValue(index)}, {"Tshape", AttrValue(DType::Int32)}});
  const std::string sizes = shape_tensor(c, c.inputs[0], c.input_info[0], index);
  Grads out{c.b.add("Slice", "Slice", {c.grads[0], begin, sizes}, {{"T", AttrValue(c.dtype)}, {"Index", AttrValue(index)}}),
            ""};
  if (c.inputs.size() == 3) out.push_back("");
  return out;
}

// MirrorPad and MirrorPadGrad undo each other's shape change.
template <bool kForward>
Grads mirror_pad_grad(GradContext& c) {
  const char* op = kForward ? "MirrorPadGrad" : "MirrorPad";
  return {c.b.add(op, op, {c.grads[0], c.inputs[1]},
                  {{"T", AttrValue(c.dtype)},
                   {"Tpaddings", AttrValue(input_dtype(c, 1))},
                   {"mode", AttrValue(c.node.attr_string("mode", "REFLECT"))}}),
          ""};
}

}  // namespace

void add_slice_gradients(GradTable& t) {
  t.insert(t.end(), {{"StridedSlice", strided_slice_grad},
                     {"StridedSliceGrad", strided_slice_grad_grad},
                     {"Slice", slice_grad},
                     {"Pad", pad_grad},
                     {"PadV2", pad_grad},
                     {"MirrorPad", mirror_pad_grad<true>},
                     {"MirrorPadGrad", mirror_pad_grad<false>}});
}

}  // namespace flowlens::grad
