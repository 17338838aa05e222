// ONNX ModelProto import; an imported graph must be writable as a GraphDef
// that reads back unchanged.
#include <cstdint>

#include "common/error.h"
#include "fuzz_check.h"
#include "io/graph_io.h"
#include "io/onnx_import.h"

using namespace flowlens;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Graph graph;
  try {
    graph = parse_graph_onnx(fuzz::as_bytes(data, size), "fuzz.onnx");
  } catch (const Error&) {
    return 0;
  }
  const std::string binary = graph_to_binary(graph);
  fuzz::fuzz_require(graph_to_binary(parse_graph_binary(binary, "again.pb")) == binary,
                     "GraphDef written from an imported ONNX model reads back differently");
  return 0;
}
