#include "observe/stop_text.h"

namespace flowlens {

std::string break_line(const DebugStop& stop) {
  std::string line = "break at '" + stop.node + "'";
  if (!stop.frame.empty()) line += " @ iteration " + std::to_string(stop.iteration);
  return line + " (" + stop.op + ") on " + stop.device;
}

}  // namespace flowlens
