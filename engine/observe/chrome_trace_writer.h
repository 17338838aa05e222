#pragma once
// Writes Chrome trace-event JSON (the format chrome://tracing and Perfetto
// open) straight to a file through a large buffer, one event at a time, so a
// million events take well under a second and no document is built in memory.
//
//   {"traceEvents":[
//     {"name":"process_name","ph":"M","pid":0,"args":{"name":"/cpu:0"}},
//     {"name":"layer1/MatMul","cat":"MatMul","ph":"X","ts":12.345,"dur":3.2,
//      "pid":0,"tid":1,"args":{"node":"layer1/MatMul","op":"MatMul",...}}, ...
//   ],"displayTimeUnit":"ms"}
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace flowlens {

struct TraceSlice {
  std::string_view name;    // slice label: the node name
  std::string_view op;      // category and args.op
  std::string_view shapes;  // args.shapes: "[64,16];[64]"
  int pid = 0;              // device
  int tid = 0;              // worker thread
  int64_t start_ns = 0;     // relative to the trace's time origin
  int64_t duration_ns = 0;
  int64_t bytes = -1;       // args.bytes; -1: omitted
  int64_t run_id = -1;      // args.run; -1: omitted
  // Inside a TensorFlow 1 loop: args.frame and args.iteration (both omitted
  // when frame is empty).
  std::string_view frame = {};
  int64_t iteration = 0;
};

class ChromeTraceWriter {
 public:
  // Throws Error if the file cannot be created.
  explicit ChromeTraceWriter(const std::string& path);
  ~ChromeTraceWriter();  // closes without finishing if finish() was not called
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  void process_name(int pid, std::string_view name);
  void thread_name(int pid, int tid, std::string_view name);
  void slice(const TraceSlice& slice);
  // Closes the JSON document and the file; throws Error on a write failure.
  void finish();
  int64_t events_written() const { return events_; }

 private:
  void raw(std::string_view s);
  void string(std::string_view s);  // quoted, JSON-escaped
  void integer(int64_t v);
  void micros(int64_t ns);          // ns as microseconds with 3 decimals
  void begin_event();
  void flush();

  std::FILE* file_ = nullptr;
  std::string path_;
  std::string buffer_;
  int64_t events_ = 0;
  bool failed_ = false;
};

}  // namespace flowlens
