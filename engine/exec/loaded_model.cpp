#include "exec/loaded_model.h"

#include <filesystem>

#include "io/checkpoint_reader.h"
#include "io/tensor_bundle.h"
#include "io/tensor_slice_checkpoint.h"

namespace flowlens {
namespace {

namespace fs = std::filesystem;

// TensorFlow's names for the op a SavedModel runs after restoring
// (saved_model/constants.h): the signature TF 1.15+ writes, then the
// collections older versions used.
constexpr const char* kInitOpSignature = "__saved_model_init_op";
constexpr const char* kMainOpCollection = "saved_model_main_op";
constexpr const char* kLegacyInitOpCollection = "legacy_init_op";

bool is_saved_model_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return !saved_model_file_in(path).empty();
  return is_saved_model_file_name(path);
}

std::string key_list(const std::vector<SignatureTensor>& tensors) {
  std::string out;
  for (const auto& t : tensors) out += (out.empty() ? "" : ", ") + t.key;
  return out.empty() ? "(none)" : out;
}

std::string node_of(const std::string& tensor_name) {
  const auto id = TensorId::parse(tensor_name);
  return id ? id->node : tensor_name;
}

}  // namespace

LoadedModel::LoadedModel(LoadedModel&&) noexcept = default;
LoadedModel& LoadedModel::operator=(LoadedModel&&) noexcept = default;
LoadedModel::~LoadedModel() = default;

LoadedModel LoadedModel::load(const std::string& path, const ModelLoadOptions& options) {
  if (is_saved_model_path(path)) {
    SavedModel model = load_saved_model(path);
    // TensorFlow requires the exact tag set; when the user asked for nothing
    // in particular and the model has one meta graph, that one is meant.
    const bool default_tags = options.tags == ModelLoadOptions{}.tags;
    const MetaGraph* chosen = nullptr;
    try {
      chosen = &model.meta_graph_for(options.tags);
    } catch (const Error&) {
      if (!default_tags || model.meta_graphs.size() != 1) throw;
      chosen = &model.meta_graphs.front();
    }
    return LoadedModel(*chosen, model.directory, options);
  }
  const std::string meta_file = meta_graph_file_for(path);  // a training directory names its latest
  MetaGraph meta = load_meta_graph(meta_file);
  ModelLoadOptions with_checkpoint = options;
  if (with_checkpoint.checkpoint.empty()) {
    try {
      with_checkpoint.checkpoint = checkpoint_for_meta_graph(meta_file);
    } catch (const ParseError&) {
      throw;
    } catch (const Error& e) {
      // A meta graph without a Saver has nothing to restore.
      if (meta.saver) throw Error(std::string(e.what()) + "; name one with --checkpoint PREFIX");
    }
  }
  // A .meta has no export directory; "" keeps variables_prefix() unused.
  return LoadedModel(std::move(meta), "", with_checkpoint);
}

LoadedModel::LoadedModel(MetaGraph meta_graph, std::string export_dir, const ModelLoadOptions& options)
    : meta_graph_(std::make_unique<MetaGraph>(std::move(meta_graph))) {
  // A TF2 SavedModel restores and serves through its function library
  // (StatefulPartitionedCall): the Session runs those calls.
  session_ = std::make_unique<Session>(meta_graph_->graph, options.session);
  const FeedList assets = export_dir.empty() ? FeedList{} : asset_feeds(export_dir);
  // Opening it first checks the name and reports a missing or corrupt
  // checkpoint before any op runs; the graph's restore op then reads it.
  std::string prefix;
  if (!options.checkpoint.empty()) prefix = open_checkpoint(options.checkpoint)->prefix();
  if (prefix.empty() && !export_dir.empty()) {
    const std::string variables = saved_model_variables_prefix(export_dir);
    if (is_bundle_prefix(variables)) {
      prefix = variables;
    } else if (meta_graph_->saver) {
      // TensorFlow's loader skips restoring when the index is absent; a saver
      // with nothing to restore from is almost always a copy that lost its
      // variables folder, so FlowLens says so instead of running on garbage.
      throw Error("SavedModel '" + export_dir + "' has a Saver but no variables: '" + bundle_index_path(variables) +
                  "' does not exist (was the variables/ folder copied?)");
    }
  }
  if (!prefix.empty()) restore(prefix, assets);
  run_init_op(assets);
}

FeedList LoadedModel::asset_feeds(const std::string& export_dir) const {
  FeedList feeds;
  for (const AssetFile& asset : meta_graph_->assets) {
    if (asset.tensor_name.empty()) continue;
    const std::string file = (fs::path(export_dir) / "assets" / asset.filename).string();
    feeds.emplace_back(asset.tensor_name, Tensor::from_strings(Shape{}, {file}));
  }
  return feeds;
}

void LoadedModel::restore(const std::string& prefix, const FeedList& asset_feeds) {
  if (!meta_graph_->saver)
    throw Error("cannot restore '" + prefix + "': the meta graph has no SaverDef naming its restore op");
  const SaverInfo& saver = *meta_graph_->saver;
  if (!session_->graph().find(node_of(saver.restore_op)))
    throw Error("cannot restore: the SaverDef's restore op '" + saver.restore_op + "' is not in the graph");
  FeedList feeds = asset_feeds;
  feeds.emplace_back(saver.filename_tensor, Tensor::from_strings(Shape{}, {prefix}));
  try {
    session_->run(feeds, {}, {node_of(saver.restore_op)});
  } catch (const Error& e) {
    throw Error("restoring variables from '" + prefix + "' failed: " + e.what());
  }
  restored_from_ = prefix;
  const auto reader = open_checkpoint(prefix);
  notes_.push_back("restored " + std::to_string(reader->entries().size()) + " tensor(s) from " + prefix + " (" +
                   reader->format_name() + ")");
}

void LoadedModel::run_init_op(const FeedList& asset_feeds) {
  std::string init_node;
  if (const Signature* sig = meta_graph_->find_signature(kInitOpSignature); sig && !sig->outputs.empty()) {
    init_node = node_of(sig->outputs.front().tensor_name);
  } else {
    for (const char* name : {kMainOpCollection, kLegacyInitOpCollection})
      if (const Collection* c = meta_graph_->find_collection(name); c && c->kind == "node_list" && !c->values.empty()) {
        init_node = node_of(c->values.front());
        break;
      }
  }
  if (init_node.empty()) return;
  try {
    session_->run(asset_feeds, {}, {init_node});
  } catch (const Error& e) {
    throw Error("the SavedModel's init op '" + init_node + "' failed: " + e.what());
  }
  notes_.push_back("ran init op " + init_node);
}

const Signature& LoadedModel::signature(const std::string& key) const {
  if (const Signature* s = meta_graph_->find_signature(key)) return *s;
  std::string keys;
  for (const auto& s : meta_graph_->signatures)
    if (s.key != kInitOpSignature) keys += (keys.empty() ? "" : ", ") + s.key;
  throw Error("no signature '" + key + "' in the model; it has " + (keys.empty() ? std::string("none") : keys));
}

std::map<std::string, Tensor> LoadedModel::run_signature(const std::string& key,
                                                         const std::map<std::string, Tensor>& inputs,
                                                         const std::vector<std::string>& output_keys) {
  const Signature& sig = signature(key);
  FeedList feeds;
  for (const auto& [input_key, value] : inputs) {
    const SignatureTensor* in = sig.input(input_key);
    if (!in)
      throw Error("signature '" + key + "' has no input '" + input_key + "'; its inputs are " + key_list(sig.inputs));
    if (in->encoding != "name")
      throw Error("signature '" + key + "' input '" + input_key + "' is a " + in->encoding +
                  " tensor; only dense inputs can be fed");
    if (in->dtype != DType::Invalid && value.dtype() != in->dtype)
      throw Error("signature '" + key + "' input '" + input_key + "' expects " + dtype_name(in->dtype) + ", got " +
                  dtype_name(value.dtype()));
    if (in->shape.rank_known() && value.shape().rank() != in->shape.rank())
      throw Error("signature '" + key + "' input '" + input_key + "' expects shape " + in->shape.to_string() +
                  ", got " + value.shape().to_string());
    feeds.emplace_back(in->tensor_name, value);
  }
  for (const SignatureTensor& in : sig.inputs)
    if (!inputs.count(in.key))
      throw Error("signature '" + key + "' needs input '" + in.key + "' (" + dtype_name(in.dtype) +
                  in.shape.to_string() + "); its inputs are " + key_list(sig.inputs));
  std::vector<const SignatureTensor*> wanted;
  if (output_keys.empty()) {
    for (const SignatureTensor& out : sig.outputs) wanted.push_back(&out);
  } else {
    for (const std::string& k : output_keys) {
      const SignatureTensor* out = sig.output(k);
      if (!out)
        throw Error("signature '" + key + "' has no output '" + k + "'; its outputs are " + key_list(sig.outputs));
      wanted.push_back(out);
    }
  }
  std::vector<std::string> fetches;
  for (const SignatureTensor* out : wanted) {
    if (out->encoding != "name")
      throw Error("signature '" + key + "' output '" + out->key + "' is a " + out->encoding +
                  " tensor, which FlowLens cannot fetch");
    fetches.push_back(out->tensor_name);
  }
  const std::vector<Tensor> results = session_->run(feeds, fetches);
  std::map<std::string, Tensor> by_key;
  for (std::size_t k = 0; k < wanted.size(); ++k) by_key.emplace(wanted[k]->key, results[k]);
  return by_key;
}

}  // namespace flowlens
