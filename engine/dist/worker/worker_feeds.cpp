#include "dist/worker/worker_feeds.h"

#include <algorithm>
#include <set>

#include "tensor/copy_rows.h"
#include "tensor/npy.h"

namespace flowlens::dist {
namespace {

constexpr const char* kPlaceholders = "{task}, {index}, {workers}";

std::size_t checked_mul(std::size_t a, std::size_t b, const std::string& what) {
  std::size_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw Error(what + ": byte offset overflows");
  return r;
}

std::size_t checked_add(std::size_t a, std::size_t b, const std::string& what) {
  std::size_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw Error(what + ": byte offset overflows");
  return r;
}

// floor(rank * n / workers) without forming rank * n (n may be near 2^48,
// rank near 2^31): rank * (n / w) <= n and rank * (n % w) < w * w < 2^62.
int64_t shard_bound(int64_t n, int rank, int workers) {
  return rank * (n / workers) + rank * (n % workers) / workers;
}

std::string describe_shard(ShardRule rule, int rank, int workers, int64_t file_rows, int64_t first, int64_t count) {
  const std::string who = "worker " + std::to_string(rank) + " of " + std::to_string(workers);
  switch (rule) {
    case ShardRule::None:
      return "shard rule none (" + who + "): all " + std::to_string(file_rows) + " rows";
    case ShardRule::Contiguous:
      return "contiguous shard of " + who + ": rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
             ") of " + std::to_string(file_rows);
    case ShardRule::Strided:
      return "strided shard of " + who + ": rows " + std::to_string(rank) + ", " + std::to_string(rank) + "+" +
             std::to_string(workers) + ", ... of " + std::to_string(file_rows) + ", " + std::to_string(count) + " rows";
  }
  return {};
}

}  // namespace

std::string expand_feed_path(const std::string& pattern, int task, int index, int workers) {
  std::string out;
  std::size_t pos = 0;
  while (pos < pattern.size()) {
    const std::size_t open = pattern.find('{', pos);
    if (open == std::string::npos) {
      out.append(pattern, pos, std::string::npos);
      break;
    }
    out.append(pattern, pos, open - pos);
    const std::size_t close = pattern.find('}', open);
    if (close == std::string::npos)
      throw Error("feed path '" + pattern + "': unterminated placeholder '" + pattern.substr(open) + "' (expected " +
                  kPlaceholders + ")");
    const std::string name = pattern.substr(open, close - open + 1);
    if (name == "{task}") out += std::to_string(task);
    else if (name == "{index}") out += std::to_string(index);
    else if (name == "{workers}") out += std::to_string(workers);
    else
      throw Error("feed path '" + pattern + "': unknown placeholder '" + name + "' (expected " + kPlaceholders + ")");
    pos = close + 1;
  }
  return out;
}

FeedSpec parse_feed_spec(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw Error("feed '" + text + "': expected name=path (a tensor name, '=', an .npy path), found no '='");
  FeedSpec spec{text.substr(0, eq), text.substr(eq + 1)};
  if (spec.tensor.empty()) throw Error("feed '" + text + "': expected name=path, the tensor name before '=' is empty");
  if (spec.path_pattern.empty()) throw Error("feed '" + text + "': expected name=path, the path after '=' is empty");
  try {
    expand_feed_path(spec.path_pattern, 0, 0, 1);  // placeholders are checked now, not at the worker's start
  } catch (const Error& e) {
    throw Error("feed '" + text + "': " + e.what());
  }
  return spec;
}

ShardRule parse_shard_rule(std::string_view text) {
  if (text == "none") return ShardRule::None;
  if (text == "contiguous") return ShardRule::Contiguous;
  if (text == "strided") return ShardRule::Strided;
  throw Error("shard rule '" + std::string(text) + "': expected none, contiguous or strided");
}

const char* to_string(ShardRule rule) {
  switch (rule) {
    case ShardRule::None: return "none";
    case ShardRule::Contiguous: return "contiguous";
    case ShardRule::Strided: return "strided";
  }
  return "?";
}

WorkerFeeds::WorkerFeeds(std::vector<FeedSpec> specs, int rank, int num_workers, int task, int64_t batch,
                         ShardRule rule)
    : rank_(rank), num_workers_(num_workers), rule_(rule), batch_(batch) {
  if (specs.empty()) throw Error("worker feeds: no feeds given (expected at least one name=path)");
  if (num_workers <= 0) throw Error("worker feeds: " + std::to_string(num_workers) + " workers (expected at least 1)");
  if (rank < 0 || rank >= num_workers)
    throw Error("worker feeds: rank " + std::to_string(rank) + " is outside [0, " + std::to_string(num_workers) + ")");
  if (task < 0) throw Error("worker feeds: task " + std::to_string(task) + " is negative");
  if (batch <= 0) throw Error("worker feeds: batch " + std::to_string(batch) + " (expected at least 1 row per step)");

  std::set<std::string> names;
  std::vector<std::string> shard_text;
  for (FeedSpec& spec : specs) {
    if (!names.insert(spec.tensor).second)
      throw Error("worker feeds: tensor '" + spec.tensor + "' is fed twice (each name=path names a different tensor)");
    Feed f;
    f.tensor = std::move(spec.tensor);
    f.path = expand_feed_path(spec.path_pattern, task, rank, num_workers);
    try {
      f.data = read_npy(f.path);
    } catch (const std::exception& e) {
      throw Error("feed '" + f.tensor + "': " + e.what());
    }
    const Shape& shape = f.data.shape();
    if (shape.rank() == 0)
      throw Error("feed '" + f.tensor + "': '" + f.path + "' holds a scalar; feeds need rows (axis 0) to batch");
    f.file_rows = shape.dim(0);
    f.row_elements = f.file_rows > 0 ? f.data.num_elements() / f.file_rows : 0;
    if (f.data.dtype() != DType::String)
      f.row_bytes = checked_mul(static_cast<std::size_t>(f.row_elements), dtype_size(f.data.dtype()),
                                "feed '" + f.tensor + "'");

    int64_t count = 0;
    switch (rule) {
      case ShardRule::None:
        f.first = 0, f.stride = 1, count = f.file_rows;
        break;
      case ShardRule::Contiguous:
        f.first = shard_bound(f.file_rows, rank, num_workers);
        f.stride = 1;
        count = shard_bound(f.file_rows, rank + 1, num_workers) - f.first;
        break;
      case ShardRule::Strided:
        f.first = rank;
        f.stride = num_workers;
        count = f.file_rows > rank ? (f.file_rows - rank - 1) / num_workers + 1 : 0;
        break;
    }
    const std::string shard =
        "'" + f.path + "' (" + describe_shard(rule, rank, num_workers, f.file_rows, f.first, count) + ")";
    if (count < batch)
      throw Error("feed '" + f.tensor + "': " + shard + " has " + std::to_string(count) +
                  " rows in this worker's shard, fewer than one batch of " + std::to_string(batch));
    if (feeds_.empty()) {
      rows_ = count;
    } else if (count != rows_) {
      throw Error("worker feeds disagree on rows: feed '" + feeds_[0].tensor + "' " + shard_text[0] + " has " +
                  std::to_string(rows_) + " in this worker's shard, feed '" + f.tensor + "' " + shard + " has " +
                  std::to_string(count));
    }
    shard_text.push_back(shard);
    feeds_.push_back(std::move(f));
  }
}

std::vector<std::string> WorkerFeeds::paths() const {
  std::vector<std::string> out;
  for (const Feed& f : feeds_) out.push_back(f.path);
  return out;
}

// Copies shard rows [shard_row, shard_row + count) of `f` to rows
// [out_row, out_row + count) of `out`, refusing any span outside either.
void WorkerFeeds::copy_run(const Feed& f, Tensor& out, int64_t out_row, int64_t shard_row, int64_t count) const {
  if (count <= 0) return;
  const std::string what = "feed '" + f.tensor + "' ('" + f.path + "')";
  if (shard_row < 0 || shard_row + count > rows_ || out_row < 0 || out_row + count > batch_)
    throw Error(what + ": row copy out of range");
  // The last source row read; first + (rows_-1) * stride < file_rows by construction, checked anyway.
  int64_t last = 0;
  if (__builtin_mul_overflow(shard_row + count - 1, f.stride, &last) || __builtin_add_overflow(last, f.first, &last) ||
      last >= f.file_rows)
    throw Error(what + ": row copy past the file's " + std::to_string(f.file_rows) + " rows");
  const int64_t src_first = f.first + shard_row * f.stride;

  if (f.data.dtype() == DType::String) {
    const auto& src = f.data.strings();
    auto& dst = out.strings();
    const auto width = static_cast<std::size_t>(f.row_elements);
    for (int64_t k = 0; k < count; ++k) {
      const std::size_t s = checked_mul(static_cast<std::size_t>(src_first + k * f.stride), width, what);
      const std::size_t d = checked_mul(static_cast<std::size_t>(out_row + k), width, what);
      if (checked_add(s, width, what) > src.size() || checked_add(d, width, what) > dst.size())
        throw Error(what + ": row copy out of range");
      for (std::size_t e = 0; e < width; ++e) dst[d + e] = src[s + e];
    }
    return;
  }

  const std::size_t width = f.row_bytes;
  const std::size_t src_pitch = checked_mul(width, static_cast<std::size_t>(f.stride), what);
  const std::size_t src_offset = checked_mul(static_cast<std::size_t>(src_first), width, what);
  const std::size_t dst_offset = checked_mul(static_cast<std::size_t>(out_row), width, what);
  const auto n = static_cast<std::size_t>(count);
  // End of the last row read and written: offset + (n-1) * pitch + width.
  const std::size_t src_end =
      checked_add(checked_add(src_offset, checked_mul(n - 1, src_pitch, what), what), width, what);
  const std::size_t dst_end = checked_add(checked_add(dst_offset, checked_mul(n - 1, width, what), what), width, what);
  if (src_end > f.data.byte_size() || dst_end > out.byte_size()) throw Error(what + ": row copy out of range");
  copy_rows(out, dst_offset, width, f.data, src_offset, src_pitch, width, n);
}

FeedList WorkerFeeds::next_batch() {
  FeedList out;
  out.reserve(feeds_.size());
  // The batch is one run of shard rows, or two when it wraps (batch <= rows).
  const int64_t first_run = std::min(batch_, rows_ - cursor_);
  for (const Feed& f : feeds_) {
    std::vector<int64_t> dims = f.data.shape().dims();
    dims[0] = batch_;
    Tensor t(f.data.dtype(), Shape(std::move(dims)));
    copy_run(f, t, 0, cursor_, first_run);
    copy_run(f, t, first_run, 0, batch_ - first_run);
    out.emplace_back(f.tensor, std::move(t));
  }
  cursor_ += batch_;
  if (cursor_ >= rows_) {
    cursor_ -= rows_;
    ++epoch_;
  }
  return out;
}

}  // namespace flowlens::dist
