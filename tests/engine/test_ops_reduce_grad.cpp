// Gradients of the reduction family against central differences
// (gradient_check.h): Sum, Mean, Max, Min, Prod on static and unknown shapes
// (TF's constant fast paths and its dynamic reduced_shape path), ties and
// zeros, the scans, L2Loss, Tile, BroadcastTo and DynamicStitch; and the
// structure of the graphs: TensorFlow's ops only.
//
// Some gradients are built from ops other families add (Equal, DivNoNan,
// Transpose, GatherV2, ListDiff); a test needing one that is not registered in
// this build is skipped, naming it.
#include "test_main.h"
#include <QtTest>

#include <cmath>
#include <set>

#include "engine/gradient_ops_gate.h"

using namespace flowlens;
using flowlens::testing::check_gradients;
using flowlens::testing::Model;

namespace {

Tensor D(Shape s, std::vector<double> v) { return Tensor::from_vector<double>(std::move(s), v); }
Tensor I32(Shape s, std::vector<int32_t> v) { return Tensor::from_vector<int32_t>(std::move(s), v); }
Tensor I64(Shape s, std::vector<int64_t> v) { return Tensor::from_vector<int64_t>(std::move(s), v); }

Tensor wave(Shape s) {
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i) + 0.5);
  return D(std::move(s), v);
}

// The ops a reduction's gradient needs beyond this family's.
std::vector<std::string> needed_by(const QString& op, bool static_shapes, bool keep_dims) {
  std::vector<std::string> ops;
  const bool dynamic_reduced_shape = !static_shapes && !keep_dims;
  if (op == "Prod") return {"FloorMod", "ListDiff", "GatherV2", "Transpose"};
  if (op == "Max" || op == "Min") ops.push_back("Equal");
  if (op == "Mean" && !static_shapes) ops.push_back("FloorDiv");
  if (dynamic_reduced_shape) ops.push_back("FloorMod");
  return ops;
}

// The gradient of sum(y) (grad_ys = ones) with respect to x, evaluated.
Tensor gradient_of(Model& m, const std::string& y, const std::string& x) {
  const std::vector<std::string> g = add_gradients(m.g, {y}, {x}, OpRegistry::global());
  return Session(m.g).run(m.feeds, {g[0]})[0];
}

// Cumsum or Cumprod on every (exclusive, reverse) and a negative axis.
void check_scans(const char* op) {
  for (bool exclusive : {false, true})
    for (bool reverse : {false, true})
      for (int axis : {1, -2}) {
        Model m;
        const std::string x = m.x("x", D({2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9}));
        check_gradients(m, m.op(op, {x, m.c("axis", Tensor::scalar<int32_t>(axis))},
                                {{"exclusive", AttrValue(exclusive)}, {"reverse", AttrValue(reverse)}}));
      }
}

// The ops of the nodes add_gradients adds for y with respect to x.
std::multiset<std::string> gradient_ops(Model& m, const std::string& y, const std::string& x) {
  const size_t before = m.g.nodes().size();
  add_gradients(m.g, {y}, {x}, OpRegistry::global());
  std::multiset<std::string> ops;
  for (size_t i = before; i < m.g.nodes().size(); ++i) ops.insert(m.g.nodes()[i].op);
  return ops;
}

}  // namespace

class TestOpsReduceGrad : public QObject {
  Q_OBJECT
 private slots:
  void reductions_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QVector<int>>("axes");
    QTest::addColumn<bool>("keep_dims");
    QTest::addColumn<bool>("static_shapes");
    QTest::addColumn<bool>("int64_axes");
    const QVector<QVector<int>> axes_sets = {{0}, {-1}, {0, 1, 2}, {0, 2}, {2, 0, 1}};
    for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"})
      for (bool keep : {false, true})
        for (bool st : {true, false}) {
          const QString tag = QString("%1/%2/%3").arg(op, keep ? "keep" : "drop", st ? "static" : "dynamic");
          for (const QVector<int>& a : axes_sets) {
            QStringList parts;
            for (int v : a) parts << QString::number(v);
            QTest::newRow(qPrintable(tag + "/" + parts.join(","))) << QString(op) << a << keep << st << false;
          }
          QTest::newRow(qPrintable(tag + "/int64:1")) << QString(op) << QVector<int>{1} << keep << st << true;
        }
  }
  void reductions() {
    QFETCH(QString, op);
    QFETCH(QVector<int>, axes);
    QFETCH(bool, keep_dims);
    QFETCH(bool, static_shapes);
    QFETCH(bool, int64_axes);
    REQUIRE_OPS(needed_by(op, static_shapes, keep_dims));
    Model m;
    m.static_shapes = static_shapes;
    const std::string x = m.x("x", wave({2, 3, 4}));
    const Shape as{static_cast<int64_t>(axes.size())};
    const std::string ax = int64_axes ? m.c("axes", I64(as, std::vector<int64_t>(axes.begin(), axes.end())))
                                      : m.c("axes", I32(as, std::vector<int32_t>(axes.begin(), axes.end())));
    check_gradients(m, m.op(op.toStdString(), {x, ax},
                            {{"keep_dims", AttrValue(keep_dims)},
                             {"Tidx", AttrValue(int64_axes ? DType::Int64 : DType::Int32)}}));
  }
  void scalar_axis_and_scalar_input() {
    for (bool st : {true, false}) {
      Model m;
      m.static_shapes = st;
      const std::string x = m.x("x", wave({3, 2}));
      check_gradients(m, m.op("Sum", {x, m.c("axis", Tensor::scalar<int32_t>(1))}, {{"keep_dims", AttrValue(true)}}));
      Model s;
      s.static_shapes = st;
      check_gradients(s, s.op("Sum", {s.x("x", D({}, {0.7})), s.c("axes", I32({0}, {}))}, {{"keep_dims", AttrValue(true)}}));
    }
  }

  // Ties share the gradient evenly (the indicators divided by their count).
  void max_min_ties() {
    REQUIRE_OPS({"Equal"});
    for (bool keep : {false, true}) {
      Model m;
      const std::string x = m.x("x", D({2, 3}, {1, 3, 3, 2, 2, 0}));
      const std::string axis = m.c("axis", I32({1}, {1}));
      const AttrMap attrs{{"keep_dims", AttrValue(keep)}};
      Tensor gmax = gradient_of(m, m.op("Max", {x, axis}, attrs), x);
      QCOMPARE(std::vector<double>(gmax.data<double>(), gmax.data<double>() + 6),
               (std::vector<double>{0, 0.5, 0.5, 0.5, 0.5, 0}));
      Tensor gmin = gradient_of(m, m.op("Min", {x, axis}, attrs), x);
      QCOMPARE(std::vector<double>(gmin.data<double>(), gmin.data<double>() + 6),
               (std::vector<double>{1, 0, 0, 0, 0, 1}));
    }
  }

  // The cumprod formulation needs no division, so zeros are fine.
  void prod_with_zeros() {
    REQUIRE_OPS(needed_by("Prod", true, false));
    Model m;
    const std::string x = m.x("x", D({3, 3}, {2, 0, 3, 0, 0, 4, 1, 2, 3}));
    Tensor g = gradient_of(m, m.op("Prod", {x, m.c("axis", I32({1}, {1}))}), x);
    QCOMPARE(std::vector<double>(g.data<double>(), g.data<double>() + 9),
             (std::vector<double>{0, 6, 0, 0, 0, 0, 6, 3, 2}));
    for (bool st : {true, false})
      for (const std::vector<int32_t>& axes : {std::vector<int32_t>{0}, std::vector<int32_t>{0, 1}}) {
        Model n;
        n.static_shapes = st;
        const std::string z = n.x("z", D({3, 3}, {2, 0, 3, 0, 0, 4, 1, 2, 3}));
        check_gradients(n, n.op("Prod", {z, n.c("axes", I32({static_cast<int64_t>(axes.size())}, axes))}));
      }
  }

  // Sum's gradient is TensorFlow's: Reshape + Tile with constants when the
  // shape and axes are static, Shape + reduced_shape (DynamicStitch ...) +
  // BroadcastTo otherwise; never a FlowLens-only op.
  void sum_gradient_uses_tensorflow_ops_only() {
    QVERIFY(!OpRegistry::global().find("ReducedShape"));
    const std::set<std::string> tensorflow_ops = {"OnesLike", "Const", "Reshape", "Tile", "Shape", "BroadcastTo", "Size",
                                                  "AddV2", "FloorMod", "Range", "Fill", "DynamicStitch", "Cast"};
    for (bool st : {true, false})
      for (bool keep : {false, true})
        for (bool int64_axes : {false, true}) {
          Model m;
          m.static_shapes = st;
          const std::string x = m.x("x", wave({2, 3, 4}));
          const std::string axes = int64_axes ? m.c("axes", I64({2}, {0, -1})) : m.c("axes", I32({2}, {0, -1}));
          const std::string y = m.op("Sum", {x, axes}, {{"keep_dims", AttrValue(keep)},
                                                        {"Tidx", AttrValue(int64_axes ? DType::Int64 : DType::Int32)}});
          const std::multiset<std::string> ops = gradient_ops(m, y, x);
          for (const std::string& op : ops)
            QVERIFY2(tensorflow_ops.count(op), ("not an op Sum's gradient builds in TensorFlow: " + op).c_str());
          if (st) {
            QCOMPARE(ops.count("Tile"), size_t{1});
            QCOMPARE(ops.count("Shape") + ops.count("BroadcastTo") + ops.count("DynamicStitch"), size_t{0});
          } else {
            QCOMPARE(ops.count("BroadcastTo"), size_t{1});
            QCOMPARE(ops.count("DynamicStitch"), keep ? size_t{0} : size_t{1});
            QCOMPARE(ops.count("FloorMod"), keep ? size_t{0} : size_t{1});
            QCOMPARE(ops.count("Cast"), !keep && int64_axes ? size_t{1} : size_t{0});
          }
        }
  }
  // Mean with static shapes divides by a constant factor; with unknown ones
  // by FloorDiv(Prod(Shape(x)), Maximum(Prod(Shape(y)), 1)).
  void mean_gradient_structure() {
    for (bool st : {true, false}) {
      Model m;
      m.static_shapes = st;
      const std::string x = m.x("x", wave({2, 3}));
      const std::multiset<std::string> ops = gradient_ops(m, m.op("Mean", {x, m.c("axes", I32({1}, {1}))}), x);
      QCOMPARE(ops.count("RealDiv"), size_t{1});
      QCOMPARE(ops.count("FloorDiv"), st ? size_t{0} : size_t{1});
      QCOMPARE(ops.count("Maximum"), st ? size_t{0} : size_t{1});
      QCOMPARE(ops.count("Prod"), st ? size_t{0} : size_t{2});
    }
  }

  void cumsum() { check_scans("Cumsum"); }
  void cumprod() {
    REQUIRE_OPS({"DivNoNan"});
    check_scans("Cumprod");
  }

  void l2loss() {
    Model m;
    check_gradients(m, m.op("L2Loss", {m.x("x", wave({2, 3}))}));
  }

  void tile() {
    REQUIRE_OPS({"Transpose"});
    for (bool st : {true, false})
      for (bool int64_multiples : {false, true}) {
        Model m;
        m.static_shapes = st;
        const std::string x = m.x("x", wave({2, 1, 3}));
        const std::string mult = int64_multiples ? m.c("m", I64({3}, {2, 3, 1})) : m.c("m", I32({3}, {2, 3, 1}));
        check_gradients(m, m.op("Tile", {x, mult}, {{"Tmultiples", AttrValue(int64_multiples ? DType::Int64 : DType::Int32)}}));
      }
  }

  void broadcast_to() {
    for (bool st : {true, false}) {
      Model m;
      m.static_shapes = st;
      check_gradients(m, m.op("BroadcastTo", {m.x("x", wave({3, 1})), m.c("shape", I32({3}, {2, 3, 4}))}));
      Model s;
      s.static_shapes = st;
      check_gradients(s, s.op("BroadcastTo", {s.x("x", D({}, {0.4})), s.c("shape", I64({2}, {2, 2}))},
                              {{"Tidx", AttrValue(DType::Int64)}}));
    }
  }

  // Later indices win the write, so the slice they overwrite gets no gradient.
  void dynamic_stitch() {
    REQUIRE_OPS({"GatherV2", "Equal"});
    for (bool st : {true, false}) {
      Model m;
      m.static_shapes = st;
      const std::string d0 = m.x("d0", wave({2, 3}));
      const std::string d1 = m.x("d1", D({2, 3}, {0.1, 0.2, 0.3, -0.4, -0.5, -0.6}));
      const std::string y = m.op("DynamicStitch", {m.c("i0", I32({2}, {0, 2})), m.c("i1", I32({2}, {2, 1})), d0, d1},
                                 {{"N", AttrValue(int64_t{2})}});
      check_gradients(m, y);
      Tensor g = gradient_of(m, y, d0);
      QCOMPARE(std::vector<double>(g.data<double>(), g.data<double>() + 6), (std::vector<double>{1, 1, 1, 0, 0, 0}));
    }
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpsReduceGrad)
#include "test_ops_reduce_grad.moc"
