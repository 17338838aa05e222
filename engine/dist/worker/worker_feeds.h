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
// next_batch() hands out `batch` rows of every feed, the same rows of each,
// walking the shard in order and wrapping around at its end (one epoch), so
// every run of a worker sees the same batches.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "exec/session.h"
#include "tensor/tensor.h"

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

class WorkerFeeds {
 public:
  // Loads every feed's file (read_npy) and picks this worker's shard of it.
  // `rank` in [0, num_workers) is the worker's rank among the worker tasks,
  // `task` its task index (both fill the path placeholders); `batch` > 0 rows
  // per step. Throws Error for: no feeds, a tensor fed twice, bad rank,
  // workers or batch, a file that cannot be read (naming the feed and path),
  // a scalar file (no rows), feeds whose shards differ in rows, or a shard
  // with fewer rows than one batch (naming the file, its rows and the shard).
  WorkerFeeds(std::vector<FeedSpec> specs, int rank, int num_workers, int task, int64_t batch, ShardRule rule);

  // The next `batch` rows of every feed, in the order the specs were given;
  // each tensor has shape [batch, <the file's other dims>] and its own
  // storage. Wraps around to the shard's first row at its end.
  FeedList next_batch();

  int64_t rows() const { return rows_; }    // rows in this worker's shard (every feed has as many)
  int64_t epoch() const { return epoch_; }  // passes over the shard completed so far
  int64_t batch() const { return batch_; }
  // The expanded paths, in spec order (for the worker's start-up line).
  std::vector<std::string> paths() const;

 private:
  struct Feed {
    std::string tensor;
    std::string path;
    Tensor data;             // the whole file
    int64_t file_rows = 0;   // data's dim 0
    int64_t first = 0;       // the shard's first row in the file
    int64_t stride = 1;      // rows between consecutive shard rows
    std::size_t row_bytes = 0;     // fixed-size dtypes: bytes per row
    int64_t row_elements = 0;      // elements per row
  };
  void copy_run(const Feed& f, Tensor& out, int64_t out_row, int64_t shard_row, int64_t count) const;

  std::vector<Feed> feeds_;
  int rank_ = 0;
  int num_workers_ = 1;
  ShardRule rule_ = ShardRule::None;
  int64_t batch_ = 0;
  int64_t rows_ = 0;
  int64_t cursor_ = 0;  // the next batch's first shard row
  int64_t epoch_ = 0;
};

}  // namespace flowlens::dist
