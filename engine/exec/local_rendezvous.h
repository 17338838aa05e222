#pragma once
// The rendezvous of partitions run in one process (TensorFlow's
// LocalRendezvous): a table by (step, key) holding either a value sent
// before anyone asked for it or the callback of a recv that came first.
// Thread-safe; callbacks run outside its lock, on the thread that completes
// them (the sender's, the aborter's, or the receiver's own when the value
// was already there).
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ops/framework/rendezvous.h"

namespace flowlens {

class LocalRendezvous : public Rendezvous {
 public:
  LocalRendezvous() = default;
  LocalRendezvous(const LocalRendezvous&) = delete;
  LocalRendezvous& operator=(const LocalRendezvous&) = delete;
  // Pending receivers hear that the rendezvous is gone: their runs end.
  ~LocalRendezvous() override;

  void send(const std::string& key, int64_t step_id, Tensor value) override;
  void recv_async(const std::string& key, int64_t step_id, DoneFn done) override;
  void abort(int64_t step_id, const std::string& error) override;

  // The keys step `step_id` waits on (a recv asked, nothing sent yet), in
  // key order: what a stuck step's message names.
  std::vector<std::string> pending(int64_t step_id) const;
  // Drops a finished step's state: values nobody received, its abort mark.
  // Call it once every partition of the step ended; a recv still waiting
  // then completes with an error (a DoneFn is always called).
  void forget(int64_t step_id);

 private:
  struct Slot {
    Tensor value;
    bool sent = false;
    bool received = false;
    DoneFn waiting;  // set while a recv waits for the value
  };
  struct Step {
    std::map<std::string, Slot> entries;
    bool aborted = false;
    std::string error;  // the first abort's
  };
  mutable std::mutex mu_;
  std::map<int64_t, Step> steps_;
};

}  // namespace flowlens
