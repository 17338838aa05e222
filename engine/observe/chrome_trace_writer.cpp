#include "observe/chrome_trace_writer.h"

#include <charconv>

#include "common/error.h"

namespace flowlens {
namespace {
constexpr size_t kBufferBytes = 1 << 20;
}

ChromeTraceWriter::ChromeTraceWriter(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw Error("cannot write trace '" + path + "'");
  buffer_.reserve(kBufferBytes + 4096);
  raw("{\"traceEvents\":[\n");
}

ChromeTraceWriter::~ChromeTraceWriter() {
  if (file_) std::fclose(file_);
}

void ChromeTraceWriter::flush() {
  if (buffer_.empty()) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  buffer_.clear();
}

void ChromeTraceWriter::raw(std::string_view s) {
  buffer_.append(s);
  if (buffer_.size() >= kBufferBytes) flush();
}

void ChromeTraceWriter::string(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  buffer_.push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      buffer_.push_back('\\');
      buffer_.push_back(c);
    } else if (u < 0x20) {  // control characters must be escaped; UTF-8 bytes pass through
      switch (c) {
        case '\n': buffer_.append("\\n"); break;
        case '\t': buffer_.append("\\t"); break;
        case '\r': buffer_.append("\\r"); break;
        default:
          buffer_.append("\\u00");
          buffer_.push_back(kHex[u >> 4]);
          buffer_.push_back(kHex[u & 15]);
      }
    } else {
      buffer_.push_back(c);
    }
  }
  buffer_.push_back('"');
}

void ChromeTraceWriter::integer(int64_t v) {
  char tmp[24];
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
  buffer_.append(tmp, end);
}

void ChromeTraceWriter::micros(int64_t ns) {
  if (ns < 0) {
    buffer_.push_back('-');
    ns = -ns;
  }
  integer(ns / 1000);
  const int frac = static_cast<int>(ns % 1000);
  if (frac == 0) return;
  char digits[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                    static_cast<char>('0' + frac % 10)};
  buffer_.append(digits, 4);
}

void ChromeTraceWriter::begin_event() {
  if (events_++ > 0) buffer_.append(",\n");
}

void ChromeTraceWriter::process_name(int pid, std::string_view name) {
  begin_event();
  raw("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
  integer(pid);
  raw(",\"args\":{\"name\":");
  string(name);
  raw("}}");
}

void ChromeTraceWriter::thread_name(int pid, int tid, std::string_view name) {
  begin_event();
  raw("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
  integer(pid);
  raw(",\"tid\":");
  integer(tid);
  raw(",\"args\":{\"name\":");
  string(name);
  raw("}}");
}

void ChromeTraceWriter::slice(const TraceSlice& e) {
  begin_event();
  raw("{\"name\":");
  string(e.name);
  raw(",\"cat\":");
  string(e.op);
  raw(",\"ph\":\"X\",\"ts\":");
  micros(e.start_ns);
  raw(",\"dur\":");
  micros(e.duration_ns);
  raw(",\"pid\":");
  integer(e.pid);
  raw(",\"tid\":");
  integer(e.tid);
  raw(",\"args\":{\"node\":");
  string(e.name);
  raw(",\"op\":");
  string(e.op);
  raw(",\"shapes\":");
  string(e.shapes);
  if (e.bytes >= 0) {
    raw(",\"bytes\":");
    integer(e.bytes);
  }
  if (e.run_id >= 0) {
    raw(",\"run\":");
    integer(e.run_id);
  }
  if (!e.frame.empty()) {
    raw(",\"frame\":");
    string(e.frame);
    raw(",\"iteration\":");
    integer(e.iteration);
  }
  raw("}}");
}

void ChromeTraceWriter::finish() {
  if (!file_) return;
  raw("\n],\"displayTimeUnit\":\"ms\"}\n");
  flush();
  const bool close_failed = std::fclose(file_) != 0;
  file_ = nullptr;
  if (failed_ || close_failed) throw Error("writing trace '" + path_ + "' failed");
}

}  // namespace flowlens
