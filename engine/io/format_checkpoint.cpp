// TensorFlow checkpoints: a V2 bundle (PREFIX.index + PREFIX.data-*), its
// prefix, a training directory's 'checkpoint' file, or a V1 tensor-slice
// table. They hold variable values, not a graph: opening one says what to
// open instead, and `flowlens-run ckpt` / `info` list the tensors.
#include <cstring>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "io/file_formats.h"
#include "io/tensor_bundle.h"

namespace flowlens {
namespace {

namespace fs = std::filesystem;

// ".data-00000-of-00001"
bool is_checkpoint_shard_name(const std::string& file_name) {
  const auto at = file_name.rfind(".data-");
  return at != std::string::npos && file_name.size() - at == 20 && file_name.compare(at + 11, 4, "-of-") == 0;
}

// LevelDB's table footer ends in this magic (table/format.h); TensorFlow's
// checkpoint tables (V1 files, V2 .index) share the format.
bool ends_with_leveldb_table_magic(std::string_view bytes) {
  static constexpr unsigned char kMagic[8] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};
  return bytes.size() >= 48 && std::memcmp(bytes.data() + bytes.size() - 8, kMagic, 8) == 0;
}

class CheckpointFormat final : public FormatHandler {
 public:
  FileFormat format() const override { return FileFormat::Checkpoint; }
  const char* name() const override { return "Checkpoint"; }
  const char* description() const override {
    return "TensorFlow checkpoint: V2 (PREFIX.index with PREFIX.data-* shards) or V1 (a tensor-slice table)";
  }
  std::vector<std::string> patterns() const override { return {"*.index", "checkpoint", "*.ckpt"}; }
  std::string directory_hint() const override { return "a checkpoint directory (a 'checkpoint' file)"; }
  bool known_name(const Probe& probe) const override {
    return FormatHandler::known_name(probe) || is_checkpoint_shard_name(probe.file_name());
  }

  Confidence match_name(const Probe& probe) const override {
    if (probe.is_directory()) {
      // A training directory's 'checkpoint' file; a .meta or logs beside it
      // say more, so they win.
      std::error_code ec;
      return fs::is_regular_file(fs::path(probe.path()) / "checkpoint", ec) ? Confidence::Likely : Confidence::None;
    }
    if (!probe.exists()) return is_bundle_prefix(probe.path()) ? Confidence::Certain : Confidence::None;
    if (probe.file_name() == "checkpoint") return Confidence::Certain;
    if (probe.extension() == ".index" || is_checkpoint_shard_name(probe.file_name())) return Confidence::Likely;
    return Confidence::None;
  }
  Confidence match(Probe& probe) const override {
    // A V1 checkpoint file (any name): a LevelDB table.
    return !probe.is_text() && ends_with_leveldb_table_magic(probe.sniff_bytes()) ? Confidence::Certain
                                                                                   : Confidence::None;
  }

  Graph read_graph(Probe& probe) const override {
    throw Error("'" + probe.path() + "' is a checkpoint: it holds variable values, not a graph. Open the model's "
                ".meta file or SavedModel with it, or list its tensors with `flowlens-run ckpt`");
  }
  OpenedFile open(const std::shared_ptr<Probe>& probe) const override {
    OpenedFile file = opened_without_graph(probe);
    file.holds_checkpoint = true;
    return file;
  }
};

}  // namespace

const FormatHandler& checkpoint_format() {
  static const CheckpointFormat handler;
  return handler;
}

}  // namespace flowlens
