#pragma once
// When a ps writes its checkpoint: every `every_steps` global steps, or once
// `interval` has passed with new steps, whichever comes first (0 turns
// either off), and whenever asked (on shutdown), like TensorFlow's
// CheckpointSaverHook with save_steps and save_secs. An idle ps rewrites
// nothing. Without a directory nothing is ever written.
//
// No sockets; the time comes from a TimeSource, so tests drive the interval
// with a fake clock.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "dist/ps/checkpoint.h"
#include "dist/control/time_source.h"

namespace flowlens::dist {

class CheckpointSaver {
 public:
  // `dir` empty: no checkpoints.
  CheckpointSaver(std::string dir, int task, int64_t every_steps, std::chrono::milliseconds interval,
                  TimeSource now = steady_now);

  bool enabled() const { return !dir_.empty(); }
  std::string path() const;  // "<dir>/ps-<task>" (checkpoint_path); "" when disabled

  // The latest checkpoint in path(), if there is one; it counts as the last
  // one saved. Throws Error naming the file when it cannot be read, and
  // refuses an earlier version's FLCKPT file at legacy_checkpoint_path().
  std::optional<Checkpoint> restore();
  // Writes `state` now. Throws Error naming the path when it cannot.
  void save(const Checkpoint& state);
  // After a global step: saves when every_steps have passed since the last save.
  void step_finished(const Checkpoint& state);
  // Now and then: saves when the interval has passed and the step moved.
  void save_if_due(const Checkpoint& state);

 private:
  std::string dir_;
  int task_;
  int64_t every_steps_;
  std::chrono::milliseconds interval_;
  TimeSource now_;
  int64_t last_step_ = 0;
  std::chrono::steady_clock::time_point last_time_;
};

}  // namespace flowlens::dist
