#pragma once
// Timing bounds of tests under sanitizers. The asan and tsan test presets set
// FLOWLENS_TEST_TIME_SCALE (instrumented code runs several times slower, and
// more so on a loaded 2-core machine); a test multiplies the waits and
// responsiveness bounds it asserts by it. What a test checks stays the same;
// only how long it may take changes. Unset (or < 1) means 1.
#include <chrono>
#include <cstdlib>

namespace flowlens::testing {

inline double time_scale() {
  const char* env = std::getenv("FLOWLENS_TEST_TIME_SCALE");
  const double scale = env ? std::atof(env) : 1.0;
  return scale >= 1.0 ? scale : 1.0;
}

inline int scaled_ms(int ms) { return static_cast<int>(ms * time_scale()); }

template <class Rep, class Period>
std::chrono::milliseconds scaled(std::chrono::duration<Rep, Period> d) {
  return std::chrono::milliseconds(
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count() * time_scale()));
}

}  // namespace flowlens::testing
