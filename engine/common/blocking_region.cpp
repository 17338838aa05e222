#include "common/blocking_region.h"

namespace flowlens {
namespace {
thread_local BlockingHooks* current_hooks = nullptr;
}

BlockingHooks* set_blocking_hooks(BlockingHooks* hooks) {
  BlockingHooks* previous = current_hooks;
  current_hooks = hooks;
  return previous;
}

BlockingHooks* blocking_hooks() { return current_hooks; }

}  // namespace flowlens
