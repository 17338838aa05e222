#pragma once
// GraphDef (protobuf) <-> flowlens::Graph. Internal to engine/io.
#include <functional>
#include <string>
#include <utility>

#include "graph/graph.h"
#include "io/graph.pb.h"

namespace flowlens::io_detail {

// Where node `index` starts in the source, as 1-based {line, column}; {0, 0}
// when unknown (binary input). Used to place semantic errors.
using NodeLocator = std::function<std::pair<int, int>(int index)>;

// Converts a parsed GraphDef and runs the checks the protobuf parser cannot
// express (tensor byte counts, dtype values, shape dims). Throws ParseError
// naming `source`, the node and the attr.
Graph graph_from_proto(const proto::GraphDef& def, const std::string& source, const NodeLocator& locate = {});
// Throws Error if graph.library_bytes is not a serialized FunctionDefLibrary.
void graph_to_proto(const Graph& graph, proto::GraphDef* def);

// Throws Error (without location) on values the Graph cannot represent.
AttrValue attr_from_proto(const proto::AttrValue& p);
void attr_to_proto(const AttrValue& v, proto::AttrValue* p);

// Serializes with sorted map entries so equal graphs give equal bytes.
std::string serialize_deterministic(const google::protobuf::MessageLite& message);

}  // namespace flowlens::io_detail
