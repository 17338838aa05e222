// Every broken input must fail with a message a user can act on: the file
// name, for text files the line:column, and a word pointing at the fix.
// Fixtures live in tests/data/malformed/ (one defect per file).
#include "test_main.h"
#include <QtTest>

#include <filesystem>

#include "common/error.h"
#include "io/graph_io.h"

using namespace flowlens;

namespace {
const std::string kDir = std::string(FLOWLENS_TEST_DATA) + "/malformed/";

struct Failure {
  std::string message;
  bool is_parse_error = false;
  int line = 0, column = 0;
};

Failure load_failure(const std::string& path) {
  try {
    load_graph(path);
  } catch (const ParseError& e) {
    return {e.what(), true, e.line(), e.column()};
  } catch (const Error& e) {
    return {e.what(), false, 0, 0};
  }
  return {};
}
}  // namespace

class TestMalformedFiles : public QObject {
  Q_OBJECT

 private slots:
  void rejects_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("line");    // expected 1-based line; 0 = no location (binary, file-level)
    QTest::addColumn<QString>("keyword");

    QTest::newRow("missing colon") << "missing_colon.pbtxt" << 3 << "Expected \":\"";
    QTest::newRow("unknown field") << "unknown_field.pbtxt" << 3 << "no field named \"opp\"";
    QTest::newRow("wrong field type") << "wrong_field_type.pbtxt" << 2 << "Expected string";
    QTest::newRow("unterminated string") << "unterminated_string.pbtxt" << 2 << "line boundaries";
    QTest::newRow("bad enum") << "bad_enum.pbtxt" << 4 << "DT_FLOATY";
    QTest::newRow("empty text") << "empty.pbtxt" << 0 << "empty";
    QTest::newRow("tensor_content size") << "tensor_content_size.pbtxt" << 1 << "needs 16";
    QTest::newRow("dtype number") << "bad_dtype_number.pbtxt" << 2 << "not a DataType";
    QTest::newRow("tensor without dtype") << "tensor_invalid_dtype.pbtxt" << 1 << "DT_INVALID";
    QTest::newRow("bad shape dim") << "bad_shape_dim.pbtxt" << 1 << "-1 for unknown";
    QTest::newRow("tensor unknown dim") << "tensor_unknown_dim.pbtxt" << 1 << "known dims";
    QTest::newRow("unbalanced braces") << "unbalanced_braces.pbtxt" << 6 << "closing '}'";
    QTest::newRow("extra closing brace") << "extra_closing_brace.pbtxt" << 5 << "}";
    QTest::newRow("duplicate field") << "duplicate_field.pbtxt" << 3 << "specified multiple times";
    QTest::newRow("too many values") << "too_many_values.pbtxt" << 1 << "only 2 elements";
    QTest::newRow("bad escape") << "bad_escape.pbtxt" << 2 << "escape";
    QTest::newRow("int out of range") << "int_out_of_range.pbtxt" << 4 << "out of range";
    QTest::newRow("bad bool") << "bad_bool.pbtxt" << 4 << "boolean";
    QTest::newRow("oneof twice") << "oneof_twice.pbtxt" << 4 << "oneof";
    QTest::newRow("scalar for message") << "scalar_for_message.pbtxt" << 5 << "Expected \"{\"";
    QTest::newRow("odd complex") << "odd_complex.pbtxt" << 1 << "pairs";
    QTest::newRow("bad list type") << "bad_list_type.pbtxt" << 1 << "not a DataType";
    QTest::newRow("nested func tensor") << "nested_func_bad_tensor.pbtxt" << 1 << "'k'";
    QTest::newRow("binary in .pbtxt") << "not_text.pbtxt" << 3 << "binary GraphDef";
    QTest::newRow("empty binary") << "empty.pb" << 0 << "empty";
    QTest::newRow("truncated binary") << "truncated.pb" << 0 << "truncated";
    QTest::newRow("random bytes") << "random_bytes.pb" << 0 << "not a valid binary GraphDef";
    QTest::newRow("text named .pb") << "text_named_pb.pb" << 0 << ".pbtxt";
    QTest::newRow("other message") << "not_a_graphdef.pb" << 0 << "no GraphDef fields";
    QTest::newRow("sniffed binary") << "unknown_extension.graph" << 0 << "not a valid binary GraphDef";
  }

  void rejects() {
    QFETCH(QString, file);
    QFETCH(int, line);
    QFETCH(QString, keyword);
    const std::string path = kDir + file.toStdString();
    QVERIFY2(std::filesystem::is_regular_file(path), path.c_str());
    Failure f = load_failure(path);
    QVERIFY2(f.is_parse_error, ("expected a ParseError, got: " + f.message).c_str());
    QVERIFY2(f.message.find(file.toStdString()) != std::string::npos, f.message.c_str());
    QVERIFY2(f.message.find(keyword.toStdString()) != std::string::npos, f.message.c_str());
    QCOMPARE(f.line, line);
    if (line > 0) {
      QVERIFY2(f.column > 0, f.message.c_str());
      const std::string where = ":" + std::to_string(f.line) + ":" + std::to_string(f.column) + ":";
      QVERIFY2(f.message.find(where) != std::string::npos, f.message.c_str());
    }
  }

  // Semantic errors point at the node, and name it and the attr.
  void semantic_errors_name_node_and_attr() {
    Failure f = load_failure(kDir + "tensor_content_size.pbtxt");
    QVERIFY2(f.message.find("node 'w'") != std::string::npos, f.message.c_str());
    QVERIFY2(f.message.find("attr 'value'") != std::string::npos, f.message.c_str());
    QVERIFY2(f.message.find("12 bytes") != std::string::npos, f.message.c_str());
    Failure d = load_failure(kDir + "bad_dtype_number.pbtxt");
    QVERIFY2(d.message.find("node 'p'") != std::string::npos, d.message.c_str());
    QCOMPARE(d.line, 2);  // the second node, not the first
  }

  void missing_file() {
    const std::string path = kDir + "does_not_exist.pbtxt";
    Failure f = load_failure(path);
    QVERIFY2(f.message.find(path) != std::string::npos, f.message.c_str());
    QVERIFY2(f.message.find("No such file or directory") != std::string::npos, f.message.c_str());
  }

  void directory_instead_of_file() {
    const std::string path = kDir + "directory.pbtxt";
    Failure f = load_failure(path);
    QVERIFY2(f.message.find(path) != std::string::npos, f.message.c_str());
    QVERIFY2(f.message.find("directory") != std::string::npos, f.message.c_str());
  }

  // DOT opens view-only through Graphviz (io/dot_reader.h); a broken one
  // names the file and carries Graphviz's syntax message.
  void dot_loads_and_bad_dot_is_reported() {
    const Graph g = load_graph(kDir + "graph.dot");
    QCOMPARE(g.size(), std::size_t(2));
    QVERIFY(g.find("b") && g.find("b")->inputs == std::vector<std::string>{"a"});
    Failure f = load_failure(kDir + "bad_syntax.dot");
    QVERIFY2(f.message.find("bad_syntax.dot") != std::string::npos, f.message.c_str());
    QVERIFY2(f.message.find("syntax") != std::string::npos, f.message.c_str());
    QVERIFY2(f.message.find("DOT") != std::string::npos, f.message.c_str());
  }

  void unknown_save_extension() {
    Graph g;
    try {
      save_graph(g, kDir + "out.xyz");
      QFAIL("expected an Error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find(".pbtxt") != std::string::npos, e.what());
    }
  }

  void unwritable_path() {
    Graph g;
    const std::string path = kDir + "no_such_dir/out.pbtxt";
    try {
      save_graph(g, path);
      QFAIL("expected an Error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
    }
  }

  // The in-memory parsers report the caller's source name.
  void parse_functions_use_source_name() {
    try {
      parse_graph_text("node { name: }", "<clipboard>");
      QFAIL("expected a ParseError");
    } catch (const ParseError& e) {
      QCOMPARE(QString::fromStdString(e.file()), QString("<clipboard>"));
      QCOMPARE(e.line(), 1);
    }
    try {
      parse_graph_binary(std::string("\x0a\x05\x0a", 3), "<bytes>");
      QFAIL("expected a ParseError");
    } catch (const ParseError& e) {
      QCOMPARE(QString::fromStdString(e.file()), QString("<bytes>"));
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestMalformedFiles)
#include "test_malformed_files.moc"
