#pragma once
// A between-graph worker's own input: batches of rows from .npy files, fed by
// tensor name at every step instead of (or besides) an in-graph data op.
//
// Each feed is `tensor=path`; the path may name the worker through
// placeholders, so one command line serves every worker of a cluster:
//   {task}     the worker's task index in the cluster's "worker" job
//   {index}    its rank among the worker tasks (0..workers-1; the same as
//              {task} unless the job is sparse)
//   {workers}  the number of worker tasks
// A shard rule then picks this worker's rows (axis 0) of each file:
//   none        every row: the files are already per-worker shards
//               (shard_{task}.npy)
//   contiguous  rows [rank*n/N, (rank+1)*n/N) of a file every worker shares
//   strided     rows rank, rank+N, rank+2N, ... of a shared file
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace flowlens::dist {

struct FeedSpec {
  std::string tensor;        // the graph tensor fed ("x", "x:0")
  std::string path_pattern;  // .npy path, maybe with {task}, {index}, {workers}
};

// Parses the command-line form "name=path" (split at the first '='). Throws
// Error naming `text` for a missing '=', an empty name or path, or a path
// with an unknown or unterminated {...} placeholder.
FeedSpec parse_feed_spec(const std::string& text);

// `pattern` with its placeholders replaced. Throws Error naming the pattern
// and an unknown ("{rank}") or unterminated ("{task") placeholder.
std::string expand_feed_path(const std::string& pattern, int task, int index, int workers);

enum class ShardRule { None, Contiguous, Strided };

// "none", "contiguous" or "strided"; throws Error naming `text` and listing them.
ShardRule parse_shard_rule(std::string_view text);
const char* to_string(ShardRule rule);

}  // namespace flowlens::dist
