// SavedModels and MetaGraphDefs as the registry detects and load_saved_model /
// load_meta_graph parse them, binary or text. Accepted models must have each
// graph survive a GraphDef round trip.
#include <cstdint>

#include "common/error.h"
#include "fuzz_check.h"
#include "io/graph_io.h"
#include "io/meta_graph.h"

using namespace flowlens;

namespace {

void check_graph(const Graph& graph) {
  const std::string binary = graph_to_binary(graph);
  fuzz::fuzz_require(graph_to_binary(parse_graph_binary(binary, "again.pb")) == binary,
                     "a meta graph's GraphDef reads back differently");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes = fuzz::as_bytes(data, size);
  const bool text = !bytes.empty() && first_text_field(bytes) != "";
  looks_like_saved_model(bytes);
  looks_like_meta_graph(bytes);
  try {
    const SavedModel model = parse_saved_model(bytes, text, "fuzz/saved_model.pb");
    for (const MetaGraph& m : model.meta_graphs) check_graph(m.graph);
    model.default_meta_graph();
  } catch (const Error&) {
  }
  try {
    check_graph(parse_meta_graph(bytes, text, "fuzz.meta").graph);
  } catch (const Error&) {
  }
  return 0;
}
