// Gradients of the element-wise family against central differences
// (float64, gradient_check.h): every differentiable unary and binary op,
// broadcasting both ways with static and dynamic shapes, the gradient ops'
// own gradients (second order), Select/SelectV2/ClipByValue; plus the graph
// TensorFlow builds (SmartBroadcastGradientArgs' constants, masks, control
// edges) and the ops TensorFlow gives no gradient.
#include "test_main.h"
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "engine/gradient_check.h"
#include "exec/session.h"
#include "ops/framework/op_registry.h"
#include "tensor/float16.h"
#include "transform/gradients.h"

using namespace flowlens;
using flowlens::testing::check_gradients;
using flowlens::testing::Model;

namespace {

Tensor D(Shape s, std::vector<double> v) { return Tensor::from_vector<double>(std::move(s), v); }
Tensor B(Shape s, std::vector<bool> v) { return Tensor::from_vector<bool>(std::move(s), v); }

// n values in (lo, hi), spread unevenly and never repeating.
std::vector<double> spread(int n, double lo, double hi, double phase = 0.0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * (0.5 + 0.45 * std::sin(1.7 * i + 0.9 + phase)));
  return v;
}

Tensor values(Shape s, double lo, double hi, double phase = 0.0) {
  const int n = static_cast<int>(s.num_elements());
  return D(std::move(s), spread(n, lo, hi, phase));
}

// Ops of the gradient graph, in graph order.
std::vector<std::string> ops_under(const Graph& g, const std::string& prefix) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes())
    if (n.name.rfind(prefix, 0) == 0) ops.push_back(n.op);
  return ops;
}
bool has(const std::vector<std::string>& ops, const std::string& op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

}  // namespace

class TestMathGradients : public QObject {
  Q_OBJECT
 private slots:
  void unary_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    const std::pair<const char*, std::pair<double, double>> ops[] = {
        {"Abs", {-2, 2}},       {"Neg", {-2, 2}},     {"Sign", {-2, 2}},    {"Reciprocal", {0.4, 2}},
        {"Inv", {-2, -0.4}},    {"Square", {-2, 2}},  {"Sqrt", {0.3, 3}},   {"Rsqrt", {0.3, 3}},
        {"Exp", {-2, 2}},       {"Expm1", {-2, 2}},   {"Log", {0.3, 3}},    {"Log1p", {-0.7, 2}},
        {"Sin", {-3, 3}},       {"Cos", {-3, 3}},     {"Erf", {-2, 2}},     {"Tanh", {-2, 2}},
        {"Sigmoid", {-3, 3}},   {"Relu", {-2, 2}}};
    for (const auto& [op, range] : ops) QTest::newRow(op) << QString(op) << range.first << range.second;
  }
  void unary() {
    QFETCH(QString, op);
    QFETCH(double, lo);
    QFETCH(double, hi);
    Model m;
    check_gradients(m, m.op(op.toStdString(), {m.x("x", values({2, 3}, lo, hi))}));
  }

  // The gradient of the gradient: add_gradients differentiates its own
  // output, through SqrtGrad, TanhGrad, ReluGrad ...
  void second_order_data() { unary_data(); }
  void second_order() {
    QFETCH(QString, op);
    QFETCH(double, lo);
    QFETCH(double, hi);
    Model m;
    const std::string x = m.x("x", values({2, 3}, lo, hi));
    const std::string y = m.op(op.toStdString(), {x});
    const std::string dy_dx = add_gradients(m.g, {y}, {x}, OpRegistry::global())[0];
    if (op == "Sign" || op == "Relu" || op == "Abs" || op == "Neg") {
      // Piecewise linear: the second derivative is 0 (Sign's gradient is a constant).
      check_gradients(m, m.op("Mul", {dy_dx, x}));
      return;
    }
    check_gradients(m, dy_dx, 1e-5, 1e-4);
  }

  // The gradient ops as forward ops: both inputs' gradients.
  void gradient_ops_data() {
    QTest::addColumn<QString>("op");
    for (const char* op : {"ReluGrad", "SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "InvGrad"})
      QTest::newRow(op) << QString(op);
  }
  void gradient_ops() {
    QFETCH(QString, op);
    Model m;
    const bool relu = op == "ReluGrad";
    const std::string a = m.x("a", relu ? values({2, 3}, -1, 1) : values({2, 3}, 0.3, 1.5));
    const std::string b = m.x("b", values({2, 3}, -1.5, 1.5, 1.0));
    check_gradients(m, m.op(op.toStdString(), {a, b}));
  }

  void binary_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("shape_case");
    QTest::addColumn<bool>("static_shapes");
    for (const char* op : {"Add", "AddV2", "Sub", "Mul", "SquaredDifference", "Pow", "Div", "RealDiv", "DivNoNan",
                           "FloorMod", "Maximum", "Minimum"})
      for (int sc = 0; sc < 6; ++sc)
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
    const Shape shapes[][2] = {{{2, 3}, {2, 3}},    {{2, 3}, {3}},   {{2, 1}, {1, 3}},
                               {{}, {2, 3}},        {{2, 1, 3}, {1}}, {{1, 1}, {1}}};
    // Positive x for Pow; |y| >= 0.4 for the divisions; values that never tie.
    const Tensor x = values(shapes[shape_case][0], 0.3, 1.9);
    const Tensor y = values(shapes[shape_case][1], 0.4, 1.7, 2.0);
    check_gradients(m, m.op(op.toStdString(), {m.x("x", x), m.x("y", y)}));
  }

  void select_and_select_v2() {
    Model m;
    const std::string cond = m.c("cond", B({2, 3}, {true, false, false, true, true, false}));
    check_gradients(m, m.op("Select", {cond, m.x("t", values({2, 3}, -1, 1)), m.x("e", values({2, 3}, -1, 1, 1))}));
    Model rows;
    const std::string picks = rows.c("cond", B({2}, {false, true}));
    check_gradients(rows, rows.op("Select", {picks, rows.x("t", values({2, 3}, -1, 1)), rows.x("e", values({2, 3}, 0, 2))}));
    for (bool st : {true, false}) {
      Model v2;
      v2.static_shapes = st;
      const std::string c2 = v2.c("cond", B({2, 1}, {true, false}));
      check_gradients(v2, v2.op("SelectV2", {c2, v2.x("t", values({3}, -1, 1)), v2.x("e", values({2, 3}, 0, 2))}));
      Model v3;
      v3.static_shapes = st;
      const std::string c3 = v3.c("cond", B({3}, {true, false, true}));
      check_gradients(v3, v3.op("SelectV2", {c3, v3.x("t", values({2, 1}, -1, 1)), v3.x("e", values({}, 0, 2))}));
    }
  }

  void clip_by_value() {
    for (bool st : {true, false}) {
      Model m;
      m.static_shapes = st;
      const std::string x = m.x("x", D({2, 3}, {-2, -0.3, 0.1, 0.45, 1.7, 0.9}));
      check_gradients(m, m.op("ClipByValue", {x, m.x("lo", D({}, {-0.5})), m.x("hi", D({}, {0.5}))}));
      Model t;
      t.static_shapes = st;
      check_gradients(t, t.op("ClipByValue", {t.x("x", D({3}, {-2, 0.2, 3})), t.x("lo", D({3}, {-1, -1, -1})),
                                              t.x("hi", D({3}, {1, 1, 1}))}));
    }
  }

  // ---- values TensorFlow's gradient functions define at the corners --------------

  void corner_values() {
    Model m;
    // Pow's y gradient is 0 where x <= 0 (where(x > 0, log(x), 0)).
    const std::string x = m.x("x", D({3}, {0, -2, 2}));
    const std::string y = m.x("y", D({3}, {2, 2, 3}));
    auto g = add_gradients(m.g, {m.op("Pow", {x, y})}, {x, y}, OpRegistry::global());
    Session s(m.g);
    Tensor gy = s.run(m.feeds, {g[1]})[0];
    QCOMPARE(gy.data<double>()[0], 0.0);
    QCOMPARE(gy.data<double>()[1], 0.0);
    QVERIFY(std::fabs(gy.data<double>()[2] - 8 * std::log(2.0)) < 1e-12);
    // Maximum and Minimum give a tie to x; ClipByValue gives x the gradient at its bounds.
    Model t;
    const std::string a = t.x("a", D({2}, {1, 2}));
    const std::string b = t.x("b", D({2}, {1, 3}));
    for (const char* op : {"Maximum", "Minimum"}) {
      auto gm = add_gradients(t.g, {t.op(op, {a, b})}, {a, b}, OpRegistry::global());
      Session st(t.g);
      QCOMPARE(st.run(t.feeds, {gm[0]})[0].data<double>()[0], 1.0);
      QCOMPARE(st.run(t.feeds, {gm[1]})[0].data<double>()[0], 0.0);
    }
    auto gc = add_gradients(t.g, {t.op("ClipByValue", {a, t.c("lo", D({}, {1})), t.c("hi", D({}, {2}))})}, {a},
                            OpRegistry::global());
    Tensor ga = Session(t.g).run(t.feeds, {gc[0]})[0];
    QCOMPARE(ga.data<double>()[0], 1.0);
    QCOMPARE(ga.data<double>()[1], 1.0);
  }

  void half_precision_gradient() {
    Graph g;
    GraphBuilder b(g);
    Tensor x(DType::Half, Shape{2});
    x.data<float16>()[0] = float16(3.0f);
    x.data<float16>()[1] = float16(-0.5f);
    const std::string xs = b.constant("x", x);
    const std::string y = b.unary("Square", xs, DType::Half);
    const std::string dx = add_gradients(g, {y}, {xs}, OpRegistry::global())[0];
    Tensor v = Session(g).run({}, {dx})[0];
    QCOMPARE(v.dtype(), DType::Half);
    QCOMPARE(static_cast<float>(v.data<float16>()[0]), 6.0f);
    QCOMPARE(static_cast<float>(v.data<float16>()[1]), -1.0f);
  }

  // ---- the graph TensorFlow builds ---------------------------------------------------

  void smart_broadcast_uses_constants_for_static_shapes() {
    Model m;
    const std::string x = m.x("x", values({2, 1, 3}, 0, 1));
    const std::string y = m.x("y", D({1}, {0.5}));
    add_gradients(m.g, {m.op("Add", {x, y})}, {x, y}, OpRegistry::global());
    const auto ops = ops_under(m.g, "gradients/Add_grad/");
    QVERIFY(!has(ops, "BroadcastGradientArgs"));
    QVERIFY(!has(ops, "Shape"));
    // Only y, whose shape differs from the gradient's, is reduced: over BCast's axes [0,1,2].
    QCOMPARE(std::count(ops.begin(), ops.end(), std::string("Sum")), 1L);
    const Node* axes = m.g.find("gradients/Add_grad/Sum/reduction_indices");
    QVERIFY(axes);
    const Tensor* v = axes->attrs.at("value").get_if<Tensor>();
    QVERIFY(v && v->num_elements() == 3 && v->data<int32_t>()[0] == 0 && v->data<int32_t>()[2] == 2);

    Model d;
    d.static_shapes = false;
    const std::string dx = d.x("x", values({2, 3}, 0, 1));
    add_gradients(d.g, {d.op("Mul", {dx, d.x("y", D({3}, {1, 2, 3}))})}, {dx}, OpRegistry::global());
    const auto dops = ops_under(d.g, "gradients/Mul_grad/");
    QVERIFY(has(dops, "BroadcastGradientArgs"));
    QCOMPARE(std::count(dops.begin(), dops.end(), std::string("Shape")), 2L);
  }

  void maximum_and_division_always_use_broadcast_gradient_args() {
    Model m;
    const std::string x = m.x("x", values({2, 3}, 0, 1));
    const std::string y = m.x("y", values({2, 3}, 0.5, 1.5));
    add_gradients(m.g, {m.op("Maximum", {x, y})}, {x, y}, OpRegistry::global());
    const auto ops = ops_under(m.g, "gradients/Maximum_grad/");
    for (const char* op : {"GreaterEqual", "SelectV2", "BroadcastGradientArgs", "Fill", "Sum", "Reshape"})
      QVERIFY2(has(ops, op), op);
    add_gradients(m.g, {m.op("RealDiv", {x, y})}, {x, y}, OpRegistry::global());
    QVERIFY(has(ops_under(m.g, "gradients_1/RealDiv_grad/"), "BroadcastGradientArgs"));
  }

  void square_gradient_waits_for_the_incoming_gradient() {
    Model m;
    const std::string x = m.x("x", values({2}, 0, 1));
    add_gradients(m.g, {m.op("Square", {x})}, {x}, OpRegistry::global());
    bool control_on_grad = false;
    for (const Node& n : m.g.nodes())
      if (n.name.rfind("gradients/Square_grad/", 0) == 0 && n.op == "Const")
        for (const std::string& in : n.inputs) control_on_grad = control_on_grad || in == "^gradients/grad_ys_0";
    QVERIFY(control_on_grad);
  }

  void ops_without_gradients() {
    // Floor, Round, FloorDiv ...: no gradient flows (TensorFlow returns None).
    Model m;
    const std::string x = m.x("x", values({2}, 0.2, 3));
    for (const char* op : {"Floor", "Ceil", "Round", "Rint"}) {
      auto g = add_gradients(m.g, {m.op(op, {x})}, {x}, OpRegistry::global());
      QCOMPARE(g[0], std::string());
    }
    auto fd = add_gradients(m.g, {m.op("FloorDiv", {x, x})}, {x}, OpRegistry::global());
    QCOMPARE(fd[0], std::string());
    // Cast passes a gradient only between floating types.
    const std::string as_int = m.b.cast(x, DType::Double, DType::Int32);
    auto gi = add_gradients(m.g, {m.b.cast(as_int, DType::Int32, DType::Double)}, {x}, OpRegistry::global());
    QCOMPARE(gi[0], std::string());
    const std::string as_half = m.b.cast(x, DType::Double, DType::Half);
    auto gh = add_gradients(m.g, {m.b.cast(as_half, DType::Half, DType::Double)}, {x}, OpRegistry::global());
    QVERIFY(!gh[0].empty());
    // Mod has no gradient at all: add_gradients names it.
    try {
      add_gradients(m.g, {m.op("Mod", {x, x})}, {x}, OpRegistry::global());
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("Mod") != std::string::npos, e.what());
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestMathGradients)
#include "test_math_gradients.moc"
