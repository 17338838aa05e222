// Graphs shaped like real TensorFlow 1.x exports (tests/data/tf/*.pbtxt) must
// load unchanged, text and binary, with their counts, attrs and constant
// values intact.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "graph/device_spec.h"
#include "io/graph_io.h"

using namespace flowlens;

namespace {

std::string tf_file(const char* name) { return std::string(FLOWLENS_TEST_DATA) + "/tf/" + name; }

const Tensor& value_of(const Graph& g, const char* node) {
  const Node* n = g.find(node);
  if (!n) throw Error(std::string("missing node ") + node);
  const Tensor* t = n->attr("value").get_if<Tensor>();
  if (!t) throw Error(std::string("value of ") + node + " is not a tensor");
  return *t;
}

template <class T>
std::vector<T> elements(const Tensor& t) {
  std::vector<T> out(static_cast<size_t>(t.num_elements()));
  if (!out.empty()) std::memcpy(out.data(), t.raw_data(), out.size() * sizeof(T));
  return out;
}

std::vector<bool> as_bools(const Tensor& t) {
  auto v = t.values<bool>();
  return {v.begin(), v.end()};
}

int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

}  // namespace

class TestRealGraphs : public QObject {
  Q_OBJECT

 private slots:
  void all_load_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("nodes");
    QTest::newRow("mnist") << "mnist_softmax.pbtxt" << 24;
    QTest::newRow("conv") << "conv_bn_frozen.pbtxt" << 19;
    QTest::newRow("while") << "while_loop.pbtxt" << 19;
    QTest::newRow("functions") << "function_library.pbtxt" << 5;
    QTest::newRow("dtypes") << "data_types.pbtxt" << 15;
  }

  // Each file loads as text, and again as a binary .pb written from it.
  void all_load() {
    QFETCH(QString, file);
    QFETCH(int, nodes);
    const std::string path = tf_file(file.toUtf8().constData());
    Graph g = load_graph(path);
    QCOMPARE(static_cast<int>(g.size()), nodes);
    QCOMPARE(g.source_path, path);
    for (const Node& n : g.nodes()) {
      QVERIFY(!n.name.empty());
      QVERIFY(!n.op.empty());
      QVERIFY2(DeviceSpec::try_parse(n.device).has_value(), n.device.c_str());
    }

    QTemporaryDir dir;
    const std::string pb = dir.path().toStdString() + "/graph.pb";
    std::ofstream(pb, std::ios::binary) << graph_to_binary(g);
    Graph binary = load_graph(pb);
    QCOMPARE(binary.size(), g.size());
    QCOMPARE(graph_to_text(binary), graph_to_text(g));
  }

  void mnist_softmax() {
    Graph g = load_graph(tf_file("mnist_softmax.pbtxt"));
    QCOMPARE(g.versions.producer, 27);
    QCOMPARE(count_op(g, "VariableV2"), 2);
    QCOMPARE(count_op(g, "Assign"), 4);
    QCOMPARE(g.find("init")->inputs, (std::vector<std::string>{"^Variable/Assign", "^Variable_1/Assign"}));
    QCOMPARE(g.find("save/Assign_1")->inputs.at(1), std::string("save/RestoreV2:1"));

    const Tensor& zeros = value_of(g, "zeros");  // a single float_val: 0 fills [784,10]
    QCOMPARE(zeros.shape(), Shape({784, 10}));
    for (float v : zeros.values<float>()) QCOMPARE(v, 0.0f);

    const Node& x = *g.find("Placeholder");
    QCOMPARE(*x.attr("shape").get_if<Shape>(), Shape({-1, 784}));
    QCOMPARE(x.attr("_output_shapes").get_if<AttrList>()->shape.at(0), Shape({-1, 784}));
    QCOMPARE(g.find("Variable")->attr("_output_types").get_if<AttrList>()->type.at(0), dtype_ref(DType::Float));
    QCOMPARE(g.find("Variable/Assign")->attr("_class").get_if<AttrList>()->s.at(0), std::string("loc:@Variable"));

    QCOMPARE(value_of(g, "save/Const").strings(), std::vector<std::string>{"model"});
    QCOMPARE(value_of(g, "save/Const").shape(), Shape{});
    QCOMPARE(value_of(g, "save/SaveV2/tensor_names").strings(),
             (std::vector<std::string>{"Variable", "Variable_1"}));
    QCOMPARE(g.find("save/SaveV2")->attr("dtypes").get_if<AttrList>()->type.size(), size_t{2});
    QCOMPARE(g.find("save/RestoreV2")->device, std::string("/device:CPU:0"));
  }

  void conv_bn_frozen() {
    Graph g = load_graph(tf_file("conv_bn_frozen.pbtxt"));
    QCOMPARE(g.versions.producer, 134);
    const Tensor& w = value_of(g, "conv1/weights");
    QCOMPARE(w.shape(), Shape({2, 2, 1, 1}));
    QCOMPARE(elements<float>(w), (std::vector<float>{1, 2, 3, 4}));
    QCOMPARE(elements<int64_t>(value_of(g, "flatten/shape")), (std::vector<int64_t>{-1, 4}));

    const Node& conv = *g.find("conv1/Conv2D");
    QCOMPARE(conv.attr_string("padding", ""), std::string("SAME"));
    QCOMPARE(conv.attr("strides").get_if<AttrList>()->i, (std::vector<int64_t>{1, 1, 1, 1}));
    QVERIFY(conv.attr("explicit_paddings").get_if<AttrList>()->empty());
    DeviceSpec dev = DeviceSpec::parse(conv.device);
    QCOMPARE(dev.job, std::optional<std::string>("localhost"));
    QCOMPARE(dev.type, std::optional<std::string>("CPU"));

    const Node& bn = *g.find("bn/FusedBatchNormV3");
    QCOMPARE(bn.inputs.size(), size_t{5});
    QCOMPARE(bn.attr_float("epsilon", 0), 0.001f);
    QCOMPARE(bn.attr_bool("is_training", true), false);
    QCOMPARE(g.find("bn/batch_mean")->inputs.at(0), std::string("bn/FusedBatchNormV3:1"));
    QCOMPARE(elements<float>(value_of(g, "bn/beta")), std::vector<float>{-0.25f});

    QCOMPARE(elements<uint16_t>(value_of(g, "scale/half")), (std::vector<uint16_t>{0x3C00, 0x4000}));
    QCOMPARE(value_of(g, "scale/bf16").dtype(), DType::BFloat16);
    QCOMPARE(elements<uint16_t>(value_of(g, "scale/bf16")), std::vector<uint16_t>{0x3F80});
  }

  void while_loop() {
    Graph g = load_graph(tf_file("while_loop.pbtxt"));
    QCOMPARE(g.versions.producer, 38);
    QCOMPARE(count_op(g, "Merge"), 2);
    QCOMPARE(count_op(g, "Switch"), 2);
    const Node& enter = *g.find("while/Enter");
    QCOMPARE(enter.attr_string("frame_name", ""), std::string("while/while_context"));
    QCOMPARE(enter.attr_int("parallel_iterations", 0), int64_t{10});
    QCOMPARE(g.find("while/Merge")->inputs, (std::vector<std::string>{"while/Enter", "while/NextIteration"}));
    QCOMPARE(g.find("while/Less/y")->inputs, std::vector<std::string>{"^while/Merge"});
    QCOMPARE(g.find("while/Identity")->inputs, std::vector<std::string>{"while/Switch:1"});
    QCOMPARE(elements<int32_t>(value_of(g, "while/Less/y")), std::vector<int32_t>{10});
    QCOMPARE(as_bools(value_of(g, "pred/default")), std::vector<bool>{true});
  }

  void function_library() {
    Graph g = load_graph(tf_file("function_library.pbtxt"));
    QCOMPARE(g.versions.producer, 27);
    QCOMPARE(g.versions.min_consumer, 12);
    QCOMPARE(g.function_names, (std::vector<std::string>{"MulAdd_6a1f0c2e", "PolySquare"}));
    const auto& f = *g.find("call")->attr("f").get_if<std::shared_ptr<FuncRef>>();
    QCOMPARE(f->name, std::string("MulAdd_6a1f0c2e"));
    QCOMPARE(f->attrs.at("T").to_string(), std::string("float32"));
    QCOMPARE(g.find("direct_call")->op, std::string("MulAdd_6a1f0c2e"));
    QVERIFY(!g.find("x")->attr("shape").get_if<Shape>()->rank_known());
    QCOMPARE(g.find("call")->attr_string("config_proto", "").size(), size_t{24});

    // The library is passed through: writing the graph re-emits all of it.
    const std::string text = graph_to_text(g);
    for (const char* needle : {"name: \"PolySquare\"", "placeholder: \"T\"", "gradient_func: \"MulAdd_grad\"",
                               "control_ret {", "arg_attr {", "resource_arg_unique_id {", "original_node_names"})
      QVERIFY2(text.find(needle) != std::string::npos, needle);
  }

  void data_types() {
    Graph g = load_graph(tf_file("data_types.pbtxt"));
    QCOMPARE(g.legacy_version, 17);
    QCOMPARE(g.versions.bad_consumers, (std::vector<int>{13, 14}));
    QCOMPARE(elements<int8_t>(value_of(g, "i8")), (std::vector<int8_t>{-128, 127, 127}));
    QCOMPARE(elements<uint8_t>(value_of(g, "u8")), (std::vector<uint8_t>{255, 7}));
    QCOMPARE(elements<int16_t>(value_of(g, "i16")), (std::vector<int16_t>{-300, 300}));
    QCOMPARE(elements<uint16_t>(value_of(g, "u16")), std::vector<uint16_t>{65535});
    QCOMPARE(elements<uint32_t>(value_of(g, "u32")), (std::vector<uint32_t>{4294967295u, 1}));
    QCOMPARE(elements<uint64_t>(value_of(g, "u64")), std::vector<uint64_t>{UINT64_MAX});
    QCOMPARE(elements<int64_t>(value_of(g, "i64")), (std::vector<int64_t>{5, -9000000000, -9000000000, -9000000000}));
    QCOMPARE(elements<double>(value_of(g, "f64")), (std::vector<double>{0.1, 2.5, 2.5, 2.5}));
    QCOMPARE(elements<std::complex<float>>(value_of(g, "c64")),
             (std::vector<std::complex<float>>{{1, -1}, {1, -1}}));
    QCOMPARE(as_bools(value_of(g, "bools")), (std::vector<bool>{false, true, true}));
    QCOMPARE(value_of(g, "empty").num_elements(), int64_t{0});
    QCOMPARE(value_of(g, "empty").shape(), Shape({0, 3}));
    QCOMPARE(elements<float>(value_of(g, "ones_ish")), (std::vector<float>{1, 2, 2, 2, 2, 2}));
    QCOMPARE(value_of(g, "bytes").strings(), (std::vector<std::string>{"caf\xc3\xa9", std::string("\0\1\xff", 3)}));
    QCOMPARE(elements<int32_t>(value_of(g, "packed_ints")), (std::vector<int32_t>{1, 2, 3, 3, 3}));
    QVERIFY(!g.find("sum")->attr("_output_shapes").get_if<AttrList>()->shape.at(1).rank_known());
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestRealGraphs)
#include "test_real_graphs.moc"
