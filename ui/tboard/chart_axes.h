#pragma once
// Axis helpers the chart docks share (Scalars, Distributions, Summaries):
// ticks on a step axis placed at the steps the data have, never at
// fractional positions whose rounded labels read "1, 1, 2, 2, 2".
#include <vector>

class QValueAxis;

namespace flowlens::ui {

// The tick interval for integer steps `steps` (any order, repeats allowed):
// a multiple of the greatest common difference between the distinct steps
// (so ticks fall where evenly spaced data are), the smallest of 1, 2, 5,
// 10, 20, 50 ... times it that leaves at most `max_ticks` intervals.
long long step_tick_interval(const std::vector<long long>& steps, int max_ticks = 8);

// Sets `axis` to span `steps` (one step either side of a single step) with
// dynamic ticks anchored at the first step, every step_tick_interval, and
// integer labels. With no steps: 0..1 and a tick at each end.
void set_step_axis(QValueAxis* axis, const std::vector<long long>& steps, int max_ticks = 8);

}  // namespace flowlens::ui
