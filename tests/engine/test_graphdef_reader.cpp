// The GraphDef readers and writers that hold one node at a time
// (io/graphdef_reader.h): whatever the file's layout, they must agree with
// protobuf parsing or printing the whole message at once, which is the
// reference here, for the graph and for the place of an error.
#include "test_main.h"
#include <QtTest>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "io/graph.pb.h"
#include "io/graph_io.h"
#include "io/graphdef_convert.h"

using namespace flowlens;
namespace gp = google::protobuf;

namespace {

struct Location {
  int line = 0, column = 0;
};

// Where protobuf, parsing `text` as one GraphDef, reports its first error.
Location whole_message_error(const std::string& text) {
  struct Collector : gp::io::ErrorCollector {
    Location first;
    bool seen = false;
    void AddError(int line, gp::io::ColumnNumber column, const std::string&) override {
      if (!seen) first = {line + 1, column + 1};
      seen = true;
    }
  } errors;
  gp::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  proto::GraphDef def;
  gp::io::ArrayInputStream stream(text.data(), static_cast<int>(text.size()));
  if (parser.Parse(&stream, &def)) return {};
  return errors.first;
}

Location our_error(const std::string& text) {
  try {
    parse_graph_text(text, "t.pbtxt");
  } catch (const ParseError& e) {
    return {e.line(), e.column()};
  }
  return {};
}

std::vector<std::string> names(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes()) out.push_back(n.name);
  return out;
}

const std::string kTwoNodesAndFields =
    "versions { producer: 27 }\n"
    "node { name: \"a\" op: \"NoOp\" }\n"
    "library { function { signature { name: \"f\" } } }\n"
    "node { name: \"b\" op: \"NoOp\" input: \"^a\" }\n";

}  // namespace

class TestGraphdefReader : public QObject {
  Q_OBJECT

 private slots:
  void text_layouts_read_like_one_message_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("names");
    QTest::newRow("two nodes on one line") << "node { name: \"a\" op: \"NoOp\" } node { name: \"b\" op: \"NoOp\" }"
                                           << QStringList{"a", "b"};
    QTest::newRow("list syntax") << "node: [{ name: \"a\" op: \"NoOp\" }, { name: \"b\" op: \"NoOp\" }]\n"
                                 << QStringList{"a", "b"};
    QTest::newRow("angle brackets, separators")
        << "node < name: \"a\" op: \"NoOp\" >; node: { name: \"b\" op: \"NoOp\" },\n" << QStringList{"a", "b"};
    QTest::newRow("brackets inside strings and comments")
        << "node { name: \"a{<[\" op: \"NoOp\" attr { key: \"s\" value { s: '}>]\\'' } } } # node { \"\n"
           "node { name: 'b' # } } }\n op: \"NoOp\" }\n"
        << QStringList{"a{<[", "b"};
    QTest::newRow("adjacent strings") << "node { name: \"a\" \"b\" op: \"NoOp\" }" << QStringList{"ab"};
    QTest::newRow("other fields between nodes") << QString::fromStdString(kTwoNodesAndFields) << QStringList{"a", "b"};
  }
  void text_layouts_read_like_one_message() {
    QFETCH(QString, text);
    QFETCH(QStringList, names);
    const Graph g = parse_graph_text(text.toStdString(), "t.pbtxt");
    std::vector<std::string> expected;
    for (const QString& n : names) expected.push_back(n.toStdString());
    QCOMPARE(::names(g), expected);
  }

  void fields_other_than_nodes_are_kept() {
    const Graph g = parse_graph_text(kTwoNodesAndFields, "t.pbtxt");
    QVERIFY(g.versions.present);
    QCOMPARE(g.versions.producer, 27);
    QCOMPARE(g.function_names, std::vector<std::string>{"f"});
    QCOMPARE(g.nodes()[1].inputs, std::vector<std::string>{"^a"});
  }

  // Splitting the file must not move an error: line and column are the
  // ones protobuf reports for the whole text, tabs and all.
  void errors_are_placed_as_in_one_message_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("bad field in the second node on a line")
        << "node { name: \"a\" op: \"NoOp\" } node { name: \"b\" bogus: 1 }";
    QTest::newRow("after a tab") << "node { name: \"a\" op: \"NoOp\" }\t\tnode {\n\tname: 3 }";
    QTest::newRow("third line of a node") << "node { name: \"a\" op: \"NoOp\" }\nnode {\n  name: \"b\"\n  op: NoOp }";
    QTest::newRow("unterminated node") << "node { name: \"a\" op: \"NoOp\" }\nnode { name: \"b\"\n";
    QTest::newRow("unterminated string") << "node { name: \"a\n op: \"NoOp\" }";
    QTest::newRow("stray closing brace") << "node { name: \"a\" op: \"NoOp\" } }";
    QTest::newRow("double separator") << "node { name: \"a\" op: \"NoOp\" };; node { name: \"b\" }";
    QTest::newRow("versions twice") << "versions { producer: 1 }\nnode { name: \"a\" }\nversions { producer: 2 }\n";
    QTest::newRow("unknown top-level field") << "node { name: \"a\" }\n  nodes { name: \"b\" }";
    QTest::newRow("extension syntax") << "[foo.bar] { }";
    QTest::newRow("scalar where a message goes") << "node: 3";
  }
  void errors_are_placed_as_in_one_message() {
    QFETCH(QString, text);
    const Location expected = whole_message_error(text.toStdString());
    QVERIFY2(expected.line > 0, "the fixture must be invalid");
    const Location got = our_error(text.toStdString());
    QCOMPARE(got.line, expected.line);
    QCOMPARE(got.column, expected.column);
  }

  void binary_fields_may_interleave() {
    // versions, node a, library, node b: protobuf merges the repeated field
    // across the other fields, in order.
    proto::GraphDef part;
    part.mutable_versions()->set_producer(27);
    std::string bytes = part.SerializeAsString();
    part.Clear();
    part.add_node()->set_name("a");
    bytes += part.SerializeAsString();
    part.Clear();
    part.mutable_library()->add_function()->mutable_signature()->set_name("f");
    bytes += part.SerializeAsString();
    part.Clear();
    part.add_node()->set_name("b");
    bytes += part.SerializeAsString();
    const Graph g = parse_graph_binary(bytes, "g.pb");
    QCOMPARE(names(g), (std::vector<std::string>{"a", "b"}));
    QCOMPARE(g.versions.producer, 27);
    QCOMPARE(g.function_names, std::vector<std::string>{"f"});
  }

  // A cut-off text file: the message names the end of the file, never an empty token.
  void truncated_text_names_the_end_of_the_file() {
    for (const char* text : {"node { name: \"a\" op: \"Const\"", "node { name: "}) {
      try {
        parse_graph_text(text, "cut.pbtxt");
        QFAIL("a truncated file parsed");
      } catch (const Error& e) {
        const std::string what = e.what();
        QVERIFY2(what.find("end of the file") != std::string::npos, e.what());
        QVERIFY2(what.find("\"\".") == std::string::npos, e.what());
        QVERIFY2(what.find("cut.pbtxt") != std::string::npos, e.what());
      }
    }
  }

  void binary_errors_name_the_node() {
    proto::GraphDef def;
    def.add_node()->set_name("a");
    def.add_node()->set_name("b");
    std::string bytes = def.SerializeAsString();
    bytes.resize(bytes.size() - 1);  // b's length now runs past the end
    try {
      parse_graph_binary(bytes, "g.pb");
      QFAIL("a truncated file parsed");
    } catch (const ParseError& e) {
      QVERIFY2(std::string(e.what()).find("at node 1 (byte 5)") != std::string::npos, e.what());
    }
  }

  // The writers emit node by node; the result must be byte for byte what
  // protobuf gives for the whole message.
  void writers_match_whole_message_output() {
    std::ifstream in(std::string(FLOWLENS_SAMPLES) + "/mlp_train.pbtxt");
    std::stringstream text;
    text << in.rdbuf();
    Graph g;
    try {
      g = parse_graph_text(text.str() + "library { function { signature { name: \"f\" } } }",
                           "mlp_train.pbtxt");
    } catch (const Error& e) {
      QFAIL(e.what());
    }
    QVERIFY(g.size() > 10);

    const std::string binary = graph_to_binary(g);
    proto::GraphDef whole;
    QVERIFY(whole.ParseFromString(binary));
    QCOMPARE(whole.node_size(), static_cast<int>(g.size()));
    QCOMPARE(io_detail::serialize_deterministic(whole), binary);

    const std::string printed = graph_to_text(g);
    gp::TextFormat::Printer printer;
    printer.SetHideUnknownFields(true);
    std::string reference;
    QVERIFY(printer.PrintToString(whole, &reference));
    QCOMPARE(printed, reference);
  }

  void a_failed_save_keeps_the_old_file() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("g.pbtxt").toStdString();
    std::ofstream(path) << "old contents";
    Graph g = parse_graph_text("node { name: \"a\" op: \"NoOp\" }", "g.pbtxt");
    g.library_bytes = "not a FunctionDefLibrary";
    QVERIFY_THROWS_EXCEPTION(Error, save_graph(g, path));
    std::ifstream back(path);
    std::string contents((std::istreambuf_iterator<char>(back)), {});
    QCOMPARE(contents, std::string("old contents"));
    QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()), {}), 1);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestGraphdefReader)
#include "test_graphdef_reader.moc"
