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
// then the input bytes plus the Graph. Text is parsed by several threads,
// each taking chunks of node fields in turn; big tensor_content strings (the
// bulk of a big text graph) skip protobuf's tokenizer. Internal to engine/io.
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace flowlens::io_detail {

// How the text reader splits its work; the defaults are what load_graph
// uses. Every setting gives the same Graph and the same first error.
struct TextReadOptions {
  // Threads parsing node fields: 0 means one per CPU (at most 8); text under
  // two chunks is parsed on the calling thread.
  int threads = 0;
  // Node fields are parsed in chunks of about this many bytes, each on one
  // thread, and joined in file order.
  std::size_t chunk_bytes = std::size_t{1} << 20;
  // String literals at least this long (quotes included) that hold a
  // TensorProto's tensor_content are decoded here instead of by protobuf's
  // tokenizer, when their escapes are the plain ones TensorFlow writes
  // (\ooo, \n, \r, \t, \", \', \\); 0 turns that off.
  std::size_t big_string_bytes = 4096;
};

// Throws ParseError naming `source`, with protobuf's line:column for syntax
// errors and the node's line:column for semantic ones. Node fields are parsed
// in parallel chunks; the error reported is the first in file order.
Graph read_graphdef_text(std::string_view text, const std::string& source, const TextReadOptions& options = {});
// Throws ParseError naming `source` and, for a bad node, its index and byte
// offset. Bytes holding only unknown fields are rejected.
Graph read_graphdef_binary(std::string_view bytes, const std::string& source);

}  // namespace flowlens::io_detail
