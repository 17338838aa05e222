// add_gradients: every differentiable op's symbolic gradient against a
// central-difference numerical gradient (float64, eps 1e-6), plus structure:
// name scopes, unconnected xs, summed consumers, Variables, errors.
#include "test_main.h"
#include <QtTest>

#include <cmath>
#include <functional>

#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/graph_builder.h"
#include "engine/gradient_check.h"

using namespace flowlens;
using flowlens::testing::check_gradients;
using flowlens::testing::Model;

namespace {

Tensor D(Shape s, std::vector<double> v) { return Tensor::from_vector<double>(std::move(s), v); }
Tensor I32(Shape s, std::vector<int32_t> v) { return Tensor::from_vector<int32_t>(std::move(s), v); }

Tensor A23() { return D({2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9}); }

}  // namespace

class TestGradients : public QObject {
  Q_OBJECT
 private slots:
  // ---- MatMul --------------------------------------------------------------------------
  void matmul_data() {
    QTest::addColumn<bool>("ta");
    QTest::addColumn<bool>("tb");
    QTest::newRow("a*b") << false << false;
    QTest::newRow("a*b'") << false << true;
    QTest::newRow("a'*b") << true << false;
    QTest::newRow("a'*b'") << true << true;
  }
  void matmul() {
    QFETCH(bool, ta);
    QFETCH(bool, tb);
    Model m;
    // logical a: [2,3], b: [3,4]
    const std::string a = m.x("a", ta ? D({3, 2}, {0.3, 1.5, -1.2, -0.4, 0.7, 0.9}) : A23());
    std::vector<double> bv;
    for (int i = 0; i < 12; ++i) bv.push_back(0.1 * i - 0.45);
    const std::string b = m.x("b", D(tb ? Shape{4, 3} : Shape{3, 4}, bv));
    check_gradients(m, m.op("MatMul", {a, b}, {{"transpose_a", AttrValue(ta)}, {"transpose_b", AttrValue(tb)}}));
  }

  // ---- broadcasting binary ops -------------------------------------------------------------
  void binary_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("shape_case");
    QTest::addColumn<bool>("static_shapes");
    const char* ops[] = {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"};
    for (const char* op : ops)
      for (int sc = 0; sc < 4; ++sc)
        for (bool st : {true, false})
          QTest::newRow(qPrintable(QString("%1/case%2/%3").arg(op).arg(sc).arg(st ? "static" : "dynamic")))
              << QString(op) << sc << st;
  }
  void binary() {
    QFETCH(QString, op);
    QFETCH(int, shape_case);
    QFETCH(bool, static_shapes);
    Model m;
    m.static_shapes = static_shapes;
    // Values chosen so Maximum/Minimum never tie and RealDiv never divides by ~0.
    Tensor x, y;
    switch (shape_case) {
      case 0: x = A23(), y = D({2, 3}, {1.1, 0.8, -1.3, 2.0, 0.6, -0.5}); break;   // same shape
      case 1: x = A23(), y = D({3}, {1.1, -0.8, 1.3}); break;                      // row vector
      case 2: x = D({2, 1}, {0.6, -1.4}), y = D({1, 3}, {1.1, -0.75, 1.3}); break;  // both broadcast
      default: x = D({}, {1.7}), y = A23(); break;                                 // scalar
    }
    check_gradients(m, m.op(op.toStdString(), {m.x("x", x), m.x("y", y)}));
  }

  void addn_and_multiple_consumers() {
    Model m;
    const std::string x = m.x("x", A23());
    const std::string y = m.x("y", D({2, 3}, {1, 2, 3, 4, 5, 6}));
    // x used three times: AddN(x, x*y, x) -> gradients summed
    const std::string xy = m.op("Mul", {x, y});
    check_gradients(m, m.op("AddN", {x, xy, x}, {{"N", AttrValue(3)}}));
  }

  void bias_add() {
    Model m;
    check_gradients(m, m.op("BiasAdd", {m.x("x", A23()), m.x("b", D({3}, {0.1, -0.2, 0.3}))}));
    Model m4;
    std::vector<double> v;
    for (int i = 0; i < 12; ++i) v.push_back(0.2 * i - 1);
    check_gradients(m4, m4.op("BiasAdd", {m4.x("x", D({2, 2, 3}, v)), m4.x("b", D({3}, {0.1, -0.2, 0.3}))}));
  }

  void unary_data() {
    QTest::addColumn<QString>("op");
    for (const char* op : {"Identity", "Relu", "Sigmoid", "Tanh", "Softmax", "Square", "Neg", "Exp", "Log", "Sqrt"})
      QTest::newRow(op) << QString(op);
  }
  void unary() {
    QFETCH(QString, op);
    Model m;
    const bool positive = op == "Log" || op == "Sqrt";
    Tensor x = positive ? D({2, 3}, {0.3, 1.2, 0.7, 1.5, 0.4, 2.9}) : A23();
    check_gradients(m, m.op(op.toStdString(), {m.x("x", x)}));
  }

  void reshape() {
    Model m;
    const std::string x = m.x("x", A23());
    const std::string r = m.op("Reshape", {x, m.c("shape", I32({3}, {3, 1, 2}))});
    check_gradients(m, m.op("Square", {r}));
  }

  void split_and_splitv_with_unused_outputs() {
    Model m;
    std::vector<double> v;
    for (int i = 0; i < 12; ++i) v.push_back(0.3 * i - 1.1);
    const std::string x = m.x("x", D({2, 6}, v));
    const std::string s = m.op("Split", {m.c("axis", Tensor::scalar<int32_t>(1)), x}, {{"num_split", AttrValue(3)}});
    // only outputs 0 and 2 are used: output 1 gets zeros
    const std::string y = m.op("Mul", {s, tensor_name(s, 2)});
    const std::string sv = m.op("SplitV", {x, m.c("sizes", I32({2}, {1, 1})), m.c("axis0", Tensor::scalar<int32_t>(0))},
                                {{"num_split", AttrValue(2)}, {"Tlen", AttrValue(DType::Int32)}});
    const std::string all = m.c("all", I32({1}, {0}));
    const std::string minus1 = m.c("minus1", I32({1}, {-1}));
    auto total = [&](const std::string& t) { return m.op("Sum", {m.op("Reshape", {t, minus1}), all}); };
    check_gradients(m, m.op("AddN", {total(m.op("Square", {y})), total(m.op("Exp", {y})),
                                     total(m.op("Square", {tensor_name(sv, 1)}))},
                            {{"N", AttrValue(3)}}));
  }

  void concat_and_concat_v2() {
    for (bool v2 : {false, true})
      for (int axis : {1, -1}) {
        Model m;
        const std::string a = m.x("a", A23());
        const std::string b = m.x("b", D({2, 1}, {0.25, -0.6}));
        const std::string c = m.x("c", D({2, 2}, {1, 2, 3, 4}));
        const std::string ax = m.c("axis", Tensor::scalar<int32_t>(axis));
        const std::string cat = v2 ? m.op("ConcatV2", {a, b, c, ax}, {{"N", AttrValue(3)}, {"Tidx", AttrValue(DType::Int32)}})
                                   : m.op("Concat", {ax, a, b, c}, {{"N", AttrValue(3)}});
        check_gradients(m, m.op("Square", {cat}));
      }
    Model m;  // along axis 0
    const std::string cat = m.op("ConcatV2", {m.x("a", A23()), m.x("b", D({1, 3}, {1, 2, 3})), m.c("axis", Tensor::scalar<int32_t>(0))},
                                 {{"N", AttrValue(2)}});
    check_gradients(m, m.op("Square", {cat}));
  }

  void pack_and_unpack() {
    for (int axis : {0, 1, 2}) {
      Model m;
      const std::string p = m.op("Pack", {m.x("a", A23()), m.x("b", D({2, 3}, {1, 2, 3, 4, 5, 6}))},
                                 {{"N", AttrValue(2)}, {"axis", AttrValue(axis)}});
      check_gradients(m, m.op("Square", {p}));
    }
    Model m;
    const std::string u = m.op("Unpack", {m.x("x", A23())}, {{"num", AttrValue(2)}, {"axis", AttrValue(0)}});
    check_gradients(m, m.op("Mul", {u, m.op("Exp", {tensor_name(u, 1)})}));
  }

  void cast_round_trip() {
    Model m;
    const std::string x = m.x("x", A23());
    const std::string f = m.b.cast(x, DType::Double, DType::Float);
    const std::string sq = m.b.unary("Square", f, DType::Float);
    check_gradients(m, m.b.cast(sq, DType::Float, DType::Double), 1e-3, 1e-3);  // float32 in the middle
  }

  void softmax_cross_entropy() {
    Model m;
    const std::string logits = m.x("logits", A23());
    const std::string labels = m.c("labels", D({2, 3}, {0.2, 0.5, 0.3, 0, 1, 0}));
    const std::string xent = m.op("SoftmaxCrossEntropyWithLogits", {logits, labels});
    check_gradients(m, xent);
    Model s;
    const std::string sx = s.op("SparseSoftmaxCrossEntropyWithLogits",
                                {s.x("logits", A23()), s.c("labels", I32({2}, {2, 0}))}, {{"Tlabels", AttrValue(DType::Int32)}});
    check_gradients(s, s.op("Mean", {sx, s.c("axis", I32({1}, {0}))}));
  }

  void mlp_end_to_end() {
    Model m;
    const std::string x = m.c("x", A23());
    const std::string w1 = m.x("w1", D({3, 4}, {0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.9, 0.15, -0.25, 0.35}));
    const std::string b1 = m.x("b1", D({4}, {0.01, -0.02, 0.03, 0.5}));
    const std::string h = m.op("Tanh", {m.op("BiasAdd", {m.op("MatMul", {x, w1}), b1})});
    const std::string w2 = m.x("w2", D({4, 2}, {0.5, -0.4, 0.3, -0.2, 0.1, 0.2, -0.3, 0.4}));
    const std::string logits = m.op("MatMul", {m.op("Sigmoid", {h}), w2});
    const std::string loss = m.op("SparseSoftmaxCrossEntropyWithLogits", {logits, m.c("labels", I32({2}, {1, 0}))});
    check_gradients(m, m.op("Mean", {loss, m.c("axis", I32({1}, {0}))}));
  }

  // ---- structure ---------------------------------------------------------------------------------

  void names_scopes_and_unconnected_xs() {
    Model m;
    const std::string x = m.x("x", A23());
    const std::string unused = m.x("unused", A23());
    const std::string y = m.op("Square", {x});
    auto g = add_gradients(m.g, {y}, {x, unused}, OpRegistry::global());
    QCOMPARE(g.size(), size_t{2});
    QVERIFY2(g[0].rfind("gradients/Square_grad/", 0) == 0, g[0].c_str());
    QCOMPARE(g[1], std::string());
    QVERIFY(m.g.find("gradients/grad_ys_0"));
    auto g2 = add_gradients(m.g, {y}, {x}, OpRegistry::global());
    QVERIFY2(g2[0].rfind("gradients_1/Square_grad/", 0) == 0, g2[0].c_str());
    // Nodes off the x -> y path get no gradient nodes.
    Model p;
    const std::string a = p.x("a", A23());
    const std::string side = p.op("Exp", {p.x("b", A23())});
    const std::string out = p.op("Mul", {p.op("Neg", {a}), side});
    add_gradients(p.g, {out}, {"a"}, OpRegistry::global());
    QVERIFY(!p.g.find("gradients/Exp_grad/Mul"));
    QVERIFY(p.g.find("gradients/Neg_grad/Neg"));
  }

  void multiple_consumers_are_summed_with_addn() {
    Model m;
    const std::string x = m.x("x", D({2}, {1.5, -2}));
    const std::string y = m.op("Add", {m.op("Mul", {x, x}), x});
    auto g = add_gradients(m.g, {y}, {x}, OpRegistry::global());
    QVERIFY2(g[0].rfind("gradients/AddN", 0) == 0, g[0].c_str());
    Tensor v = Session(m.g).run(m.feeds, {g[0]})[0];
    QCOMPARE(v.data<double>()[0], 4.0);
    QCOMPARE(v.data<double>()[1], -3.0);
  }

  void grad_ys_and_several_ys() {
    Model m;
    const std::string x = m.x("x", D({2}, {1, 2}));
    const std::string y1 = m.op("Square", {x});
    const std::string y2 = m.op("Neg", {x});
    const std::string seed = m.c("seed", D({2}, {10, 100}));
    GradientOptions opt;
    opt.grad_ys = {seed, ""};
    auto g = add_gradients(m.g, {y1, y2}, {x}, OpRegistry::global(), opt);
    Tensor v = Session(m.g).run(m.feeds, {g[0]})[0];
    QCOMPARE(v.data<double>()[0], 20.0 - 1);  // 10 * 2x - 1
    QCOMPARE(v.data<double>()[1], 400.0 - 1);
    opt.grad_ys = {seed};
    QVERIFY_THROWS_EXCEPTION(Error, add_gradients(m.g, {y1, y2}, {x}, OpRegistry::global(), opt));
  }

  void variables_get_the_gradient_of_their_reads() {
    Graph g;
    GraphBuilder b(g);
    Node v;
    v.name = "w";
    v.op = "VariableV2";
    v.attrs = {{"dtype", AttrValue(DType::Double)}, {"shape", AttrValue(Shape{2})}};
    g.add_node(v);
    b.add("Assign", "w/Assign", {"w", b.constant("w/initial_value", D({2}, {3, -1}))}, {{"T", AttrValue(DType::Double)}});
    const std::string read = b.add("Identity", "w/read", {"w"}, {{"T", AttrValue(DType::Double)}});
    const std::string loss = b.sum(b.unary("Square", read, DType::Double), b.int32_vector("axis", {0}), DType::Double);
    auto grads = add_gradients(g, {loss}, {"w"}, OpRegistry::global());
    QVERIFY(!grads[0].empty());
    Session s(g);
    s.run({}, {}, variable_initializers(g));
    Tensor t = s.run({}, {grads[0]})[0];
    QCOMPARE(t.data<double>()[0], 6.0);
    QCOMPARE(t.data<double>()[1], -2.0);
  }

  void integer_inputs_and_stop_gradient_get_nothing() {
    Model m;
    const std::string x = m.x("x", A23());
    const std::string labels = m.x("labels", I32({2}, {0, 1}));
    const std::string loss = m.op("SparseSoftmaxCrossEntropyWithLogits", {x, labels});
    auto g = add_gradients(m.g, {loss}, {labels, x}, OpRegistry::global());
    QCOMPARE(g[0], std::string());
    QVERIFY(!g[1].empty());
    Model s;
    const std::string a = s.x("a", A23());
    auto g2 = add_gradients(s.g, {s.op("Square", {s.op("StopGradient", {a})})}, {a}, OpRegistry::global());
    QCOMPARE(g2[0], std::string());
  }

  void missing_gradient_names_node_and_op() {
    // A registry whose ops have no gradient functions attached.
    OpRegistry bare;
    register_standard_ops(bare);
    Model m;
    const std::string x = m.x("x", A23());
    const std::string mx = m.b.add("Max", "my_max", {x, m.c("axis", I32({1}, {0}))}, {{"T", AttrValue(DType::Double)}});
    try {
      add_gradients(m.g, {mx}, {x}, bare);
      QFAIL("expected an error");
    } catch (const Error& e) {
      const std::string msg = e.what();
      QVERIFY2(msg.find("my_max") != std::string::npos && msg.find("Max") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(Error, add_gradients(m.g, {"nope"}, {x}, OpRegistry::global()));
  }

  void colocation_copies_forward_devices() {
    Model m;
    const std::string x = m.x("x", A23());
    m.b.set_device("/gpu:0");
    const std::string y = m.op("Square", {x});
    GradientOptions opt;
    opt.colocate_gradients_with_ops = true;
    opt.device = "/cpu:0";
    auto g = add_gradients(m.g, {y}, {x}, OpRegistry::global(), opt);
    QCOMPARE(m.g.find(TensorId::parse(g[0])->node)->device, std::string("/gpu:0"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestGradients)
#include "test_gradients.moc"
