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
#include "io/graphdef_reader.h"

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

// The reader as load_graph runs it, and split as finely as it goes: every
// node field its own chunk, four threads, every string of 8 bytes or more
// taking the big-string path.
const io_detail::TextReadOptions kFinest{4, 1, 8};
// One thread, one chunk, protobuf's tokenizer for every string: the reader
// as it was before it was split.
const io_detail::TextReadOptions kSerial{1, std::size_t{1} << 40, 0};

Location our_error(const std::string& text, const io_detail::TextReadOptions& options = {}) {
  try {
    io_detail::read_graphdef_text(text, "t.pbtxt", options);
  } catch (const ParseError& e) {
    return {e.line(), e.column()};
  }
  return {};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// `count` small nodes, one a line; `bad` maps node indices to the text that
// replaces their op field.
std::string numbered_nodes(int count, const std::map<int, std::string>& bad) {
  std::string text;
  for (int k = 0; k < count; ++k) {
    const auto it = bad.find(k);
    text += "node { name: \"n" + std::to_string(k) + "\" " + (it == bad.end() ? "op: \"NoOp\"" : it->second) + " }\n";
  }
  return text;
}

std::vector<std::string> names(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes()) out.push_back(n.name);
  return out;
}

// The bytes of tensor attr `key` of node `node`.
std::string tensor_bytes(const Graph& g, std::size_t node, const std::string& key) {
  const Tensor* t = g.nodes()[node].attrs.at(key).get_if<Tensor>();
  if (!t) return "(not a tensor)";
  return std::string(static_cast<const char*>(t->raw_data()), t->byte_size());
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
    for (const auto& options : {io_detail::TextReadOptions{}, kFinest, kSerial}) {
      const Location got = our_error(text.toStdString(), options);
      QCOMPARE(got.line, expected.line);
      QCOMPARE(got.column, expected.column);
    }
  }

  // Split into chunks parsed by several threads, real files give the graph
  // one thread gives, byte for byte once written out.
  void parallel_chunks_read_like_one_thread() {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(FLOWLENS_SAMPLES))
      if (entry.path().extension() == ".pbtxt") files.push_back(entry.path().string());
    const std::string real = FLOWLENS_REALDATA;
    for (const char* name : {"/training/keras_imagenet_main_graph_mode.pbtxt",
                             "/events/tb_log_tayo/graphdef_mnist.pbtxt", "/control-flow/grappler_nested_loop.pbtxt",
                             "/control-flow/grappler_simple_function.pbtxt"})
      if (std::filesystem::exists(real + name)) files.push_back(real + name);
    if (files.size() < 5) qWarning("../shared/realdata is absent: samples/ only");
    QVERIFY(files.size() >= 5);
    for (const std::string& file : files) {
      const std::string text = read_text(file);
      const std::string serial = graph_to_binary(io_detail::read_graphdef_text(text, file, kSerial));
      for (const auto& options : {io_detail::TextReadOptions{}, kFinest, io_detail::TextReadOptions{2, 4096, 64}})
        QVERIFY2(graph_to_binary(io_detail::read_graphdef_text(text, file, options)) == serial, file.c_str());
    }
  }

  // Two errors in different chunks: whichever thread meets its error first,
  // the one reported is the first in the file, at its own line.
  void the_first_error_in_the_file_is_reported() {
    const std::string bad_type = "op: \"Const\" attr { key: \"dtype\" value { type: 999 } }";
    const std::string not_utf8 = "op: \"\xff\"";
    struct Case {
      std::map<int, std::string> bad;
      int line;
      const char* says;
    } cases[] = {
        {{{3, "bogus: 1"}, {40, bad_type}}, 4, "bogus"},
        {{{3, bad_type}, {40, "bogus: 1"}}, 4, "999"},
        {{{40, "bogus: 1"}, {41, not_utf8}}, 41, "bogus"},
        {{{5, not_utf8}, {40, "bogus: 1"}}, 6, "node 5: field op"},
        {{{60, "op: \"a\" op: \"b\""}, {70, "bogus: 1"}}, 61, "op"},
    };
    for (const Case& c : cases) {
      const std::string text = numbered_nodes(80, c.bad);
      for (int repeat = 0; repeat < 5; ++repeat) {
        for (const auto& options : {kFinest, io_detail::TextReadOptions{2, 64, 8}, kSerial}) {
          try {
            io_detail::read_graphdef_text(text, "two.pbtxt", options);
            QFAIL("a file with two errors parsed");
          } catch (const ParseError& e) {
            QCOMPARE(e.line(), c.line);
            QVERIFY2(std::string(e.what()).find(c.says) != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("two.pbtxt:") == 0, e.what());
          }
        }
      }
    }
  }

  // Big tensor_content strings skip protobuf's tokenizer: every byte value,
  // as protobuf prints it, must come back as protobuf reads it.
  void big_tensor_content_reads_as_protobuf_reads_it() {
    std::string bytes;
    for (int k = 0; k < 4096; ++k) bytes.push_back(static_cast<char>((k * 7 + k / 256) & 0xff));
    proto::GraphDef def;
    proto::NodeDef* node = def.add_node();
    node->set_name("c");
    node->set_op("Const");
    (*node->mutable_attr())["dtype"].set_type(proto::DT_UINT8);
    proto::TensorProto* t = (*node->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(proto::DT_UINT8);
    t->mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(bytes.size()));
    t->set_tensor_content(bytes);
    proto::AttrValue::ListValue* list = (*node->mutable_attr())["list"].mutable_list();
    list->add_tensor()->CopyFrom(*t);
    list->add_tensor()->CopyFrom(*t);
    list->mutable_tensor(1)->set_tensor_content(bytes.substr(100) + "\"'\\");
    list->mutable_tensor(1)->mutable_tensor_shape()->mutable_dim(0)->set_size(static_cast<int64_t>(bytes.size() - 97));
    std::string text;
    QVERIFY(gp::TextFormat::PrintToString(def, &text));
    QVERIFY(text.find("\\377") != std::string::npos && text.find("\\\"") != std::string::npos);
    const std::string expected = graph_to_binary(io_detail::read_graphdef_text(text, "b.pbtxt", kSerial));
    for (const auto& options : {io_detail::TextReadOptions{}, kFinest}) {
      const Graph g = io_detail::read_graphdef_text(text, "b.pbtxt", options);
      QCOMPARE(graph_to_binary(g), expected);
      QCOMPARE(tensor_bytes(g, 0, "value"), bytes);
    }
  }

  // Escapes TensorFlow does not write (hex, \?, a raw byte), a string
  // joined to the next, a tensor_content in a comment's place: protobuf
  // reads those, and its errors keep their place.
  void unusual_big_strings_are_left_to_protobuf() {
    const std::string filler(200, 'a');
    const std::string head = "node { name: \"c\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_UINT8 ";
    const std::string tail = " } } } }\n";
    for (const std::string& content :
         {"\"" + filler + "\\x41\\?\"", "\"" + filler + "\" \"" + filler + "\"", "'" + filler + "\\101'",
          "\"" + filler + "\xc3\xa9\""}) {
      proto::GraphDef whole;
      QVERIFY2(gp::TextFormat::ParseFromString(head + "tensor_content: " + content + tail, &whole), content.c_str());
      const std::string want = whole.node(0).attr().at("value").tensor().tensor_content();
      QVERIFY(want.size() >= 200);
      const std::string text = head + "tensor_shape { dim { size: " + std::to_string(want.size()) +
                               " } } tensor_content: " + content + tail;
      for (const auto& options : {kFinest, kSerial}) {
        const Graph g = io_detail::read_graphdef_text(text, "u.pbtxt", options);
        QCOMPARE(tensor_bytes(g, 0, "value"), want);
      }
    }
    for (const std::string& content :
         {"\"" + filler + "\\q\"", "\"" + filler + "\n\"", "\"" + filler + "\" # c\n bogus: 1"}) {
      const std::string text = "node { name: \"a\" op: \"NoOp\" }\n" + head + "tensor_content: " + content + tail;
      const Location expected = whole_message_error(text);
      QVERIFY2(expected.line > 0, text.c_str());
      for (const auto& options : {kFinest, kSerial}) {
        const Location got = our_error(text, options);
        QCOMPARE(got.line, expected.line);
        QCOMPARE(got.column, expected.column);
      }
    }
  }

  // A value that does not fit its shape is still an error at load, naming
  // the node and its line, whichever path read the string.
  void a_wrong_size_big_value_is_reported_at_its_node() {
    std::string text = numbered_nodes(3, {});
    text += "node { name: \"w\" op: \"Const\"\n attr { key: \"value\" value { tensor { dtype: DT_FLOAT\n"
            " tensor_shape { dim { size: 1000 } } tensor_content: \"" + std::string(3999, 'x') + "\" } } } }\n";
    for (const auto& options : {kFinest, kSerial, io_detail::TextReadOptions{}}) {
      try {
        io_detail::read_graphdef_text(text, "w.pbtxt", options);
        QFAIL("a 3999-byte float tensor of 1000 elements was read");
      } catch (const ParseError& e) {
        QCOMPARE(e.line(), 4);
        QVERIFY2(std::string(e.what()).find("'w'") != std::string::npos, e.what());
      }
    }
  }

  // Randomly damaged files (a sample with a big tensor added): every form of
  // the reader gives the same graph, or the same error, word for word.
  void damaged_files_read_alike_in_every_form() {
    std::string base = read_text(std::string(FLOWLENS_SAMPLES) + "/mlp_train.pbtxt");
    std::string content;
    for (int k = 0; k < 600; ++k) content += "\\" + std::to_string(k % 4) + std::to_string(k % 8) + "7ab\\n";
    base += "node { name: \"big\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_UINT8\n"
            "  tensor_shape { dim { size: 2400 } } tensor_content: \"" + content + "\" } } } }\n";
    QVERIFY(graph_to_binary(io_detail::read_graphdef_text(base, "d.pbtxt")).size() > 2400);
    auto outcome = [](const std::string& text, const io_detail::TextReadOptions& options) {
      try {
        return "graph " + graph_to_binary(io_detail::read_graphdef_text(text, "d.pbtxt", options));
      } catch (const Error& e) {
        return std::string("error ") + e.what();
      }
    };
    const char kBytes[] = "\"\\{}<>[]\n #:;,0x7'";
    uint32_t seed = 12345;
    auto next = [&](uint32_t n) {
      seed = seed * 1103515245u + 12345u;
      return (seed >> 8) % n;
    };
    int errors = 0;
    for (int round = 0; round < 300; ++round) {
      std::string text = base;
      for (uint32_t edits = 1 + next(3); edits > 0; --edits) {
        const std::size_t at = next(static_cast<uint32_t>(text.size()));
        switch (next(3)) {
          case 0: text[at] = kBytes[next(sizeof kBytes - 1)]; break;
          case 1: text.erase(at, 1 + next(40)); break;
          default: text.insert(at, text.substr(next(static_cast<uint32_t>(text.size())), 1 + next(60))); break;
        }
      }
      const std::string serial = outcome(text, kSerial);
      errors += serial.starts_with("error");
      QCOMPARE(outcome(text, kFinest), serial);
      QCOMPARE(outcome(text, io_detail::TextReadOptions{2, 512, 64}), serial);
    }
    QVERIFY2(errors > 50 && errors < 290, std::to_string(errors).c_str());  // both outcomes are exercised
  }

  // Sniffing reads the start of a text file only; a long leading comment
  // still sniffs as text, and the file loads.
  void a_text_file_with_a_long_comment_loads() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("long_comment.pbtxt").toStdString();
    std::ofstream(path) << "# " << std::string(100000, 'c') << "\n" << numbered_nodes(3, {});
    QCOMPARE(load_graph(path).size(), std::size_t{3});
    const std::string word = dir.filePath("word.txt").toStdString();
    std::ofstream(word) << std::string(70000, ' ') << "node { name: \"a\" op: \"NoOp\" }\n";
    QCOMPARE(load_graph(word).size(), std::size_t{1});
    const std::string big = dir.filePath("big.pbtxt").toStdString();  // only its start is sniffed
    std::ofstream(big) << numbered_nodes(3000, {});
    QVERIFY(std::filesystem::file_size(big) > 100000);
    QCOMPARE(load_graph(big).size(), std::size_t{3000});
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
