#include "io/function_defs.h"

#include "io/graph.pb.h"
#include "io/tensor_proto.h"
#include "io/graphdef_convert.h"

namespace flowlens {
namespace {

FunctionArgDef arg_from_proto(const proto::OpDef::ArgDef& p) {
  FunctionArgDef a;
  a.name = p.name();
  if (p.type() != 0) {
    if (!io_detail::is_known_dtype_value(p.type()))
      throw Error("argument '" + p.name() + "': type " + std::to_string(p.type()) + " is not a DataType value");
    a.type = static_cast<DType>(p.type());
  }
  a.type_attr = p.type_attr();
  a.number_attr = p.number_attr();
  a.type_list_attr = p.type_list_attr();
  a.is_ref = p.is_ref();
  return a;
}

FunctionDefinition function_from_proto(const proto::FunctionDef& p) {
  FunctionDefinition f;
  const proto::OpDef& sig = p.signature();
  f.name = sig.name();
  for (const auto& a : sig.input_arg()) f.inputs.push_back(arg_from_proto(a));
  for (const auto& a : sig.output_arg()) f.outputs.push_back(arg_from_proto(a));
  for (const auto& a : sig.attr()) {
    FunctionAttrDef d;
    d.name = a.name();
    d.type = a.type();
    d.has_default = a.has_default_value();
    if (d.has_default) {
      try {
        d.default_value = io_detail::attr_from_proto(a.default_value());
      } catch (const Error& e) {
        throw Error("attr '" + a.name() + "' default: " + e.what());
      }
    }
    f.attrs.push_back(std::move(d));
  }
  f.control_outputs.assign(sig.control_output().begin(), sig.control_output().end());
  f.is_stateful = sig.is_stateful();
  for (const auto& [key, value] : p.attr()) {
    try {
      f.function_attrs.emplace(key, io_detail::attr_from_proto(value));
    } catch (const Error& e) {
      throw Error("attr '" + key + "': " + e.what());
    }
  }
  for (const auto& [index, attrs] : p.arg_attr()) {
    AttrMap& out = f.arg_attrs[index];
    for (const auto& [key, value] : attrs.attr()) {
      try {
        out.emplace(key, io_detail::attr_from_proto(value));
      } catch (const Error& e) {
        throw Error("arg_attr " + std::to_string(index) + " '" + key + "': " + e.what());
      }
    }
  }
  f.nodes.reserve(static_cast<size_t>(p.node_def_size()));
  for (const auto& n : p.node_def()) f.nodes.push_back(io_detail::node_from_proto(n));
  f.ret.insert(p.ret().begin(), p.ret().end());
  f.control_ret.insert(p.control_ret().begin(), p.control_ret().end());
  return f;
}

}  // namespace

FunctionLibraryDefinition decode_function_library(const std::string& library_bytes) {
  FunctionLibraryDefinition lib;
  if (library_bytes.empty()) return lib;
  proto::FunctionDefLibrary p;
  if (!p.ParseFromString(library_bytes)) throw Error("the graph's function library does not parse");
  for (const auto& fp : p.function()) {
    FunctionDefinition f;
    try {
      f = function_from_proto(fp);
    } catch (const Error& e) {
      throw Error("function '" + fp.signature().name() + "': " + e.what());
    }
    const std::string name = f.name;
    if (name.empty()) throw Error("the graph's function library has a function without a name");
    if (!lib.functions.emplace(name, std::move(f)).second)
      throw Error("the graph's function library defines function '" + name + "' twice");
  }
  for (const auto& g : p.gradient()) lib.gradients[g.function_name()] = g.gradient_func();
  return lib;
}

}  // namespace flowlens
