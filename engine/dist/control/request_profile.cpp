#include "dist/control/request_profile.h"

#include <map>

#include "observe/chrome_trace_writer.h"

namespace flowlens::dist {

void RequestProfile::start() {
  active_ = true;
  events_.clear();
}

void RequestProfile::record(const std::string& kind, const std::string& sender, TimePoint start, TimePoint end) {
  events_.push_back({kind, sender, std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count(),
                     std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count()});
}

std::size_t RequestProfile::write_and_stop(const std::string& path, const std::string& process) {
  ChromeTraceWriter writer(path);
  writer.process_name(0, process);
  std::map<std::string, int> tracks;
  const int64_t origin = events_.empty() ? 0 : events_.front().start_ns;
  for (const Event& e : events_) {
    auto [it, added] = tracks.emplace(e.sender, static_cast<int>(tracks.size()) + 1);
    if (added) writer.thread_name(0, it->second, e.sender.empty() ? "unnamed client" : e.sender);
    TraceSlice slice;
    slice.name = e.kind;
    slice.op = e.kind;
    slice.tid = it->second;
    slice.start_ns = e.start_ns - origin;
    slice.duration_ns = e.duration_ns;
    slice.bytes = -1;  // request sizes are counted in the traffic totals
    writer.slice(slice);
  }
  writer.finish();
  active_ = false;
  return events_.size();
}

}  // namespace flowlens::dist
