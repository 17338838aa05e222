#pragma once
// The one list of file formats FlowLens knows. Dispatch (load_graph, the
// CLI's info), the CLI's --help, the GUI's Open dialog filter, drag and drop
// and recent files all read it, so a format is added in one place.
//
// Detection looks at content first: a directory by what it holds, a file by
// its bytes (a saved_model.pb, a .meta and a frozen .pb are all ".pb" files
// and all binary protobuf), and the extension only decides between formats
// whose bytes cannot be told apart.
#include <string>
#include <string_view>
#include <vector>

namespace flowlens {

enum class FileFormat {
  GraphDefText,    // .pbtxt: a GraphDef in protobuf text format
  GraphDefBinary,  // .pb: a binary GraphDef (a frozen graph)
  Onnx,            // .onnx
  Dot,             // .dot/.gv: Graphviz, view only
  SavedModel,      // a directory with saved_model.pb(txt), or that file
  MetaGraph,       // .meta: tf.train.Saver's MetaGraphDef, or a session bundle's export.meta
  Checkpoint,      // PREFIX.index + PREFIX.data-*: a V2 checkpoint (values, no graph)
  EventLog,        // events.out.tfevents.*: TensorBoard logs, or a log directory
};

struct FormatSpec {
  FileFormat format;
  const char* name;         // "SavedModel"
  const char* description;  // one line for --help and the Open dialog
  std::vector<std::string> patterns;  // glob patterns for file dialogs: "*.pbtxt", "saved_model.pb"
  bool is_directory;        // can be opened as a directory
  bool has_graph;           // opening it shows a graph
  bool writable;            // save_graph writes it
};

// In the order dialogs list them.
const std::vector<FormatSpec>& file_formats();
// ".pbtxt" for "Model.PBTXT": the extension, lower-cased ("" when none).
std::string lower_extension(const std::string& path);
const FormatSpec& format_spec(FileFormat format);

// What `path` holds. Throws Error naming the path when it does not exist or
// is none of the formats (a directory with no model, logs or checkpoint).
FileFormat detect_file_format(const std::string& path);
// The same for bytes already read (files only; `name` supplies the extension).
FileFormat detect_file_format(std::string_view bytes, const std::string& name);

// "All FlowLens files (*.pbtxt *.pb ...);;GraphDef text (*.pbtxt ...);;...;;All files (*)"
std::string open_dialog_filter();
// One line per format, for --help texts.
std::string formats_help();
// True when the name matches a format's pattern (for drop targets that only
// see names): "*.pbtxt", "saved_model.pb", "events.out.tfevents.*".
bool has_known_file_name(const std::string& path);

}  // namespace flowlens
