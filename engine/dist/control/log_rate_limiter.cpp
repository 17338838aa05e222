#include "dist/control/log_rate_limiter.h"

#include "dist/wire/node_connection.h"

namespace flowlens::dist {

std::string with_thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

LogRateLimiter::LogRateLimiter(std::chrono::milliseconds window, int burst, Sink sink)
    : window_(window), burst_(burst), sink_(sink ? std::move(sink) : Sink(log_line)) {}

LogRateLimiter::~LogRateLimiter() { flush_all(); }

void LogRateLimiter::log(const std::string& kind, const std::string& line, Clock::time_point now) {
  std::lock_guard lock(mu_);
  auto [it, added] = windows_.try_emplace(kind, Window{now, 0, 0, {}});
  Window& w = it->second;
  if (!added && now - w.start >= window_) {
    summarize(w, now);
    w = Window{now, 0, 0, {}};
  }
  if (w.written < burst_) {
    ++w.written;
    sink_(line);
    return;
  }
  ++w.held_back;
  w.last_held_back = line;
}

void LogRateLimiter::flush_expired(Clock::time_point now) {
  std::lock_guard lock(mu_);
  for (auto it = windows_.begin(); it != windows_.end();) {
    if (now - it->second.start < window_) {
      ++it;
      continue;
    }
    summarize(it->second, now);
    it = windows_.erase(it);  // a quiet kind starts afresh, with its whole burst
  }
}

void LogRateLimiter::flush_all(Clock::time_point now) {
  std::lock_guard lock(mu_);
  for (auto& [kind, w] : windows_) summarize(w, now);
  windows_.clear();
}

void LogRateLimiter::summarize(Window& w, Clock::time_point now) {
  if (w.held_back == 0) return;
  // The window may have ended long before anyone looked: report the span the
  // count really covers, at most the window.
  const auto span = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(now - w.start), window_);
  sink_(w.last_held_back + (w.held_back > 1 ? " (and " + with_thousands(w.held_back - 1) + " more like it in the last " +
                                                  seconds_text(span) + ")"
                                            : std::string()));
  w.held_back = 0;
}

}  // namespace flowlens::dist
