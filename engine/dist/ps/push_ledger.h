#pragma once
// What a ps remembers of Pushes besides applying them: those a pause holds
// (answered when applied, so the worker waits too) and the reply to the last
// Push answered per worker, so that a retry (same worker incarnation and
// sequence) is answered again but never applied twice. No sockets.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>

#include "dist/wire/wire_codec.h"

namespace flowlens::dist {

class PushLedger {
 public:
  void hold(WireMessage push) { held_.push_back(std::move(push)); }
  bool holding() const { return !held_.empty(); }
  WireMessage release();  // the oldest held Push; holding() must be true

  // When `m` retries a held Push, the retry takes its place (identity and
  // request id), so the answer goes to the socket the worker now listens
  // on: returns true.
  bool replace_held(const WireMessage& m);
  // When `m`, from `worker`, repeats a Push already answered: the reply to
  // send again (its own, or "already applied" for an older one). nullopt
  // for a Push not seen yet.
  std::optional<wire::Header> repeated_reply(const WireMessage& m, int worker) const;
  // `reply` answered Push `request` of `worker` (one without an
  // incarnation or sequence cannot be retried and is not remembered).
  void answered(const WireMessage& request, int worker, const wire::Header& reply);

 private:
  struct LastPush {
    uint64_t incarnation = 0, sequence = 0;
    wire::Header reply;
  };
  std::deque<WireMessage> held_;
  std::map<int, LastPush> last_;  // by worker task
};

}  // namespace flowlens::dist
