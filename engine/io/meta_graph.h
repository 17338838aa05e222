#pragma once
// MetaGraphDefs (tf.train.Saver's .meta files, TensorFlow Serving's session
// bundles) and SavedModels (a directory with saved_model.pb or .pbtxt and
// variables/variables.{index,data-*}), read into what FlowLens needs from
// them: the graph, the Saver's restore wiring, the SignatureDefs, the
// collections and the asset files. Fields FlowLens does not interpret are
// skipped, never an error. Failures throw ParseError naming the file and,
// for a bad graph, the meta graph it is in.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "tensor/shape.h"

namespace flowlens {

// A SignatureDef's TensorInfo: the key a caller uses and the graph tensor it
// stands for. Sparse tensors name three tensors; composite ones none.
struct SignatureTensor {
  std::string key;
  std::string tensor_name;  // "x:0"; empty for sparse/composite encodings
  std::string encoding;     // "name", "coo_sparse" or "composite"
  DType dtype = DType::Invalid;
  Shape shape = Shape::unknown_rank();
};

struct Signature {
  std::string key;          // "serving_default", "regress_x_to_y" ...
  std::string method_name;  // "tensorflow/serving/predict" ...
  std::vector<SignatureTensor> inputs;   // sorted by key
  std::vector<SignatureTensor> outputs;  // sorted by key
  const SignatureTensor* input(const std::string& key) const;
  const SignatureTensor* output(const std::string& key) const;
};

// SaverDef: how the graph restores itself (feed the checkpoint prefix into
// filename_tensor, run restore_op).
struct SaverInfo {
  std::string filename_tensor;  // "save/Const:0"
  std::string save_tensor;      // "save/control_dependency:0"
  std::string restore_op;       // "save/restore_all"
  int version = 0;              // 0 legacy, 1 V1, 2 V2
  bool sharded = false;
  int max_to_keep = 0;
};

struct Collection {
  std::string name;   // "variables", "trainable_variables", "train_op" ...
  std::string kind;   // "node_list", "bytes_list", "int64_list", "float_list", "any_list"
  std::vector<std::string> values;  // names, numbers as text, bytes/Any as a summary
};

// One tf.train.QueueRunner as its QueueRunnerDef records it (the meta
// graph's "queue_runners" collection): threads that run the enqueue ops into
// the queue until their input is exhausted.
struct QueueRunnerDef {
  std::string queue_name;  // the queue node ("input_producer")
  std::vector<std::string> enqueue_op_names;
  std::string close_op_name;   // run when the last enqueue thread hits OutOfRange
  std::string cancel_op_name;  // run to stop (close with cancel_pending_enqueues)
  std::vector<int> queue_closed_exception_types;  // TF error codes; empty: OUT_OF_RANGE (11)
};

struct AssetFile {
  std::string tensor_name;
  std::string filename;
};

struct MetaGraph {
  std::vector<std::string> tags;
  std::string tensorflow_version;
  std::string meta_graph_version;
  Graph graph;
  std::optional<SaverInfo> saver;
  std::vector<Signature> signatures;     // sorted by key
  std::vector<Collection> collections;   // sorted by name
  std::vector<AssetFile> assets;
  // The "queue_runners" collection, parsed (collections keeps its summary).
  std::vector<QueueRunnerDef> queue_runners;
  bool has_object_graph = false;  // a TF2 SavedModel (functions and tf.Module objects)

  const Signature* find_signature(const std::string& key) const;
  const Collection* find_collection(const std::string& name) const;
  // "serve" or "serve, gpu"; "(no tags)" when empty.
  std::string tags_text() const;
};

struct SavedModel {
  std::string directory;  // holding the model file and variables/
  std::string file;       // saved_model.pb or saved_model.pbtxt
  int64_t schema_version = 0;
  std::vector<MetaGraph> meta_graphs;

  // The meta graph whose tag set equals `tags` (order ignored). Throws Error
  // listing the tag sets the model has when none matches.
  const MetaGraph& meta_graph_for(const std::vector<std::string>& tags) const;
  // What opening the model shows: the meta graph tagged exactly {serve}
  // (TensorFlow Serving's choice), else the first.
  const MetaGraph& default_meta_graph() const;
  // DIR/variables/variables — the checkpoint prefix TensorFlow's loader restores.
  std::string variables_prefix() const;
};

// A SavedModel directory's layout (TensorFlow's saved_model/constants.h),
// named here and nowhere else: the model file, binary or text, and the
// variables' checkpoint prefix.
inline constexpr const char* kSavedModelFileNames[] = {"saved_model.pb", "saved_model.pbtxt"};
// True when the file name of `path` is one of kSavedModelFileNames.
bool is_saved_model_file_name(const std::string& path);
// DIR/variables/variables: the checkpoint prefix TensorFlow's loader restores.
std::string saved_model_variables_prefix(const std::string& dir);

// `path` is the directory or its saved_model.pb/.pbtxt. Throws Error when the
// directory holds neither, ParseError for bad content.
SavedModel load_saved_model(const std::string& path);
SavedModel parse_saved_model(std::string_view bytes, bool text, const std::string& source);
// A saved_model.pb(txt) already read: text when named .pbtxt or printable.
SavedModel parse_saved_model_file(std::string_view bytes, const std::string& file);

// A .meta file (binary, or text when it is printable).
MetaGraph load_meta_graph(const std::string& path);
MetaGraph parse_meta_graph(std::string_view bytes, bool text, const std::string& source);

// Content sniffing for the format registry. A binary SavedModel starts with
// its schema version (field 1, varint), which no GraphDef or MetaGraphDef
// has; a MetaGraphDef is told from a GraphDef by its top-level fields
// (saver_def, signature_def, asset files, a single meta_info_def).
bool looks_like_saved_model(std::string_view bytes);
bool looks_like_meta_graph(std::string_view bytes);
// The first field name of a text proto ("meta_info_def", "node" ...), or "".
std::string first_text_field(std::string_view text);

// The .meta file `path` stands for: itself, or for a training directory the
// latest checkpoint's PREFIX.meta. Throws Error naming what is missing.
std::string meta_graph_file_for(const std::string& path);
// The .meta a directory stands for: export.meta (a session bundle), the latest
// checkpoint's PREFIX.meta, or its only .meta file; "" when none.
std::string meta_graph_file_in(const std::string& dir);

// The kSavedModelFileNames file inside `dir`, or "" when it has neither.
std::string saved_model_file_in(const std::string& dir);

}  // namespace flowlens
