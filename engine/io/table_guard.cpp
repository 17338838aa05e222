#include "io/table_guard.h"

#include <cstdint>
#include <fstream>
#include <string_view>

namespace flowlens::io_detail {
namespace {

// LevelDB's table/format.h: a footer is two BlockHandles padded to 40 bytes
// and the 8-byte magic; every block is followed by a 1-byte type and a CRC.
constexpr std::size_t kFooterSize = 48;
constexpr std::size_t kBlockTrailerSize = 5;

bool varint64(std::string_view& in, uint64_t* out) {
  uint64_t value = 0;
  for (int shift = 0; shift <= 63 && !in.empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = value;
      return true;
    }
  }
  return false;
}

bool handle_fits(std::string_view& in, uint64_t file_size, uint64_t* offset, uint64_t* size) {
  return varint64(in, offset) && varint64(in, size) && *offset <= file_size && *size <= file_size - *offset &&
         kBlockTrailerSize <= file_size - *offset - *size;
}

uint32_t fixed32(std::string_view bytes, std::size_t at) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + k])) << (8 * k);
  return v;
}

std::string read_at(std::ifstream& in, uint64_t offset, uint64_t size) {
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

}  // namespace

std::string table_layout_problem(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";  // LevelDB reports what it cannot open
  const auto file_size = static_cast<uint64_t>(in.tellg());
  if (file_size < kFooterSize) return "";  // LevelDB: "file is too short to be an sstable"
  const std::string footer = read_at(in, file_size - kFooterSize, kFooterSize);
  if (footer.size() != kFooterSize) return "";
  std::string_view handles(footer.data(), 40);
  uint64_t meta_offset = 0, meta_size = 0, index_offset = 0, index_size = 0;
  if (!handle_fits(handles, file_size, &meta_offset, &meta_size) ||
      !handle_fits(handles, file_size, &index_offset, &index_size))
    return "the table footer names a block outside the file";
  const std::string index = read_at(in, index_offset, index_size + kBlockTrailerSize);
  if (index.size() != index_size + kBlockTrailerSize) return "the index block runs past the end of the file";
  if (index[index_size] != 0) return "";  // compressed: LevelDB decodes and checks it
  // Block: entries (shared, non_shared, value_length varints, key delta,
  // value), then the restart array and its length.
  const std::string_view block(index.data(), index_size);
  if (block.size() < 4) return "the index block is too short";
  const uint32_t restarts = fixed32(block, block.size() - 4);
  if (restarts > (block.size() - 4) / 4) return "the index block's restart count is too large";
  std::string_view entries = block.substr(0, block.size() - 4 - 4 * static_cast<std::size_t>(restarts));
  while (!entries.empty()) {
    uint64_t shared = 0, non_shared = 0, value_length = 0;
    if (!varint64(entries, &shared) || !varint64(entries, &non_shared) || !varint64(entries, &value_length) ||
        non_shared > entries.size() || value_length > entries.size() - non_shared)
      return "the index block is malformed";
    entries.remove_prefix(static_cast<std::size_t>(non_shared));
    std::string_view value = entries.substr(0, static_cast<std::size_t>(value_length));
    entries.remove_prefix(static_cast<std::size_t>(value_length));
    uint64_t offset = 0, size = 0;
    if (!handle_fits(value, file_size, &offset, &size)) return "the index names a data block outside the file";
  }
  return "";
}

}  // namespace flowlens::io_detail
