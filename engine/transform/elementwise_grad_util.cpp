#include "transform/elementwise_grad_util.h"

#include "ops/kernels/math/elementwise.h"

namespace flowlens::grad {
namespace {

std::string node_of(const std::string& tensor) {
  auto id = TensorId::parse(tensor);
  return id ? id->node : tensor;
}

std::string int32_const(GradContext& c, const std::string& base, const std::vector<int64_t>& values) {
  return c.b.int32_vector(base, std::vector<int32_t>(values.begin(), values.end()));
}

// _constant_if_small's limit: smaller fills become a Const holding the values.
constexpr int64_t kSmallConstant = 1000;

// Shape(x), Shape(y) (Consts where `optimize` and the shape is static, like
// array_ops.shape; always Shape nodes for shape_internal(optimize=False)),
// then BroadcastGradientArgs.
BroadcastReduction shapes_and_bcast_args(GradContext& c, bool optimize) {
  BroadcastReduction r;
  for (int i = 0; i < 2; ++i) {
    const TensorInfo& info = c.input_info[static_cast<size_t>(i)];
    const DType t = dtype_base(info.dtype) == DType::Invalid ? c.dtype : dtype_base(info.dtype);
    r.shape[i] = optimize ? shape_tensor(c, c.inputs[static_cast<size_t>(i)], info)
                          : c.b.shape(c.inputs[static_cast<size_t>(i)], t);
  }
  const std::string args = c.b.add("BroadcastGradientArgs", "BroadcastGradientArgs", {r.shape[0], r.shape[1]},
                                   {{"T", AttrValue(DType::Int32)}});
  r.axes[0] = tensor_name(args, 0);
  r.axes[1] = tensor_name(args, 1);
  return r;
}

std::string fill_like(GradContext& c, const std::string& t, const TensorInfo& info, double value) {
  const DType dtype = dtype_base(info.dtype);
  return fill(c, shape_tensor(c, t, info), dtype == DType::Invalid ? c.dtype : dtype, value);
}

}  // namespace

std::string shape_tensor(GradContext& c, const std::string& t, const TensorInfo& info) {
  if (info.shape.fully_defined()) return int32_const(c, "Shape", info.shape.dims());
  return c.b.shape(t, dtype_base(info.dtype) == DType::Invalid ? c.dtype : dtype_base(info.dtype));
}

std::string scalar_const(GradContext& c, const std::string& base, DType dtype, double value) {
  Tensor t(dtype, Shape{});
  ops::dispatch<ops::PodTypes>(dtype, "Const", [&](auto tag) {
    using T = decltype(tag);
    t.data<T>()[0] = static_cast<T>(value);
  });
  return c.b.constant(base, std::move(t));
}

std::string fill(GradContext& c, const std::string& shape, DType dtype, double value) {
  return c.b.add("Fill", "Fill", {shape, scalar_const(c, "Const", dtype, value)},
                 {{"T", AttrValue(dtype)}, {"index_type", AttrValue(DType::Int32)}});
}

std::string zeros_like(GradContext& c, const std::string& t, const TensorInfo& info) {
  const DType dtype = dtype_base(info.dtype) == DType::Invalid ? c.dtype : dtype_base(info.dtype);
  if (!info.shape.fully_defined()) return c.b.unary("ZerosLike", t, dtype);
  if (info.shape.num_elements() >= kSmallConstant) return fill_like(c, t, info, 0.0);
  Tensor zeros(dtype, info.shape);
  ops::dispatch<ops::PodTypes>(dtype, "Const", [&](auto tag) {
    using T = decltype(tag);
    T* p = zeros.data<T>();
    for (int64_t i = 0, n = zeros.num_elements(); i < n; ++i) p[i] = static_cast<T>(0);
  });
  return c.b.constant("zeros_like", std::move(zeros));
}

std::string ones_like(GradContext& c, const std::string& t, const TensorInfo& info) {
  return fill_like(c, t, info, 1.0);
}

bool shapes_fully_specified_and_equal(const GradContext& c) {
  const Shape& x = c.input_info[0].shape;
  return x.fully_defined() && x == c.input_info[1].shape && x == c.output_info[0].shape;
}

BroadcastReduction smart_broadcast_gradient_args(GradContext& c) {
  const Shape& sx = c.input_info[0].shape;
  const Shape& sy = c.input_info[1].shape;
  if (!sx.fully_defined() || !sy.fully_defined()) return shapes_and_bcast_args(c, false);
  BroadcastReduction r;
  auto axes = ops::bcast_reduce_indices(sx.dims(), sy.dims());
  if (!axes) throw Error("Incompatible shapes: " + sx.to_string() + " vs. " + sy.to_string());
  const Shape& grad = c.output_info[0].shape;
  r.must_reduce[0] = !(sx == grad) || !grad.fully_defined();
  r.must_reduce[1] = !(sy == grad) || !grad.fully_defined();
  const std::vector<int64_t>* reduce[2] = {&axes->first, &axes->second};
  const Shape* shapes[2] = {&sx, &sy};
  for (int i = 0; i < 2; ++i)
    if (r.must_reduce[i]) {
      r.axes[i] = int32_const(c, "Sum/reduction_indices", *reduce[i]);
      r.shape[i] = int32_const(c, "Reshape/shape", shapes[i]->dims());
    }
  return r;
}

BroadcastReduction broadcast_gradient_args(GradContext& c) { return shapes_and_bcast_args(c, true); }

std::string reduce_to_input(GradContext& c, const BroadcastReduction& r, int i, const std::string& g) {
  if (!r.must_reduce[i]) return g;
  return c.b.reshape(c.b.sum(g, r.axes[i], c.dtype), r.shape[i], c.dtype);
}

AfterGrad::AfterGrad(GradContext& c, const std::string& grad) : c_(c), grad_node_(node_of(grad)) {}

std::string AfterGrad::add(const std::string& op, std::vector<std::string> inputs) {
  bool reads_grad = false;
  for (const std::string& in : inputs) reads_grad = reads_grad || node_of(in) == grad_node_;
  std::vector<std::string> control;
  if (!reads_grad) control.push_back(grad_node_);
  return c_.b.add(op, op, std::move(inputs), {{"T", AttrValue(c_.dtype)}}, control);
}

std::string AfterGrad::scalar(double value) {
  Tensor t(c_.dtype, Shape{});
  ops::dispatch<ops::FloatTypes>(c_.dtype, "Const", [&](auto tag) {
    using T = decltype(tag);
    t.data<T>()[0] = static_cast<T>(value);
  });
  return c_.b.add("Const", "Const", {}, {{"value", AttrValue(std::move(t))}, {"dtype", AttrValue(c_.dtype)}},
                  {grad_node_});
}

}  // namespace flowlens::grad
