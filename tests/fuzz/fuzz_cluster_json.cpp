// Cluster specs (TF_CONFIG or a bare job dict) as flowlens-run place and
// flowlens-node read them; an accepted spec must print as JSON that parses
// back to an equal spec.
#include <cstdint>

#include "cluster/cluster_spec.h"
#include "common/error.h"
#include "fuzz_check.h"

using namespace flowlens;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ClusterSpec spec;
  try {
    spec = parse_cluster_spec(fuzz::as_bytes(data, size), "fuzz.json");
  } catch (const Error&) {
    return 0;
  }
  fuzz::fuzz_require(parse_cluster_spec(spec.to_json(), "again.json") == spec,
                     "to_json of an accepted cluster spec parses back to a different spec");
  return 0;
}
