// ONNX import: ModelProtos built here with the onnx protobuf API, written to
// .onnx files and loaded through load_graph. Covers placeholders, initializers
// (raw and typed), op mapping, attrs, running the mapped MLP, and errors.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "exec/session.h"
#include "io/file_formats.h"
#include "io/graph_io.h"

using namespace flowlens;

namespace {

void add_value(onnx::ValueInfoProto* v, const std::string& name, int elem, std::vector<int64_t> dims,
               const std::string& param = "") {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) {
    auto* dim = shape->add_dim();
    if (d >= 0) dim->set_dim_value(d);
    else if (!param.empty()) dim->set_dim_param(param);
  }
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                          std::vector<std::string> out, const std::string& name = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& s : in) n->add_input(s);
  for (auto& s : out) n->add_output(s);
  return n;
}

// X [?,3] -> MatMul W [3,2] (raw_data) -> Add B [2] (float_data) -> Relu -> Y,
// plus an unmapped Conv with attrs, a Concat and a Softmax.
onnx::ModelProto make_mlp() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("mlp");
  add_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {-1, 3}, "batch");
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->add_dims(2);
  const float wv[6] = {1, -1, 2, 0.5f, -3, 1};
  w->set_raw_data(std::string(reinterpret_cast<const char*>(wv), sizeof wv));
  auto* b = g->add_initializer();
  b->set_name("B");
  b->set_data_type(onnx::TensorProto::FLOAT);
  b->add_dims(2);
  b->add_float_data(0.5f);
  b->add_float_data(-1.0f);
  add_node(g, "MatMul", {"X", "W"}, {"xw"}, "fc/matmul");
  add_node(g, "Add", {"xw", "B"}, {"h"});
  add_node(g, "Relu", {"h"}, {"Y"}, "relu");
  add_node(g, "Concat", {"Y", "Y"}, {"cat"}, "cat")->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(1);
    return a;
  }());
  add_node(g, "Softmax", {"cat"}, {"P"}, "softmax");
  auto* conv = add_node(g, "Conv", {"X", "W"}, {"conv_out", "conv_extra"});  // unnamed, unmapped
  auto* ks = conv->add_attribute();
  ks->set_name("kernel_shape");
  ks->set_type(onnx::AttributeProto::INTS);
  ks->add_ints(3);
  ks->add_ints(3);
  auto* ap = conv->add_attribute();
  ap->set_name("auto_pad");
  ap->set_type(onnx::AttributeProto::STRING);
  ap->set_s("SAME_UPPER");
  auto* body = conv->add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto::GRAPH);
  body->mutable_g()->add_node()->set_op_type("Identity");
  body->mutable_g()->add_node()->set_op_type("Identity");
  auto* i64 = g->add_initializer();
  i64->set_name("steps:0");  // ':' must not leak into node names
  i64->set_data_type(onnx::TensorProto::INT64);
  i64->add_dims(3);
  for (int64_t v : {7, -8, 9}) i64->add_int64_data(v);
  add_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {-1, 2}, "batch");
  add_value(g->add_output(), "P", onnx::TensorProto::FLOAT, {-1, 4}, "batch");
  return m;
}

std::string write(const QTemporaryDir& dir, const std::string& file, const std::string& bytes) {
  const std::string path = dir.filePath(QString::fromStdString(file)).toStdString();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string load_error(const std::string& path) {
  try {
    load_graph(path);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "<no ParseError>";
}

}  // namespace

class TestOnnxImport : public QObject {
  Q_OBJECT

 private slots:
  void format_by_extension() {
    // By name alone, before any byte is looked at.
    QCOMPARE(detect_file_format(std::string_view(), "model.onnx"), FileFormat::Onnx);
    QCOMPARE(detect_file_format(std::string_view(), "a/M.ONNX"), FileFormat::Onnx);
  }

  void imports_nodes_ops_and_attrs() {
    QTemporaryDir dir;
    const std::string path = write(dir, "mlp.onnx", make_mlp().SerializeAsString());
    Graph g = load_graph(path);
    QCOMPARE(g.source_path, path);

    const Node* x = g.find("X");
    QVERIFY(x);
    QCOMPARE(x->op, std::string("Placeholder"));
    QCOMPARE(x->attr_type("dtype", DType::Invalid), DType::Float);
    QVERIFY(*x->attr("shape").get_if<Shape>() == Shape({-1, 3}));

    const Node* w = g.find("W");
    QVERIFY(w && w->op == "Const");
    const Tensor& wt = *w->attr("value").get_if<Tensor>();
    QVERIFY(wt.shape() == Shape({3, 2}));
    QCOMPARE(wt.values<float>()[3], 0.5f);
    const Tensor& bt = *g.find("B")->attr("value").get_if<Tensor>();
    QCOMPARE(bt.values<float>()[1], -1.0f);
    const Node* steps = g.find("steps_0");
    QVERIFY(steps);
    QCOMPARE(steps->attr("value").get_if<Tensor>()->values<int64_t>()[1], int64_t{-8});

    const Node* mm = g.find("fc/matmul");
    QVERIFY(mm);
    QCOMPARE(mm->op, std::string("MatMul"));
    QCOMPARE(mm->inputs, (std::vector<std::string>{"X", "W"}));
    QCOMPARE(mm->attr_type("T", DType::Invalid), DType::Float);
    const Node* add = g.find("Add_1");  // unnamed: "<op_type>_<index>"
    QVERIFY(add);
    QCOMPARE(add->op, std::string("AddV2"));
    QCOMPARE(add->inputs, (std::vector<std::string>{"fc/matmul", "B"}));
    QCOMPARE(g.find("relu")->op, std::string("Relu"));

    const Node* cat = g.find("cat");
    QCOMPARE(cat->op, std::string("ConcatV2"));
    QCOMPARE(cat->inputs, (std::vector<std::string>{"relu", "relu", "cat/axis"}));
    QCOMPARE(cat->attr_int("N", 0), int64_t{2});
    QCOMPARE(g.find("cat/axis")->attr("value").get_if<Tensor>()->values<int32_t>()[0], 1);
    QCOMPARE(g.find("softmax")->op, std::string("Softmax"));

    const Node* conv = g.find("Conv_5");
    QVERIFY(conv);
    QCOMPARE(conv->op, std::string("onnx::Conv"));
    QCOMPARE(conv->attr("kernel_shape").get_if<AttrList>()->i, (std::vector<int64_t>{3, 3}));
    QCOMPARE(conv->attr_string("auto_pad", ""), std::string("SAME_UPPER"));
    QCOMPARE(conv->attr_string("body", ""), std::string("<subgraph: 2 nodes>"));

    // Graph outputs: an Identity named after the value; the producer named
    // "Y"-like keeps its own name.
    const Node* y = g.find("Y");
    QVERIFY(y);
    QCOMPARE(y->op, std::string("Identity"));
    QCOMPARE(y->inputs, (std::vector<std::string>{"relu"}));
    QVERIFY(y->attr_bool("_onnx_output", false));
    QCOMPARE(g.find("P")->inputs, (std::vector<std::string>{"softmax"}));
  }

  void second_outputs_and_uniquified_names() {
    onnx::ModelProto m = make_mlp();
    auto* g = m.mutable_graph();
    add_node(g, "Identity", {"conv_extra"}, {"e"}, "relu");  // clashes with "relu"
    QTemporaryDir dir;
    Graph graph = load_graph(write(dir, "m.onnx", m.SerializeAsString()));
    const Node* dup = graph.find("relu_1");
    QVERIFY(dup);
    QCOMPARE(dup->inputs, (std::vector<std::string>{"Conv_5:1"}));
  }

  void runs_the_mapped_mlp() {
    QTemporaryDir dir;
    Graph g = load_graph(write(dir, "mlp.onnx", make_mlp().SerializeAsString()));
    Session session(std::move(g));
    const std::vector<float> xv = {1, 2, 3, -1, 0, 0.5f};
    auto out = session.run({{"X", Tensor::from_vector<float>(Shape{2, 3}, xv)}}, {"Y", "P"});
    QCOMPARE(out.size(), size_t{2});
    // W = [[1,-1],[2,0.5],[-3,1]], B = [0.5,-1].
    // row 0: [1+4-9, -1+1+3] + B = [-3.5, 2]   -> relu [0, 2]
    // row 1: [-1+0-1.5, 1+0+0.5] + B = [-2, 0.5] -> relu [0, 0.5]
    const std::vector<float> expect = {0, 2, 0, 0.5f};
    QVERIFY(out[0].shape() == Shape({2, 2}));
    for (size_t k = 0; k < expect.size(); ++k) QCOMPARE(out[0].values<float>()[k], expect[k]);
    // P = softmax([0,2,0,2]) per row.
    const float e2 = std::exp(2.0f), denom = 2 + 2 * e2;
    QVERIFY(out[1].shape() == Shape({2, 4}));
    QVERIFY(std::abs(out[1].values<float>()[1] - e2 / denom) < 1e-6f);
    QVERIFY(std::abs(out[1].values<float>()[0] - 1 / denom) < 1e-6f);
  }

  void gemm_maps_to_matmul_and_bias() {
    onnx::ModelProto m = make_mlp();
    auto* g = m.mutable_graph();
    auto* gemm = add_node(g, "Gemm", {"X", "W", "B"}, {"G"}, "gemm");
    auto* tb = gemm->add_attribute();
    tb->set_name("transB");
    tb->set_type(onnx::AttributeProto::INT);
    tb->set_i(0);
    add_value(g->add_output(), "G", onnx::TensorProto::FLOAT, {-1, 2}, "batch");
    QTemporaryDir dir;
    Graph graph = load_graph(write(dir, "gemm.onnx", m.SerializeAsString()));
    QCOMPARE(graph.find("gemm/MatMul")->op, std::string("MatMul"));
    QCOMPARE(graph.find("gemm")->op, std::string("AddV2"));
    Session session(std::move(graph));
    auto out = session.run({{"X", Tensor::from_vector<float>(Shape{1, 3}, {1, 2, 3})}}, {"G"});
    QCOMPARE(out[0].values<float>()[0], -3.5f);
    QCOMPARE(out[0].values<float>()[1], 2.0f);
  }

  void initializer_dtypes_and_reshape() {
    onnx::ModelProto m = make_mlp();
    auto* g = m.mutable_graph();
    auto init = [&](const std::string& name, int type, int64_t n) {
      auto* t = g->add_initializer();
      t->set_name(name);
      t->set_data_type(type);
      t->add_dims(n);
      return t;
    };
    init("i32", onnx::TensorProto::INT32, 2)->add_int32_data(-5);
    g->mutable_initializer(g->initializer_size() - 1)->add_int32_data(6);
    auto* bl = init("bool", onnx::TensorProto::BOOL, 2);
    bl->add_int32_data(1);
    bl->add_int32_data(0);
    init("f64", onnx::TensorProto::DOUBLE, 1)->add_double_data(2.5);
    init("u8", onnx::TensorProto::UINT8, 3)->set_raw_data("\x01\x02\xff");
    init("i8", onnx::TensorProto::INT8, 1)->set_raw_data("\xfe");
    init("f16", onnx::TensorProto::FLOAT16, 1)->set_raw_data(std::string("\x00\x3c", 2));  // 1.0
    auto* shape = init("shape", onnx::TensorProto::INT64, 1);
    shape->add_int64_data(-1);
    add_node(g, "Reshape", {"X", "shape"}, {"flat"}, "flat");
    QTemporaryDir dir;
    Graph graph = load_graph(write(dir, "types.onnx", m.SerializeAsString()));
    auto value = [&](const char* n) { return *graph.find(n)->attr("value").get_if<Tensor>(); };
    QCOMPARE(value("i32").values<int32_t>()[0], -5);
    QCOMPARE(value("bool").values<bool>()[0], true);
    QCOMPARE(value("bool").values<bool>()[1], false);
    QCOMPARE(value("f64").values<double>()[0], 2.5);
    QCOMPARE(value("u8").values<uint8_t>()[2], uint8_t{255});
    QCOMPARE(static_cast<const int8_t*>(value("i8").raw_data())[0], int8_t{-2});
    QCOMPARE(value("f16").dtype(), DType::Half);
    QCOMPARE(static_cast<const uint16_t*>(value("f16").raw_data())[0], uint16_t{0x3c00});
    QCOMPARE(graph.find("flat")->op, std::string("Reshape"));
    Session session(std::move(graph));
    auto out = session.run({{"X", Tensor::from_vector<float>(Shape{1, 3}, {1, 2, 3})}}, {"flat"});
    QVERIFY(out[0].shape() == Shape({3}));

    // A typed field with the wrong count names the initializer.
    init("short", onnx::TensorProto::FLOAT, 3)->add_float_data(1);
    const std::string path = write(dir, "short.onnx", m.SerializeAsString());
    const std::string msg = load_error(path);
    QVERIFY2(msg.find(path) == 0 && msg.find("initializer 'short': float_data has 1 values, expected 3") !=
                                        std::string::npos,
             msg.c_str());
  }

  void garbage_and_truncated_files() {
    QTemporaryDir dir;
    const std::string bytes = make_mlp().SerializeAsString();
    const std::string cut = write(dir, "cut.onnx", bytes.substr(0, bytes.size() / 2));
    std::string msg = load_error(cut);
    QVERIFY2(msg.find(cut) == 0 && msg.find("not a valid ONNX model") != std::string::npos, msg.c_str());
    const std::string junk = write(dir, "junk.onnx", "this is not an onnx model\xff\xff\xff");
    msg = load_error(junk);
    QVERIFY2(msg.find(junk) == 0 && msg.find("not a valid ONNX model") != std::string::npos, msg.c_str());
  }

  void dangling_input_is_an_error() {
    onnx::ModelProto m = make_mlp();
    add_node(m.mutable_graph(), "Conv", {"X", "nowhere"}, {"z"});
    QTemporaryDir dir;
    const std::string path = write(dir, "dangling.onnx", m.SerializeAsString());
    const std::string msg = load_error(path);
    QVERIFY2(msg.find(path) == 0, msg.c_str());
    QVERIFY2(msg.find("node 6 (Conv): input 'nowhere' is not produced by any node, initializer or graph input") !=
                 std::string::npos,
             msg.c_str());
  }

  void saving_onnx_is_refused() {
    QTemporaryDir dir;
    Graph g = load_graph(write(dir, "mlp.onnx", make_mlp().SerializeAsString()));
    try {
      save_graph(g, dir.filePath("out.onnx").toStdString());
      QFAIL("expected Error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("writing ONNX is not supported") != std::string::npos, e.what());
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOnnxImport)
#include "test_onnx_import.moc"
