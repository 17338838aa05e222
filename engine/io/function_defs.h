#pragma once
// A graph's FunctionDefLibrary (Graph::library_bytes) decoded into plain
// data: each FunctionDef's signature (its OpDef: input and output args,
// attrs), body nodes as written (inputs "node:out_arg:index", attr
// placeholders), `ret` and `control_ret` maps and per-argument attrs. The
// exec layer instantiates these into runnable graphs (exec/function_library.h).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/node.h"

namespace flowlens {

// One OpDef.ArgDef of a function signature.
struct FunctionArgDef {
  std::string name;
  DType type = DType::Invalid;  // fixed type, or Invalid when an attr gives it
  std::string type_attr;
  std::string number_attr;
  std::string type_list_attr;
  bool is_ref = false;
};

struct FunctionAttrDef {
  std::string name;
  std::string type;  // "type", "int", "list(type)" ...
  bool has_default = false;
  AttrValue default_value;
};

struct FunctionDefinition {
  std::string name;
  std::vector<FunctionArgDef> inputs;
  std::vector<FunctionArgDef> outputs;
  std::vector<FunctionAttrDef> attrs;
  std::vector<std::string> control_outputs;
  bool is_stateful = false;
  AttrMap function_attrs;                  // FunctionDef.attr (_noinline ...)
  std::map<uint32_t, AttrMap> arg_attrs;   // by input index (_output_shapes, _handle_dtypes ...)
  std::vector<Node> nodes;                 // node_def, as written
  std::map<std::string, std::string> ret;          // output arg name -> "node:out_arg:index"
  std::map<std::string, std::string> control_ret;  // control output name -> node name
};

struct FunctionLibraryDefinition {
  std::map<std::string, FunctionDefinition> functions;
  // GradientDef: function name -> its gradient function's name.
  std::map<std::string, std::string> gradients;
};

// Decodes serialized FunctionDefLibrary bytes (empty: an empty library).
// Throws Error naming the function (and node) for bytes that do not parse,
// a duplicate function name, or an attr value the Graph cannot represent.
FunctionLibraryDefinition decode_function_library(const std::string& library_bytes);

}  // namespace flowlens
