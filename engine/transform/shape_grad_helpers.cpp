#include "transform/shape_grad_helpers.h"

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_registry.h"

namespace flowlens::grad {

AttrReader attrs_of(const GradContext& c) { return AttrReader(c.node, OpRegistry::global().find(c.node.op)); }

std::string index_vector(GradContext& c, const std::vector<int64_t>& values, DType t) {
  return int_const(c, "Const", t, values);
}

std::string index_scalar(GradContext& c, int64_t value, DType t) { return int_const(c, "Const", t, {value}, true); }

std::string real_scalar(GradContext& c, DType t, double value) {
  Tensor v(t, Shape{});
  ops::dispatch<ops::RealTypes>(t, "gradient constant", [&](auto tag) {
    using T = decltype(tag);
    v.data<T>()[0] = static_cast<T>(value);
  });
  return c.b.constant("Const", std::move(v));
}

namespace {

DType known_dtype(const GradContext& c, const TensorInfo& info) {
  return info.dtype != DType::Invalid ? dtype_base(info.dtype) : c.dtype;
}

}  // namespace

std::string size_tensor(GradContext& c, const std::string& x, const TensorInfo& info) {
  if (info.shape.fully_defined()) return index_scalar(c, info.shape.num_elements());
  return c.b.add("Size", "Size", {x},
                 {{"T", AttrValue(known_dtype(c, info))}, {"out_type", AttrValue(DType::Int32)}});
}

std::string pack_ints(GradContext& c, const std::string& base, std::vector<std::string> xs, DType t) {
  const auto n = static_cast<int64_t>(xs.size());
  return c.b.add("Pack", base, std::move(xs),
                 {{"N", AttrValue(n)}, {"T", AttrValue(t)}, {"axis", AttrValue(int64_t{0})}});
}

std::string concat_ints(GradContext& c, std::vector<std::string> xs) {
  const auto n = static_cast<int64_t>(xs.size());
  xs.push_back(index_scalar(c, 0));
  return c.b.add("ConcatV2", "concat", std::move(xs),
                 {{"N", AttrValue(n)}, {"T", AttrValue(DType::Int32)}, {"Tidx", AttrValue(DType::Int32)}});
}

std::string range_from(GradContext& c, int64_t start, const std::string& limit, int64_t delta, DType t) {
  return c.b.add("Range", "range", {index_scalar(c, start, t), limit, index_scalar(c, delta, t)},
                 {{"Tidx", AttrValue(t)}});
}

std::string reduced_shape(GradContext& c, const std::string& input_shape, const TensorInfo& x_info,
                          const std::string& axes, const TensorInfo& axes_info) {
  const Tensor* shape_value = constant_value(c, input_shape);
  const Tensor* axes_value = constant_value(c, axes);
  if (shape_value && axes_value) {  // folded in Python: input_shape[axes] = 1
    std::vector<int64_t> dims = ops::read_ints("reduced_shape", "input_shape", *shape_value);
    const int rank = static_cast<int>(dims.size());
    for (int64_t a : ops::read_ints("reduced_shape", "axes", *axes_value))
      dims[static_cast<size_t>(ops::normalize_axis("reduced_shape", a, rank))] = 1;
    return index_vector(c, dims);
  }
  const DType axes_type = axes_info.dtype == DType::Invalid ? DType::Int32 : dtype_base(axes_info.dtype);
  const std::string axes32 = axes_type == DType::Int32 ? axes : c.b.cast(axes, axes_type, DType::Int32);
  // Size of the 1-D input_shape: its length is x's rank when that is known.
  const TensorInfo shape_info{DType::Int32, x_info.shape.rank_known() ? Shape{x_info.shape.rank()} : ops::unknown_shape(1)};
  const std::string rank = size_tensor(c, input_shape, shape_info);
  const AttrMap int32_attrs{{"T", AttrValue(DType::Int32)}};
  const std::string sum = c.b.add("AddV2", "add", {axes32, rank}, int32_attrs);
  const std::string wrapped = c.b.add("FloorMod", "mod", {sum, rank}, int32_attrs);
  const std::string axes_shape = shape_tensor(c, wrapped, TensorInfo{DType::Int32, axes_info.shape});
  const std::string ones = c.b.add("Fill", "Fill", {axes_shape, index_scalar(c, 1)},
                                   {{"T", AttrValue(DType::Int32)}, {"index_type", AttrValue(DType::Int32)}});
  return c.b.add("DynamicStitch", "DynamicStitch", {range_from(c, 0, rank, 1), wrapped, input_shape, ones},
                 {{"N", AttrValue(int64_t{2})}, {"T", AttrValue(DType::Int32)}});
}

}  // namespace flowlens::grad
