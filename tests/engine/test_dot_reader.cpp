// Reading Graphviz DOT files (io/dot_reader, opened by load_graph view-only):
// flowlens' own DOT export round-trips ops, inputs (ports, control) and
// devices; a hand-written file maps op attributes, label lines and edge
// styles; a syntax error names the file and Graphviz's message, and the
// parser recovers for the next file; parsing from several threads is
// serialized by the process-wide Graphviz lock.
#include "test_main.h"
#include <QtTest>

#include <QTemporaryDir>
#include <fstream>
#include <thread>
#include <vector>

#include "common/error.h"
#include "io/dot_reader.h"
#include "io/file_formats.h"
#include "io/graph_io.h"

using namespace flowlens;

namespace {

const char* kHandWritten =
    "digraph g {\n  a [op=\"Const\"];\n  b [label=\"b\\nMatMul\"];\n  c;\n"
    "  a -> b; a -> b [label=\":1\"];\n  a -> c [label=\"^\"]; b -> c [style=dashed]; b -> c;\n}\n";

std::string sample(const char* name) { return std::string(FLOWLENS_SAMPLES "/") + name; }

}  // namespace

class TestDotReader : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  std::string write(const char* name, const std::string& text) {
    const std::string path = dir_.filePath(QLatin1String(name)).toStdString();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

 private slots:
  void load_graph_opens_flowlens_dot_export() {
    for (const char* name : {"mlp_model.pbtxt", "matmul_in_graph.pbtxt"}) {
      const Graph original = load_graph(sample(name));
      const std::string path = dir_.filePath(QLatin1String(name) + QStringLiteral(".dot")).toStdString();
      save_graph(original, path);
      QCOMPARE(detect_file_format(path), FileFormat::Dot);
      const Graph g = load_graph(path);
      QCOMPARE(g.source_path, path);
      QCOMPARE(g.size(), original.size());
      for (const Node& n : original.nodes()) {
        const Node* loaded = g.find(n.name);
        QVERIFY2(loaded, n.name.c_str());
        QCOMPARE(loaded->op, n.op);
        QCOMPARE(loaded->inputs, n.inputs);
        QCOMPARE(loaded->device, n.device);
      }
    }
  }

  void hand_written_dot_maps_ops_ports_and_control_edges() {
    const std::string path = write("hand.gv", kHandWritten);
    const Graph g = load_graph(path);
    QCOMPARE(g.size(), std::size_t(3));
    QCOMPARE(g.find("a")->op, std::string("Const"));
    QCOMPARE(g.find("b")->op, std::string("MatMul"));
    QCOMPARE(g.find("c")->op, std::string("dot"));
    QCOMPARE(g.find("b")->inputs, (std::vector<std::string>{"a", "a:1"}));
    QCOMPARE(g.find("c")->inputs, (std::vector<std::string>{"b", "^a", "^b"}));
  }

  void syntax_error_names_file_and_parser_recovers() {
    const std::string bad = write("bad.dot", "digraph { a -> ; }\n");
    try {
      load_graph(bad);
      QFAIL("expected an Error");
    } catch (const Error& e) {
      const std::string message = e.what();
      QVERIFY2(message.find("bad.dot") != std::string::npos, e.what());
      QVERIFY2(message.find("syntax") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(Error, parse_dot_graph("not dot at all {", "text"));
    // Graphviz keeps parser state between calls: the next file still opens.
    QCOMPARE(parse_dot_graph(kHandWritten, "again").size(), std::size_t(3));
  }

  void empty_file_is_an_error() {
    const std::string path = write("empty.dot", "");
    QVERIFY_THROWS_EXCEPTION(Error, load_graph(path));
  }

  void parses_from_several_threads() {
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 20; ++i)
          if (parse_dot_graph(kHandWritten, "threaded").size() == 3) ++ok;
      });
    for (auto& t : threads) t.join();
    QCOMPARE(ok.load(), 80);
  }
};

FLOWLENS_TEST_MAIN(TestDotReader)
#include "test_dot_reader.moc"
