#include "io/checkpoint_reader.h"

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "io/tensor_bundle.h"
#include "io/tensor_slice_checkpoint.h"

namespace flowlens {

const CheckpointEntry* CheckpointReader::find(const std::string& name) const {
  const auto& all = entries();
  auto it = std::lower_bound(all.begin(), all.end(), name,
                             [](const CheckpointEntry& e, const std::string& n) { return e.name < n; });
  return it != all.end() && it->name == name ? &*it : nullptr;
}

std::unique_ptr<CheckpointReader> open_checkpoint(const std::string& path) {
  std::string v2_problem;
  try {
    return std::make_unique<BundleReader>(resolve_checkpoint_prefix(path));
  } catch (const ParseError&) {
    throw;  // a V2 index that is corrupt: that is the answer
  } catch (const Error& e) {
    v2_problem = e.what();
  }
  // V1: a single file ("model.ckpt") or a pattern of shards.
  const std::vector<std::string> files = match_checkpoint_files(path);
  if (!files.empty() && is_tensor_slice_file(files.front())) return std::make_unique<TensorSliceReader>(path);
  if (!files.empty())
    throw Error("'" + path + "' is not a TensorFlow checkpoint: neither a V2 prefix (" + v2_problem +
                ") nor a V1 checkpoint file");
  throw Error(v2_problem + "; nor does a V1 checkpoint file match '" + path + "'");
}

std::string checkpoint_for_meta_graph(const std::string& meta_file) {
  namespace fs = std::filesystem;
  const fs::path meta_path(meta_file);
  const std::string sibling = (meta_path.parent_path() / meta_path.stem()).string();
  const std::string shards = sibling + "-?????" "-of-?????";  // split: "??-" would be a trigraph
  std::error_code ec;
  if (is_bundle_prefix(sibling) || fs::is_regular_file(sibling, ec)) return sibling;
  if (!match_checkpoint_files(shards).empty()) return shards;
  const std::string dir = meta_path.parent_path().empty() ? "." : meta_path.parent_path().string();
  if (std::string latest = latest_checkpoint(dir); !latest.empty()) return latest;
  throw Error("no checkpoint for '" + meta_file + "': neither '" + bundle_index_path(sibling) + "', '" + sibling +
              "' (V1) nor '" + shards + "' nor a 'checkpoint' state file in '" + dir + "' exists");
}

}  // namespace flowlens
