#include "dist/ps/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dist/wire/wire_codec.h"

namespace flowlens::dist {
namespace {

constexpr char kMagic[8] = {'F', 'L', 'C', 'K', 'P', 'T', '0', '2'};
constexpr char kOldMagic[8] = {'F', 'L', 'C', 'K', 'P', 'T', '0', '1'};

void write_all(int fd, const void* data, std::size_t size, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot write checkpoint " + path + ": " + std::strerror(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void fsync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: the rename itself already happened
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string checkpoint_path(const std::string& dir, int task) {
  return (std::filesystem::path(dir) / ("ps-" + std::to_string(task) + ".ckpt")).string();
}

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  std::vector<NamedTensor> tensors;
  for (const auto& [name, value] : checkpoint.variables) tensors.push_back({"var/" + name, value});
  wire::Header header;
  header.set_kind(wire::INIT);  // a checkpoint is the initial values of a restart
  header.set_step(checkpoint.global_step);
  std::vector<zmq::message_t> frames = encode_message(header, tensors);

  const std::filesystem::path target(path);
  const std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string tmp = path + ".tmp";
  // The weights are the model: owner-only from the first byte. A leftover
  // temporary file of a crashed run would keep its old mode, so it goes first.
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("cannot create checkpoint " + tmp + ": " + std::strerror(errno));
  try {
    write_all(fd, kMagic, sizeof kMagic, tmp);
    uint64_t header_size = frames[0].size();
    unsigned char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(header_size >> (8 * i));
    write_all(fd, le, sizeof le, tmp);
    for (const auto& f : frames) write_all(fd, f.data(), f.size(), tmp);
    if (::fsync(fd) != 0) throw Error("cannot fsync checkpoint " + tmp + ": " + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
  }
  fsync_directory(dir);
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, 0, "cannot open checkpoint");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  if (bytes.size() >= 16 && std::memcmp(bytes.data(), kOldMagic, sizeof kOldMagic) == 0)
    throw ParseError(path, 0, 0, "a FLCKPT01 checkpoint of a ps that applied its own optimizer; its slots do not map "
                                 "onto the graph's slot variables (move it away and train from the chief's values)");
  if (bytes.size() < 16 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw ParseError(path, 0, 0, "not a FlowLens checkpoint (expected the magic bytes FLCKPT02)");
  uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= uint64_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
  if (header_size > bytes.size() - 16)
    throw ParseError(path, 0, 0, "header length " + std::to_string(header_size) + " runs past the end of the file");

  // Reuse the wire decoder's checks by presenting the file as frames.
  std::vector<zmq::message_t> frames;
  frames.emplace_back(bytes.data() + 16, header_size);
  wire::Header header;
  if (!header.ParseFromArray(bytes.data() + 16, static_cast<int>(header_size)))
    throw ParseError(path, 0, 0, "checkpoint header is not a valid wire.Header");
  std::size_t offset = 16 + header_size;
  for (const auto& meta : header.tensors()) {
    if (meta.byte_size() > bytes.size() - offset)
      throw ParseError(path, 0, 0, "tensor '" + meta.name() + "' is truncated: " + std::to_string(meta.byte_size()) +
                                       " bytes expected, " + std::to_string(bytes.size() - offset) + " left");
    frames.emplace_back(bytes.data() + offset, meta.byte_size());
    offset += meta.byte_size();
  }
  if (offset != bytes.size())
    throw ParseError(path, 0, 0, std::to_string(bytes.size() - offset) + " unexpected bytes after the last tensor");
  WireLimits limits;
  limits.max_tensors = 1u << 20;
  limits.max_header_bytes = 1u << 30;
  limits.max_tensor_bytes = uint64_t{1} << 40;  // the ps's own file: whatever it held, it may hold again
  DecodeResult r = decode_message(std::move(frames), false, limits);
  if (!r.message) throw ParseError(path, 0, 0, r.error);

  Checkpoint ckpt;
  ckpt.global_step = header.step();
  for (std::size_t i = 0; i < r.message->num_tensors(); ++i) {
    const std::string& name = r.message->name(i);
    if (!name.starts_with("var/")) throw ParseError(path, 0, 0, "tensor '" + name + "' is not named var/<name>");
    ckpt.variables[name.substr(4)] = r.message->tensor(i);
  }
  return ckpt;
}

}  // namespace flowlens::dist
