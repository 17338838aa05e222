#pragma once
// The requests a node served between profile_start and profile_stop, written
// as a Chrome trace: one track per sender, one slice per request. No
// sockets: the node records each request's kind, sender and time.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace flowlens::dist {

class RequestProfile {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  void start();  // forgets what an earlier profile recorded
  bool active() const { return active_; }
  void record(const std::string& kind, const std::string& sender, TimePoint start, TimePoint end);
  // Writes the trace to `path` (the process track named `process`) and
  // stops; returns the requests written. Throws Error when `path` cannot be
  // written, and keeps profiling.
  std::size_t write_and_stop(const std::string& path, const std::string& process);

 private:
  struct Event {
    std::string kind, sender;
    int64_t start_ns, duration_ns;
  };
  bool active_ = false;
  std::vector<Event> events_;
};

}  // namespace flowlens::dist
