// MetaGraphDef and SavedModel reading. The messages are parsed whole (they
// hold far more than the graph: signatures, collections, the saver), then each
// graph_def goes through the same GraphDef reader as a .pb file, so a node in
// a SavedModel is checked exactly like one in a frozen graph.
#include "io/meta_graph.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "io/graph_io.h"
#include "io/graphdef_reader.h"
#include "io/meta_graph.pb.h"
#include "io/proto_sniff.h"
#include "io/tensor_bundle.h"
#include "io/tensor_proto.h"

namespace flowlens {
namespace {

namespace fs = std::filesystem;
namespace gp = google::protobuf;


class CollectErrors : public gp::io::ErrorCollector {
 public:
  void AddError(int line, gp::io::ColumnNumber column, const std::string& message) override {
    if (first.empty()) {
      this->line = line + 1;
      this->column = column + 1;
      first = message;
    }
  }
  void AddWarning(int, gp::io::ColumnNumber, const std::string&) override {}
  std::string first;
  int line = 0;
  int column = 0;
};

template <class Message>
void parse_message(std::string_view bytes, bool text, const std::string& source, const char* what, Message* out) {
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
    throw ParseError(source, 0, 0, std::string(what) + " larger than protobuf's 2 GiB limit");
  if (text) {
    if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);
    gp::TextFormat::Parser parser;
    parser.AllowUnknownField(true);      // newer TensorFlow fields are skipped
    parser.AllowUnknownExtension(true);
    CollectErrors errors;
    parser.RecordErrorsTo(&errors);
    gp::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
    if (!parser.Parse(&stream, out))
      throw ParseError(source, errors.line, errors.column,
                       "not a valid " + std::string(what) + " text: " +
                           (errors.first.empty() ? std::string("parse failed") : errors.first));
    return;
  }
  if (!out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw ParseError(source, 0, 0,
                     "not a valid binary " + std::string(what) + " (truncated, corrupt, or a different message)");
}

SignatureTensor signature_tensor(const std::string& key, const proto::TensorInfo& info) {
  SignatureTensor t;
  t.key = key;
  switch (info.encoding_case()) {
    case proto::TensorInfo::kName:
      t.encoding = "name";
      t.tensor_name = info.name();
      break;
    case proto::TensorInfo::kCooSparse:
      t.encoding = "coo_sparse";
      t.tensor_name = info.coo_sparse().values_tensor_name();
      break;
    default:
      t.encoding = "composite";
      break;
  }
  if (io_detail::is_known_dtype_value(info.dtype())) t.dtype = static_cast<DType>(info.dtype());
  if (info.has_tensor_shape()) {
    try {
      t.shape = io_detail::shape_from_proto(info.tensor_shape());
    } catch (const Error&) {
      t.shape = Shape::unknown_rank();  // a display detail: a bad shape does not make the model unreadable
    }
  }
  return t;
}

std::vector<SignatureTensor> signature_tensors(const gp::Map<std::string, proto::TensorInfo>& map) {
  std::vector<SignatureTensor> out;
  for (const auto& [key, info] : map) out.push_back(signature_tensor(key, info));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

// The "queue_runners" collection: serialized QueueRunnerDefs in a bytes_list.
std::vector<QueueRunnerDef> queue_runner_defs(const proto::MetaGraphDef& def, const std::string& where) {
  std::vector<QueueRunnerDef> out;
  const auto found = def.collection_def().find("queue_runners");
  if (found == def.collection_def().end()) return out;
  if (!found->second.has_bytes_list())
    throw Error(where + "collection 'queue_runners' should be a bytes_list of QueueRunnerDefs");
  for (const std::string& bytes : found->second.bytes_list().value()) {
    proto::QueueRunnerDef q;
    if (!q.ParseFromString(bytes))
      throw Error(where + "collection 'queue_runners': entry " + std::to_string(out.size()) +
                  " is not a QueueRunnerDef");
    QueueRunnerDef r;
    r.queue_name = q.queue_name();
    r.enqueue_op_names.assign(q.enqueue_op_name().begin(), q.enqueue_op_name().end());
    r.close_op_name = q.close_op_name();
    r.cancel_op_name = q.cancel_op_name();
    r.queue_closed_exception_types.assign(q.queue_closed_exception_types().begin(),
                                          q.queue_closed_exception_types().end());
    out.push_back(std::move(r));
  }
  return out;
}

std::string printable_or_size(const std::string& bytes) {
  const bool printable = std::all_of(bytes.begin(), bytes.end(), [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
  if (printable && bytes.size() <= 200) return bytes;
  return "<" + std::to_string(bytes.size()) + " bytes>";
}

Collection collection(const std::string& name, const proto::CollectionDef& def) {
  Collection c;
  c.name = name;
  switch (def.kind_case()) {
    case proto::CollectionDef::kNodeList:
      c.kind = "node_list";
      c.values.assign(def.node_list().value().begin(), def.node_list().value().end());
      break;
    case proto::CollectionDef::kBytesList:
      c.kind = "bytes_list";
      for (const std::string& b : def.bytes_list().value()) c.values.push_back(printable_or_size(b));
      break;
    case proto::CollectionDef::kInt64List:
      c.kind = "int64_list";
      for (int64_t v : def.int64_list().value()) c.values.push_back(std::to_string(v));
      break;
    case proto::CollectionDef::kFloatList:
      c.kind = "float_list";
      for (float v : def.float_list().value()) c.values.push_back(std::to_string(v));
      break;
    case proto::CollectionDef::kAnyList:
      c.kind = "any_list";
      for (const auto& any : def.any_list().value()) c.values.push_back(any.type_url());
      break;
    default:
      c.kind = "empty";
      break;
  }
  return c;
}

// TensorFlow Serving's bundle_shim turns a session bundle's signatures into
// SignatureDefs; FlowLens does the same so both kinds run alike: the default
// regression/classification signature becomes "serving_default" (inputs
// "inputs"; outputs "outputs", or "classes" and "scores"), the generic
// "inputs"/"outputs" pair becomes a predict signature "predict", and any other
// named generic signature is listed under its name with its tensors as outputs.
constexpr const char* kServingSignaturesCollection = "serving_signatures";

SignatureTensor bound_tensor(const std::string& key, const std::string& tensor_name, const Graph& graph) {
  SignatureTensor t;
  t.key = key;
  t.tensor_name = tensor_name;
  t.encoding = "name";
  // The dtype and shape a Placeholder declares, when the binding names one.
  const auto id = TensorId::parse(tensor_name);
  if (const Node* n = id ? graph.find(id->node) : nullptr) {
    t.dtype = dtype_base(n->attr_type("dtype", DType::Invalid));
    if (const AttrValue* shape = n->find_attr("shape"); shape && shape->is<Shape>()) t.shape = *shape->get_if<Shape>();
  }
  return t;
}

std::optional<Signature> bundle_signature(const std::string& key, const proto::SessionBundleSignature& s,
                                          const Graph& graph) {
  Signature sig;
  sig.key = key;
  if (s.has_regression_signature()) {
    sig.method_name = "tensorflow/serving/regress";
    sig.inputs.push_back(bound_tensor("inputs", s.regression_signature().input().tensor_name(), graph));
    sig.outputs.push_back(bound_tensor("outputs", s.regression_signature().output().tensor_name(), graph));
  } else if (s.has_classification_signature()) {
    const auto& c = s.classification_signature();
    sig.method_name = "tensorflow/serving/classify";
    sig.inputs.push_back(bound_tensor("inputs", c.input().tensor_name(), graph));
    if (!c.classes().tensor_name().empty()) sig.outputs.push_back(bound_tensor("classes", c.classes().tensor_name(), graph));
    if (!c.scores().tensor_name().empty()) sig.outputs.push_back(bound_tensor("scores", c.scores().tensor_name(), graph));
  } else if (s.has_generic_signature()) {
    sig.method_name = "generic";
    for (const auto& [alias, binding] : s.generic_signature().map())
      sig.outputs.push_back(bound_tensor(alias, binding.tensor_name(), graph));
  } else {
    return std::nullopt;
  }
  std::sort(sig.outputs.begin(), sig.outputs.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return sig;
}

void add_session_bundle_signatures(const proto::MetaGraphDef& def, MetaGraph* m) {
  const auto found = def.collection_def().find(kServingSignaturesCollection);
  if (found == def.collection_def().end() || !found->second.has_any_list()) return;
  for (const auto& any : found->second.any_list().value()) {
    if (!any.type_url().ends_with("tensorflow.serving.Signatures")) continue;
    proto::SessionBundleSignatures signatures;
    if (!signatures.ParseFromString(any.value())) continue;  // a display extra: skip what does not parse
    auto add = [&](std::optional<Signature> sig) {
      if (sig && !m->find_signature(sig->key)) m->signatures.push_back(std::move(*sig));
    };
    if (signatures.has_default_signature())
      add(bundle_signature("serving_default", signatures.default_signature(), m->graph));
    const auto& named = signatures.named_signatures();
    const auto inputs = named.find("inputs");
    const auto outputs = named.find("outputs");
    if (inputs != named.end() && outputs != named.end() && inputs->second.has_generic_signature() &&
        outputs->second.has_generic_signature()) {
      Signature predict;
      predict.key = "predict";
      predict.method_name = "tensorflow/serving/predict";
      for (const auto& [alias, b] : inputs->second.generic_signature().map())
        predict.inputs.push_back(bound_tensor(alias, b.tensor_name(), m->graph));
      for (const auto& [alias, b] : outputs->second.generic_signature().map())
        predict.outputs.push_back(bound_tensor(alias, b.tensor_name(), m->graph));
      std::sort(predict.inputs.begin(), predict.inputs.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
      std::sort(predict.outputs.begin(), predict.outputs.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
      add(std::move(predict));
    }
    for (const auto& [key, sig] : named)
      if (key != "inputs" && key != "outputs") add(bundle_signature(key, sig, m->graph));
  }
  std::sort(m->signatures.begin(), m->signatures.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
}

MetaGraph meta_graph_from_proto(const proto::MetaGraphDef& def, const std::string& source, const std::string& where) {
  MetaGraph m;
  const auto& info = def.meta_info_def();
  m.tags.assign(info.tags().begin(), info.tags().end());
  m.tensorflow_version = info.tensorflow_version();
  m.meta_graph_version = info.meta_graph_version();
  if (def.has_graph_def() && (def.graph_def().node_size() > 0 || def.graph_def().has_library() ||
                              def.graph_def().has_versions())) {
    // The standard GraphDef reader checks every node as for a .pb file.
    const std::string graph_bytes = def.graph_def().SerializeAsString();
    try {
      m.graph = io_detail::read_graphdef_binary(graph_bytes, source);
    } catch (const ParseError& e) {
      throw ParseError(source, 0, 0, where + "graph_def: " + std::string(e.what()).substr(source.size() + 2));
    }
  }
  if (def.has_saver_def()) {
    const auto& s = def.saver_def();
    m.saver = SaverInfo{s.filename_tensor_name(), s.save_tensor_name(), s.restore_op_name(),
                        static_cast<int>(s.version()), s.sharded(), s.max_to_keep()};
  }
  for (const auto& [key, sig] : def.signature_def())
    m.signatures.push_back(Signature{key, sig.method_name(), signature_tensors(sig.inputs()),
                                     signature_tensors(sig.outputs())});
  std::sort(m.signatures.begin(), m.signatures.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  add_session_bundle_signatures(def, &m);
  for (const auto& [name, def_c] : def.collection_def()) m.collections.push_back(collection(name, def_c));
  m.queue_runners = queue_runner_defs(def, source + ": " + where);
  std::sort(m.collections.begin(), m.collections.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& asset : def.asset_file_def())
    m.assets.push_back(AssetFile{asset.tensor_info().name(), asset.filename()});
  m.has_object_graph = def.has_object_graph_def();
  m.graph.source_path = source;
  return m;
}

std::string read_whole_file(const std::string& path, const char* what) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error("cannot read " + std::string(what) + " '" + path + "': it is a directory");
  const auto size = fs::file_size(path, ec);
  if (ec) throw Error("cannot read " + std::string(what) + " '" + path + "': " + ec.message());
  if (size > static_cast<std::uintmax_t>(INT32_MAX))
    throw ParseError(path, 0, 0, "file is larger than 2 GiB, the most a protobuf message can hold");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + std::string(what) + " '" + path + "'");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(in.gcount()) != size) throw Error("cannot read " + std::string(what) + " '" + path + "'");
  if (bytes.empty()) throw ParseError(path, 0, 0, std::string("file is empty; expected a ") + what);
  return bytes;
}

bool is_text(std::string_view bytes) { return io_detail::looks_like_text(bytes); }

}  // namespace

const SignatureTensor* Signature::input(const std::string& key) const {
  for (const auto& t : inputs)
    if (t.key == key) return &t;
  return nullptr;
}

const SignatureTensor* Signature::output(const std::string& key) const {
  for (const auto& t : outputs)
    if (t.key == key) return &t;
  return nullptr;
}

const Signature* MetaGraph::find_signature(const std::string& key) const {
  for (const auto& s : signatures)
    if (s.key == key) return &s;
  return nullptr;
}

const Collection* MetaGraph::find_collection(const std::string& name) const {
  for (const auto& c : collections)
    if (c.name == name) return &c;
  return nullptr;
}

std::string MetaGraph::tags_text() const {
  if (tags.empty()) return "(no tags)";
  std::string out;
  for (const auto& t : tags) out += (out.empty() ? "" : ", ") + t;
  return out;
}

const MetaGraph& SavedModel::meta_graph_for(const std::vector<std::string>& wanted) const {
  std::vector<std::string> sorted_wanted = wanted;
  std::sort(sorted_wanted.begin(), sorted_wanted.end());
  sorted_wanted.erase(std::unique(sorted_wanted.begin(), sorted_wanted.end()), sorted_wanted.end());
  for (const MetaGraph& m : meta_graphs) {
    std::vector<std::string> tags = m.tags;
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    if (tags == sorted_wanted) return m;
  }
  std::string wanted_text;
  for (const auto& t : wanted) wanted_text += (wanted_text.empty() ? "" : ", ") + t;
  std::string available;
  for (const MetaGraph& m : meta_graphs) available += (available.empty() ? "{" : "; {") + m.tags_text() + "}";
  throw Error("SavedModel '" + directory + "' has no meta graph tagged {" + wanted_text + "}; its tag sets are " +
              (available.empty() ? std::string("none (it holds no meta graphs)") : available));
}

const MetaGraph& SavedModel::default_meta_graph() const {
  for (const MetaGraph& m : meta_graphs)
    if (m.tags == std::vector<std::string>{"serve"}) return m;
  if (meta_graphs.empty()) throw Error("SavedModel '" + directory + "' holds no meta graphs");
  return meta_graphs.front();
}

std::string saved_model_variables_prefix(const std::string& dir) {
  return (fs::path(dir) / "variables" / "variables").string();
}

bool is_saved_model_file_name(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  for (const char* known : kSavedModelFileNames)
    if (name == known) return true;
  return false;
}

std::string SavedModel::variables_prefix() const { return saved_model_variables_prefix(directory); }

std::string meta_graph_file_in(const std::string& dir) {
  std::error_code ec;
  // A session bundle: export.meta beside its checkpoint.
  if (fs::is_regular_file(fs::path(dir) / "export.meta", ec)) return (fs::path(dir) / "export.meta").string();
  const std::string latest = latest_checkpoint(dir);
  if (!latest.empty() && fs::is_regular_file(latest + ".meta", ec)) return latest + ".meta";
  // Else the one .meta file there, if there is exactly one.
  std::string found;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".meta") continue;
    if (!found.empty()) return "";
    found = it->path().string();
  }
  return found;
}

std::string meta_graph_file_for(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  if (std::string meta = meta_graph_file_in(path); !meta.empty()) return meta;
  const std::string latest = latest_checkpoint(path);
  if (latest.empty()) throw Error("'" + path + "' has no 'checkpoint' file naming its latest checkpoint");
  const std::string meta = latest + ".meta";
  if (!fs::is_regular_file(meta, ec))
    throw Error("the latest checkpoint in '" + path + "' is '" + latest + "', but '" + meta + "' does not exist");
  return meta;
}

std::string saved_model_file_in(const std::string& dir) {
  std::error_code ec;
  for (const char* name : kSavedModelFileNames) {
    const fs::path candidate = fs::path(dir) / name;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return "";
}

SavedModel parse_saved_model(std::string_view bytes, bool text, const std::string& source) {
  proto::SavedModel def;
  parse_message(bytes, text, source, "SavedModel", &def);
  if (def.meta_graphs_size() == 0)
    throw ParseError(source, 0, 0, "the SavedModel holds no meta graphs");
  SavedModel model;
  model.file = source;
  model.directory = fs::path(source).parent_path().string();
  model.schema_version = def.saved_model_schema_version();
  for (int k = 0; k < def.meta_graphs_size(); ++k) {
    const auto& tags = def.meta_graphs(k).meta_info_def().tags();
    std::string tag_text;
    for (const auto& t : tags) tag_text += (tag_text.empty() ? "" : ",") + t;
    model.meta_graphs.push_back(meta_graph_from_proto(
        def.meta_graphs(k), source, "meta_graphs[" + std::to_string(k) + "] (tags " + tag_text + "): "));
  }
  return model;
}

SavedModel load_saved_model(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (fs::is_directory(path, ec)) {
    file = saved_model_file_in(path);
    if (file.empty())
      throw Error("'" + path + "' is not a SavedModel directory: it holds no " +
                  std::string(kSavedModelFileNames[0]) + " or " + kSavedModelFileNames[1]);
  }
  return parse_saved_model_file(read_whole_file(file, "SavedModel"), file);
}

SavedModel parse_saved_model_file(std::string_view bytes, const std::string& file) {
  if (bytes.empty()) throw ParseError(file, 0, 0, "file is empty; expected a SavedModel");
  const bool text = fs::path(file).extension() == ".pbtxt" || is_text(bytes);
  return parse_saved_model(bytes, text, file);
}

MetaGraph parse_meta_graph(std::string_view bytes, bool text, const std::string& source) {
  proto::MetaGraphDef def;
  parse_message(bytes, text, source, "MetaGraphDef", &def);
  if (!def.has_graph_def() && !def.has_meta_info_def())
    throw ParseError(source, 0, 0, "no MetaGraphDef fields found (no meta_info_def, no graph_def)");
  return meta_graph_from_proto(def, source, "");
}

MetaGraph load_meta_graph(const std::string& path) {
  const std::string bytes = read_whole_file(path, "MetaGraphDef");
  return parse_meta_graph(bytes, is_text(bytes), path);
}

std::string first_text_field(std::string_view text) { return io_detail::first_text_word(text); }

bool looks_like_saved_model(std::string_view bytes) {
  if (is_text(bytes)) {
    const std::string first = first_text_field(bytes);
    return first == "saved_model_schema_version" || first == "meta_graphs";
  }
  std::map<std::pair<int, int>, int> fields;
  if (!io_detail::top_level_fields(bytes, &fields) || fields.empty()) return false;
  // Only schema_version (1, varint) and meta_graphs (2, length-delimited),
  // and at least one meta graph.
  for (const auto& [field, count] : fields)
    if (field != std::pair{1, 0} && field != std::pair{2, 2}) return false;
  return fields.count({2, 2}) > 0;
}

bool looks_like_meta_graph(std::string_view bytes) {
  if (is_text(bytes)) {
    const std::string first = first_text_field(bytes);
    return first == "meta_info_def" || first == "graph_def" || first == "saver_def" || first == "collection_def" ||
           first == "signature_def" || first == "asset_file_def";
  }
  std::map<std::pair<int, int>, int> fields;
  if (!io_detail::top_level_fields(bytes, &fields) || fields.empty()) return false;
  // GraphDef: node (1, repeated), library (2), version (3, varint),
  // versions (4). MetaGraphDef: meta_info_def (1, once), graph_def (2),
  // saver_def (3, message), collection_def (4), signature_def (5), assets (6).
  if (fields.count({3, 0}) || fields[{1, 2}] > 1) return false;
  for (const auto& [field, count] : fields)
    if (field.second != 2 && field.first <= 6) return false;
  if (fields.count({3, 2}) || fields.count({5, 2}) || fields.count({6, 2})) return true;
  // Only fields 1, 2 and 4: a GraphDef with one node, a library and versions
  // looks the same on the wire; a MetaGraphDef's graph_def holds NodeDefs,
  // which parse as such with a non-empty op.
  if (!fields.count({2, 2})) return false;
  proto::MetaGraphDef def;
  if (!def.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return false;
  if (def.graph_def().node_size() == 0) return false;
  for (const auto& node : def.graph_def().node())
    if (node.op().empty() || node.name().empty()) return false;
  return !def.meta_info_def().tensorflow_version().empty() || !def.meta_info_def().meta_graph_version().empty() ||
         def.meta_info_def().tags_size() > 0 || def.collection_def_size() > 0;
}

}  // namespace flowlens
