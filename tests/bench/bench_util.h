#pragma once
// Shared timing for benchmarks. A ratio is only worth printing with its noise:
// these machines are shared and slow down by tens of percent for seconds at a
// time, and a fixed order of two configurations favours one of them (the
// second finds caches warm, or the first pays for threads the previous run
// left spinning). So every comparison here
//   - warms each configuration up the same number of times, alternating;
//   - times them in pairs whose order alternates (A B, B A, A B, ...), so each
//     follows the other equally often;
//   - takes the ratio within each pair (both halves saw the same machine
//     state) and reports the median of those ratios and their spread (half
//     the interquartile range);
//   - says "noise" when the spread is at least the effect, and never prints an
//     overhead below its noise floor as a speed-up (overhead_text).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace flowlens::bench {

inline double seconds_of(const std::function<void()>& fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The q-quantile (0..1) with linear interpolation between order statistics.
inline double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

inline double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

// Half the interquartile range: the typical distance of one sample from the
// median, robust to the one run the machine stalled in.
inline double spread(const std::vector<double>& v) { return (quantile(v, 0.75) - quantile(v, 0.25)) / 2; }

// Two configurations timed in pairs (run i of each belongs to pair i).
struct Comparison {
  std::vector<double> baseline, candidate;  // seconds per timed run

  double baseline_median() const { return median(baseline); }
  double candidate_median() const { return median(candidate); }
  // candidate time / baseline time within each pair (> 1: the candidate is slower).
  std::vector<double> time_ratios() const {
    std::vector<double> r;
    for (std::size_t i = 0; i < std::min(baseline.size(), candidate.size()); ++i)
      if (baseline[i] > 0) r.push_back(candidate[i] / baseline[i]);
    return r;
  }
  std::vector<double> speed_ratios() const {
    std::vector<double> r;
    for (std::size_t i = 0; i < std::min(baseline.size(), candidate.size()); ++i)
      if (candidate[i] > 0) r.push_back(baseline[i] / candidate[i]);
    return r;
  }
  double time_ratio() const { return median(time_ratios()); }
  double speed_ratio() const { return median(speed_ratios()); }
  double time_ratio_spread() const { return spread(time_ratios()); }
  double speed_ratio_spread() const { return spread(speed_ratios()); }
  int pairs() const { return static_cast<int>(time_ratios().size()); }
};

// Times `fns` in `rounds` rounds after `warmup` untimed rounds; each round runs
// every function once, the starting function rotating from round to round
// (with two functions: A B, B A, A B, ...). times[f][r] is function f's time
// in round r.
inline std::vector<std::vector<double>> rotated_rounds(int rounds, const std::vector<std::function<void()>>& fns,
                                                       int warmup = 1) {
  const std::size_t n = fns.size();
  for (int r = 0; r < warmup; ++r)
    for (std::size_t k = 0; k < n; ++k) fns[(k + static_cast<std::size_t>(r)) % n]();
  std::vector<std::vector<double>> times(n);
  for (int r = 0; r < rounds; ++r)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t f = (k + static_cast<std::size_t>(r)) % n;
      times[f].push_back(seconds_of(fns[f]));
    }
  return times;
}

inline Comparison compare(int pairs, const std::function<void()>& baseline, const std::function<void()>& candidate,
                          int warmup = 1) {
  auto times = rotated_rounds(pairs, {baseline, candidate}, warmup);
  return Comparison{std::move(times[0]), std::move(times[1])};
}

// Three decimals, then the spread, then "noise" when the spread reaches the
// distance from `neutral` (the ratio of two equal configurations).
inline std::string ratio_text(double ratio, double ratio_spread, double neutral = 1.0) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f ± %.3f%s", ratio, ratio_spread,
                ratio_spread >= std::fabs(ratio - neutral) ? " (noise)" : "");
  return buf;
}

// A speed ratio, baseline time / candidate time (1.0: the candidate adds nothing).
inline std::string speed_text(const Comparison& c) { return ratio_text(c.speed_ratio(), c.speed_ratio_spread()); }

// The cost of extra work (an attached observer, a polling GUI), where the
// candidate is the baseline plus that work and so cannot be faster. As a time
// ratio (candidate / baseline) it cannot be below 1; as a throughput ratio
// (candidate rate / baseline rate) not above 1. A ratio on the impossible
// side within the noise prints as 1.000 with the measured value; one beyond
// the noise is a broken measurement (an ordering or warm-up effect) and
// prints as "invalid", never as a speed-up.
inline std::string cost_text(double ratio, double ratio_spread, bool throughput) {
  const double gain = throughput ? ratio - 1.0 : 1.0 - ratio;  // > 0: "faster with the work"
  if (gain <= 0) return ratio_text(ratio, ratio_spread);
  char buf[192];
  if (gain <= ratio_spread) {
    std::snprintf(buf, sizeof buf, "1.000 ± %.3f (noise: measured %.3f)", ratio_spread, ratio);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "invalid (measured %.3f ± %.3f: faster with the extra work than without, beyond the noise; an "
                "ordering or warm-up effect, not a speed-up)",
                ratio, ratio_spread);
  return buf;
}
// Candidate time / baseline time of a candidate that adds work.
inline std::string overhead_text(const Comparison& c) {
  return cost_text(c.time_ratio(), c.time_ratio_spread(), false);
}
// Candidate rate / baseline rate (= baseline time / candidate time) of a
// candidate that adds work.
inline std::string throughput_cost_text(const Comparison& c) {
  return cost_text(c.speed_ratio(), c.speed_ratio_spread(), true);
}

inline bool smoke_mode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--smoke") == 0) return true;
  return false;
}

}  // namespace flowlens::bench
