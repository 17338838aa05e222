#pragma once
// Shared timing helpers for benchmarks: medians of interleaved repetitions,
// so a noisy machine slows baseline and candidate alike.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <vector>

namespace flowlens::bench {

inline double seconds_of(const std::function<void()>& fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs baseline and candidate alternately `reps` times; returns medians.
inline std::pair<double, double> interleaved(int reps, const std::function<void()>& baseline,
                                             const std::function<void()>& candidate) {
  std::vector<double> b, c;
  for (int i = 0; i < reps; ++i) {
    b.push_back(seconds_of(baseline));
    c.push_back(seconds_of(candidate));
  }
  return {median(b), median(c)};
}

inline bool smoke_mode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--smoke") == 0) return true;
  return false;
}

}  // namespace flowlens::bench
