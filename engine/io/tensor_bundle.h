#pragma once
// TensorFlow V2 checkpoints ("tensor bundles"), as tf.train.Saver and
// tf.train.Checkpoint write them (tensorflow/core/util/tensor_bundle):
//   PREFIX.index                   a LevelDB-format sorted table: the empty key
//                                  holds a BundleHeaderProto, every other key a
//                                  tensor name and its BundleEntryProto;
//   PREFIX.data-00000-of-0000N     the tensors' bytes, each with a masked
//                                  CRC-32C kept in its entry.
// The table is read and written by LevelDB's own Table code (TensorFlow's
// table format is LevelDB's); the index's block checksums are verified, and
// every tensor's CRC is checked when it is read. Failures throw Error naming
// the file, the tensor and what was expected.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/checkpoint_reader.h"

namespace flowlens {

// "PREFIX.index" and "PREFIX.data-00003-of-00008" (shard 3 of 8).
std::string bundle_index_path(const std::string& prefix);
std::string bundle_data_path(const std::string& prefix, int shard, int num_shards);

class BundleReader : public CheckpointReader {
 public:
  // Opens PREFIX.index and reads every entry; data shards are opened on the
  // first read. Throws Error if the index is missing, corrupt (bad block
  // checksum, unparseable entry, no header) or from a newer format version.
  explicit BundleReader(std::string prefix);
  ~BundleReader() override;
  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  const std::string& prefix() const override { return prefix_; }
  std::string format_name() const override { return "V2 checkpoint"; }
  int num_shards() const override { return num_shards_; }
  // Sorted by name, the header excluded.
  const std::vector<CheckpointEntry>& entries() const override { return entries_; }

  // Reads a whole tensor and checks its CRC. Throws Error naming the tensor if
  // it is absent (listing near names), stored in slices, or its shard is
  // missing, short, or fails its checksum.
  Tensor read(const std::string& name) const override;

 private:
  Tensor read_entry(const CheckpointEntry& entry) const;
  std::string prefix_;
  int num_shards_ = 1;
  std::vector<CheckpointEntry> entries_;
};

// Writes one bundle (a single data shard), as BundleWriter does: tensors are
// appended to the data file in add() order and the index is written, sorted,
// by finish(). Both files are written under temporary names and renamed when
// complete, the data file first, so a crash never leaves an index that points
// at missing bytes. Dropping a writer without finish() removes what it wrote.
class BundleWriter {
 public:
  explicit BundleWriter(std::string prefix);
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Throws Error for a duplicate name, the empty name (the header's key) or a
  // dtype a checkpoint cannot hold (resource, variant).
  void add(const std::string& name, const Tensor& tensor);
  void finish();

 private:
  struct Pending;
  std::string prefix_;
  std::unique_ptr<Pending> pending_;
};

// Writes `tensors` as a bundle at `prefix` (BundleWriter in one call).
void write_bundle(const std::string& prefix, const std::map<std::string, Tensor>& tensors);

// MergeBundles: the data shards of `prefixes` are renamed to shards of
// `merged_prefix`, one index lists them all, and the input indexes are
// deleted. Throws Error for a tensor present in two inputs.
void merge_bundles(const std::vector<std::string>& prefixes, const std::string& merged_prefix);

// What a user may name for a checkpoint: a prefix ("model.ckpt-100"), its
// .index or a .data-* file, or a directory holding a `checkpoint` state file
// (the latest checkpoint there). Returns the prefix; throws Error naming what
// was looked for when nothing matches.
std::string resolve_checkpoint_prefix(const std::string& path);

// The model_checkpoint_path of DIR/checkpoint (tf.train.latest_checkpoint),
// made absolute against DIR when relative; "" when the file is absent.
// Throws ParseError if the state file is unreadable.
std::string latest_checkpoint(const std::string& dir);

// True when PREFIX.index exists.
bool is_bundle_prefix(const std::string& prefix);

}  // namespace flowlens
