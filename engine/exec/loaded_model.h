#pragma once
// A model ready to run with its trained values: a SavedModel's meta graph, or
// a .meta file with a checkpoint, in a Session whose variables were restored
// the way TensorFlow's loaders do it (saved_model/loader.cc RunRestore and
// tf.train.Saver.restore): the checkpoint prefix is fed to the SaverDef's
// filename tensor and its restore op is run, so the graph's own RestoreV2 and
// Assign ops put the values in place. A SavedModel's asset files are fed to
// their tensors, and its init op (the `__saved_model_init_op` signature, or
// the legacy main_op / legacy_init_op collections) runs afterwards.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/session.h"
#include "io/meta_graph.h"

namespace flowlens {

struct ModelLoadOptions {
  SessionOptions session;
  // A SavedModel's meta graph is chosen by these tags (TensorFlow's default).
  std::vector<std::string> tags = {"serve"};
  // A checkpoint prefix, or a directory with a `checkpoint` state file; for a
  // .meta file an empty value means the latest checkpoint beside it. For a
  // SavedModel an empty value means its variables/variables.
  std::string checkpoint;
};

class LoadedModel {
 public:
  // `path`: a SavedModel directory or its saved_model.pb/.pbtxt, or a
  // MetaGraphDef (.meta). Throws Error naming the file, the tensor and what
  // was expected when the model cannot be loaded or restored.
  static LoadedModel load(const std::string& path, const ModelLoadOptions& options = {});
  // A meta graph already read (e.g. from a SavedModel the caller holds).
  LoadedModel(MetaGraph meta_graph, std::string export_dir, const ModelLoadOptions& options);

  LoadedModel(LoadedModel&&) noexcept;
  LoadedModel& operator=(LoadedModel&&) noexcept;
  ~LoadedModel();

  const MetaGraph& meta_graph() const { return *meta_graph_; }
  Session& session() { return *session_; }
  // The checkpoint prefix the variables came from; "" when none was restored
  // (a model without variables).
  const std::string& restored_from() const { return restored_from_; }
  // What loading did, one line each ("restored 4 tensors from ...").
  const std::vector<std::string>& notes() const { return notes_; }

  // Runs a SignatureDef by its keys: every input key must be given (or have
  // a default in the signature), unknown keys are refused; the outputs come
  // back by key, all of them unless `output_keys` names some.
  std::map<std::string, Tensor> run_signature(const std::string& key, const std::map<std::string, Tensor>& inputs,
                                              const std::vector<std::string>& output_keys = {});
  // The signature, or an Error listing the ones the model has.
  const Signature& signature(const std::string& key) const;

 private:
  void restore(const std::string& prefix, const FeedList& asset_feeds);
  FeedList asset_feeds(const std::string& export_dir) const;
  void run_init_op(const FeedList& asset_feeds);

  std::unique_ptr<MetaGraph> meta_graph_;
  std::unique_ptr<Session> session_;
  std::string restored_from_;
  std::vector<std::string> notes_;
};

}  // namespace flowlens
