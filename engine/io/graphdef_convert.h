#pragma once
// GraphDef (protobuf) <-> flowlens::Graph. Internal to engine/io.
#include <string>

#include "graph/graph.h"
#include "io/graph.pb.h"

namespace flowlens::io_detail {

// Converts one NodeDef and runs the checks the protobuf parser cannot
// express (tensor byte counts, dtype values, shape dims). Throws Error naming
// the node and the attr, without location (the reader adds it).
Node node_from_proto(const proto::NodeDef& p);
// Copies a GraphDef's fields other than `node` (versions, version, library).
void graph_fields_from_proto(const proto::GraphDef& def, Graph* graph);
void node_to_proto(const Node& n, proto::NodeDef* p);
// The fields other than `node`, into a cleared `def`. Throws Error if
// graph.library_bytes is not a serialized FunctionDefLibrary.
void graph_fields_to_proto(const Graph& graph, proto::GraphDef* def);

// Throws Error (without location) on values the Graph cannot represent.
AttrValue attr_from_proto(const proto::AttrValue& p);
void attr_to_proto(const AttrValue& v, proto::AttrValue* p);

// Serializes with sorted map entries so equal graphs give equal bytes.
std::string serialize_deterministic(const google::protobuf::MessageLite& message);

}  // namespace flowlens::io_detail
