#include "dist/wire/peer_traffic.h"

namespace flowlens::dist {

PeerTrafficTable::PeerTrafficTable(std::set<std::string> pinned, std::size_t max_others, std::chrono::milliseconds expiry)
    : pinned_(std::move(pinned)), max_others_(max_others), expiry_(expiry) {}

void PeerTrafficTable::add_in(const std::string& peer, uint64_t bytes, Clock::time_point now) {
  if (Row* r = row(peer, now)) r->traffic.bytes_in += bytes;
}

void PeerTrafficTable::add_out(const std::string& peer, uint64_t bytes, Clock::time_point now) {
  if (Row* r = row(peer, now)) r->traffic.bytes_out += bytes;
}

void PeerTrafficTable::set_step_in(const std::string& peer, uint64_t bytes, Clock::time_point now) {
  if (Row* r = row(peer, now)) r->traffic.step_bytes_in = bytes;
}

void PeerTrafficTable::set_step_out(const std::string& peer, uint64_t bytes, Clock::time_point now) {
  if (Row* r = row(peer, now)) r->traffic.step_bytes_out = bytes;
}

std::vector<LinkTraffic> PeerTrafficTable::links(Clock::time_point now) const {
  std::vector<LinkTraffic> out;
  out.reserve(rows_.size());
  for (const auto& [peer, r] : rows_)
    if (!expired(peer, r, now)) out.push_back(r.traffic);
  return out;
}

bool PeerTrafficTable::expired(const std::string& peer, const Row& r, Clock::time_point now) const {
  return !pinned_.count(peer) && now - r.last_seen >= expiry_;
}

PeerTrafficTable::Row* PeerTrafficTable::row(const std::string& peer, Clock::time_point now) {
  if (peer.empty()) return nullptr;
  auto it = rows_.find(peer);
  if (it == rows_.end()) {
    const bool pinned = pinned_.count(peer) > 0;
    if (!pinned) {
      forget_expired(now);
      if (others_ >= max_others_) make_room_for_another();
      ++others_;
    }
    it = rows_.emplace(peer, Row{LinkTraffic{peer}, now}).first;
  }
  it->second.last_seen = now;
  return &it->second;
}

void PeerTrafficTable::forget_expired(Clock::time_point now) {
  for (auto it = rows_.begin(); it != rows_.end();) {
    if (expired(it->first, it->second, now)) {
      it = rows_.erase(it);
      --others_;
    } else {
      ++it;
    }
  }
}

void PeerTrafficTable::make_room_for_another() {
  // A linear scan: the unpinned rows are few (max_others_).
  auto oldest = rows_.end();
  for (auto it = rows_.begin(); it != rows_.end(); ++it)
    if (!pinned_.count(it->first) && (oldest == rows_.end() || it->second.last_seen < oldest->second.last_seen)) oldest = it;
  if (oldest == rows_.end()) return;
  rows_.erase(oldest);
  --others_;
}

}  // namespace flowlens::dist
