// Regression tests for what the fuzz targets of tests/fuzz/ found, one slot
// per fix. Each failing input is also kept in the fuzz seed corpus
// (tests/fuzz/corpus/<target>/regress_*), so the fuzzers replay it too.
#include "test_main.h"
#include <QtTest>

#include "cluster/cluster_spec.h"
#include "common/error.h"
#include "io/graph_io.h"
#include "tensor/npy.h"

using namespace flowlens;

namespace {

// The ParseError a call throws; fails the test if it throws none.
template <class F>
ParseError parse_error_of(F&& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e;
  }
  return ParseError("<no error>", 0, 0, "the call did not throw");
}

bool contains(const ParseError& e, const char* text) { return std::string(e.what()).find(text) != std::string::npos; }

}  // namespace

class TestFuzzRegressions : public QObject {
  Q_OBJECT

 private slots:
  // fuzz_graphdef_text: the text parser took non-UTF-8 names that the binary
  // parser then refused, so such a graph saved as .pb could not be reopened.
  void text_rejects_non_utf8_strings_at_their_node() {
    ParseError e = parse_error_of([] {
      parse_graph_text("node { name: \"a\" op: \"NoOp\" }\nnode { name: \"caf\\351\" op: \"NoOp\" }\n", "g.pbtxt");
    });
    QCOMPARE(QString::fromStdString(e.file()), QString("g.pbtxt"));
    QCOMPARE(e.line(), 2);
    QVERIFY2(contains(e, "node 1") && contains(e, "field name is not valid UTF-8"), e.what());
    ParseError nested = parse_error_of([] {
      parse_graph_text("node { name: \"f\" attr { key: \"f\" value { func { name: \"g\" "
                       "attr { key: \"\\377\" } } } } }",
                       "g.pbtxt");
    });
    QVERIFY2(contains(nested, "field attr.value.func.attr.key is not valid UTF-8"), nested.what());
    // Valid multi-byte UTF-8 is fine, and so are arbitrary bytes in bytes fields.
    Graph g = parse_graph_text("node { name: \"café\" attr { key: \"s\" value { s: \"\\377\" } } }", "g.pbtxt");
    QCOMPARE(QString::fromStdString(g.nodes().front().name), QString::fromUtf8("café"));
  }

  // fuzz_graphdef_binary: fields unknown to our schema (kept inside the
  // library) printed as bare field numbers, which the text parser refused.
  void text_of_a_graph_with_unknown_library_fields_reads_back() {
    // node { name: "x" op: "y" } library { <field 15>: 1 }
    const std::string bytes("\x0a\x06\x0a\x01x\x12\x01y\x12\x02\x78\x01", 12);
    Graph g = parse_graph_binary(bytes, "g.pb");
    QVERIFY(!g.library_bytes.empty());
    const std::string text = graph_to_text(g);
    Graph again = parse_graph_text(text, "g.pbtxt");
    QCOMPARE(again.nodes().size(), size_t{1});
    QCOMPARE(graph_to_binary(parse_graph_binary(graph_to_binary(g), "g.pb")), graph_to_binary(g));
  }

  // fuzz_cluster_json: a number beyond double made nlohmann throw out_of_range,
  // which escaped parse_cluster_spec as a non-flowlens exception.
  void json_number_overflow_is_a_parse_error() {
    ParseError e = parse_error_of([] { parse_cluster_spec("{\"worker\": [1e999]}", "c.json"); });
    QVERIFY2(contains(e, "c.json: invalid JSON: number overflow"), e.what());
  }

  // fuzz_cluster_json: a TF_CONFIG whose cluster has a job called "cluster"
  // was written back as a bare job dict, which reads as TF_CONFIG again.
  void a_job_called_cluster_round_trips() {
    for (const char* job : {"cluster", "task"}) {
      const ClusterSpec spec =
          parse_cluster_spec(std::string("{\"cluster\": {\"") + job + "\": [\"h:1\"]}}", "c.json");
      QCOMPARE(spec.num_tasks(job), 1);
      QVERIFY2(parse_cluster_spec(spec.to_json(), "again.json") == spec, spec.to_json().c_str());
    }
  }

  // Found while writing the corpus: elements of zero bytes ('|S0') let a tiny
  // .npy claim 10^11 strings, all allocated before any check.
  void npy_zero_width_strings_are_rejected() {
    std::string header = "{'descr': '|S0', 'fortran_order': False, 'shape': (100000000000,)}\n";
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
    ParseError e = parse_error_of([&] { parse_npy(bytes, "s.npy"); });
    QVERIFY2(contains(e, "s.npy: not a valid .npy file: bad descr '|S0'"), e.what());
  }

  // A repeated *_val value can ask for any size: refused above 1 GiB before
  // allocating, with tensor_content still allowed to be as large as the file.
  void repeated_value_constants_are_capped() {
    const std::string node = "node { name: \"z\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
                             "tensor_shape { dim { size: 268435457 } } float_val: 0 } } } }";
    ParseError e = parse_error_of([&] { parse_graph_text(node, "z.pbtxt"); });
    QVERIFY2(contains(e, "would expand to 1073741828 bytes") && contains(e, "at most 1024 MiB"), e.what());
    Graph small = parse_graph_text("node { name: \"z\" op: \"Const\" attr { key: \"value\" value { tensor { "
                                   "dtype: DT_FLOAT tensor_shape { dim { size: 1000 } } float_val: 2 } } } }",
                                   "z.pbtxt");
    QCOMPARE(small.nodes().front().attrs.at("value").get_if<Tensor>()->num_elements(), int64_t{1000});
  }

  // Nested func attrs recursed without bound in the text parser.
  void text_nesting_is_limited() {
    std::string text = "node { name: \"n\" attr { key: \"f\" ";
    for (int k = 0; k < 200; ++k) text += "value { func { name: \"g\" attr { key: \"k\" ";
    text += "value { i: 1 }";
    for (int k = 0; k < 200; ++k) text += " } } }";
    text += " } }";
    ParseError e = parse_error_of([&] { parse_graph_text(text, "deep.pbtxt"); });
    QVERIFY2(contains(e, "recursion limit of 100"), e.what());
  }

  // A UTF-8 byte-order mark is skipped, and line 1 columns ignore it.
  void byte_order_mark_is_skipped() {
    Graph g = parse_graph_text("\xEF\xBB\xBFnode { name: \"a\" op: \"NoOp\" }", "bom.pbtxt");
    QCOMPARE(g.nodes().size(), size_t{1});
    ParseError with = parse_error_of([] { parse_graph_text("\xEF\xBB\xBFnode { nam: \"a\" }", "bom.pbtxt"); });
    ParseError without = parse_error_of([] { parse_graph_text("node { nam: \"a\" }", "bom.pbtxt"); });
    QCOMPARE(with.line(), 1);
    QVERIFY(without.column() > 0);
    QCOMPARE(with.column(), without.column());
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestFuzzRegressions)
#include "test_fuzz_regressions.moc"
