#include "dist/ps/checkpoint_saver.h"

namespace flowlens::dist {

CheckpointSaver::CheckpointSaver(std::string dir, int task, int64_t every_steps, std::chrono::milliseconds interval,
                                 TimeSource now)
    : dir_(std::move(dir)), task_(task), every_steps_(every_steps), interval_(interval), now_(std::move(now)),
      last_time_(now_()) {}

std::string CheckpointSaver::path() const { return enabled() ? checkpoint_path(dir_, task_) : std::string(); }

std::optional<Checkpoint> CheckpointSaver::restore() {
  if (!enabled()) return std::nullopt;
  // Refused rather than ignored: training from scratch over it would lose the weights it holds.
  refuse_legacy_checkpoint(legacy_checkpoint_path(dir_, task_));
  if (!checkpoint_exists(path())) return std::nullopt;
  Checkpoint state = read_checkpoint(path());
  last_step_ = state.global_step;
  return state;
}

void CheckpointSaver::save(const Checkpoint& state) {
  if (!enabled()) return;
  write_checkpoint(path(), state);
  last_step_ = state.global_step;
  last_time_ = now_();
}

void CheckpointSaver::step_finished(const Checkpoint& state) {
  if (every_steps_ > 0 && state.global_step - last_step_ >= every_steps_) save(state);
}

void CheckpointSaver::save_if_due(const Checkpoint& state) {
  if (interval_.count() > 0 && state.global_step != last_step_ && now_() - last_time_ >= interval_) save(state);
}

}  // namespace flowlens::dist
