// The format handlers (io/format_handler.h) and their registry
// (io/file_formats.h): each handler wins its own sample and no other's, names
// decide before any byte is read, a file is read once however many handlers
// sniff it and whatever loads it, and what no format recognises fails naming
// the file and what was expected.
#include "test_main.h"
#include <QTemporaryDir>
#include <sys/stat.h>
#include <QtTest>
#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/error.h"
#include "event_fixtures.h"
#include "io/file_formats.h"
#include "io/graph_io.h"
#include "io/meta_graph.pb.h"

using namespace flowlens;
namespace fs = std::filesystem;

namespace {

std::string test_data(const char* name) {
  std::string path = FLOWLENS_TEST_DATA;
  path.append("/").append(name);
  return path;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

const char* kTwoNodes = "node { name: \"a\" op: \"NoOp\" }\nnode { name: \"b\" op: \"NoOp\" input: \"^a\" }\n";

// One sample per format, as bytes a file of that format starts with or holds.
std::map<FileFormat, std::string> samples() {
  const Graph g = parse_graph_text(kTwoNodes, "two_nodes");
  const std::string saved_model_text = read_bytes(test_data("saved_model/half_plus_two_resource/saved_model.pbtxt"));
  proto::SavedModel saved_model;
  google::protobuf::TextFormat::ParseFromString(saved_model_text, &saved_model);
  onnx::ModelProto onnx_model;
  onnx_model.set_ir_version(7);
  onnx_model.mutable_graph()->set_name("g");
  return {
      {FileFormat::GraphDefText, graph_to_text(g)},
      {FileFormat::GraphDefBinary, graph_to_binary(g)},
      {FileFormat::SavedModel, saved_model.SerializeAsString()},
      {FileFormat::MetaGraph, saved_model.meta_graphs(0).SerializeAsString()},
      // A V2 checkpoint's index is a LevelDB table, as V1 checkpoints are.
      {FileFormat::Checkpoint, read_bytes(test_data("saved_model/half_plus_two_resource/variables/variables.index"))},
      {FileFormat::EventLog, testing::framed_file_version_event() + testing::framed_scalar_event()},
      {FileFormat::Onnx, onnx_model.SerializeAsString()},
      {FileFormat::Dot, "digraph g {\n  a -> b;\n}\n"},
  };
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

class TestFormatHandlers : public QObject {
  Q_OBJECT

 private slots:
  void every_format_has_one_handler_and_a_sample() {
    const auto all = samples();
    QCOMPARE(file_formats().size(), all.size());
    for (const FormatHandler* handler : file_formats()) {
      QVERIFY2(all.count(handler->format()), handler->name());
      QCOMPARE(&format_handler(handler->format()), handler);
      QVERIFY2(!handler->patterns().empty(), handler->name());
    }
  }

  // Under a name no format claims, so only the bytes speak. The GraphDef
  // formats are the fallbacks for any text or binary bytes; every other
  // handler claims nothing but its own sample.
  void each_handler_wins_its_own_sample_and_no_other() {
    for (const auto& [format, bytes] : samples()) {
      Probe probe("sample_without_extension", bytes);
      const FormatHandler& winner = find_format(probe);
      QVERIFY2(winner.format() == format, (std::string(format_handler(format).name()) + " sample opened as " +
                                           winner.name()).c_str());
      for (const FormatHandler* other : file_formats()) {
        if (other->format() == format) continue;
        const Confidence c = other->match(probe);
        const bool fallback =
            other->format() == FileFormat::GraphDefText || other->format() == FileFormat::GraphDefBinary;
        QVERIFY2(fallback ? c <= Confidence::Fallback : c == Confidence::None,
                 (std::string(other->name()) + " claims the " + winner.name() + " sample").c_str());
      }
    }
  }

  void a_decisive_name_is_trusted_without_reading() {
    QTemporaryDir dir;
    const std::string events = dir.filePath("events.out.tfevents.1.host").toStdString();
    write_bytes(events, "not even a record");
    Probe probe(events);
    QCOMPARE(find_format(probe).format(), FileFormat::EventLog);
    QCOMPARE(probe.opens(), 0);
    const std::string onnx = dir.filePath("model.onnx").toStdString();
    write_bytes(onnx, samples()[FileFormat::GraphDefBinary]);
    Probe onnx_probe(onnx);
    QCOMPARE(find_format(onnx_probe).format(), FileFormat::Onnx);
    QCOMPARE(onnx_probe.opens(), 0);
  }

  // A text GraphDef bigger than what sniffing reads: the head is sniffed,
  // then the loader gets the rest appended, from the same one open.
  void a_pbtxt_is_read_once() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("big.pbtxt").toStdString();
    std::string text;
    for (int k = 0; text.size() < 300 * 1024; ++k)
      text += "node { name: \"n" + std::to_string(k) + "\" op: \"NoOp\" }\n";
    write_bytes(path, text);
    Probe probe(path);
    const FormatHandler& format = find_format(probe);
    QCOMPARE(format.format(), FileFormat::GraphDefText);
    QVERIFY(probe.sniff_bytes().size() < text.size());  // only the head so far
    const Graph g = format.load(probe);
    QCOMPARE(probe.content(), text);
    QCOMPARE(probe.opens(), 1);
    QCOMPARE(g.source_path, path);
    QVERIFY(g.size() > 1000);
  }

  // Binary files are sniffed whole; loading reuses those bytes.
  void a_binary_file_is_read_once() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("frozen.pb").toStdString();
    write_bytes(path, samples()[FileFormat::GraphDefBinary]);
    Probe probe(path);
    const FormatHandler& format = find_format(probe);
    QCOMPARE(format.format(), FileFormat::GraphDefBinary);
    QCOMPARE(format.load(probe).size(), std::size_t{2});
    QCOMPARE(probe.opens(), 1);
  }

  void loads_from_bytes_in_memory() {
    Probe probe("in_memory.pbtxt", kTwoNodes);
    const Graph g = find_format(probe).load(probe);
    QCOMPARE(g.size(), std::size_t{2});
    QCOMPARE(g.source_path, std::string("in_memory.pbtxt"));
    QCOMPARE(probe.opens(), 0);
  }

  void unknown_content_names_the_file_and_what_was_expected() {
    QTemporaryDir dir;
    // Bytes no format recognises fall to the binary GraphDef reader, which says so.
    const std::string garbled = dir.filePath("garbled.xyz").toStdString();
    write_bytes(garbled, std::string("\x07\xff\x00\x13 not a model", 17));
    const std::string binary_error = error_of([&] { load_graph(garbled); });
    QVERIFY2(binary_error.find(garbled) != std::string::npos, binary_error.c_str());
    QVERIFY2(binary_error.find("not a valid binary GraphDef") != std::string::npos, binary_error.c_str());
    // Text no format recognises: the GraphDef text reader, with line:column.
    const std::string prose = dir.filePath("notes.xyz").toStdString();
    write_bytes(prose, "hello world\n");
    const std::string text_error = error_of([&] { load_graph(prose); });
    QVERIFY2(text_error.find(prose) != std::string::npos, text_error.c_str());
    QVERIFY2(text_error.find(":1:") != std::string::npos, text_error.c_str());
    // A directory with no model lists what a directory may hold.
    const std::string empty_dir = dir.filePath("empty_folder").toStdString();
    fs::create_directory(empty_dir);
    const std::string dir_error = error_of([&] { load_graph(empty_dir); });
    QVERIFY2(dir_error.find(empty_dir) != std::string::npos, dir_error.c_str());
    for (const char* expected :
         {"SavedModel (saved_model.pb)", "export.meta", "'checkpoint' file", "events.out.tfevents"})
      QVERIFY2(dir_error.find(expected) != std::string::npos, dir_error.c_str());
    const std::string missing = dir.filePath("missing.pb").toStdString();
    const std::string missing_error = error_of([&] { load_graph(missing); });
    QVERIFY2(missing_error.find(missing) != std::string::npos, missing_error.c_str());
    QVERIFY2(missing_error.find("No such file or directory") != std::string::npos, missing_error.c_str());
  }

  // A pipe would block the open until a writer came and /dev/zero never
  // ends: neither is read, each is refused at once, naming itself.
  void pipes_and_devices_are_refused_not_read() {
    QTemporaryDir dir;
    const std::string fifo = dir.filePath("graph.pbtxt").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string fifo_error = error_of([&] { load_graph(fifo); });
    QVERIFY2(fifo_error.find(fifo) != std::string::npos && fifo_error.find("not a regular file") != std::string::npos,
             fifo_error.c_str());
    const std::string zero_error = error_of([&] { load_graph("/dev/zero"); });
    QVERIFY2(zero_error.find("/dev/zero") != std::string::npos && zero_error.find("not a regular file") != std::string::npos,
             zero_error.c_str());
  }

  void save_picks_the_writer_by_name() {
    QTemporaryDir dir;
    const Graph g = parse_graph_text(kTwoNodes, "two_nodes");
    const std::string unknown = dir.filePath("out.xyz").toStdString();
    const std::string unknown_error = error_of([&] { save_graph(g, unknown); });
    QVERIFY2(unknown_error.find("unknown extension; use .pbtxt (GraphDef text), .pb (GraphDef binary) or .dot") !=
                 std::string::npos,
             unknown_error.c_str());
    const std::string meta_error = error_of([&] { save_graph(g, dir.filePath("x.meta").toStdString()); });
    QVERIFY2(meta_error.find("writing MetaGraph is not supported") != std::string::npos, meta_error.c_str());
    // saved_model.pb is a binary GraphDef's name too, and that format writes.
    const std::string pb = dir.filePath("saved_model.pb").toStdString();
    save_graph(g, pb);
    QCOMPARE(read_bytes(pb), graph_to_binary(g));
  }

  void known_names_and_help_come_from_the_handlers() {
    for (const char* name : {"a/b.pbtxt", "saved_model.pb", "events.out.tfevents.1", "model.ckpt.data-00000-of-00001",
                             "checkpoint", "M.ONNX", "g.gv"})
      QVERIFY2(has_known_file_name(name), name);
    QVERIFY(!has_known_file_name("photo.png"));
    const std::string help = formats_help();
    const std::string filter = open_dialog_filter();
    for (const FormatHandler* handler : file_formats()) {
      QVERIFY2(help.find(handler->description()) != std::string::npos, handler->name());
      QVERIFY2(filter.find(std::string(";;") + handler->name() + " (") != std::string::npos, handler->name());
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestFormatHandlers)
#include "test_format_handlers.moc"
