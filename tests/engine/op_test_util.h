#pragma once
// Helpers for op tests: run one op's CPU kernel or shape function outside any
// graph, straight from OpRegistry::global().
#include <QtTest/QtTest>

#include <cmath>
#include <string>
#include <vector>

#include "ops/framework/op_registry.h"
#include "tensor/float16.h"

namespace flowlens::testing {

inline Node make_node(const std::string& op, AttrMap attrs = {}, const std::string& name = "test_node") {
  Node n;
  n.name = name;
  n.op = op;
  n.attrs = std::move(attrs);
  return n;
}

inline const OpDef& op_def(const std::string& op) {
  const OpDef* def = OpRegistry::global().find(op);
  if (!def) throw Error("op '" + op + "' is not registered");
  return *def;
}

// Runs op's CPU kernel. refs[i] (if given and non-null) binds ref input i to a
// variable; its current value is passed as input i (inputs[i] may then be
// omitted by passing an empty Tensor). `own` is the node's own variable.
inline std::vector<Tensor> run_op(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
                                  std::vector<Variable*> refs = {}, Variable* own = nullptr) {
  const OpDef& def = op_def(op);
  Node node = make_node(op, std::move(attrs));
  KernelFn fn = def.kernel("CPU");
  if (!fn) throw Error("op '" + op + "' has no CPU kernel");
  refs.resize(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (refs[i]) inputs[i] = refs[i]->value;
  std::vector<Tensor> outputs(static_cast<size_t>(def.outputs_for(node)));
  KernelContext ctx(node, inputs, refs, outputs, own, nullptr, nullptr, &def);
  fn(ctx);
  return outputs;
}

inline Tensor run1(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs) {
  std::vector<Tensor> out = run_op(op, std::move(attrs), std::move(inputs));
  if (out.empty()) throw Error("op '" + op + "' produced no outputs");
  return out[0];
}

// Runs op's shape function; `constants[i]` (optional) is input i's constant value.
inline std::vector<TensorInfo> infer(const std::string& op, AttrMap attrs, std::vector<TensorInfo> inputs,
                                     std::vector<const Tensor*> constants = {}) {
  const OpDef& def = op_def(op);
  Node node = make_node(op, std::move(attrs));
  constants.resize(inputs.size(), nullptr);
  ShapeContext ctx(node, std::move(inputs), std::move(constants), def.outputs_for(node), &def);
  if (def.shape_fn) def.shape_fn(ctx);
  return ctx.outputs();
}

// ---- tensor construction and checks ------------------------------------------

inline Tensor F(Shape s, std::vector<float> v) { return Tensor::from_vector<float>(std::move(s), v); }
inline Tensor D(Shape s, std::vector<double> v) { return Tensor::from_vector<double>(std::move(s), v); }
inline Tensor I32(Shape s, std::vector<int32_t> v) { return Tensor::from_vector<int32_t>(std::move(s), v); }
inline Tensor I64(Shape s, std::vector<int64_t> v) { return Tensor::from_vector<int64_t>(std::move(s), v); }
inline Tensor B(Shape s, std::vector<bool> v) { return Tensor::from_vector<bool>(std::move(s), v); }
// Any numeric dtype from doubles (rounded the way a static_cast rounds; the
// 16-bit floats to nearest even, as TensorFlow converts them).
inline Tensor T(DType dtype, Shape s, const std::vector<double>& v) {
  Tensor t(dtype, std::move(s));
  if (static_cast<int64_t>(v.size()) != t.num_elements()) throw Error("T(): value count does not match the shape");
  auto fill = [&](auto* p) {
    using E = std::remove_pointer_t<decltype(p)>;
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<E>(v[i]);
  };
  switch (dtype) {
    case DType::Float: fill(t.data<float>()); break;
    case DType::Double: fill(t.data<double>()); break;
    case DType::Half: for (size_t i = 0; i < v.size(); ++i) t.data<float16>()[i] = float16(static_cast<float>(v[i])); break;
    case DType::BFloat16: for (size_t i = 0; i < v.size(); ++i) t.data<bfloat16>()[i] = bfloat16(static_cast<float>(v[i])); break;
    case DType::Int8: fill(t.data<int8_t>()); break;
    case DType::Int16: fill(t.data<int16_t>()); break;
    case DType::Int32: fill(t.data<int32_t>()); break;
    case DType::Int64: fill(t.data<int64_t>()); break;
    case DType::UInt8: fill(t.data<uint8_t>()); break;
    case DType::UInt16: fill(t.data<uint16_t>()); break;
    case DType::UInt32: fill(t.data<uint32_t>()); break;
    case DType::UInt64: fill(t.data<uint64_t>()); break;
    case DType::Bool: for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i] != 0; break;
    default: throw Error("T(): unsupported dtype " + dtype_name(dtype));
  }
  return t;
}
inline Tensor scalar_f(float v) { return Tensor::scalar<float>(v); }
inline Tensor scalar_i(int32_t v) { return Tensor::scalar<int32_t>(v); }

inline QString qshape(const Shape& s) { return QString::fromStdString(s.to_string()); }

// Values of any numeric tensor as doubles.
inline std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> out;
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    switch (t.dtype()) {
      case DType::Float: out.push_back(t.data<float>()[i]); break;
      case DType::Double: out.push_back(t.data<double>()[i]); break;
      case DType::Half: out.push_back(static_cast<float>(t.data<float16>()[i])); break;
      case DType::BFloat16: out.push_back(static_cast<float>(t.data<bfloat16>()[i])); break;
      case DType::Int8: out.push_back(t.data<int8_t>()[i]); break;
      case DType::Int16: out.push_back(t.data<int16_t>()[i]); break;
      case DType::Int32: out.push_back(t.data<int32_t>()[i]); break;
      case DType::Int64: out.push_back(static_cast<double>(t.data<int64_t>()[i])); break;
      case DType::UInt8: out.push_back(t.data<uint8_t>()[i]); break;
      case DType::UInt16: out.push_back(t.data<uint16_t>()[i]); break;
      case DType::UInt32: out.push_back(t.data<uint32_t>()[i]); break;
      case DType::UInt64: out.push_back(static_cast<double>(t.data<uint64_t>()[i])); break;
      case DType::Bool: out.push_back(t.data<bool>()[i] ? 1.0 : 0.0); break;
      default: throw Error("as_doubles: unsupported dtype " + dtype_name(t.dtype()));
    }
  }
  return out;
}

// Compares dtype, shape and values (absolute + relative tolerance).
inline bool tensor_near(const Tensor& t, DType dtype, const Shape& shape, const std::vector<double>& expected,
                        double tol = 1e-5) {
  if (!t.valid()) {
    qWarning("tensor is empty");
    return false;
  }
  if (t.dtype() != dtype) {
    qWarning("dtype %s, expected %s", dtype_name(t.dtype()).c_str(), dtype_name(dtype).c_str());
    return false;
  }
  if (!(t.shape() == shape)) {
    qWarning("shape %s, expected %s", t.shape().to_string().c_str(), shape.to_string().c_str());
    return false;
  }
  std::vector<double> got = as_doubles(t);
  if (got.size() != expected.size()) {
    qWarning("%zu values, expected %zu", got.size(), expected.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const double diff = std::fabs(got[i] - expected[i]);
    if (!(diff <= tol * (1.0 + std::fabs(expected[i])))) {
      qWarning("value %zu is %.9g, expected %.9g", i, got[i], expected[i]);
      return false;
    }
  }
  return true;
}

// Runs f and returns the flowlens::Error message, or "<no error>".
template <class Fn>
std::string error_of(Fn&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace flowlens::testing

// Checks that expr throws flowlens::Error whose message contains `phrase`.
#define EXPECT_ERROR(expr, phrase)                                                                  \
  do {                                                                                              \
    const std::string msg_ = ::flowlens::testing::error_of([&] { (void)(expr); });                  \
    if (msg_.find(phrase) == std::string::npos)                                                     \
      QFAIL(qPrintable(QString("expected an error containing \"%1\", got \"%2\"")                   \
                           .arg(QString::fromStdString(std::string(phrase)),                        \
                                QString::fromStdString(msg_))));                                    \
  } while (0)
