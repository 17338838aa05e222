// ONNX ModelProto -> Graph. See onnx_import.h for the mapping rules.
#include "io/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "io/utf8.h"

namespace flowlens {
namespace {

using onnx::AttributeProto;
using onnx::TensorProto;

std::optional<DType> dtype_from_onnx(int t) {
  switch (t) {
    case TensorProto::FLOAT: return DType::Float;
    case TensorProto::UINT8: return DType::UInt8;
    case TensorProto::INT8: return DType::Int8;
    case TensorProto::UINT16: return DType::UInt16;
    case TensorProto::INT16: return DType::Int16;
    case TensorProto::INT32: return DType::Int32;
    case TensorProto::INT64: return DType::Int64;
    case TensorProto::STRING: return DType::String;
    case TensorProto::BOOL: return DType::Bool;
    case TensorProto::FLOAT16: return DType::Half;
    case TensorProto::DOUBLE: return DType::Double;
    case TensorProto::UINT32: return DType::UInt32;
    case TensorProto::UINT64: return DType::UInt64;
    case TensorProto::COMPLEX64: return DType::Complex64;
    case TensorProto::COMPLEX128: return DType::Complex128;
    case TensorProto::BFLOAT16: return DType::BFloat16;
    default: return std::nullopt;
  }
}

// The typed field an ONNX tensor of `dtype` keeps its values in, and how many
// values make one element (two for complex).
struct TypedField {
  const char* name;
  int64_t size;
  int64_t per_element;
};

TypedField typed_field(const TensorProto& p, DType dtype) {
  switch (dtype) {
    case DType::Float: return {"float_data", p.float_data_size(), 1};
    case DType::Complex64: return {"float_data", p.float_data_size(), 2};
    case DType::Double: return {"double_data", p.double_data_size(), 1};
    case DType::Complex128: return {"double_data", p.double_data_size(), 2};
    case DType::Int64: return {"int64_data", p.int64_data_size(), 1};
    case DType::UInt32:
    case DType::UInt64: return {"uint64_data", p.uint64_data_size(), 1};
    // Narrow integers, bool, FLOAT16/BFLOAT16 (as bit patterns) use int32_data.
    default: return {"int32_data", p.int32_data_size(), 1};
  }
}

// ONNX has no "repeat the last value" rule: the caller has checked that the
// field holds exactly `count` values.
template <class Out, class Field>
void copy_values(void* raw, int64_t count, const Field& field) {
  Out* out = static_cast<Out*>(raw);
  for (int64_t k = 0; k < count; ++k) out[k] = static_cast<Out>(field.Get(static_cast<int>(k)));
}

Tensor tensor_from_onnx(const TensorProto& p) {
  if (p.data_location() == TensorProto::EXTERNAL)
    throw Error("tensor data is stored in an external file, which is not supported");
  auto dtype = dtype_from_onnx(p.data_type());
  if (!dtype) throw Error("unsupported tensor data_type " + std::to_string(p.data_type()));
  // Every element is backed by bytes of the file, so the sizes are checked
  // before anything is allocated; the element count must not overflow either.
  constexpr int64_t kMaxElements = int64_t{1} << 40;
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (int64_t d : p.dims()) {
    if (d < 0) throw Error("tensor dim " + std::to_string(d) + " is negative");
    if (d != 0 && n > kMaxElements / d) throw Error("tensor dims hold more than 2^40 elements");
    n *= d;
    dims.push_back(d);
  }
  Shape shape(dims);
  if (*dtype == DType::String) {
    if (p.string_data_size() != n)
      throw Error("string_data has " + std::to_string(p.string_data_size()) + " values, expected " + std::to_string(n));
    return Tensor::from_strings(shape, {p.string_data().begin(), p.string_data().end()});
  }
  const uint64_t bytes = static_cast<uint64_t>(n) * dtype_size(*dtype);
  if (p.has_raw_data()) {
    if (p.raw_data().size() != bytes)
      throw Error("raw_data has " + std::to_string(p.raw_data().size()) + " bytes, expected " + std::to_string(bytes) +
                  " for " + dtype_name(*dtype) + " " + shape.to_string());
    Tensor t(*dtype, shape);
    if (bytes > 0) std::memcpy(t.raw_data(), p.raw_data().data(), bytes);
    return t;
  }
  const TypedField field = typed_field(p, *dtype);
  if (field.size != n * field.per_element)
    throw Error(std::string(field.name) + " has " + std::to_string(field.size) + " values, expected " +
                std::to_string(n * field.per_element) + " for " + dtype_name(*dtype) + " " + shape.to_string());
  Tensor t(*dtype, shape);
  void* raw = t.raw_data();
  const int64_t count = n * field.per_element;
  switch (*dtype) {
    case DType::Float:
    case DType::Complex64: copy_values<float>(raw, count, p.float_data()); break;
    case DType::Double:
    case DType::Complex128: copy_values<double>(raw, count, p.double_data()); break;
    case DType::Int64: copy_values<int64_t>(raw, count, p.int64_data()); break;
    case DType::UInt32: copy_values<uint32_t>(raw, count, p.uint64_data()); break;
    case DType::UInt64: copy_values<uint64_t>(raw, count, p.uint64_data()); break;
    case DType::Int32: copy_values<int32_t>(raw, count, p.int32_data()); break;
    case DType::Int16: copy_values<int16_t>(raw, count, p.int32_data()); break;
    case DType::Int8: copy_values<int8_t>(raw, count, p.int32_data()); break;
    case DType::UInt8: copy_values<uint8_t>(raw, count, p.int32_data()); break;
    case DType::Bool: copy_values<bool>(raw, count, p.int32_data()); break;
    // FLOAT16/BFLOAT16 carry their bit patterns in int32_data.
    default: copy_values<uint16_t>(raw, count, p.int32_data()); break;
  }
  return t;
}

std::string subgraph_text(const onnx::GraphProto& g) {
  return "<subgraph: " + std::to_string(g.node_size()) + " nodes>";
}

AttrValue attr_from_onnx(const AttributeProto& a) {
  int type = a.type();
  if (type == AttributeProto::UNDEFINED) {  // IR < 2 models leave it out
    if (a.has_f()) type = AttributeProto::FLOAT;
    else if (a.has_i()) type = AttributeProto::INT;
    else if (a.has_s()) type = AttributeProto::STRING;
    else if (a.has_t()) type = AttributeProto::TENSOR;
    else if (a.has_g()) type = AttributeProto::GRAPH;
    else if (a.floats_size()) type = AttributeProto::FLOATS;
    else if (a.ints_size()) type = AttributeProto::INTS;
    else if (a.strings_size()) type = AttributeProto::STRINGS;
    else if (a.tensors_size()) type = AttributeProto::TENSORS;
    else if (a.graphs_size()) type = AttributeProto::GRAPHS;
  }
  AttrList list;
  switch (type) {
    case AttributeProto::FLOAT: return AttrValue(a.f());
    case AttributeProto::INT: return AttrValue(static_cast<int64_t>(a.i()));
    case AttributeProto::STRING: return AttrValue(a.s());
    case AttributeProto::TENSOR: return AttrValue(tensor_from_onnx(a.t()));
    case AttributeProto::GRAPH: return AttrValue(subgraph_text(a.g()));
    case AttributeProto::SPARSE_TENSOR: return AttrValue("<sparse tensor>");
    case AttributeProto::TYPE_PROTO: return AttrValue("<type proto>");
    case AttributeProto::FLOATS: list.f.assign(a.floats().begin(), a.floats().end()); break;
    case AttributeProto::INTS: list.i.assign(a.ints().begin(), a.ints().end()); break;
    case AttributeProto::STRINGS: list.s.assign(a.strings().begin(), a.strings().end()); break;
    case AttributeProto::TENSORS:
      for (const TensorProto& t : a.tensors()) list.tensor.push_back(tensor_from_onnx(t));
      break;
    case AttributeProto::GRAPHS:
      for (const onnx::GraphProto& g : a.graphs()) list.s.push_back(subgraph_text(g));
      break;
    case AttributeProto::SPARSE_TENSORS: return AttrValue("<sparse tensors>");
    case AttributeProto::TYPE_PROTOS: return AttrValue("<type protos>");
    // UNDEFINED with no value field set, or a type number this ONNX does not
    // know (proto2 keeps those as unknown fields, leaving type() UNDEFINED).
    case AttributeProto::UNDEFINED: throw Error("has no value (type UNDEFINED or unknown, and no value field set)");
    default: throw Error("unsupported attribute type " + std::to_string(a.type()));
  }
  return AttrValue(std::move(list));
}

std::string sanitize(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (c == ':') c = '_';
  if (!out.empty() && out[0] == '^') out[0] = '_';
  return out;
}

class Importer {
 public:
  Importer(const onnx::ModelProto& model, const std::string& source) : model_(model), source_(source) {
    opset_ = 13;
    for (const auto& op : model.opset_import())
      if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = static_cast<int>(op.version());
  }

  Graph run() {
    const onnx::GraphProto& g = model_.graph();
    for (const auto& vi : g.value_info()) note_type(vi);
    for (const auto& vi : g.output()) note_type(vi);
    for (const TensorProto& init : g.initializer()) {
      Tensor t;
      try {
        t = tensor_from_onnx(init);
      } catch (const Error& e) {
        fail("initializer '" + init.name() + "': " + e.what());
      }
      require_utf8(init.name(), "initializer name");
      Node n{claim(sanitize(init.name()), "initializer"), "Const", {}, {}, {}};
      n.attrs["dtype"] = t.dtype();
      n.attrs["value"] = t;
      define(init.name(), n.name, "initializer");
      types_[init.name()] = t.dtype();
      ranks_[init.name()] = t.shape().rank();
      constants_[init.name()] = t;
      graph_.add_node(std::move(n));
    }
    for (const auto& in : g.input()) {
      if (constants_.count(in.name())) continue;  // IR < 4 lists initializers as inputs too
      note_type(in);
      require_utf8(in.name(), "graph input name");
      Node n{claim(sanitize(in.name()), "input"), "Placeholder", {}, {}, {}};
      n.attrs["dtype"] = DType::Variant;
      n.attrs["shape"] = Shape::unknown_rank();
      if (in.type().has_tensor_type()) {
        const auto& tt = in.type().tensor_type();
        n.attrs["dtype"] = dtype_from_onnx(tt.elem_type()).value_or(DType::Invalid);
        if (tt.has_shape()) {
          std::vector<int64_t> dims;
          for (const auto& d : tt.shape().dim()) dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
          n.attrs["shape"] = Shape(dims);
        }
      }
      define(in.name(), n.name, "graph input");
      graph_.add_node(std::move(n));
    }
    // Output Identities take the output value's name, so reserve those first.
    std::vector<std::pair<std::string, std::string>> outputs;  // value, node name
    for (const auto& out : g.output()) {
      require_utf8(out.name(), "graph output name");
      if (!values_.count(out.name())) outputs.emplace_back(out.name(), claim(sanitize(out.name()), "output"));
    }
    std::vector<std::string> names;
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& np = g.node(i);
      require_utf8(np.op_type(), "node " + std::to_string(i) + ": op_type");
      require_utf8(np.name(), "node " + std::to_string(i) + " (" + np.op_type() + "): name");
      names.push_back(claim(sanitize(np.name()), np.op_type() + "_" + std::to_string(i)));
      for (int k = 0; k < np.output_size(); ++k)
        if (!np.output(k).empty())
          define(np.output(k), k == 0 ? names.back() : names.back() + ":" + std::to_string(k),
                 "node " + std::to_string(i) + " (" + np.op_type() + ")");
    }
    for (int i = 0; i < g.node_size(); ++i) convert(i, g.node(i), names[static_cast<size_t>(i)]);
    for (const auto& [value, name] : outputs) {
      auto it = values_.find(value);
      if (it == values_.end())
        fail("graph output '" + value + "' is not produced by any node, initializer or graph input");
      Node n{name, "Identity", {it->second}, {}, {}};
      n.attrs["T"] = type_of(value);
      n.attrs["_onnx_output"] = true;
      graph_.add_node(std::move(n));
    }
    return std::move(graph_);
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw ParseError(source_, 0, 0, message); }

  // ONNX (proto2) does not check UTF-8, but these strings become GraphDef
  // string fields, which must hold UTF-8 to save as .pb and load again.
  void require_utf8(const std::string& text, const std::string& what) const {
    if (!io_detail::is_valid_utf8(text)) fail(what + " is not valid UTF-8");
  }

  std::string claim(const std::string& wanted, const std::string& fallback) {
    const std::string base = wanted.empty() ? sanitize(fallback) : wanted;
    std::string name = base;
    for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_.insert(name);
    return name;
  }

  void define(const std::string& value, const std::string& endpoint, const std::string& what) {
    require_utf8(value, what + ": value name");
    auto [it, fresh] = values_.emplace(value, endpoint);
    if (!fresh && !value.empty())
      fail(what + ": value '" + value + "' is already defined (ONNX values must have one producer)");
  }

  void note_type(const onnx::ValueInfoProto& vi) {
    if (!vi.type().has_tensor_type()) return;
    const auto& tt = vi.type().tensor_type();
    if (auto dt = dtype_from_onnx(tt.elem_type())) types_[vi.name()] = *dt;
    if (tt.has_shape()) ranks_[vi.name()] = tt.shape().dim_size();
  }

  DType type_of(const std::string& value) const {
    auto it = types_.find(value);
    return it == types_.end() ? DType::Float : it->second;
  }
  std::optional<int> rank_of(const std::string& value) const {
    auto it = ranks_.find(value);
    return it == ranks_.end() ? std::nullopt : std::optional<int>(it->second);
  }

  static const AttributeProto* find_attr(const onnx::NodeProto& np, const std::string& name) {
    for (const auto& a : np.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  static int64_t int_attr(const onnx::NodeProto& np, const std::string& name, int64_t fallback) {
    const AttributeProto* a = find_attr(np, name);
    return a ? a->i() : fallback;
  }
  static float float_attr(const onnx::NodeProto& np, const std::string& name, float fallback) {
    const AttributeProto* a = find_attr(np, name);
    return a ? a->f() : fallback;
  }

  // The FlowLens op an ONNX node maps to, or "" to keep it as onnx::<op_type>.
  std::string mapped_op(const onnx::NodeProto& np, const std::vector<std::string>& in, DType t) const {
    const std::string& op = np.op_type();
    if (!np.domain().empty() && np.domain() != "ai.onnx") return "";
    static const std::map<std::string, std::pair<std::string, size_t>> simple = {  // op, inputs
        {"Add", {"AddV2", 2}},     {"Sub", {"Sub", 2}},   {"Mul", {"Mul", 2}},          {"Relu", {"Relu", 1}},
        {"Sigmoid", {"Sigmoid", 1}}, {"Tanh", {"Tanh", 1}}, {"Identity", {"Identity", 1}}};
    if (auto it = simple.find(op); it != simple.end()) return in.size() == it->second.second ? it->second.first : "";
    if (op == "Div") return in.size() == 2 && dtype_is_floating(t) ? "RealDiv" : "";
    if (op == "MatMul" || op == "Gemm") {
      if (in.size() < 2) return "";
      for (size_t k = 0; k < 2; ++k)
        if (auto r = rank_of(in[k]); r && *r != 2) return "";
      if (op == "MatMul") return in.size() == 2 ? "MatMul" : "";
      const bool plain = float_attr(np, "alpha", 1.0f) == 1.0f && float_attr(np, "beta", 1.0f) == 1.0f;
      return plain && in.size() <= 3 ? "Gemm" : "";
    }
    if (op == "Softmax") {
      const int64_t axis = int_attr(np, "axis", opset_ >= 13 ? -1 : 1);
      auto r = in.size() == 1 ? rank_of(in[0]) : std::nullopt;
      return in.size() == 1 && (axis == -1 || (r && axis == *r - 1)) ? "Softmax" : "";
    }
    if (op == "Reshape") {
      // ONNX's 0 ("copy this dim") has no TensorFlow equivalent: map only a
      // constant shape without zeros (or with allowzero set).
      if (in.size() != 2 || !constants_.count(in[1])) return "";
      const Tensor& s = constants_.at(in[1]);
      if (s.dtype() != DType::Int64) return "";
      if (int_attr(np, "allowzero", 0) == 0)
        for (int64_t d : s.values<int64_t>())
          if (d == 0) return "";
      return "Reshape";
    }
    if (op == "Concat") return in.empty() || !find_attr(np, "axis") ? "" : "ConcatV2";
    return "";
  }

  void convert(int index, const onnx::NodeProto& np, const std::string& name) {
    const std::string where = "node " + std::to_string(index) + " (" + np.op_type() + ")";
    require_utf8(np.domain(), where + ": domain");
    std::vector<std::string> in_values, inputs;
    for (const std::string& v : np.input()) {
      if (v.empty()) continue;  // an omitted optional input
      auto it = values_.find(v);
      if (it == values_.end()) fail(where + ": input '" + v + "' is not produced by any node, initializer or graph input");
      in_values.push_back(v);
      inputs.push_back(it->second);
    }
    AttrMap attrs;
    for (const AttributeProto& a : np.attribute()) {
      require_utf8(a.name(), where + ": attribute name");
      try {
        attrs[a.name()] = attr_from_onnx(a);
      } catch (const Error& e) {
        fail(where + ": attribute '" + a.name() + "': " + e.what());
      }
    }
    if (!np.domain().empty() && np.domain() != "ai.onnx") attrs["_onnx_domain"] = np.domain();
    // The ONNX op as written (a mapped op's FlowLens name differs: Add is
    // AddV2): views title boxes by it, as Netron does.
    attrs[std::string(kOnnxOpTypeAttr)] = np.op_type();
    const DType t = in_values.empty() ? DType::Float : type_of(in_values[0]);
    const std::string op = mapped_op(np, in_values, t);
    if (op.empty()) {
      graph_.add_node(Node{name, "onnx::" + np.op_type(), inputs, {}, std::move(attrs)});
      return;
    }
    for (const std::string& out : np.output())
      if (!out.empty() && !types_.count(out)) types_[out] = t;
    if (op == "Gemm") {
      Node mm{in_values.size() == 3 ? claim(name + "/MatMul", "") : name, "MatMul", {inputs[0], inputs[1]}, {}, {}};
      mm.attrs["T"] = t;
      mm.attrs["transpose_a"] = int_attr(np, "transA", 0) != 0;
      mm.attrs["transpose_b"] = int_attr(np, "transB", 0) != 0;
      if (in_values.size() < 3) {
        for (auto& [k, v] : attrs) mm.attrs[k] = v;
        graph_.add_node(std::move(mm));
        return;
      }
      attrs["T"] = t;
      Node add{name, "AddV2", {mm.name, inputs[2]}, {}, std::move(attrs)};
      graph_.add_node(std::move(mm));
      graph_.add_node(std::move(add));
      return;
    }
    attrs["T"] = t;
    if (op == "Reshape") attrs["Tshape"] = DType::Int64;
    if (op == "ConcatV2") {
      Node axis{claim(name + "/axis", ""), "Const", {}, {}, {}};
      axis.attrs["dtype"] = DType::Int32;
      axis.attrs["value"] = Tensor::scalar<int32_t>(static_cast<int32_t>(int_attr(np, "axis", 0)));
      attrs["N"] = static_cast<int64_t>(inputs.size());
      attrs["Tidx"] = DType::Int32;
      inputs.push_back(axis.name);
      graph_.add_node(std::move(axis));
    }
    graph_.add_node(Node{name, op, std::move(inputs), {}, std::move(attrs)});
  }

  const onnx::ModelProto& model_;
  const std::string& source_;
  int opset_;
  Graph graph_;
  std::set<std::string> used_;
  std::unordered_map<std::string, std::string> values_;  // ONNX value -> "node" / "node:k"
  std::unordered_map<std::string, DType> types_;
  std::unordered_map<std::string, int> ranks_;
  std::unordered_map<std::string, Tensor> constants_;  // initializers by value name
};

}  // namespace

Graph parse_graph_onnx(std::string_view bytes, const std::string& source_name) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw ParseError(source_name, 0, 0, "not a valid ONNX model: larger than protobuf's 2 GiB limit");
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw ParseError(source_name, 0, 0,
                     "not a valid ONNX model: protobuf decoding failed (truncated or corrupt file?)");
  if (!model.has_graph())
    throw ParseError(source_name, 0, 0, "not a valid ONNX model: it has no graph (a different protobuf message?)");
  return Importer(model, source_name).run();
}

}  // namespace flowlens
