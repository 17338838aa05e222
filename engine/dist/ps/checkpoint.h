#pragma once
// A ps task's variables and global step on disk. The variables are those
// of the partition the ps runs: optimizer slots (Momentum's accumulator,
// Adam's m, v and beta powers) and batch-norm moving averages are
// variables of the graph like the weights.
// Layout: the 8 bytes "FLCKPT02", a little-endian uint64 header length, a
// wire.Header (step, one TensorMeta per tensor), then the tensors' bytes in
// header order. Tensors are named "var/<name>". ("FLCKPT01" files, whose
// ps applied its own optimizer and kept slots apart, are refused.) Writing is atomic: a temporary
// file in the same directory is written, fsync'ed and renamed over the old
// checkpoint, then the directory is fsync'ed, so a crash leaves either the
// old or the new checkpoint, never a torn one. The file is mode 0600: it
// holds the model's weights.
#include <map>
#include <string>

#include <cstdint>

#include "tensor/tensor.h"

namespace flowlens::dist {

struct Checkpoint {
  int64_t global_step = 0;
  std::map<std::string, Tensor> variables;  // by variable node name
};

// "<dir>/ps-<task>.ckpt"
std::string checkpoint_path(const std::string& dir, int task);

// Creates `path`'s directory if needed. Throws Error naming the path on failure.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

// Throws ParseError naming the file and what is wrong (magic, header, a
// tensor's meta, truncated data).
Checkpoint read_checkpoint(const std::string& path);

}  // namespace flowlens::dist
