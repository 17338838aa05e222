#pragma once
// Node attribute values, mirroring TensorFlow's AttrValue oneof: a scalar
// (string, int, float, bool, type, shape, tensor), a list of those, a function
// reference, or a placeholder naming a function attr.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace flowlens {

struct AttrValue;

// A function name plus its attrs (TensorFlow's NameAttrList).
struct FuncRef {
  std::string name;
  std::map<std::string, AttrValue> attrs;
};

struct AttrList {
  std::vector<std::string> s;
  std::vector<int64_t> i;
  std::vector<float> f;
  std::vector<bool> b;
  std::vector<DType> type;
  std::vector<Shape> shape;
  std::vector<Tensor> tensor;
  std::vector<FuncRef> func;
  bool empty() const {
    return s.empty() && i.empty() && f.empty() && b.empty() && type.empty() && shape.empty() &&
           tensor.empty() && func.empty();
  }
};

struct AttrPlaceholder {
  std::string name;
};

struct AttrValue {
  // std::string is the `s` field (bytes); FuncRef is held by pointer because it
  // contains AttrValues itself.
  using Value = std::variant<std::monostate, std::string, int64_t, float, bool, DType, Shape, Tensor,
                             AttrList, std::shared_ptr<FuncRef>, AttrPlaceholder>;
  Value value;

  AttrValue() = default;
  AttrValue(std::string v) : value(std::move(v)) {}
  AttrValue(const char* v) : value(std::string(v)) {}
  AttrValue(int64_t v) : value(v) {}
  AttrValue(int v) : value(static_cast<int64_t>(v)) {}
  AttrValue(float v) : value(v) {}
  AttrValue(bool v) : value(v) {}
  AttrValue(DType v) : value(v) {}
  AttrValue(Shape v) : value(std::move(v)) {}
  AttrValue(Tensor v) : value(std::move(v)) {}
  AttrValue(AttrList v) : value(std::move(v)) {}
  AttrValue(FuncRef v) : value(std::make_shared<FuncRef>(std::move(v))) {}
  AttrValue(AttrPlaceholder v) : value(std::move(v)) {}

  template <class T> bool is() const { return std::holds_alternative<T>(value); }
  template <class T> const T* get_if() const { return std::get_if<T>(&value); }
  // "string", "int", "float", "bool", "type", "shape", "tensor", "list", "func", "placeholder", "none"
  std::string kind_name() const;
  // Short human-readable form for `info`, tooltips and error messages.
  std::string to_string() const;
};

using AttrMap = std::map<std::string, AttrValue>;

}  // namespace flowlens
