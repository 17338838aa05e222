// GraphDef text (.pbtxt) as load_graph reads it. An accepted graph must also
// survive our own writers: its binary and text forms parse back to the same
// binary bytes.
#include <cstdint>

#include "common/error.h"
#include "fuzz_check.h"
#include "io/graph_io.h"

using namespace flowlens;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Graph graph;
  try {
    graph = parse_graph_text(fuzz::as_bytes(data, size), "fuzz.pbtxt");
  } catch (const Error&) {
    return 0;
  }
  const std::string binary = graph_to_binary(graph);
  fuzz::fuzz_require(graph_to_binary(parse_graph_binary(binary, "again.pb")) == binary,
                     "binary GraphDef written from an accepted text graph reads back differently");
  fuzz::fuzz_require(graph_to_binary(parse_graph_text(graph_to_text(graph), "again.pbtxt")) == binary,
                     "text GraphDef written from an accepted text graph reads back differently");
  return 0;
}
