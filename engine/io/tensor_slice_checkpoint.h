#pragma once
// TensorFlow V1 checkpoints: tensor-slice tables written by the Save and
// SaveSlices ops (tensorflow/core/util/tensor_slice_writer.cc) and read by
// Restore/RestoreSlice and RestoreV2's V1 fallback (tensor_slice_reader.cc).
// Each file is a LevelDB-format table: the empty key holds a SavedTensorSlices
// with the meta (every tensor's name, dtype, shape and slices), and each slice
// is stored under EncodeTensorNameSlice(name, slice) — OrderedCode-encoded —
// as a SavedTensorSlices whose data is a TensorProto of the slice's values.
// A sharded checkpoint is several such files matched by a pattern
// ("model.ckpt-?????-of-00002").
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/checkpoint_reader.h"

namespace flowlens {

class TensorSliceReader : public CheckpointReader {
 public:
  // `pattern`: a file, or a glob (* ? [..]) matching the shards. Throws Error
  // when nothing matches or a file is not a V1 checkpoint.
  explicit TensorSliceReader(std::string pattern);
  ~TensorSliceReader() override;

  const std::string& prefix() const override { return pattern_; }
  std::string format_name() const override { return "V1 checkpoint"; }
  int num_shards() const override { return static_cast<int>(files_.size()); }
  const std::vector<CheckpointEntry>& entries() const override { return entries_; }
  // Assembles the tensor from its slices (in any shard); throws Error when the
  // slices do not cover it or a slice's data does not match its extent.
  Tensor read(const std::string& name) const override;

 private:
  struct Slice;
  std::string pattern_;
  std::vector<std::string> files_;
  std::vector<CheckpointEntry> entries_;
  std::map<std::string, std::vector<Slice>> slices_;  // by tensor name
};

// True when `path` is a LevelDB table whose empty key holds V1 checkpoint meta.
bool is_tensor_slice_file(const std::string& path);

// The files a V1 pattern names, sorted; a plain path matches itself.
std::vector<std::string> match_checkpoint_files(const std::string& pattern);

// Writes whole tensors as a V1 checkpoint file (what the Save op does), via a
// temporary file renamed when complete.
void write_tensor_slice_checkpoint(const std::string& path, const std::map<std::string, Tensor>& tensors);

// EncodeTensorNameSlice for a whole tensor of rank `rank` (every extent full):
// the OrderedCode key TensorFlow looks the slice up by.
std::string encode_full_slice_key(const std::string& name, int rank);

}  // namespace flowlens
