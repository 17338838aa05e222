// TensorFlow checkpoints as BundleReader (V2) and TensorSliceReader (V1) read
// them. The input is split into an .index and a data shard: its first 4 bytes
// give the index length (little-endian), the rest after the index is the data
// file; the whole input is also tried as a V1 tensor-slice file. Every entry
// an opened checkpoint lists is read; rejecting with flowlens::Error is fine.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/error.h"
#include "fuzz_check.h"
#include "io/tensor_bundle.h"
#include "io/tensor_slice_checkpoint.h"

using namespace flowlens;

namespace {

void write(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <class Reader>
void read_all(const std::string& path) {
  try {
    const Reader reader(path);
    for (const CheckpointEntry& e : reader.entries()) {
      try {
        const Tensor t = reader.read(e.name);
        fuzz::fuzz_require(t.dtype() == e.dtype && t.shape() == e.shape, "a read tensor differs from its entry");
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string prefix = "/tmp/flowlens-fuzz-ckpt-" + std::to_string(::getpid());
  const std::string_view bytes = fuzz::as_bytes(data, size);
  if (bytes.size() >= 4) {
    uint32_t index_size = 0;
    for (int k = 0; k < 4; ++k) index_size |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])) << (8 * k);
    const std::string_view rest = bytes.substr(4);
    const std::string_view index = rest.substr(0, std::min<std::size_t>(index_size, rest.size()));
    write(bundle_index_path(prefix), index);
    write(bundle_data_path(prefix, 0, 1), rest.substr(index.size()));
    read_all<BundleReader>(prefix);
  }
  write(prefix + ".v1", bytes);
  read_all<TensorSliceReader>(prefix + ".v1");
  return 0;
}
