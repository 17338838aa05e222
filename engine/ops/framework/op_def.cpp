#include "ops/framework/op_def.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include <google/protobuf/text_format.h>

#include "common/error.h"
#include "common/trim.h"
#include "graph/name_list.h"
#include "io/tensor_proto.h"
#include "ops/framework/attr_reader.h"

namespace flowlens {
namespace {

// Attr-sized argument lists (N, num_split, num) beyond this are refused before
// anything is sized from them.
constexpr int64_t kMaxArgListSize = 1 << 20;

[[noreturn]] void bad_spec(const std::string& op, std::string_view spec, const std::string& why) {
  throw Error("op " + op + ": bad spec '" + std::string(spec) + "': " + why);
}

// A dtype as REGISTER_OP spells it: "float", "int32", "DT_INT32", "resource" ...
std::optional<DType> spec_dtype(std::string_view s) {
  if (s == "float") return DType::Float;
  if (s == "half") return DType::Half;
  return dtype_from_name(s);
}

std::optional<AttrKind> scalar_kind(std::string_view s) {
  if (s == "string") return AttrKind::String;
  if (s == "int") return AttrKind::Int;
  if (s == "float") return AttrKind::Float;
  if (s == "bool") return AttrKind::Bool;
  if (s == "type") return AttrKind::Type;
  if (s == "shape") return AttrKind::Shape;
  if (s == "tensor") return AttrKind::Tensor;
  if (s == "func") return AttrKind::Func;
  return std::nullopt;
}

AttrKind list_of(AttrKind k) {
  switch (k) {
    case AttrKind::String: return AttrKind::ListString;
    case AttrKind::Int: return AttrKind::ListInt;
    case AttrKind::Float: return AttrKind::ListFloat;
    case AttrKind::Bool: return AttrKind::ListBool;
    case AttrKind::Type: return AttrKind::ListType;
    case AttrKind::Shape: return AttrKind::ListShape;
    case AttrKind::Tensor: return AttrKind::ListTensor;
    default: return AttrKind::ListFunc;
  }
}

bool is_list(AttrKind k) { return k >= AttrKind::ListString; }

std::string unquote(const std::string& op, std::string_view spec, std::string_view s) {
  if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front())
    bad_spec(op, spec, "expected a quoted string, got " + std::string(s));
  return std::string(s.substr(1, s.size() - 2));
}

int64_t parse_int(const std::string& op, std::string_view spec, std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) bad_spec(op, spec, "expected an integer, got " + std::string(s));
  return v;
}

float parse_float(const std::string& op, std::string_view spec, std::string_view s) {
  std::string text(s);
  char* end = nullptr;
  float v = std::strtof(text.c_str(), &end);
  if (end != text.c_str() + text.size()) bad_spec(op, spec, "expected a float, got " + text);
  return v;
}

AttrValue parse_default(const std::string& op, std::string_view spec, AttrKind kind, std::string_view s) {
  auto scalar = [&](AttrKind k, std::string_view v) -> AttrValue {
    switch (k) {
      case AttrKind::String: return AttrValue(unquote(op, spec, v));
      case AttrKind::Int: return AttrValue(parse_int(op, spec, v));
      case AttrKind::Float: return AttrValue(parse_float(op, spec, v));
      case AttrKind::Bool:
        if (v == "true") return AttrValue(true);
        if (v == "false") return AttrValue(false);
        bad_spec(op, spec, "expected true or false");
      case AttrKind::Type:
        if (auto t = spec_dtype(v)) return AttrValue(*t);
        bad_spec(op, spec, "unknown type " + std::string(v));
      case AttrKind::Shape:
        if (v == "{ unknown_rank: true }" || v == "{unknown_rank: true}") return AttrValue(Shape::unknown_rank());
        if (v == "[]" || v == "{}") return AttrValue(Shape{});
        bad_spec(op, spec, "unsupported shape default");
      case AttrKind::Tensor: {  // a TensorProto in text format: "{ dtype: DT_UINT8 ... }"
        proto::TensorProto p;
        if (v.size() < 2 || v.front() != '{' || v.back() != '}' ||
            !google::protobuf::TextFormat::ParseFromString(std::string(v.substr(1, v.size() - 2)), &p))
          bad_spec(op, spec, "expected a TensorProto in text format");
        return AttrValue(io_detail::tensor_from_proto(p));
      }
      default: bad_spec(op, spec, "no default possible for this kind");
    }
  };
  if (!is_list(kind)) return scalar(kind, s);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') bad_spec(op, spec, "expected a [list] default");
  AttrList list;
  for (std::string_view item : split_name_list(s.substr(1, s.size() - 2))) {
    switch (kind) {
      case AttrKind::ListString: list.s.push_back(unquote(op, spec, item)); break;
      case AttrKind::ListInt: list.i.push_back(parse_int(op, spec, item)); break;
      case AttrKind::ListFloat: list.f.push_back(parse_float(op, spec, item)); break;
      case AttrKind::ListBool: list.b.push_back(item == "true"); break;
      case AttrKind::ListType: list.type.push_back(*scalar(AttrKind::Type, item).get_if<DType>()); break;
      default: bad_spec(op, spec, "unsupported list default");
    }
  }
  return AttrValue(std::move(list));
}

// Inputs and outputs name a dtype or an attr; which one is known only once
// every attr is declared, so the name waits in type_attr until build().
ArgDef parse_arg(const std::string& op, std::string_view spec, std::string* type_name) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) bad_spec(op, spec, "expected 'name: type'");
  ArgDef a;
  a.name = std::string(trimmed(spec.substr(0, colon)));
  std::string_view t = trimmed(spec.substr(colon + 1));
  if (t.starts_with("Ref(") && t.ends_with(")")) {
    a.is_ref = true;
    t = trimmed(t.substr(4, t.size() - 5));
  }
  if (const size_t star = t.find('*'); star != std::string_view::npos) {
    a.number_attr = std::string(trimmed(t.substr(0, star)));
    t = trimmed(t.substr(star + 1));
  }
  *type_name = std::string(t);
  return a;
}

int data_input_count(const Node& node) {
  int n = 0;
  for (const std::string& s : node.inputs)
    if (s.empty() || s.front() != '^') ++n;
  return n;
}

// The number of tensors in `arg` for this node: 1 for a single tensor, the
// attr's value for a list, -1 when the node lacks the attr.
int64_t arg_size(const OpDef& def, const ArgDef& arg, const Node& node);

// A number attr the node leaves out, told from the one input list it sizes
// (ConcatOffset's N from its shapes); -1 when no input list or several do.
int64_t inferred_number_attr(const OpDef& def, const std::string& attr, const Node& node) {
  int64_t fixed = 0;
  int lists = 0;
  for (const ArgDef& a : def.inputs) {
    if (a.number_attr == attr) {
      ++lists;
      continue;
    }
    const std::string& size_attr = a.number_attr.empty() ? a.type_list_attr : a.number_attr;
    if (!size_attr.empty() && !def.attr_or_default(node, size_attr)) return -1;  // two unsized lists: ambiguous
    const int64_t s = arg_size(def, a, node);
    if (s < 0) return -1;
    fixed += s;
  }
  if (lists != 1) return -1;
  const int64_t n = data_input_count(node) - fixed;
  return n >= 0 ? n : -1;
}

int64_t arg_size(const OpDef& def, const ArgDef& arg, const Node& node) {
  if (!arg.number_attr.empty()) {
    const AttrValue* v = def.attr_or_default(node, arg.number_attr);
    if (!v) return inferred_number_attr(def, arg.number_attr, node);
    const int64_t* n = v->get_if<int64_t>();
    if (!n) throw Error("node '" + node.name + "' (" + node.op + "): attr '" + arg.number_attr + "' must be int, got " + v->kind_name());
    if (*n < 0 || *n > kMaxArgListSize)
      throw Error("node '" + node.name + "' (" + node.op + "): attr '" + arg.number_attr + "' is " + std::to_string(*n) +
                  ", expected 0 to " + std::to_string(kMaxArgListSize));
    return *n;
  }
  if (!arg.type_list_attr.empty()) {
    const AttrValue* v = def.attr_or_default(node, arg.type_list_attr);
    if (!v) return -1;
    const AttrList* l = v->get_if<AttrList>();
    return l ? static_cast<int64_t>(l->type.size()) : 0;
  }
  return 1;
}

const ArgDef* arg_at(const OpDef& def, const std::vector<ArgDef>& args, const Node& node, int i, int total) {
  if (i < 0) return nullptr;
  // Sizes of the args; an unknown list size takes what the fixed ones leave.
  std::vector<int64_t> sizes;
  int64_t known = 0;
  int unknown = -1;
  for (size_t k = 0; k < args.size(); ++k) {
    int64_t s = arg_size(def, args[k], node);
    sizes.push_back(s);
    if (s >= 0) known += s;
    else if (unknown < 0) unknown = static_cast<int>(k);
  }
  if (unknown >= 0) sizes[static_cast<size_t>(unknown)] = std::max<int64_t>(0, total - known);
  int64_t pos = i;
  for (size_t k = 0; k < args.size(); ++k) {
    if (pos < std::max<int64_t>(sizes[k], 0)) return &args[k];
    pos -= std::max<int64_t>(sizes[k], 0);
  }
  return nullptr;
}

}  // namespace

const char* attr_kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::String: return "string";
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::Bool: return "bool";
    case AttrKind::Type: return "type";
    case AttrKind::Shape: return "shape";
    case AttrKind::Tensor: return "tensor";
    case AttrKind::Func: return "func";
    case AttrKind::ListString: return "list(string)";
    case AttrKind::ListInt: return "list(int)";
    case AttrKind::ListFloat: return "list(float)";
    case AttrKind::ListBool: return "list(bool)";
    case AttrKind::ListType: return "list(type)";
    case AttrKind::ListShape: return "list(shape)";
    case AttrKind::ListTensor: return "list(tensor)";
    case AttrKind::ListFunc: return "list(func)";
  }
  return "?";
}

namespace {

std::string spec_dtype_name(DType t) {
  switch (t) {
    case DType::Float: return "float";
    case DType::Double: return "double";
    case DType::Half: return "half";
    default: return dtype_name(t);
  }
}

std::string default_text(const AttrValue& v) {
  if (const std::string* s = v.get_if<std::string>()) return "'" + *s + "'";
  if (const DType* t = v.get_if<DType>()) return dtype_tf_name(*t);
  if (const Shape* s = v.get_if<Shape>()) return s->rank_known() ? s->to_string() : "{ unknown_rank: true }";
  if (const bool* b = v.get_if<bool>()) return *b ? "true" : "false";
  return v.to_string();
}

}  // namespace

std::string spec_text(const ArgDef& arg) {
  std::string type = arg.type != DType::Invalid ? spec_dtype_name(arg.type)
                     : !arg.type_list_attr.empty() ? arg.type_list_attr
                                                   : arg.type_attr;
  if (!arg.number_attr.empty()) type = arg.number_attr + " * " + type;
  if (arg.is_ref) type = "Ref(" + type + ")";
  return arg.name + ": " + type;
}

std::string spec_text(const AttrDef& attr) {
  std::string kind = attr_kind_name(attr.kind);
  auto set = [](const auto& items, auto&& text) {
    std::string s = "{";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + text(items[i]);
    return s + "}";
  };
  if (!attr.allowed_types.empty()) {
    const std::string types = set(attr.allowed_types, spec_dtype_name);
    kind = attr.kind == AttrKind::ListType ? "list(" + types + ")" : types;
  } else if (!attr.allowed_strings.empty()) {
    kind = set(attr.allowed_strings, [](const std::string& x) { return "'" + x + "'"; });
  }
  std::string s = attr.name + ": " + kind;
  if (attr.minimum) s += " >= " + std::to_string(*attr.minimum);
  if (attr.default_value) s += " = " + default_text(*attr.default_value);
  return s;
}

const std::vector<std::string>& op_categories() {
  static const std::vector<std::string> categories = {"math",    "nn",      "array",  "state",   "training", "sparse",
                                                      "strings", "summary", "io",     "random",  "control",  "internal"};
  return categories;
}

const std::vector<DType>& tf_type_set(std::string_view name) {
  using D = DType;
  // tensorflow/core/framework/types.cc: RealNumberTypes, NumberTypes, QuantizedTypes.
  static const std::vector<DType> real = {D::Float, D::Double, D::Int32,  D::UInt8,  D::Int16,  D::Int8,
                                          D::Int64, D::BFloat16, D::UInt16, D::Half, D::UInt32, D::UInt64};
  static const std::vector<DType> number = {D::Float,  D::Double,   D::Int32,  D::UInt8,  D::Int16,  D::Int8,
                                            D::Complex64, D::Int64, D::QInt8, D::QUInt8, D::QInt32, D::BFloat16,
                                            D::QInt16, D::QUInt16, D::UInt16, D::Complex128, D::Half, D::UInt32,
                                            D::UInt64};
  static const std::vector<DType> quantized = {D::QInt8, D::QUInt8, D::QInt16, D::QUInt16, D::QInt32};
  static const std::vector<DType> none;
  if (name == "realnumbertype") return real;
  if (name == "numbertype") return number;
  if (name == "quantizedtype") return quantized;
  return none;
}

// ---- KernelDef / OpDef ------------------------------------------------------------

bool KernelDef::accepts(const Node& node) const {
  for (const auto& [attr, types] : type_constraints) {
    const AttrValue* v = node.find_attr(attr);
    const DType* t = v ? v->get_if<DType>() : nullptr;
    if (t && std::find(types.begin(), types.end(), dtype_base(*t)) == types.end()) return false;
  }
  return !supports || supports(node);
}

const AttrDef* OpDef::find_attr(std::string_view attr) const {
  for (const AttrDef& a : attrs)
    if (a.name == attr) return &a;
  return nullptr;
}

const AttrValue* OpDef::attr_or_default(const Node& node, std::string_view attr) const {
  if (const AttrValue* v = node.find_attr(attr)) return v;
  const AttrDef* a = find_attr(attr);
  return a && a->default_value ? &*a->default_value : nullptr;
}

int OpDef::min_inputs() const {
  int n = 0;
  for (const ArgDef& a : inputs) {
    if (!a.is_list()) {
      ++n;
      continue;
    }
    const AttrDef* size = find_attr(a.number_attr.empty() ? a.type_list_attr : a.number_attr);
    if (size && size->minimum) n += static_cast<int>(*size->minimum);
  }
  return n;
}

int OpDef::max_inputs() const {
  for (const ArgDef& a : inputs)
    if (a.is_list()) return -1;
  return static_cast<int>(inputs.size());
}

int OpDef::inputs_for(const Node& node) const {
  int64_t n = 0;
  for (const ArgDef& a : inputs) {
    const int64_t s = arg_size(*this, a, node);
    if (s < 0) return -1;
    n += s;
  }
  return n > kMaxArgListSize ? -1 : static_cast<int>(n);
}

int OpDef::outputs_for(const Node& node) const {
  int64_t n = 0;
  for (const ArgDef& a : outputs) {
    const int64_t s = arg_size(*this, a, node);
    if (s < 0)
      throw Error("node '" + node.name + "' (" + node.op + "): missing attr '" +
                  (a.number_attr.empty() ? a.type_list_attr : a.number_attr) + "' (the number of outputs)");
    n += s;
  }
  if (n > kMaxArgListSize)
    throw Error("node '" + node.name + "' (" + node.op + "): " + std::to_string(n) + " outputs, at most " +
                std::to_string(kMaxArgListSize) + " are supported");
  return static_cast<int>(n);
}

const ArgDef* OpDef::input_arg(const Node& node, int i) const {
  return arg_at(*this, inputs, node, i, data_input_count(node));
}

const ArgDef* OpDef::output_arg(const Node& node, int i) const {
  return arg_at(*this, outputs, node, i, 0);
}

bool OpDef::is_ref_input(int i) const {
  for (const ArgDef& a : inputs) {
    if (a.is_list()) return false;
    if (i-- == 0) return a.is_ref;
  }
  return false;
}

bool OpDef::is_ref_output(int i) const {
  for (const ArgDef& a : outputs) {
    if (a.is_list()) return false;
    if (i-- == 0) return a.is_ref;
  }
  return false;
}


KernelFn OpDef::kernel(std::string_view device_type) const {
  for (const KernelDef& k : kernels)
    if (k.device == device_type) return k.fn;
  return nullptr;
}

const KernelDef* OpDef::kernel_def_for(std::string_view device_type, const Node& node) const {
  for (const KernelDef& k : kernels)
    if (k.device == device_type && k.accepts(node)) return &k;
  return nullptr;
}

KernelFn OpDef::kernel_for(std::string_view device_type, const Node& node) const {
  const KernelDef* k = kernel_def_for(device_type, node);
  return k ? k->fn : nullptr;
}

// ---- OpBuilder --------------------------------------------------------------------

OpBuilder::OpBuilder(std::string name) { def_.name = std::move(name); }

OpBuilder& OpBuilder::input(std::string_view spec) {
  std::string type_name;
  def_.inputs.push_back(parse_arg(def_.name, spec, &type_name));
  def_.inputs.back().type_attr = type_name;  // resolved in build()
  return *this;
}

OpBuilder& OpBuilder::output(std::string_view spec) {
  std::string type_name;
  def_.outputs.push_back(parse_arg(def_.name, spec, &type_name));
  def_.outputs.back().type_attr = type_name;
  return *this;
}

OpBuilder& OpBuilder::attr(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) bad_spec(def_.name, spec, "expected 'name: kind'");
  AttrDef a;
  a.name = std::string(trimmed(spec.substr(0, colon)));
  std::string_view rest = trimmed(spec.substr(colon + 1));
  std::string_view deflt;
  // The default follows the first '=' outside quotes and braces.
  {
    bool quoted = false;
    int depth = 0;
    for (size_t i = 0; i < rest.size(); ++i) {
      const char c = rest[i];
      if (c == '\'') quoted = !quoted;
      if (quoted) continue;
      if (c == '{' || c == '(' || c == '[') ++depth;
      if (c == '}' || c == ')' || c == ']') --depth;
      if (c == '=' && depth == 0 && !(i > 0 && (rest[i - 1] == '>' || rest[i - 1] == '<'))) {
        deflt = trimmed(rest.substr(i + 1));
        rest = trimmed(rest.substr(0, i));
        break;
      }
    }
  }
  if (const size_t ge = rest.find(">="); ge != std::string_view::npos) {
    a.minimum = parse_int(def_.name, spec, trimmed(rest.substr(ge + 2)));
    rest = trimmed(rest.substr(0, ge));
  }
  bool list = false;
  if (rest.starts_with("list(") && rest.ends_with(")")) {
    list = true;
    rest = trimmed(rest.substr(5, rest.size() - 6));
  }
  if (rest.starts_with("{") && rest.ends_with("}")) {
    std::vector<std::string_view> items = split_name_list(rest.substr(1, rest.size() - 2));
    if (!items.empty() && (items.front().front() == '\'' || items.front().front() == '"')) {
      a.kind = AttrKind::String;
      for (std::string_view s : items) a.allowed_strings.push_back(unquote(def_.name, spec, s));
    } else {
      a.kind = AttrKind::Type;
      for (std::string_view s : items) {
        if (auto t = spec_dtype(s)) a.allowed_types.push_back(*t);
        else if (const auto& set = tf_type_set(s); !set.empty()) a.allowed_types.insert(a.allowed_types.end(), set.begin(), set.end());
        else bad_spec(def_.name, spec, "unknown type " + std::string(s));
      }
    }
  } else if (auto k = scalar_kind(rest)) {
    a.kind = *k;
  } else if (const auto& set = tf_type_set(rest); !set.empty()) {
    a.kind = AttrKind::Type;
    a.allowed_types = set;
  } else {
    bad_spec(def_.name, spec, "unknown attr kind " + std::string(rest));
  }
  if (list) a.kind = list_of(a.kind);
  if (!deflt.empty()) a.default_value = parse_default(def_.name, spec, a.kind, deflt);
  def_.attrs.push_back(std::move(a));
  return *this;
}

OpBuilder& OpBuilder::stateful() { def_.stateful = true; return *this; }
OpBuilder& OpBuilder::keeps_state() { def_.keeps_state = true; def_.stateful = true; return *this; }
OpBuilder& OpBuilder::moves_bytes_only() { def_.moves_bytes_only = true; return *this; }
OpBuilder& OpBuilder::reads_no_values() { def_.reads_no_values = true; return *this; }
OpBuilder& OpBuilder::shape(ShapeFn fn) { def_.shape_fn = fn; return *this; }

OpBuilder& OpBuilder::cpu(KernelFn fn, std::vector<DType> types, std::string type_attr) {
  KernelDef k;
  k.device = "CPU";
  k.fn = fn;
  if (!types.empty()) k.type_constraints.emplace_back(std::move(type_attr), std::move(types));
  def_.kernels.push_back(std::move(k));
  return *this;
}

OpBuilder& OpBuilder::kernel(KernelDef k) { def_.kernels.push_back(std::move(k)); return *this; }

OpBuilder& OpBuilder::not_differentiable(std::string why) {
  def_.gradient_kind = GradientKind::NotDifferentiable;
  def_.gradient_note = std::move(why);
  return *this;
}

OpBuilder& OpBuilder::no_gradient(std::string why) {
  def_.gradient_kind = GradientKind::None;
  def_.gradient_note = std::move(why);
  return *this;
}

OpBuilder& OpBuilder::no_gpu(std::string why) { def_.no_gpu_reason = std::move(why); return *this; }
OpBuilder& OpBuilder::no_kernel(std::string why) { def_.no_kernel_reason = std::move(why); return *this; }
OpBuilder& OpBuilder::category(std::string c) { def_.category = std::move(c); return *this; }
OpBuilder& OpBuilder::doc(std::string summary) { def_.summary = std::move(summary); return *this; }

OpDef OpBuilder::build() {
  auto resolve = [&](ArgDef& a) {
    const std::string name = a.type_attr;
    a.type_attr.clear();
    if (const AttrDef* attr = def_.find_attr(name)) {
      if (attr->kind == AttrKind::ListType) a.type_list_attr = name;
      else if (attr->kind == AttrKind::Type) a.type_attr = name;
      else bad_spec(def_.name, a.name + ": " + name, "attr '" + name + "' is not a type or list(type)");
    } else if (auto t = spec_dtype(name)) {
      a.type = *t;
    } else {
      bad_spec(def_.name, a.name + ": " + name, "no attr or type named '" + name + "'");
    }
    if (!a.number_attr.empty()) {
      const AttrDef* n = def_.find_attr(a.number_attr);
      if (!n || n->kind != AttrKind::Int) bad_spec(def_.name, a.name, "'" + a.number_attr + "' is not an int attr");
    }
  };
  for (ArgDef& a : def_.inputs) resolve(a);
  for (ArgDef& a : def_.outputs) resolve(a);
  for (const ArgDef& a : def_.inputs)
    for (AttrDef& attr : def_.attrs)
      if (attr.name == a.type_attr || attr.name == a.number_attr || attr.name == a.type_list_attr) attr.inferable = true;
  for (const KernelDef& k : def_.kernels)
    for (const auto& [attr, types] : k.type_constraints)
      if (!def_.find_attr(attr)) bad_spec(def_.name, attr, "kernel constraint names no attr");
  return std::move(def_);
}

}  // namespace flowlens

// ---- AttrReader ---------------------------------------------------------------------

namespace flowlens {

const AttrValue* AttrReader::find(std::string_view name) const {
  if (const AttrValue* v = node_.find_attr(name)) return v;
  return def_ ? def_->attr_or_default(node_, name) : nullptr;
}

const AttrValue& AttrReader::get(std::string_view name) const {
  const AttrValue* v = find(name);
  if (!v) throw Error("node '" + node_.name + "' (" + node_.op + "): missing attr '" + std::string(name) + "'");
  return *v;
}

void AttrReader::wrong_kind(std::string_view name, const AttrValue& v, const char* want) const {
  throw Error("node '" + node_.name + "' (" + node_.op + "): attr '" + std::string(name) + "' is " + v.kind_name() +
              ", expected " + want);
}

int64_t AttrReader::integer(std::string_view name) const {
  const AttrValue& v = get(name);
  if (const int64_t* p = v.get_if<int64_t>()) return *p;
  wrong_kind(name, v, "int");
}
float AttrReader::real(std::string_view name) const {
  const AttrValue& v = get(name);
  if (const float* p = v.get_if<float>()) return *p;
  wrong_kind(name, v, "float");
}
bool AttrReader::boolean(std::string_view name) const {
  const AttrValue& v = get(name);
  if (const bool* p = v.get_if<bool>()) return *p;
  wrong_kind(name, v, "bool");
}
DType AttrReader::type(std::string_view name) const {
  const AttrValue& v = get(name);
  if (const DType* p = v.get_if<DType>()) return dtype_base(*p);
  wrong_kind(name, v, "type");
}
DType AttrReader::type_or(std::string_view name, DType fallback) const {
  const AttrValue* v = find(name);
  if (!v) return fallback;
  if (const DType* p = v->get_if<DType>()) return dtype_base(*p);
  wrong_kind(name, *v, "type");
}
const std::string& AttrReader::string(std::string_view name) const {
  const AttrValue& v = get(name);
  if (const std::string* p = v.get_if<std::string>()) return *p;
  wrong_kind(name, v, "string");
}
const Shape& AttrReader::shape(std::string_view name) const {
  const AttrValue& v = get(name);
  if (const Shape* p = v.get_if<Shape>()) return *p;
  wrong_kind(name, v, "shape");
}
const AttrList& AttrReader::list(std::string_view name) const {
  static const AttrList empty;
  const AttrValue& v = get(name);
  if (const AttrList* p = v.get_if<AttrList>()) return *p;
  // An empty list arrives from GraphDef as an empty AttrValue.list, which the
  // reader may keep as "none".
  if (v.is<std::monostate>()) return empty;
  wrong_kind(name, v, "list");
}

}  // namespace flowlens
