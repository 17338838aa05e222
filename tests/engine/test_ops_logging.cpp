// CheckNumerics, Assert, Print and PrintV2: TensorFlow's messages (data
// summarized by SummarizeValue), Print's first_n per node and session, the
// run log a Session routes their text to, and the gradients TensorFlow's
// Python registers for CheckNumerics and Print.
#include "test_main.h"
#include <QTemporaryDir>
#include <mutex>

#include "exec/session.h"
#include "gradient_check.h"
#include "op_test_util.h"
#include "transform/gradients.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

AttrValue types(std::vector<DType> t) {
  AttrList l;
  l.type = std::move(t);
  return AttrValue(std::move(l));
}

// What a session's Print and PrintV2 nodes wrote, stream by stream.
struct CapturedLog {
  std::mutex mu;
  std::vector<std::pair<LogStream, std::string>> lines;
  SessionOptions options() {
    SessionOptions o;
    o.inter_op_threads = 2;
    o.use_gpus = false;
    o.log_sink = [this](LogStream s, std::string_view text) {
      std::lock_guard lock(mu);
      lines.emplace_back(s, std::string(text));
    };
    return o;
  }
};

std::string placeholder(Graph& g, const std::string& name, DType dtype) {
  Node n;
  n.name = name;
  n.op = "Placeholder";
  n.attrs["dtype"] = AttrValue(dtype);
  g.add_node(std::move(n));
  return name;
}

}  // namespace

class TestOpsLogging : public QObject {
  Q_OBJECT
 private slots:
  void check_numerics_passes_finite_values_through() {
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16}) {
      Tensor in = T(t, {3}, {1, -2, 65504});
      Tensor out = run1("CheckNumerics", {{"T", t}, {"message", "m"}}, {in});
      QVERIFY(out.shares_buffer_with(in));  // TF forwards the input
    }
  }

  void check_numerics_messages() {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_ERROR(run1("CheckNumerics", {{"message", "logits"}}, {F({3}, {1, std::nanf(""), 2})}),
                 "logits : Tensor had NaN values");
    EXPECT_ERROR(run1("CheckNumerics", {{"message", "x"}}, {D({2}, {-HUGE_VAL, 0})}), "x : Tensor had Inf values");
    EXPECT_ERROR(run1("CheckNumerics", {{"message", "y"}}, {F({2}, {std::nanf(""), inf})}),
                 "y : Tensor had Inf and NaN values");
    // float16 overflow to infinity is caught, as are bfloat16 NaNs.
    EXPECT_ERROR(run1("CheckNumerics", {{"message", "h"}}, {T(DType::Half, {1}, {1e5})}), "h : Tensor had Inf values");
    EXPECT_ERROR(run1("CheckNumerics", {{"message", "b"}}, {T(DType::BFloat16, {1}, {std::nan("")})}),
                 "b : Tensor had NaN values");
    EXPECT_ERROR(run1("CheckNumerics", {{"message", "i"}}, {I32({1}, {1})}), "unsupported dtype int32");
    EXPECT_ERROR(run1("CheckNumerics", {}, {F({1}, {1})}), "message");  // a required attr
  }

  void assert_lists_its_data() {
    QCOMPARE(run_op("Assert", {{"T", types({DType::Int32})}}, {B({}, {true}), I32({2}, {1, 2})}).size(), size_t{0});
    // tf.debugging.Assert(x > 0, ["x must be positive", x]) with summarize=3.
    EXPECT_ERROR(run_op("Assert", {{"T", types({DType::String, DType::Int32})}},
                        {B({}, {false}), S({}, {"x must be positive"}), I32({4}, {-1, 2, 3, 4})}),
                 "assertion failed: [x must be positive] [-1 2 3...]");
    EXPECT_ERROR(run_op("Assert", {{"T", types({DType::Float})}, {"summarize", 10}},
                        {B({}, {false}), F({2, 2}, {0.5f, 1, 2, 1.0f / 3.0f})}),
                 "assertion failed: [[0.5 1][2 0.333333343]]");
    EXPECT_ERROR(run_op("Assert", {{"T", types({DType::Int32})}}, {B({}, {false}), I32({2, 2}, {1, 2, 3, 4})}),
                 "assertion failed: [[1 2][3...]...]");
    EXPECT_ERROR(run_op("Assert", {{"T", types({DType::Bool, DType::String})}, {"summarize", -1}},
                        {B({}, {false}), B({2}, {true, false}), S({}, {"tab\there"})}),
                 "assertion failed: [1 0] [tab\\there]");
    EXPECT_ERROR(run_op("Assert", {{"T", types({})}}, {B({2}, {true, true})}), "In[0] should be a scalar: [2]");
  }

  void print_logs_message_and_data_through_the_session() {
    Graph g;
    GraphBuilder b(g);
    const std::string x = placeholder(g, "x", DType::Float);
    const std::string label = b.constant("label", S({}, {"step"}));
    const std::string p = b.add("Print", "p", {x, x, label},
                                {{"T", AttrValue(DType::Float)},
                                 {"U", types({DType::Float, DType::String})},
                                 {"message", AttrValue("x is ")}});
    CapturedLog log;
    Session s(g, log.options());
    Tensor out = s.run({{x, F({5}, {1, 2, 3, 4, 5})}}, {p})[0];
    QVERIFY(tensor_near(out, DType::Float, {5}, {1, 2, 3, 4, 5}));
    QCOMPARE(log.lines.size(), size_t{1});
    QCOMPARE(log.lines[0].first, LogStream::Stderr);
    QCOMPARE(QString::fromStdString(log.lines[0].second), QString("x is [1 2 3...][step]\n"));
  }

  void print_first_n_counts_runs_of_the_node() {
    Graph g;
    GraphBuilder b(g);
    const std::string x = placeholder(g, "x", DType::Int64);
    const AttrValue t(DType::Int64);
    const std::string p = b.add("Print", "p", {x, x}, {{"T", t}, {"U", types({DType::Int64})}, {"first_n", AttrValue(2)}});
    const std::string never = b.add("Print", "never", {x, x}, {{"T", t}, {"U", types({DType::Int64})}, {"first_n", AttrValue(0)}});
    CapturedLog log;
    Session s(g, log.options());
    for (int64_t step = 0; step < 4; ++step) s.run({{x, I64({}, {step})}}, {p, never});
    QCOMPARE(log.lines.size(), size_t{2});
    QCOMPARE(QString::fromStdString(log.lines[1].second), QString("[1]\n"));
    // A new session starts counting again.
    Session again(g, log.options());
    again.run({{x, I64({}, {9})}}, {p});
    QCOMPARE(log.lines.size(), size_t{3});
    QCOMPARE(QString::fromStdString(log.lines.back().second), QString("[9]\n"));
  }

  void print_v2_writes_input_and_end_to_its_stream() {
    Graph g;
    GraphBuilder b(g);
    const std::string x = placeholder(g, "x", DType::Int32);
    const std::string text = b.add("StringFormat", "fmt", {x},
                                   {{"T", types({DType::Int32})}, {"template", AttrValue("x: {}")},
                                    {"placeholder", AttrValue("{}")}});
    b.add("PrintV2", "to_stdout", {text}, {{"output_stream", AttrValue("stdout")}, {"end", AttrValue("!")}});
    b.add("PrintV2", "to_stderr", {text}, {});
    b.add("PrintV2", "to_warning", {text}, {{"output_stream", AttrValue("log(warning)")}});
    CapturedLog log;
    Session s(g, log.options());
    s.run({{x, I32({4}, {1, 2, 3, 4})}}, {}, {"to_stdout"});
    s.run({{x, I32({4}, {1, 2, 3, 4})}}, {}, {"to_stderr"});
    s.run({{x, I32({}, {7})}}, {}, {"to_warning"});
    QCOMPARE(log.lines.size(), size_t{3});
    QCOMPARE(log.lines[0].first, LogStream::Stdout);
    QCOMPARE(QString::fromStdString(log.lines[0].second), QString("x: [1 2 3 4]!"));
    QCOMPARE(log.lines[1].first, LogStream::Stderr);
    QCOMPARE(QString::fromStdString(log.lines[1].second), QString("x: [1 2 3 4]\n"));  // end defaults to "\n"
    QCOMPARE(log.lines[2].first, LogStream::Warning);
  }

  void print_v2_appends_to_a_file_stream() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("log.txt").toStdString();
    for (const char* line : {"first", "second"})
      run_op("PrintV2", {{"output_stream", AttrValue("file://" + path)}}, {S({}, {line})});
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("first\nsecond\n"));
  }

  void print_v2_errors() {
    EXPECT_ERROR(run_op("PrintV2", {{"output_stream", AttrValue("stdlog")}}, {S({}, {"x"})}),
                 "Unknown output stream: stdlog, Valid streams are: stdout stderr log(info) log(warning) log(error)");
    EXPECT_ERROR(run_op("PrintV2", {}, {S({2}, {"a", "b"})}), "Input is expected to be scalar, but got [2]");
    EXPECT_ERROR(infer("PrintV2", {}, {{DType::String, Shape{2, 2}}}), "input must be a scalar, but has rank: 2");
    QCOMPARE(infer("PrintV2", {}, {{DType::String, Shape::unknown_rank()}}).size(), size_t{0});
  }

  void check_numerics_gradient_checks_the_gradient() {
    Model m;
    const std::string x = m.x("x", D({3}, {1, 2, 3}));
    const std::string y = m.op("CheckNumerics", {x}, {{"message", AttrValue("fwd")}});
    check_gradients(m, y);
    const Node* grad = nullptr;
    for (const Node& n : m.g.nodes())
      if (n.op == "CheckNumerics" && n.name != y) grad = &n;
    QVERIFY(grad);
    QCOMPARE(QString::fromStdString(grad->attr_string("message", "")),
             QString("Not a number (NaN) or infinity (Inf) values detected in gradient. fwd"));
  }

  void print_gradient_passes_through_to_its_input_only() {
    Model m;
    const std::string x = m.x("x", D({2}, {1, 2}));
    const std::string d = m.x("d", D({2}, {3, 4}));
    const std::string p = m.op("Print", {x, d}, {{"U", types({DType::Double})}, {"first_n", AttrValue(0)}});
    const std::string y = m.op("Mul", {p, d});
    check_gradients(m, y);  // d gets its gradient through Mul only
    const auto grads = add_gradients(m.g, {p}, {x}, OpRegistry::global());
    QCOMPARE(grads.size(), size_t{1});
    QVERIFY(!grads[0].empty());
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpsLogging)
#include "test_ops_logging.moc"
