#include "dist/ps/push_ledger.h"

#include "dist/wire/node_connection.h"

namespace flowlens::dist {

WireMessage PushLedger::release() {
  WireMessage push = std::move(held_.front());
  held_.pop_front();
  return push;
}

bool PushLedger::replace_held(const WireMessage& m) {
  const uint64_t incarnation = m.header.incarnation(), sequence = m.header.sequence();
  if (incarnation == 0 || sequence == 0) return false;
  for (WireMessage& queued : held_) {
    if (queued.header.sender() == m.header.sender() && queued.header.incarnation() == incarnation &&
        queued.header.sequence() == sequence) {
      queued.identity = m.identity;
      queued.header.set_request_id(m.header.request_id());
      return true;
    }
  }
  return false;
}

std::optional<wire::Header> PushLedger::repeated_reply(const WireMessage& m, int worker) const {
  const uint64_t incarnation = m.header.incarnation(), sequence = m.header.sequence();
  if (incarnation == 0 || sequence == 0) return std::nullopt;
  auto last = last_.find(worker);
  if (last == last_.end() || last->second.incarnation != incarnation || sequence > last->second.sequence)
    return std::nullopt;
  wire::Header h = sequence == last->second.sequence ? last->second.reply : reply_header(m.header, wire::OK, "already applied");
  h.set_request_id(m.header.request_id());
  return h;
}

void PushLedger::answered(const WireMessage& request, int worker, const wire::Header& reply) {
  if (request.header.incarnation() == 0 || request.header.sequence() == 0) return;
  last_[worker] = {request.header.incarnation(), request.header.sequence(), reply};
}

}  // namespace flowlens::dist
