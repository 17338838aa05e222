#pragma once
// Shared by the libFuzzer targets. A parser may reject its input by throwing
// flowlens::Error (that is the contract, so the targets catch it); any other
// exception escapes and libFuzzer reports it, as it reports crashes, leaks and
// sanitizer findings. Round-trip checks abort through fuzz_require.
#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace flowlens::fuzz {

// protobuf logs every rejected string field to stderr; at thousands of inputs
// a second that is most of the run time, and none of it is a finding.
inline const bool kQuietProtobuf = (google::protobuf::SetLogHandler(nullptr), true);

inline std::string_view as_bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A property that must hold for every accepted input; a violation is a finding.
inline void fuzz_require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

}  // namespace flowlens::fuzz
