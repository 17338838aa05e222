#pragma once
// Where the parts of a node read the time. A node passes the steady clock;
// a unit test passes a fake one it moves by hand, so timeouts and schedules
// are tested in microseconds, without sleeping.
#include <chrono>
#include <functional>

namespace flowlens::dist {

using TimeSource = std::function<std::chrono::steady_clock::time_point()>;

inline std::chrono::steady_clock::time_point steady_now() { return std::chrono::steady_clock::now(); }

}  // namespace flowlens::dist
