#include "common/crc32c.h"

#include <boost/crc.hpp>

namespace flowlens {
namespace {

// Reflected CRC-32C: polynomial 0x1EDC6F41, init and final XOR all ones.
using Crc32c = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

uint32_t reversed_bits(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i, v >>= 1) r = (r << 1) | (v & 1u);
  return r;
}

}  // namespace

uint32_t crc32c_extend(uint32_t crc, std::string_view data) {
  // Boost's register holds the remainder before the output reflection and final
  // XOR; undo both on `crc` to resume where it stopped.
  Crc32c sum(reversed_bits(crc ^ 0xFFFFFFFFu));
  sum.process_bytes(data.data(), data.size());
  return sum.checksum();
}

uint32_t crc32c(std::string_view data) { return crc32c_extend(0, data); }

}  // namespace flowlens
