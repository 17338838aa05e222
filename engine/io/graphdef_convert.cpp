#include "io/graphdef_convert.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "io/tensor_proto.h"

namespace flowlens::io_detail {
namespace {

DType dtype_from_proto(int value) {
  if (!is_known_dtype_value(value))
    throw Error("type " + std::to_string(value) + " is not a DataType value (expected DT_FLOAT, DT_INT32, ...)");
  return static_cast<DType>(value);
}

proto::DataType dtype_to_proto(DType t) { return static_cast<proto::DataType>(static_cast<int>(t)); }

// Map fields of both AttrValue and NameAttrList share this shape.
template <class ProtoMap>
std::map<std::string, AttrValue> attrs_from_proto(const ProtoMap& in) {
  std::map<std::string, AttrValue> out;
  for (const auto& [key, value] : in) {
    try {
      out.emplace(key, attr_from_proto(value));
    } catch (const Error& e) {
      // Nested function attrs: prefix the inner key so the path is visible.
      throw Error("'" + key + "': " + e.what());
    }
  }
  return out;
}

template <class ProtoMap>
void attrs_to_proto(const std::map<std::string, AttrValue>& in, ProtoMap* out) {
  for (const auto& [key, value] : in) attr_to_proto(value, &(*out)[key]);
}

FuncRef func_from_proto(const proto::NameAttrList& p) { return FuncRef{p.name(), attrs_from_proto(p.attr())}; }

void func_to_proto(const FuncRef& f, proto::NameAttrList* p) {
  p->set_name(f.name);
  attrs_to_proto(f.attrs, p->mutable_attr());
}

AttrList list_from_proto(const proto::AttrValue::ListValue& p) {
  AttrList l;
  l.s.assign(p.s().begin(), p.s().end());
  l.i.assign(p.i().begin(), p.i().end());
  l.f.assign(p.f().begin(), p.f().end());
  l.b.assign(p.b().begin(), p.b().end());
  for (int t : p.type()) l.type.push_back(dtype_from_proto(t));
  for (const auto& s : p.shape()) l.shape.push_back(shape_from_proto(s));
  for (int k = 0; k < p.tensor_size(); ++k) {
    try {
      l.tensor.push_back(tensor_from_proto(p.tensor(k)));
    } catch (const Error& e) {
      throw Error("list tensor " + std::to_string(k) + ": " + e.what());
    }
  }
  for (const auto& f : p.func()) l.func.push_back(func_from_proto(f));
  return l;
}

void list_to_proto(const AttrList& l, proto::AttrValue::ListValue* p) {
  for (const auto& s : l.s) p->add_s(s);
  for (int64_t i : l.i) p->add_i(i);
  for (float f : l.f) p->add_f(f);
  for (bool b : l.b) p->add_b(b);
  for (DType t : l.type) p->add_type(dtype_to_proto(t));
  for (const auto& s : l.shape) shape_to_proto(s, p->add_shape());
  for (const auto& t : l.tensor) tensor_to_proto(t, p->add_tensor());
  for (const auto& f : l.func) func_to_proto(f, p->add_func());
}

}  // namespace

Node node_from_proto(const proto::NodeDef& p) {
  Node n;
  n.name = p.name();
  n.op = p.op();
  n.inputs.assign(p.input().begin(), p.input().end());
  n.device = p.device();
  for (const auto& [key, value] : p.attr()) {
    try {
      n.attrs.emplace(key, attr_from_proto(value));
    } catch (const Error& e) {
      throw Error("node '" + n.name + "' (" + n.op + ") attr '" + key + "': " + e.what());
    }
  }
  return n;
}

void node_to_proto(const Node& n, proto::NodeDef* p) {
  p->set_name(n.name);
  p->set_op(n.op);
  for (const auto& in : n.inputs) p->add_input(in);
  p->set_device(n.device);
  attrs_to_proto(n.attrs, p->mutable_attr());
}

AttrValue attr_from_proto(const proto::AttrValue& p) {
  using P = proto::AttrValue;
  switch (p.value_case()) {
    case P::kS: return AttrValue(p.s());
    case P::kI: return AttrValue(static_cast<int64_t>(p.i()));
    case P::kF: return AttrValue(p.f());
    case P::kB: return AttrValue(p.b());
    case P::kType: return AttrValue(dtype_from_proto(p.type()));
    case P::kShape: return AttrValue(shape_from_proto(p.shape()));
    case P::kTensor: return AttrValue(tensor_from_proto(p.tensor()));
    case P::kList: return AttrValue(list_from_proto(p.list()));
    case P::kFunc: return AttrValue(func_from_proto(p.func()));
    case P::kPlaceholder: return AttrValue(AttrPlaceholder{p.placeholder()});
    case P::VALUE_NOT_SET: break;
  }
  return AttrValue();
}

void attr_to_proto(const AttrValue& v, proto::AttrValue* p) {
  struct Visitor {
    proto::AttrValue* p;
    void operator()(std::monostate) const { p->clear_value(); }
    void operator()(const std::string& s) const { p->set_s(s); }
    void operator()(int64_t i) const { p->set_i(i); }
    void operator()(float f) const { p->set_f(f); }
    void operator()(bool b) const { p->set_b(b); }
    void operator()(DType t) const { p->set_type(dtype_to_proto(t)); }
    void operator()(const Shape& s) const { shape_to_proto(s, p->mutable_shape()); }
    void operator()(const Tensor& t) const { tensor_to_proto(t, p->mutable_tensor()); }
    void operator()(const AttrList& l) const { list_to_proto(l, p->mutable_list()); }
    void operator()(const std::shared_ptr<FuncRef>& f) const {
      if (f) func_to_proto(*f, p->mutable_func());
      else p->mutable_func();
    }
    void operator()(const AttrPlaceholder& ph) const { p->set_placeholder(ph.name); }
  };
  std::visit(Visitor{p}, v.value);
}

void graph_fields_from_proto(const proto::GraphDef& def, Graph* graph) {
  if (def.has_versions()) {
    graph->versions.present = true;
    graph->versions.producer = def.versions().producer();
    graph->versions.min_consumer = def.versions().min_consumer();
    graph->versions.bad_consumers.assign(def.versions().bad_consumers().begin(),
                                         def.versions().bad_consumers().end());
  }
  graph->legacy_version = def.version();
  if (def.has_library()) {
    // Kept as bytes: functions are shown and passed through, not executed, and
    // the bytes re-emit everything (including fields we do not model).
    graph->library_bytes = serialize_deterministic(def.library());
    for (const auto& f : def.library().function()) graph->function_names.push_back(f.signature().name());
  }
}

void graph_fields_to_proto(const Graph& graph, proto::GraphDef* def) {
  def->Clear();
  if (graph.versions.present || graph.versions.producer || graph.versions.min_consumer ||
      !graph.versions.bad_consumers.empty()) {
    auto* v = def->mutable_versions();
    v->set_producer(graph.versions.producer);
    v->set_min_consumer(graph.versions.min_consumer);
    for (int b : graph.versions.bad_consumers) v->add_bad_consumers(b);
  }
  if (graph.legacy_version) def->set_version(graph.legacy_version);
  if (!graph.library_bytes.empty() && !def->mutable_library()->ParseFromString(graph.library_bytes))
    throw Error("graph library_bytes is not a serialized FunctionDefLibrary");
}

std::string serialize_deterministic(const google::protobuf::MessageLite& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }  // the coded stream flushes into `out` when destroyed
  return out;
}

}  // namespace flowlens::io_detail
