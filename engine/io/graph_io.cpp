// GraphDef text and binary reading/writing, and the file-level entry points
// (format by extension, sniffing, load/save). Conversion to Graph lives in
// graphdef_convert.cpp, DOT export in graph_dot.cpp.
#include "io/graph_io.h"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "io/dot_reader.h"
#include "io/event_log.h"
#include "io/file_formats.h"
#include "io/graphdef_convert.h"
#include "io/graphdef_reader.h"
#include "io/meta_graph.h"
#include "io/onnx_import.h"
#include "io/proto_sniff.h"

namespace flowlens {
namespace {

namespace gp = google::protobuf;

using ByteSink = std::function<void(std::string_view)>;

using io_detail::looks_like_text;

// Asks the kernel to back the whole 2 MiB pages inside [data, data + size)
// with huge pages, before anything touches them. Where first touches are
// expensive (a virtual machine: ~10 us a 4 KiB page) reading a 70 MB file
// took 300 ms with 4 KiB pages and 25 ms with 2 MiB ones. Only a hint: with
// transparent huge pages off it changes nothing.
void ask_for_huge_pages(char* data, std::size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  if (size < 2 * kHuge) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)size;
#endif
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("cannot read graph file '" + path + "': it is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open graph file '" + path + "': " + std::strerror(errno));
  // Sized from the file, not grown: a stream buffer would briefly hold twice a
  // big file. Pipes and /proc files report no size and are read in chunks.
  // Every format read here is protobuf-based, whose messages stop at 2 GiB:
  // a bigger file is refused before any of it is held.
  constexpr std::uintmax_t kMaxBytes = INT32_MAX;
  const auto too_big = [&] {
    return ParseError(path, 0, 0, "file is larger than 2 GiB, the most a protobuf message (GraphDef, ONNX) can hold");
  };
  std::string bytes;
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > 0) {
    if (size > kMaxBytes) throw too_big();
    // Read straight into place; what the file holds beyond its size (it grew)
    // is appended below.
    bytes.reserve(static_cast<std::size_t>(size));
    ask_for_huge_pages(bytes.data(), static_cast<std::size_t>(size));
    bytes.resize(static_cast<std::size_t>(size));
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw Error("cannot read graph file '" + path + "': " + std::strerror(errno));
    if (bytes.size() < size) return bytes;  // shrank while read: what there was
  }
  char chunk[64 * 1024];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    bytes.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > kMaxBytes) throw too_big();
  }
  if (in.bad()) throw Error("cannot read graph file '" + path + "': " + std::strerror(errno));
  return bytes;
}

// Writes what `emit` sends to its sink into a temporary file beside `path`,
// renamed over `path` only when complete: a failed save (disk full, a bad
// graph) leaves the previous file as it was.
void write_file(const std::string& path, const std::function<void(const ByteSink&)>& emit) {
  const std::string temporary = path + ".flowlens-partial";
  auto fail = [&](const std::string& why) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return Error("cannot write '" + path + "': " + why);
  };
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw fail(std::strerror(errno));
    try {
      emit([&](std::string_view bytes) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
    } catch (const Error& e) {
      out.close();
      throw fail(e.what());
    }
    out.close();
    if (!out) throw fail(std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw fail(ec.message());
}

// The writers, like the readers, hold one node's message at a time: a
// GraphDef prints and serializes its fields in field-number order, `node` (1)
// first, so the nodes one by one and then the other fields give the same
// bytes as the whole message would.
void emit_text(const Graph& graph, const ByteSink& sink) {
  gp::TextFormat::Printer printer;  // prints map entries sorted by key
  // Unknown fields (kept in library_bytes from a newer TensorFlow's binary
  // file) would print as bare field numbers, which no text parser reads back.
  printer.SetHideUnknownFields(true);
  std::string piece;
  proto::GraphDef one;
  auto print = [&] {
    if (!printer.PrintToString(one, &piece)) throw Error("cannot print graph as GraphDef text");
    sink(piece);
  };
  for (const Node& n : graph.nodes()) {
    one.Clear();
    io_detail::node_to_proto(n, one.add_node());
    print();
  }
  io_detail::graph_fields_to_proto(graph, &one);
  print();
}

void emit_binary(const Graph& graph, const ByteSink& sink) {
  proto::GraphDef one;
  for (const Node& n : graph.nodes()) {
    one.Clear();
    io_detail::node_to_proto(n, one.add_node());
    sink(io_detail::serialize_deterministic(one));
  }
  io_detail::graph_fields_to_proto(graph, &one);
  sink(io_detail::serialize_deterministic(one));
}

std::string collect(void (*emit)(const Graph&, const ByteSink&), const Graph& graph) {
  std::string out;
  emit(graph, [&](std::string_view bytes) { out.append(bytes); });
  return out;
}

// The graph a TensorBoard log shows: the last graph_def of the first run that
// has one (a run writes its graph again when it restarts), else the graph of
// its last meta_graph_def.
Graph graph_from_event_log(const std::string& path) {
  std::error_code ec;
  const EventLog log = std::filesystem::is_directory(path, ec) ? read_log_directory(path) : read_event_file(path);
  for (const EventRun& run : log.runs) {
    if (!run.graphs.empty()) return parse_event_graph(run.graphs.back());
    if (!run.meta_graphs.empty()) {
      const EventGraph& g = run.meta_graphs.back();
      return parse_meta_graph(g.bytes, false, g.file + "@" + std::to_string(g.offset)).graph;
    }
  }
  std::string runs;
  for (const EventRun& run : log.runs) runs += (runs.empty() ? "" : ", ") + run.name;
  throw Error("the TensorBoard log '" + path + "' holds no graph (runs: " + (runs.empty() ? "none" : runs) +
              "); `flowlens-run events` lists what it holds");
}

}  // namespace

GraphFormat format_for_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".pbtxt" || ext == ".pbtext" || ext == ".txt" || ext == ".prototxt") return GraphFormat::Text;
  if (ext == ".pb" || ext == ".graphdef") return GraphFormat::Binary;
  if (ext == ".dot" || ext == ".gv") return GraphFormat::Dot;
  if (ext == ".onnx") return GraphFormat::Onnx;
  return GraphFormat::Auto;
}

Graph parse_graph_text(std::string_view text, const std::string& source_name) {
  if (text.size() > static_cast<std::size_t>(INT32_MAX))
    throw ParseError(source_name, 0, 0, "GraphDef text larger than protobuf's 2 GiB limit");
  // Editors on Windows may start a UTF-8 file with a byte-order mark; it is
  // invisible there, so skip it (columns on line 1 then match the editor's).
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return io_detail::read_graphdef_text(text, source_name);
}

Graph parse_graph_binary(std::string_view bytes, const std::string& source_name) {
  return io_detail::read_graphdef_binary(bytes, source_name);
}

Graph load_graph(const std::string& path) {
  // Directories and files alike go by what they hold (io/file_formats.h).
  const FileFormat format = detect_file_format(path);
  Graph graph;
  switch (format) {
    case FileFormat::SavedModel: graph = load_saved_model(path).default_meta_graph().graph; break;
    case FileFormat::MetaGraph: graph = load_meta_graph(meta_graph_file_for(path)).graph; break;
    case FileFormat::Checkpoint:
      throw Error("'" + path + "' is a checkpoint: it holds variable values, not a graph. Open the model's .meta "
                  "file or SavedModel with it, or list its tensors with `flowlens-run ckpt`");
    case FileFormat::EventLog: graph = graph_from_event_log(path); break;
    case FileFormat::Dot:
      // View only: DOT keeps names, ops (as flowlens exports them), edges and
      // devices, but no attrs (io/dot_reader.h).
      graph = parse_dot_graph(read_file(path), path);
      break;
    case FileFormat::Onnx:
    case FileFormat::GraphDefText:
    case FileFormat::GraphDefBinary: {
      const std::string bytes = read_file(path);
      if (bytes.empty())
        throw ParseError(path, 0, 0, format == FileFormat::Onnx
                                         ? "file is empty; expected an ONNX model"
                                         : "file is empty; expected a GraphDef in text (.pbtxt) or binary (.pb) form");
      if (format == FileFormat::Onnx) {
        // ONNX models always hold control bytes (the first field tag is 0x08).
        if (looks_like_text(bytes))
          throw ParseError(path, 0, 0, "not a valid ONNX model: the file is text, but .onnx models are binary "
                                       "protobuf (GraphDef text files should end in .pbtxt)");
        graph = parse_graph_onnx(bytes, path);
      } else {
        graph = format == FileFormat::GraphDefText ? parse_graph_text(bytes, path) : parse_graph_binary(bytes, path);
      }
      break;
    }
  }
  graph.source_path = path;
  return graph;
}

std::string graph_to_text(const Graph& graph) { return collect(emit_text, graph); }

std::string graph_to_binary(const Graph& graph) { return collect(emit_binary, graph); }

void save_graph(const Graph& graph, const std::string& path) {
  switch (format_for_path(path)) {
    case GraphFormat::Text: return write_file(path, [&](const ByteSink& sink) { emit_text(graph, sink); });
    case GraphFormat::Binary: return write_file(path, [&](const ByteSink& sink) { emit_binary(graph, sink); });
    case GraphFormat::Dot: return write_file(path, [&](const ByteSink& sink) { sink(graph_to_dot(graph)); });
    case GraphFormat::Onnx:
      throw Error("cannot save '" + path + "': writing ONNX is not supported; use .pbtxt (text), .pb (binary) or "
                  ".dot (Graphviz)");
    case GraphFormat::Auto: break;
  }
  throw Error("cannot save '" + path + "': unknown extension; use .pbtxt (text), .pb (binary) or .dot (Graphviz)");
}

}  // namespace flowlens
