#pragma once
// CRC-32C (Castagnoli), the checksum TensorFlow puts on TFRecord frames and
// checkpoint tensor bundles, and its "masked" form: TensorFlow stores
// mask(crc) rather than crc so that a CRC computed over data that itself holds
// embedded CRCs stays well distributed (tensorflow/core/lib/hash/crc32c.h).
// The arithmetic is Boost.CRC's; only TensorFlow's parameters live here.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace flowlens {

// CRC-32C of `data`; `extend(crc, more)` continues a running checksum so a
// large tensor can be summed in pieces (extend(crc32c(a), b) == crc32c(a + b)).
uint32_t crc32c(std::string_view data);
uint32_t crc32c_extend(uint32_t crc, std::string_view data);

constexpr uint32_t kCrc32cMaskDelta = 0xa282ead8u;

constexpr uint32_t crc32c_mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kCrc32cMaskDelta;
}
constexpr uint32_t crc32c_unmask(uint32_t masked) {
  const uint32_t rot = masked - kCrc32cMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace flowlens
