#pragma once
// An operator's pause / step / resume of a node's updates (CONTROL
// requests). While paused an update waits (a ps queues async pushes and
// holds a complete sync round); "step" lets exactly one through, "resume"
// all of them. No sockets: the ps asks admit_update() before each update.
namespace flowlens::dist {

class PauseGate {
 public:
  void pause() { paused_ = true; }
  void resume() {
    paused_ = false;
    allowance_ = 0;
  }
  // Only while paused: a step sent to a running node would otherwise be
  // left over for the next pause and let one update through it.
  void step() {
    if (paused_) allowance_ = 1;
  }
  bool paused() const { return paused_; }

  // Whether an update may go ahead now; one let through by step() uses up
  // the allowance.
  bool admit_update() {
    if (paused_ && allowance_ == 0) return false;
    if (allowance_ > 0) --allowance_;
    return true;
  }

 private:
  bool paused_ = false;
  int allowance_ = 0;  // updates step() lets through while paused
};

}  // namespace flowlens::dist
