#include "dist/ps/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "exec/feed_values.h"
#include "io/graph_io.h"
#include "io/meta_graph.pb.h"
#include "io/tensor_bundle.h"

namespace fs = std::filesystem;

namespace flowlens::dist {
namespace {

constexpr char kBundleName[] = "model.ckpt-";  // tf.train.Saver's default, "model.ckpt-<global step>"
constexpr char kStateFile[] = "checkpoint";    // tf.train.latest_checkpoint's state file

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    if (directory) return;  // best effort: the renames themselves already happened
    throw Error("cannot open checkpoint file " + path + " to sync it: " + std::strerror(errno));
  }
  const int rc = ::fsync(fd);
  const int saved_errno = errno;
  ::close(fd);
  if (rc != 0 && !directory) throw Error("cannot fsync checkpoint file " + path + ": " + std::strerror(saved_errno));
}

void make_owner_only(const std::string& path, mode_t mode) {
  if (::chmod(path.c_str(), mode) != 0)
    throw Error("cannot restrict the permissions of " + path + ": " + std::strerror(errno));
}

// The `checkpoint` state file naming `name` the latest and `kept` (names
// relative to `dir`, as tf.train.Saver writes them, oldest first), replaced atomically.
void write_state_file(const std::string& dir, const std::string& name, const std::vector<std::string>& kept) {
  proto::CheckpointState state;
  state.set_model_checkpoint_path(name);
  for (const std::string& k : kept) state.add_all_model_checkpoint_paths(k);
  std::string text;
  google::protobuf::TextFormat::PrintToString(state, &text);
  const std::string path = (fs::path(dir) / kStateFile).string(), tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("cannot create " + tmp + ": " + std::strerror(errno));
  const char* p = text.data();
  std::size_t left = text.size();
  bool ok = true;
  while (ok && left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) p += n, left -= static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(ok ? errno : saved_errno);
    ::unlink(tmp.c_str());
    throw Error("cannot write " + path + ": " + why);
  }
  fsync_path(dir, true);
}

// Removes what earlier saves (and crashed ones) left: the files of every
// bundle but those `kept`.
void remove_old_bundles(const std::string& dir, const std::vector<std::string>& kept) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string file = e.path().filename().string();
    if (!file.starts_with(kBundleName)) continue;
    const bool keep = std::any_of(kept.begin(), kept.end(), [&](const std::string& k) {
      return file == k + ".index" || file == fs::path(bundle_data_path(k, 0, 1)).filename().string();
    });
    if (keep) continue;
    std::error_code ignored;
    fs::remove(e.path(), ignored);
  }
}

}  // namespace

void refuse_legacy_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  if (!in.read(magic, sizeof magic) || std::memcmp(magic, "FLCKPT0", 7) != 0) return;
  const std::string version(magic, sizeof magic);
  throw ParseError(path, 0, 0,
                   "a " + version + " checkpoint, the private format FlowLens ps tasks wrote before they wrote "
                   "TensorFlow V2 checkpoints (<checkpoint dir>/ps-<task>/model.ckpt-<step>.index and .data-*); "
                   "this version cannot read it. Move the file out of the checkpoint directory: the ps then starts "
                   "from the chief's initial values and writes V2 checkpoints from then on");
}

bool checkpoint_exists(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(path) / kStateFile, ec);
}

std::string checkpoint_path(const std::string& dir, int task) {
  return (fs::path(dir) / ("ps-" + std::to_string(task))).string();
}

std::string legacy_checkpoint_path(const std::string& dir, int task) { return checkpoint_path(dir, task) + ".ckpt"; }

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  std::map<std::string, Tensor> tensors = checkpoint.variables;
  if (auto own = tensors.find(kGlobalStepKey); own != tensors.end()) {
    // The graph's own global step variable: written as is, and the step is read back from it.
    const Tensor& v = own->second;
    if ((v.dtype() != DType::Int64 && v.dtype() != DType::Int32) || v.shape().rank() != 0)
      throw Error("cannot checkpoint variable '" + std::string(kGlobalStepKey) + "': it is " + dtype_name(v.dtype()) +
                  " " + v.shape().to_string() + ", but that key holds the ps's global step, an integer scalar");
  } else {
    tensors.emplace(kGlobalStepKey, Tensor::scalar<int64_t>(checkpoint.global_step));
  }

  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw Error("cannot create checkpoint directory " + path + ": " + ec.message());
  // Owner-only before the first weight is written: others cannot reach the
  // files whatever mode they were created with.
  make_owner_only(path, 0700);

  // A new prefix each save, so the current checkpoint is never overwritten;
  // a second save at the same step (on exit, say) takes another name.
  std::string current;
  try {
    current = latest_checkpoint(path);
  } catch (const Error&) {
    current.clear();  // an unreadable state file is replaced below
  }
  const std::string previous = current.empty() ? std::string() : fs::path(current).filename().string();
  // The first name no bundle has: a third save at one step must not rewrite
  // the one kept from the second (its index and data are renamed apart).
  const std::string base = kBundleName + std::to_string(checkpoint.global_step);
  std::string name = base;
  for (int k = 1; name == previous || is_bundle_prefix((fs::path(path) / name).string()); ++k)
    name = base + "_" + std::to_string(k);
  const std::string prefix = (fs::path(path) / name).string();
  // The previous bundle stays until the next save, as tf.train.Saver keeps
  // its last max_to_keep: a reader that has just looked up the latest still
  // finds its files.
  std::vector<std::string> kept = {name};
  if (!previous.empty() && is_bundle_prefix((fs::path(path) / previous).string())) kept.insert(kept.begin(), previous);

  write_bundle(prefix, tensors);
  for (const std::string& file : {bundle_data_path(prefix, 0, 1), bundle_index_path(prefix)}) {
    make_owner_only(file, 0600);
    fsync_path(file, false);
  }
  fsync_path(path, true);
  write_state_file(path, name, kept);
  remove_old_bundles(path, kept);
}

Checkpoint read_checkpoint(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) refuse_legacy_checkpoint(path);
  Checkpoint ckpt;
  const BundleReader reader(resolve_checkpoint_prefix(path));
  ckpt.source = reader.prefix();
  for (const CheckpointEntry& entry : reader.entries()) {
    Tensor value = reader.read(entry.name);
    if (entry.name != kGlobalStepKey) {
      ckpt.variables.emplace(entry.name, std::move(value));
      continue;
    }
    if (value.shape().rank() != 0 || (value.dtype() != DType::Int64 && value.dtype() != DType::Int32))
      throw ParseError(bundle_index_path(ckpt.source), 0, 0,
                       "'" + std::string(kGlobalStepKey) + "' is " + dtype_name(value.dtype()) + " " +
                           value.shape().to_string() + "; expected the global step, an int64 or int32 scalar");
    ckpt.global_step = value.dtype() == DType::Int64 ? value.data<int64_t>()[0] : value.data<int32_t>()[0];
  }
  return ckpt;
}

CheckpointMatch match_checkpoint(const Checkpoint& checkpoint, const std::string& partition,
                                 const std::vector<std::string>& variables) {
  CheckpointMatch match;
  const std::string source =
      checkpoint.source.empty() ? std::string("the checkpoint") : "checkpoint " + bundle_index_path(checkpoint.source);
  auto name_list = [](const std::vector<std::string>& names) {
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < 10; ++i) text += (i ? ", '" : "'") + names[i] + "'";
    if (names.size() > 10) text += " and " + std::to_string(names.size() - 10) + " more";
    return text;
  };
  const Graph graph = parse_graph_binary(partition, "the registered partition");
  std::vector<std::string> missing;
  for (const std::string& name : variables) {
    const int index = graph.index_of(name);
    if (index < 0) throw Error("the registered partition has no node '" + name + "'");
    const Node& node = graph.nodes()[static_cast<std::size_t>(index)];
    const DType dtype = dtype_base(node.attr_type("dtype", DType::Invalid));
    Shape declared = Shape::unknown_rank();
    if (const AttrValue* shape = node.find_attr("shape"))
      if (const Shape* s = shape->get_if<Shape>()) declared = *s;
    Tensor value;
    if (auto it = checkpoint.variables.find(name); it != checkpoint.variables.end()) {
      value = it->second;
    } else if (name == kGlobalStepKey && !checkpoint.source.empty()) {
      // The graph's global step is the checkpoint's, in the variable's dtype.
      if (dtype == DType::Int32) value = Tensor::scalar<int32_t>(static_cast<int32_t>(checkpoint.global_step));
      else value = Tensor::scalar<int64_t>(checkpoint.global_step);
    } else {
      missing.push_back(name);
      continue;
    }
    if (const std::string problem = feed_mismatch(dtype, declared, value); !problem.empty())
      throw Error(source + ": variable '" + name + "' does not fit the graph's: " + problem +
                  " (a checkpoint of another graph? move it away or train the graph that wrote it)");
    match.values.emplace(name, std::move(value));
  }
  if (!missing.empty() && !checkpoint.variables.empty())
    throw Error(source + " has no " + name_list(missing) + " of the " + std::to_string(variables.size()) +
                " variable(s) this ps runs (a checkpoint of another graph, or of another number of ps tasks? move it "
                "away or train the graph that wrote it)");
  if (!missing.empty() && !checkpoint.source.empty())
    match.notes.push_back(source + " holds no variables (saved before the chief initialized them); the chief "
                                   "initializes them");
  std::vector<std::string> unused;
  for (const auto& [name, value] : checkpoint.variables)
    if (!std::count(variables.begin(), variables.end(), name)) unused.push_back(name);
  if (!unused.empty())
    match.notes.push_back(source + ": " + name_list(unused) + " not in the registered partition; not restored");
  return match;
}

}  // namespace flowlens::dist
