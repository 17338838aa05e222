#pragma once
// One handler per file format, in the shape of Netron's model factories: a
// format is one FormatHandler subclass (io/format_<name>.cpp) plus its line in
// the registry (io/file_formats.cpp). Everything that opens, saves, lists or
// describes files asks the handlers: load_graph and save_graph, the CLI's
// info/run/convert and --help, the GUI's documents, Open dialog and drops.
//
// A Probe stands for one path (or for bytes already in memory) and reads the
// file at most once: its first bytes when a handler sniffs, the rest only when
// a sniff or a loader needs the whole, appended to what was already read.
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "io/meta_graph.h"

namespace flowlens {

// A handler's identity, for callers that keep which format a file had
// (ModelSource, the Model dock); dispatch never switches on it.
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

// ".pbtxt" for "Model.PBTXT": the extension, lower-cased ("" when none).
std::string lower_extension(const std::string& path);

class Probe {
 public:
  // A path on disk: a file, a directory, or a name that exists as neither
  // (a checkpoint prefix). Nothing is read until a handler asks.
  explicit Probe(std::string path);
  // Bytes already in memory; `name` gives the file name and extension.
  Probe(std::string name, std::string bytes);
  ~Probe();
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  const std::string& path() const { return path_; }
  std::string file_name() const;  // "saved_model.pb"
  const std::string& extension() const { return extension_; }  // lower-cased, ".pbtxt"
  bool is_directory() const { return directory_; }
  bool exists() const { return exists_; }
  // True when the file name matches a glob such as "*.pbtxt" or
  // "events.out.tfevents.*" ('*' only, case-insensitively).
  bool name_matches(std::string_view pattern) const;

  // What sniffing needs. Text needs only its start: a file whose first 64 KiB
  // are text and hold a word is not read further here. Protobuf detection
  // walks the top-level fields, which needs the whole message for binary
  // files, so for them this is the whole file (read, not decoded). Throws
  // Error naming the file when it cannot be read, ParseError when it is
  // larger than protobuf's 2 GiB limit.
  std::string_view sniff_bytes();
  bool is_text();  // looks_like_text(sniff_bytes())
  // The whole file; reads only what sniff_bytes has not read yet.
  const std::string& content();
  // How many times the file was opened for reading: 0 or 1, whatever was asked.
  int opens() const { return opens_; }

 private:
  void open_for_reading();
  void read_more(std::size_t n);
  void read_to_end();

  std::string path_;
  std::string extension_;
  bool directory_ = false;
  bool exists_ = false;
  bool in_memory_ = false;
  bool complete_ = false;  // bytes_ holds the whole file
  std::uintmax_t size_ = 0;
  std::string bytes_;
  std::unique_ptr<std::ifstream> in_;
  int opens_ = 0;
};

// How sure a handler is that a probe is its format. The registry takes the
// highest; a tie goes to the handler listed first.
enum class Confidence {
  None,
  Fallback,  // what the bytes could be when nothing else claims them
  Likely,    // the name says so, and the bytes do not say otherwise
  Content,   // the bytes have this format's shape
  Certain,   // a decisive name, a directory layout, a magic number or CRC
};

class FormatHandler;

// What opening a path yields: the shown graph and, for formats that hold
// more, the rest. Callers print or show what is present without asking
// which format it was, so a new format with only a graph needs nothing there.
struct OpenedFile {
  const FormatHandler* format = nullptr;
  std::string path;
  std::optional<Graph> graph;              // formats that hold a graph and nothing more
  std::optional<SavedModel> saved_model;   // a SavedModel: every meta graph, graphs included
  std::optional<MetaGraph> meta_graph;     // a .meta's meta graph, graph included
  std::string meta_graph_file;             // the .meta file read (for a training directory, its latest)
  bool holds_checkpoint = false;           // variable values only: open_checkpoint(path)
  bool holds_event_log = false;            // TensorBoard logs: read_event_file / read_log_directory(path)
  // What the loader noticed, for the reader ("view only").
  std::vector<std::string> notes;

  // Moves out the graph a viewer shows, with source_path set to `path`:
  // `graph`, a SavedModel's default meta graph's, a meta graph's, or for
  // formats that load none up front (logs, checkpoints) the format's load,
  // which throws naming the file when there is none. Print the meta graphs
  // first: theirs is left empty.
  Graph take_graph();

 private:
  friend class FormatHandler;
  std::shared_ptr<Probe> probe_;
};

class FormatHandler {
 public:
  virtual ~FormatHandler() = default;

  virtual FileFormat format() const = 0;
  virtual const char* name() const = 0;         // "SavedModel", shown as "format: ..." and in dialogs
  virtual const char* description() const = 0;  // one line for --help and the Open dialog
  // Glob patterns for file dialogs and drops: "*.pbtxt", "saved_model.pb".
  virtual std::vector<std::string> patterns() const = 0;
  // What a directory of this format holds, for --help and the error when a
  // directory is none of them ("a SavedModel (saved_model.pb)"); "" when
  // the format is never a directory.
  virtual std::string directory_hint() const { return ""; }
  virtual bool can_save() const { return false; }
  // True when a dropped file's name alone makes it this format's: the
  // patterns by default.
  virtual bool known_name(const Probe& probe) const;

  // By name and directory layout alone: the probe is const, so nothing of the
  // file is read. Any claim here decides; match() is asked only when no
  // handler claims the path by name.
  virtual Confidence match_name(const Probe&) const { return Confidence::None; }
  // By content, for existing regular files (and bytes in memory).
  virtual Confidence match(Probe&) const { return Confidence::None; }
  // A SavedModel or a meta graph: signatures, a Saver and a checkpoint,
  // which exec/loaded_model.h loads to run; callers that run models hand
  // such paths to it instead of loading a graph.
  virtual bool is_model() const { return false; }
  // The graph, source_path set to the probe's path; throws Error/ParseError
  // naming the file.
  Graph load(Probe& probe) const;
  // The graph and what else the format holds. By default just the graph.
  virtual OpenedFile open(const std::shared_ptr<Probe>& probe) const;
  // Writes `graph` to `path`; only handlers whose can_save() is true.
  virtual void save(const Graph& graph, const std::string& path) const;

 protected:
  // What load returns, before source_path is set.
  virtual Graph read_graph(Probe& probe) const = 0;
  // An OpenedFile whose take_graph() calls load() on `probe` later.
  OpenedFile opened_without_graph(const std::shared_ptr<Probe>& probe) const;
};

}  // namespace flowlens
