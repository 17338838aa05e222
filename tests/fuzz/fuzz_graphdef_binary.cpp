// Binary GraphDef (.pb) as load_graph reads it. Accepted graphs must
// round-trip through our binary writer. Their text form leaves out fields
// unknown to this schema (an unknown-only library prints as "library { }"), so
// it must read back, and from then on print the same.
#include <cstdint>

#include "common/error.h"
#include "fuzz_check.h"
#include "io/graph_io.h"

using namespace flowlens;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Graph graph;
  try {
    graph = parse_graph_binary(fuzz::as_bytes(data, size), "fuzz.pb");
  } catch (const Error&) {
    return 0;
  }
  const std::string binary = graph_to_binary(graph);
  fuzz::fuzz_require(graph_to_binary(parse_graph_binary(binary, "again.pb")) == binary,
                     "binary GraphDef written from an accepted graph reads back differently");
  const std::string text = graph_to_text(parse_graph_text(graph_to_text(graph), "again.pbtxt"));
  fuzz::fuzz_require(graph_to_text(parse_graph_text(text, "again.pbtxt")) == text,
                     "text GraphDef written from an accepted graph reads back differently");
  graph_to_dot(graph);
  return 0;
}
