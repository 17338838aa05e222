#include "exec/local_rendezvous.h"

#include "common/error.h"

namespace flowlens {

LocalRendezvous::~LocalRendezvous() {
  std::vector<DoneFn> waiting;
  {
    std::lock_guard lock(mu_);
    for (auto& [step, state] : steps_)
      for (auto& [key, slot] : state.entries)
        if (slot.waiting) waiting.push_back(std::move(slot.waiting));
    steps_.clear();
  }
  for (DoneFn& done : waiting)
    done(Tensor(), std::make_exception_ptr(Error("the rendezvous was destroyed while the step waited")));
}

void LocalRendezvous::send(const std::string& key, int64_t step_id, Tensor value) {
  DoneFn receiver;
  {
    std::lock_guard lock(mu_);
    Step& step = steps_[step_id];
    if (step.aborted) throw Error(step.error);
    Slot& slot = step.entries[key];
    if (slot.sent)
      throw Error("rendezvous key '" + key + "' was sent twice in step " + std::to_string(step_id) +
                  " (two _Send nodes for one edge)");
    slot.sent = true;
    if (slot.waiting) {
      slot.received = true;
      // The receiver came first: hand it the value and forget the slot's
      // tensor, keeping the sent mark so a second send is still caught.
      receiver = std::move(slot.waiting);
      slot.waiting = nullptr;
    } else {
      slot.value = std::move(value);
    }
  }
  if (receiver) receiver(std::move(value), nullptr);
}

void LocalRendezvous::recv_async(const std::string& key, int64_t step_id, DoneFn done) {
  Tensor value;
  std::exception_ptr error;
  {
    std::lock_guard lock(mu_);
    Step& step = steps_[step_id];
    if (step.aborted) {
      error = std::make_exception_ptr(Error(step.error));
    } else {
      Slot& slot = step.entries[key];
      if (slot.waiting || slot.received) {
        error = std::make_exception_ptr(Error("rendezvous key '" + key + "' was received twice in step " +
                                              std::to_string(step_id) + " (two _Recv nodes for one edge)"));
      } else if (slot.sent) {
        slot.received = true;
        value = std::move(slot.value);
        slot.value = Tensor();
      } else {
        slot.waiting = std::move(done);
        return;
      }
    }
  }
  done(std::move(value), error);
}

void LocalRendezvous::abort(int64_t step_id, const std::string& error) {
  std::vector<DoneFn> waiting;
  std::string message;
  {
    std::lock_guard lock(mu_);
    Step& step = steps_[step_id];
    if (!step.aborted) {
      step.aborted = true;
      step.error = error;
    }
    message = step.error;
    for (auto& [key, slot] : step.entries) {
      if (slot.waiting) waiting.push_back(std::move(slot.waiting));
      slot.waiting = nullptr;
      slot.value = Tensor();
    }
  }
  for (DoneFn& done : waiting) done(Tensor(), std::make_exception_ptr(Error(message)));
}

std::vector<std::string> LocalRendezvous::pending(int64_t step_id) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> keys;
  auto it = steps_.find(step_id);
  if (it == steps_.end()) return keys;
  for (const auto& [key, slot] : it->second.entries)
    if (slot.waiting) keys.push_back(key);
  return keys;
}

void LocalRendezvous::forget(int64_t step_id) {
  std::vector<DoneFn> waiting;
  {
    std::lock_guard lock(mu_);
    auto it = steps_.find(step_id);
    if (it == steps_.end()) return;
    for (auto& [key, slot] : it->second.entries)
      if (slot.waiting) waiting.push_back(std::move(slot.waiting));
    steps_.erase(it);
  }
  // A DoneFn is called exactly once: a receiver still waiting hears why.
  for (DoneFn& done : waiting)
    done(Tensor(), std::make_exception_ptr(Error("step " + std::to_string(step_id) + " was forgotten while it waited")));
}

}  // namespace flowlens
