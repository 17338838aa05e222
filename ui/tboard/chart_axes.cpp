#include "ui/tboard/chart_axes.h"

#include <QValueAxis>
#include <algorithm>
#include <numeric>

namespace flowlens::ui {

long long step_tick_interval(const std::vector<long long>& steps, int max_ticks) {
  std::vector<long long> s = steps;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  if (s.size() < 2) return 1;
  long long gap = 0;
  for (std::size_t i = 1; i < s.size(); ++i) gap = std::gcd(gap, s[i] - s[i - 1]);
  gap = std::max<long long>(gap, 1);
  const long long span = s.back() - s.front();
  const long long most = std::max(max_ticks, 1);
  for (long long decade = 1;; decade *= 10) {
    for (long long m : {1LL, 2LL, 5LL}) {
      const long long interval = gap * m * decade;
      if (span / interval <= most) return interval;
    }
    if (decade > span) return std::max(span, 1LL);
  }
}

void set_step_axis(QValueAxis* axis, const std::vector<long long>& steps, int max_ticks) {
  axis->setLabelFormat(QStringLiteral("%.0f"));
  axis->setMinorTickCount(0);
  if (steps.empty()) {
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(0, 1);
    axis->setTickCount(2);
    return;
  }
  const auto [lo, hi] = std::minmax_element(steps.begin(), steps.end());
  const double first = static_cast<double>(*lo), last = static_cast<double>(*hi);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(first);
  axis->setTickInterval(static_cast<double>(step_tick_interval(steps, max_ticks)));
  if (first == last)
    axis->setRange(first - 1, last + 1);
  else
    axis->setRange(first, last);
}

}  // namespace flowlens::ui
