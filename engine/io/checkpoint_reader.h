#pragma once
// Reading a TensorFlow checkpoint of either format through one interface:
// V2 tensor bundles (io/tensor_bundle.h: PREFIX.index + data shards, what
// TensorFlow writes since 1.0) and V1 tensor-slice tables
// (io/tensor_slice_checkpoint.h: what SaveSlices wrote, still found in old
// session bundles). ckpt, info, RestoreV2 and freezing read through it.
#include <memory>
#include <string>
#include <vector>

#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace flowlens {

// One tensor listed in a checkpoint.
struct CheckpointEntry {
  std::string name;
  DType dtype = DType::Invalid;
  Shape shape;
  int shard = 0;
  int64_t offset = 0;
  int64_t size = 0;            // bytes stored (V2: in the data shard; V1: of the serialized slices)
  uint32_t masked_crc32c = 0;  // V2: of those bytes, as stored (crc32c_mask)
  int num_slices = 0;          // > 0: stored in slices (a partitioned variable)
};

class CheckpointReader {
 public:
  virtual ~CheckpointReader() = default;
  // The prefix (V2) or file pattern (V1) it was opened with.
  virtual const std::string& prefix() const = 0;
  // "V2 checkpoint" or "V1 checkpoint".
  virtual std::string format_name() const = 0;
  virtual int num_shards() const = 0;
  // Sorted by name.
  virtual const std::vector<CheckpointEntry>& entries() const = 0;
  const CheckpointEntry* find(const std::string& name) const;
  // The whole tensor, checksums verified. Throws Error naming the tensor and
  // the file at fault.
  virtual Tensor read(const std::string& name) const = 0;
};

// Opens what a user names: a V2 prefix, its .index or .data file, a directory
// with a `checkpoint` state file (latest checkpoint), or a V1 checkpoint file
// or file pattern ("export-?????-of-00002"). Throws Error saying what was
// looked for when nothing matches.
std::unique_ptr<CheckpointReader> open_checkpoint(const std::string& path);

// The checkpoint a .meta file restores from when none is named, as
// tf.train.Saver and TensorFlow Serving's session bundles lay them out:
// PREFIX.meta beside a V2 PREFIX.index or a V1 file PREFIX, or beside V1
// shards PREFIX-?????-of-????? (session_bundle.cc GetVariablesFilename), else
// the latest checkpoint named by the directory's `checkpoint` file. Returns
// the prefix or pattern; throws Error saying what was looked for when none
// exists (and ParseError for an unreadable state file).
std::string checkpoint_for_meta_graph(const std::string& meta_file);

}  // namespace flowlens
