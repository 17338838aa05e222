#include "io/file_formats.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "io/event_log.h"
#include "io/meta_graph.h"
#include "io/proto_sniff.h"
#include "io/tensor_bundle.h"

namespace flowlens {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_event_file_name(const std::string& path) { return has_event_file_name(path); }

// ".data-00000-of-00001"
bool is_checkpoint_data_name(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  const auto at = name.rfind(".data-");
  return at != std::string::npos && name.size() - at == 20 && name.compare(at + 11, 4, "-of-") == 0;
}

bool directory_has_event_files(const fs::path& dir, int depth) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && is_event_file_name(it->path().string())) return true;
    if (depth > 0 && it->is_directory(ec) && directory_has_event_files(it->path(), depth - 1)) return true;
  }
  return false;
}

// What text sniffing reads: looks_like_text looks at the first 64 KiB, and
// the text checks at the first word.
constexpr std::size_t kTextSniffBytes = 64 * 1024;


// Enough of a file to sniff: protobuf detection walks the top-level fields,
// which needs the whole message for binary files (fields are skipped, not
// parsed, so this is a read, not a decode). Text needs only its start: a file
// whose first 64 KiB are text and hold a word is not read further (a 70 MB
// GraphDef text would otherwise be read twice, once here and once to parse).
std::string read_for_sniffing(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw Error("cannot read '" + path + "': " + ec.message());
  if (size > static_cast<std::uintmax_t>(INT32_MAX))
    throw ParseError(path, 0, 0, "file is larger than 2 GiB, the most a protobuf message can hold");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "'");
  const auto read_up_to = [&](std::string* bytes, std::size_t n) {
    const std::size_t had = bytes->size();
    bytes->resize(had + n);
    in.read(bytes->data() + had, static_cast<std::streamsize>(n));
    bytes->resize(had + static_cast<std::size_t>(in.gcount()));
  };
  std::string bytes;
  const std::size_t head = std::min<std::size_t>(static_cast<std::size_t>(size), kTextSniffBytes + 1);
  read_up_to(&bytes, head);
  // The first word must end inside the head, or the rest may lengthen it.
  if (bytes.size() < static_cast<std::size_t>(size) && io_detail::looks_like_text(bytes)) {
    const std::string first = io_detail::first_text_word(bytes);
    if (!first.empty() && io_detail::find_first_text_word(bytes).end < bytes.size()) return bytes;
  }
  read_up_to(&bytes, static_cast<std::size_t>(size) - bytes.size());
  return bytes;
}

bool looks_like_onnx(std::string_view bytes) {
  // ModelProto: ir_version (1, varint) and graph (7, message); a GraphDef or
  // MetaGraphDef never has a varint field 1.
  std::map<std::pair<int, int>, int> fields;
  return io_detail::top_level_fields(bytes, &fields) && fields.count({1, 0}) && fields.count({7, 2});
}

// LevelDB's table footer ends in this magic (table/format.h); TensorFlow's
// checkpoint tables (V1 files, V2 .index) share the format.
bool ends_with_table_magic(std::string_view bytes) {
  static constexpr unsigned char kMagic[8] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};
  return bytes.size() >= 48 && std::memcmp(bytes.data() + bytes.size() - 8, kMagic, 8) == 0;
}

std::string join_patterns(const FormatSpec& spec) {
  std::string out;
  for (const auto& p : spec.patterns) out += (out.empty() ? "" : " ") + p;
  return out;
}

bool glob_match(std::string_view pattern, std::string_view name) {
  // '*' only, as the patterns use.
  if (pattern.empty()) return name.empty();
  if (pattern.front() == '*') {
    for (std::size_t k = 0; k <= name.size(); ++k)
      if (glob_match(pattern.substr(1), name.substr(k))) return true;
    return false;
  }
  return !name.empty() && std::tolower(static_cast<unsigned char>(pattern.front())) ==
                              std::tolower(static_cast<unsigned char>(name.front())) &&
         glob_match(pattern.substr(1), name.substr(1));
}

}  // namespace

std::string lower_extension(const std::string& path) { return lower(fs::path(path).extension().string()); }

const std::vector<FormatSpec>& file_formats() {
  static const std::vector<FormatSpec> formats = {
      {FileFormat::SavedModel, "SavedModel", "TensorFlow SavedModel: a directory with saved_model.pb(txt) and variables/",
       {"saved_model.pb", "saved_model.pbtxt"}, true, true, false},
      {FileFormat::GraphDefText, "GraphDef text", "TensorFlow GraphDef in protobuf text format",
       {"*.pbtxt", "*.pbtext", "*.prototxt", "*.txt"}, false, true, true},
      {FileFormat::GraphDefBinary, "GraphDef binary", "TensorFlow GraphDef, binary (frozen graphs)",
       {"*.pb", "*.graphdef"}, false, true, true},
      {FileFormat::MetaGraph, "MetaGraph", "tf.train.Saver's MetaGraphDef (model.ckpt.meta, session bundles' export.meta)",
       {"*.meta"}, false, true, false},
      {FileFormat::Checkpoint, "Checkpoint",
       "TensorFlow checkpoint: V2 (PREFIX.index with PREFIX.data-* shards) or V1 (a tensor-slice table)",
       {"*.index", "checkpoint", "*.ckpt"}, true, false, false},
      {FileFormat::EventLog, "TensorBoard log", "TensorBoard event files (events.out.tfevents.*) or a log directory",
       {"events.out.tfevents.*"}, true, true, false},
      {FileFormat::Onnx, "ONNX", "ONNX model", {"*.onnx"}, false, true, false},
      {FileFormat::Dot, "Graphviz DOT", "Graphviz DOT (view only: no attrs, nothing runs)", {"*.dot", "*.gv"}, false,
       true, true},
  };
  return formats;
}

const FormatSpec& format_spec(FileFormat format) {
  for (const FormatSpec& spec : file_formats())
    if (spec.format == format) return spec;
  throw Error("unknown file format");
}

FileFormat detect_file_format(std::string_view bytes, const std::string& name) {
  const std::string ext = lower_extension(name);
  const std::string file_name = fs::path(name).filename().string();
  if (is_event_file_name(name)) return FileFormat::EventLog;
  if (ext == ".onnx") return FileFormat::Onnx;
  if (ext == ".dot" || ext == ".gv") return FileFormat::Dot;
  if (ext == ".index" || is_checkpoint_data_name(name)) return FileFormat::Checkpoint;
  const bool text = io_detail::looks_like_text(bytes);
  const bool text_name = ext == ".pbtxt" || ext == ".pbtext" || ext == ".prototxt" || ext == ".txt";
  const bool binary_name = ext == ".pb" || ext == ".graphdef" || ext == ".meta";
  if (text) {
    const std::string first = io_detail::first_text_word(bytes);
    if (first == "saved_model_schema_version" || first == "meta_graphs") return FileFormat::SavedModel;
    if (looks_like_meta_graph(bytes)) return FileFormat::MetaGraph;
    if (!text_name && !binary_name && (first == "digraph" || first == "graph" || first == "strict"))
      return FileFormat::Dot;
    // A text file named .pb is a GraphDef the binary reader will say is text.
    return ext == ".pb" || ext == ".graphdef" ? FileFormat::GraphDefBinary : FileFormat::GraphDefText;
  }
  // Binary bytes named .pbtxt: the text reader explains that it is binary.
  if (text_name) return FileFormat::GraphDefText;
  if (starts_with_event_record(bytes)) return FileFormat::EventLog;
  if (ends_with_table_magic(bytes)) return FileFormat::Checkpoint;  // a V1 checkpoint file
  if (looks_like_saved_model(bytes)) return FileFormat::SavedModel;
  if (looks_like_meta_graph(bytes)) return FileFormat::MetaGraph;
  if (looks_like_onnx(bytes)) return FileFormat::Onnx;
  // Bytes that sniff as nothing: trust a telling name, else GraphDef (whose
  // reader then says what is wrong with them).
  if (file_name == "saved_model.pb") return FileFormat::SavedModel;
  if (ext == ".meta") return FileFormat::MetaGraph;
  return FileFormat::GraphDefBinary;
}

FileFormat detect_file_format(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) {
    if (!saved_model_file_in(path).empty()) return FileFormat::SavedModel;
    if (!meta_graph_file_in(path).empty()) return FileFormat::MetaGraph;
    if (directory_has_event_files(path, 2)) return FileFormat::EventLog;
    if (fs::is_regular_file(fs::path(path) / "checkpoint", ec)) return FileFormat::Checkpoint;
    throw Error("'" + path + "' is a directory but holds no model FlowLens can open: expected a SavedModel "
                "(saved_model.pb), a training directory (a 'checkpoint' file or a .meta), a session bundle "
                "(export.meta), or TensorBoard logs (events.out.tfevents.*)");
  }
  if (!fs::exists(status)) {
    if (is_bundle_prefix(path)) return FileFormat::Checkpoint;  // a prefix names no file itself
    throw Error("cannot open '" + path + "': No such file or directory");
  }
  if (fs::path(path).filename() == "checkpoint") return FileFormat::Checkpoint;
  if (is_event_file_name(path)) return FileFormat::EventLog;
  const std::string ext = lower_extension(path);
  if (ext == ".index" || is_checkpoint_data_name(path)) return FileFormat::Checkpoint;
  if (ext == ".onnx") return FileFormat::Onnx;
  if (ext == ".dot" || ext == ".gv") return FileFormat::Dot;
  return detect_file_format(read_for_sniffing(path), path);
}

std::string open_dialog_filter() {
  std::string all;
  std::string each;
  for (const FormatSpec& spec : file_formats()) {
    all += (all.empty() ? "" : " ") + join_patterns(spec);
    each += ";;" + std::string(spec.name) + " (" + join_patterns(spec) + ")";
  }
  return "All FlowLens files (" + all + ")" + each + ";;All files (*)";
}

std::string formats_help() {
  std::string out;
  for (const FormatSpec& spec : file_formats()) {
    std::string line = "  " + std::string(spec.name);
    line.resize(std::max<std::size_t>(line.size() + 1, 20), ' ');
    out += line + join_patterns(spec) + (spec.is_directory ? " (or a directory)" : "") + " - " + spec.description + "\n";
  }
  return out;
}

bool has_known_file_name(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  for (const FormatSpec& spec : file_formats())
    for (const std::string& pattern : spec.patterns)
      if (glob_match(pattern, name)) return true;
  return is_checkpoint_data_name(path);
}

}  // namespace flowlens
