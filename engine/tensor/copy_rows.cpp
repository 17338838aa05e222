#include "tensor/copy_rows.h"

#include <cstring>

namespace flowlens {

void copy_rows(Tensor& dst, std::size_t dst_offset, std::size_t dst_pitch, const Tensor& src,
               std::size_t src_offset, std::size_t src_pitch, std::size_t width, std::size_t rows) {
  if (width == 0 || rows == 0) return;
  if (dst.memory() != src.memory())
    throw Error(std::string("copy between different memories (") +
                (src.on_host() ? "host" : src.memory()->name()) + " to " +
                (dst.on_host() ? "host" : dst.memory()->name()) + ")");
  char* d = static_cast<char*>(dst.device_data()) + dst_offset;
  const char* s = static_cast<const char*>(src.device_data()) + src_offset;
  if (AcceleratorMemory* m = dst.memory()) {
    m->copy_2d(d, dst_pitch, s, src_pitch, width, rows);
    return;
  }
  if (dst_pitch == width && src_pitch == width) {
    std::memcpy(d, s, width * rows);
    return;
  }
  for (std::size_t k = 0; k < rows; ++k) std::memcpy(d + k * dst_pitch, s + k * src_pitch, width);
}

}  // namespace flowlens
