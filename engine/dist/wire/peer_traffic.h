#pragma once
// The traffic a node counted per sender name, for its status ("links").
// Sender names come from the peers, so anyone could invent thousands of
// them: the table keeps the cluster's own tasks for good and at most
// `max_others` other names, dropping the least recently seen first and
// forgetting any that stayed silent for `expiry`. The status reply built
// from it therefore stays small whatever the peers send.
#include <chrono>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dist/control/node_status.h"

namespace flowlens::dist {

class PeerTrafficTable {
 public:
  using Clock = std::chrono::steady_clock;

  PeerTrafficTable(std::set<std::string> pinned, std::size_t max_others = 32,
                   std::chrono::milliseconds expiry = std::chrono::minutes(1));

  // Adds to `peer`'s counters (creating its row); an empty name is not counted.
  void add_in(const std::string& peer, uint64_t bytes, Clock::time_point now = Clock::now());
  void add_out(const std::string& peer, uint64_t bytes, Clock::time_point now = Clock::now());
  // The tensor bytes of `peer`'s last step in each direction (LinkTraffic::step_bytes_*).
  void set_step_in(const std::string& peer, uint64_t bytes, Clock::time_point now = Clock::now());
  void set_step_out(const std::string& peer, uint64_t bytes, Clock::time_point now = Clock::now());

  // Every row not expired at `now`, by name.
  std::vector<LinkTraffic> links(Clock::time_point now = Clock::now()) const;
  std::size_t size() const { return rows_.size(); }

 private:
  struct Row {
    LinkTraffic traffic;
    Clock::time_point last_seen;
  };
  Row* row(const std::string& peer, Clock::time_point now);  // nullptr for ""
  bool expired(const std::string& peer, const Row& r, Clock::time_point now) const;
  void forget_expired(Clock::time_point now);
  void make_room_for_another();  // drops the least recently seen unpinned row

  std::set<std::string> pinned_;
  std::size_t max_others_;
  std::chrono::milliseconds expiry_;
  std::size_t others_ = 0;
  std::map<std::string, Row> rows_;
};

}  // namespace flowlens::dist
