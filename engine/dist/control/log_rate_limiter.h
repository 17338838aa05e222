#pragma once
// Keeps a node's log readable under a flood of bad input. Lines are grouped
// by a fixed kind ("malformed", "impersonation", ...; never a value a peer
// chose, so the table stays small): each kind may write `burst` lines per
// window, the rest are counted, and when the window ends one summary line
// says how many were held back:
//
//   ps 0: dropped a malformed message: ... (and 1,234 more like it in the last 10 s)
//
// Thread-safe: a ZAP handler thread and a serving thread may share one.
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace flowlens::dist {

class LogRateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  using Sink = std::function<void(const std::string&)>;

  // `sink` receives whole lines (default: log_line, stderr).
  explicit LogRateLimiter(std::chrono::milliseconds window = std::chrono::seconds(10), int burst = 5, Sink sink = {});
  // Flushes the summaries still pending, so a flood just before exit is counted too.
  ~LogRateLimiter();
  LogRateLimiter(const LogRateLimiter&) = delete;
  LogRateLimiter& operator=(const LogRateLimiter&) = delete;

  // Writes `line` unless `kind` used up its burst in the current window.
  void log(const std::string& kind, const std::string& line, Clock::time_point now = Clock::now());
  // Writes the summary of every window that has ended; call it now and then
  // (a node's serving loop does), or lines held back wait for the next one.
  void flush_expired(Clock::time_point now = Clock::now());
  // Writes every pending summary, ended or not.
  void flush_all(Clock::time_point now = Clock::now());

 private:
  struct Window {
    Clock::time_point start;
    int written = 0;
    int64_t held_back = 0;
    std::string last_held_back;
  };
  void summarize(Window& w, Clock::time_point now);  // mu_ held

  std::chrono::milliseconds window_;
  int burst_;
  Sink sink_;
  std::mutex mu_;
  std::map<std::string, Window> windows_;  // by kind
};

// "1,234,567": counts in log lines people read.
std::string with_thousands(int64_t n);

}  // namespace flowlens::dist
