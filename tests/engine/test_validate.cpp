// Graph validation: each structural mistake gives one clear diagnostic.
#include "test_main.h"
#include <QtTest>

#include "analysis/validate.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"

using namespace flowlens;

// QVERIFY2 wants a C string; the temporary lives until the end of the macro.
#define std_text(s) std::string(s).c_str()

namespace {

const char* kConst =
    "node { name: 'a' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
    "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }\n";

std::vector<Diagnostic> check(const std::string& text) {
  return validate_graph(parse_graph_text(text, "v.pbtxt"), OpRegistry::global());
}

// Exactly one error, whose text contains `phrase`.
void expect_error(const std::string& text, const std::string& phrase) {
  auto d = check(text);
  int errors = 0;
  std::string all;
  for (const auto& x : d) {
    all += x.to_string() + "\n";
    if (x.is_error()) ++errors;
  }
  QVERIFY2(errors >= 1, std_text("no error for: " + text));
  QVERIFY2(all.find(phrase) != std::string::npos, std_text("'" + phrase + "' not in:\n" + all));
}

}  // namespace

class TestValidate : public QObject {
  Q_OBJECT
 private slots:
  void clean_graph_has_no_findings() {
    auto d = check(std::string(kConst) + "node { name: 'b' op: 'Identity' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } }");
    QVERIFY2(d.empty(), d.empty() ? "" : d[0].to_string().c_str());
  }
  void duplicate_name() { expect_error(std::string(kConst) + kConst, "duplicate node name 'a'"); }
  void unknown_input() {
    expect_error("node { name: 'b' op: 'Identity' input: 'ghost' }", "names node 'ghost', which is not in the graph");
  }
  void unknown_control_input() { expect_error("node { name: 'b' op: 'NoOp' input: '^ghost' }", "'ghost'"); }
  void malformed_input() { expect_error(std::string(kConst) + "node { name: 'b' op: 'Identity' input: 'a:x' }", "malformed"); }
  void port_out_of_range() {
    expect_error(std::string(kConst) + "node { name: 'b' op: 'Identity' input: 'a:2' }", "asks for output 2 of 'a'");
  }
  void control_before_data() {
    expect_error(std::string(kConst) + "node { name: 'n' op: 'NoOp' } node { name: 'b' op: 'Identity' input: '^n' input: 'a' }",
                 "follows a control input");
  }
  void cycle() {
    expect_error("node { name: 'x' op: 'Identity' input: 'y' } node { name: 'y' op: 'Identity' input: 'x' }", "cycle");
  }
  void self_loop() { expect_error("node { name: 'x' op: 'Identity' input: 'x' }", "cycle"); }
  void loop_through_next_iteration_is_allowed() {
    auto d = check(
        std::string("node { name: 'm' op: 'Merge' input: 'e' input: 'n' } node { name: 'e' op: 'Enter' input: 'a' "
                    "attr { key: 'frame_name' value { s: 'loop' } } }") +
        "node { name: 'n' op: 'NextIteration' input: 'm' }" + kConst);
    QVERIFY(!has_errors(d));
  }
  void bad_attr_type() {
    expect_error(std::string(kConst) +
                     "node { name: 'm' op: 'MatMul' input: 'a' input: 'a' attr { key: 'transpose_a' value { i: 1 } } }",
                 "attr 'transpose_a' of MatMul must be bool");
  }
  // A list attr given a single value was once read as a list (a crash).
  void scalar_for_a_list_attr() {
    expect_error(std::string(kConst) +
                     "node { name: 'n' op: 'IdentityN' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } }",
                 "attr 'T' of IdentityN must be list(type)");
  }
  // num_split sizes the outputs: bounded at validation, before anything is allocated.
  void huge_list_size_attr() {
    expect_error(std::string(kConst) + "node { name: 'd' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }"
                     " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }"
                     "node { name: 'sp' op: 'Split' input: 'd' input: 'a' attr { key: 'T' value { type: DT_FLOAT } }"
                     " attr { key: 'num_split' value { i: 1000000000 } } }",
                 "attr 'num_split' is 1000000000, expected 0 to 1048576");
  }
  void wrong_input_count() {
    expect_error(std::string(kConst) + "node { name: 'm' op: 'MatMul' input: 'a' }", "MatMul takes 2 data inputs, got 1");
  }
  void bad_device() {
    expect_error(std::string(kConst) + "node { name: 'b' op: 'Identity' input: 'a' device: 'gpu zero' }",
                 "not a valid device name");
  }
  void empty_name() { expect_error("node { op: 'NoOp' }", "empty name"); }
  void unknown_op_is_a_warning() {
    auto d = check("node { name: 'x' op: 'CudnnRNN' }");
    QCOMPARE(d.size(), size_t(1));
    QVERIFY(!d[0].is_error());
    QVERIFY(d[0].message.find("unknown op 'CudnnRNN'") != std::string::npos);
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestValidate)
#include "test_validate.moc"
