#pragma once
// A ps task's variables and global step on disk, as a TensorFlow V2
// checkpoint (io/tensor_bundle.h), so that `flowlens-run ckpt`,
// tf.train.load_checkpoint, tf.train.Saver.restore and a local FlowLens
// Session read what a cluster trained. The variables are those of the
// partition the ps runs: optimizer slots (Momentum's accumulator, Adam's m, v
// and beta powers) and batch-norm moving averages are variables of the graph
// like the weights.
//
// Layout, per ps task, as tf.train.Saver(save_path, global_step) lays it out:
//   <dir>/ps-<task>/checkpoint                          text CheckpointState naming the latest
//   <dir>/ps-<task>/model.ckpt-<step>.index             the bundle: keys are the variable node
//   <dir>/ps-<task>/model.ckpt-<step>.data-00000-of-00001  names, what tf.train.Saver uses
// The global step is the int64 scalar "global_step", where TensorFlow keeps
// tf.train.get_global_step(). When the partition holds a variable of that
// name itself, that variable is written (the graph advances it with each
// update as the ps does its count) and the ps's step is read back from it.
// Nothing else is saved: gradient sets collected for a sync step that had
// not completed are dropped (a SyncReplicasOptimizer's accumulators are not
// saved either); the workers compute them again for the restored step.
//
// Writing is atomic: the bundle is written whole under a new prefix (data
// and index fsync'ed), then the `checkpoint` file is replaced (temporary
// file, fsync, rename, directory fsync), and only then are older bundles
// deleted, all but the one before (kept, as tf.train.Saver keeps its last
// max_to_keep, for a reader that has just looked up the latest). A crash
// leaves the old or the new checkpoint, never a torn one. The task's
// directory is mode 0700 and the files 0600: they hold the model's weights.
//
// The private "FLCKPT02" files earlier versions wrote (<dir>/ps-<task>.ckpt)
// are refused with a message saying so; "FLCKPT01" likewise.
#include <map>
#include <string>
#include <vector>

#include <cstdint>

#include "tensor/tensor.h"

namespace flowlens::dist {

// The checkpoint key of the ps's global step.
inline constexpr char kGlobalStepKey[] = "global_step";

struct Checkpoint {
  int64_t global_step = 0;
  std::map<std::string, Tensor> variables;  // by variable node name; never kGlobalStepKey
  std::string source;                       // read_checkpoint: the bundle's prefix; else ""
};

// "<dir>/ps-<task>": the task's checkpoint directory (what read_checkpoint,
// `flowlens-run ckpt` and tf.train.latest_checkpoint take).
std::string checkpoint_path(const std::string& dir, int task);
// "<dir>/ps-<task>.ckpt": where earlier versions wrote their FLCKPT02 file.
std::string legacy_checkpoint_path(const std::string& dir, int task);

// True when the task directory `path` holds a committed checkpoint (its
// `checkpoint` state file exists: a crash before the first save left none).
bool checkpoint_exists(const std::string& path);

// Throws ParseError saying what it is and how to go on when `path` is an
// FLCKPT file of an earlier version; anything else passes.
void refuse_legacy_checkpoint(const std::string& path);

// Writes a new bundle into the task directory `path` (created if needed),
// makes it the latest and deletes the older ones. Throws Error naming the
// file that cannot be written, or for a "global_step" variable that is no
// integer scalar (it would clash with the step's key).
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

// Reads a task directory (its latest checkpoint), a bundle prefix or
// anything `flowlens-run ckpt` takes. A bundle without "global_step" is at
// step 0. Throws Error naming the file and what is wrong (no checkpoint, a
// corrupt index, a tensor failing its checksum, a global step that is no
// integer scalar, an FLCKPT file).
Checkpoint read_checkpoint(const std::string& path);

// A restored checkpoint matched against the partition a worker registered.
struct CheckpointMatch {
  std::map<std::string, Tensor> values;  // the partition's variables, from the checkpoint
  std::vector<std::string> notes;        // for the log: its variables the partition lacks, or that it has none
};
// `partition`: the binary GraphDef; `variables`: its variable nodes. A
// "global_step" variable gets the checkpoint's step in its own dtype. As
// tf.train.Saver.restore does, throws Error naming the checkpoint's file and
// the keys when a variable of the partition is not in it or its dtype or
// shape differs from the graph's (a checkpoint of another graph, or of
// another number of ps tasks); saved variables the partition lacks are only
// noted. A checkpoint without variables (saved before the chief initialized
// them) restores the step alone.
CheckpointMatch match_checkpoint(const Checkpoint& checkpoint, const std::string& partition,
                                 const std::vector<std::string>& variables);

}  // namespace flowlens::dist
