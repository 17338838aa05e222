#include "graph/attr_value.h"

#include <charconv>

namespace flowlens {
namespace {

std::string float_text(float f) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
  return ec == std::errc() ? std::string(buf, end) : "?";
}

template <class T, class F>
std::string join(const std::vector<T>& items, F&& fmt) {
  std::string s;
  for (size_t k = 0; k < items.size(); ++k) {
    if (k) s += ", ";
    s += fmt(items[k]);
  }
  return s;
}

std::string list_text(const AttrList& l) {
  if (!l.s.empty()) return "[" + join(l.s, [](const std::string& x) { return "\"" + x + "\""; }) + "]";
  if (!l.i.empty()) return "[" + join(l.i, [](int64_t x) { return std::to_string(x); }) + "]";
  if (!l.f.empty()) return "[" + join(l.f, float_text) + "]";
  if (!l.b.empty()) {
    std::string s = "[";
    for (size_t k = 0; k < l.b.size(); ++k) s += std::string(k ? ", " : "") + (l.b[k] ? "true" : "false");
    return s + "]";
  }
  if (!l.type.empty()) return "[" + join(l.type, dtype_name) + "]";
  if (!l.shape.empty()) return "[" + join(l.shape, [](const Shape& x) { return x.to_string(); }) + "]";
  if (!l.tensor.empty())
    return "[" + join(l.tensor, [](const Tensor& t) { return dtype_name(t.dtype()) + t.shape().to_string(); }) + "]";
  if (!l.func.empty()) return "[" + join(l.func, [](const FuncRef& f) { return f.name; }) + "]";
  return "[]";
}

}  // namespace

std::string AttrValue::kind_name() const {
  static const char* kNames[] = {"none", "string", "int", "float", "bool", "type",
                                 "shape", "tensor", "list", "func", "placeholder"};
  return kNames[value.index()];
}

std::string AttrValue::to_string() const {
  struct Visitor {
    std::string operator()(std::monostate) const { return "<none>"; }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(float f) const { return float_text(f); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(DType t) const { return dtype_name(t); }
    std::string operator()(const Shape& s) const { return s.to_string(); }
    std::string operator()(const Tensor& t) const {
      return t.valid() ? dtype_name(t.dtype()) + " tensor " + t.shape().to_string() : "<empty tensor>";
    }
    std::string operator()(const AttrList& l) const { return list_text(l); }
    std::string operator()(const std::shared_ptr<FuncRef>& f) const { return f ? f->name : "<null func>"; }
    std::string operator()(const AttrPlaceholder& p) const { return "$" + p.name; }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace flowlens
