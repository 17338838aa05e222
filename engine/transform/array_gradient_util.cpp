#include "transform/array_gradient_util.h"

#include "graph/node_class.h"

namespace flowlens::grad {

DType input_dtype(const GradContext& c, int i, DType fallback) {
  const DType t = dtype_base(c.input_info[static_cast<size_t>(i)].dtype);
  return t == DType::Invalid ? fallback : t;
}

std::string int_const(GradContext& c, const std::string& base, DType t, const std::vector<int64_t>& values,
                      bool scalar) {
  Tensor v(t, scalar ? Shape{} : Shape{static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == DType::Int64) v.data<int64_t>()[i] = values[i];
    else v.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
  return c.b.constant(base, std::move(v));
}

std::string shape_tensor(GradContext& c, const std::string& x, const TensorInfo& info, DType out_type) {
  if (info.shape.fully_defined()) return int_const(c, "Const", out_type, info.shape.dims());
  const DType t = info.dtype == DType::Invalid ? c.dtype : dtype_base(info.dtype);
  return c.b.add("Shape", "Shape", {x}, {{"T", AttrValue(t)}, {"out_type", AttrValue(out_type)}});
}

std::string rank_tensor(GradContext& c, const std::string& x, const TensorInfo& info) {
  if (info.shape.rank_known()) return int_const(c, "Const", DType::Int32, {info.shape.rank()}, true);
  const DType t = info.dtype == DType::Invalid ? c.dtype : dtype_base(info.dtype);
  return c.b.add("Rank", "Rank", {x}, {{"T", AttrValue(t)}});
}

const Tensor* constant_value(const GradContext& c, const std::string& tensor) {
  const auto id = TensorId::parse(tensor);
  if (!id || id->is_control() || id->index != 0) return nullptr;
  const Node* n = c.b.graph().find(id->node);
  if (!n || !is_constant(*n)) return nullptr;
  const AttrValue* v = n->find_attr("value");
  const Tensor* t = v ? v->get_if<Tensor>() : nullptr;
  return t && t->valid() ? t : nullptr;
}

std::string strided_slice(GradContext& c, const std::string& x, DType t, const std::string& begin,
                          const std::string& end, const std::string& strides, DType index, int64_t begin_mask,
                          int64_t end_mask, int64_t shrink_axis_mask) {
  return c.b.add("StridedSlice", "strided_slice", {x, begin, end, strides},
                 {{"T", AttrValue(t)},
                  {"Index", AttrValue(index)},
                  {"begin_mask", AttrValue(begin_mask)},
                  {"end_mask", AttrValue(end_mask)},
                  {"ellipsis_mask", AttrValue(int64_t{0})},
                  {"new_axis_mask", AttrValue(int64_t{0})},
                  {"shrink_axis_mask", AttrValue(shrink_axis_mask)}});
}

std::string element(GradContext& c, const std::string& x, DType t, int64_t i) {
  return strided_slice(c, x, t, int_const(c, "stack", DType::Int32, {i}), int_const(c, "stack_1", DType::Int32, {i + 1}),
                       int_const(c, "stack_2", DType::Int32, {1}), DType::Int32, 0, 0, 1);
}

}  // namespace flowlens::grad
