#include "ops/framework/run_log.h"

#include <iostream>
#include <mutex>

namespace flowlens {

void write_to_process_streams(LogStream stream, std::string_view text) {
  // One lock for both streams: lines of concurrent Print ops never interleave.
  static std::mutex mu;
  std::lock_guard lock(mu);
  std::ostream& out = stream == LogStream::Stdout ? std::cout : std::cerr;
  out << text << std::flush;
}

}  // namespace flowlens
