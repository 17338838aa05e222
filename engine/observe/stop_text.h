#pragma once
// The one-line heading of a debugger stop as flowlens-run --break prints
// it: "break at 'x' (Neg) on /cpu:0", inside a TensorFlow 1 loop frame with
// the iteration: "break at 'while/add' @ iteration 3 (Add) on /cpu:0".
#include <string>

#include "observe/debugger.h"

namespace flowlens {

std::string break_line(const DebugStop& stop);

}  // namespace flowlens
