#pragma once
// GraphDef text and binary readers that hold one NodeDef at a time.
//
// Parsing a whole GraphDef into protobuf messages and then converting it
// keeps two copies of every node alive: for a 10^6-node file ~400 MB of
// messages beside the ~300 MB Graph. These readers split the file into its
// top-level fields first (cheaply: a NodeDef's bytes are length-prefixed in
// binary, brace-balanced in text), let protobuf parse each `node` field on
// its own, and convert it before the next is parsed; the other fields
// (versions, library, version) are parsed together at the end. Peak memory is
// then the input bytes plus the Graph. Internal to engine/io.
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace flowlens::io_detail {

// Throws ParseError naming `source`, with protobuf's line:column for syntax
// errors and the node's line:column for semantic ones.
Graph read_graphdef_text(std::string_view text, const std::string& source);
// Throws ParseError naming `source` and, for a bad node, its index and byte
// offset. Bytes holding only unknown fields are rejected.
Graph read_graphdef_binary(std::string_view bytes, const std::string& source);

}  // namespace flowlens::io_detail
