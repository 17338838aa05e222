// NumPy .npy files as flowlens-run run --feed reads them; an accepted array
// must serialize to a file that reads back to the same bytes.
#include <cstdint>

#include "common/error.h"
#include "fuzz_check.h"
#include "tensor/npy.h"

using namespace flowlens;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Tensor tensor;
  try {
    tensor = parse_npy(fuzz::as_bytes(data, size), "fuzz.npy");
  } catch (const Error&) {
    return 0;
  }
  std::string bytes;
  try {
    bytes = serialize_npy(tensor);
  } catch (const Error&) {
    return 0;  // a dtype numpy cannot store (none is read from .npy today)
  }
  fuzz::fuzz_require(serialize_npy(parse_npy(bytes, "again.npy")) == bytes,
                     ".npy written from an accepted array reads back differently");
  return 0;
}
