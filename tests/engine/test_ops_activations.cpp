// The activations beyond Relu (Relu6, LeakyRelu, Elu, Selu, Softplus,
// Softsign) and their backprop ops: hand-computed values per dtype (the
// 16-bit floats computed in float and rounded once, constants rounded to T
// as TensorFlow's kernels cast them), Softplus's epsilon thresholds, errors,
// shape functions, and the gradients nn_grad.py defines (first and second
// order) against central differences.
#include "test_main.h"
#include <algorithm>

#include "elementwise_test_util.h"
#include "engine/gradient_check.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

const DType kF = DType::Float, kD = DType::Double, kH = DType::Half, kBF = DType::BFloat16;

Tensor un(const char* op, const Tensor& x, AttrMap attrs = {}) { return run1(op, std::move(attrs), {x}); }
Tensor bin(const char* op, const Tensor& g, const Tensor& f, AttrMap attrs = {}) {
  return run1(op, std::move(attrs), {g, f});
}
AttrMap alpha(float a) { return {{"alpha", AttrValue(a)}}; }

// n float64 values in (lo, hi), uneven and never repeating.
Tensor values(Shape s, double lo, double hi, double phase = 0.0) {
  const int64_t n = s.num_elements();
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * (0.5 + 0.45 * std::sin(1.7 * double(i) + 0.9 + phase)));
  return D(std::move(s), v);
}

constexpr double kScale = 1.0507009873554804934193349852946;
constexpr double kScaleAlpha = 1.7580993408473768599402175208123;

}  // namespace

class TestOpsActivations : public QObject {
  Q_OBJECT
 private slots:
  void relu6() {
    QVERIFY(values_are(un("Relu6", F({6}, {-1, 0, 3, 6, 7, NAN})), kF, {6}, {0, 0, 3, 6, 6, kNaN}));
    QVERIFY(values_are(un("Relu6", I32({3}, {-5, 2, 9})), DType::Int32, {3}, {0, 2, 6}));
    QVERIFY(values_are(un("Relu6", T(DType::UInt8, {2}, {3, 200})), DType::UInt8, {2}, {3, 6}));
    QVERIFY(values_are(un("Relu6", T(kBF, {2}, {6.5, 5.5})), kBF, {2}, {6, 5.5}));
    // gradients where 0 < features < 6; a NaN gradient stays NaN (g * 0).
    QVERIFY(values_are(bin("Relu6Grad", F({6}, {1, 2, 3, 4, 5, NAN}), F({6}, {-1, 0, 3, 6, 7, 7})), kF, {6},
                       {0, 0, 3, 0, 0, kNaN}));
    QVERIFY(values_are(bin("Relu6Grad", T(DType::Int16, {2}, {7, 8}), T(DType::Int16, {2}, {5, 6})), DType::Int16,
                       {2}, {7, 0}));
  }

  void leaky_relu() {
    QVERIFY(values_are(un("LeakyRelu", F({3}, {-2, 0, 3})), kF, {3}, {-0.4, 0, 3}, 1e-7));  // alpha 0.2 by default
    QVERIFY(values_are(un("LeakyRelu", D({2}, {-2, 3}), alpha(-1)), kD, {2}, {2, 3}));       // alpha may be < 0
    // alpha is cast to half first: 0.1 -> 0.0999755859375.
    QVERIFY(values_are(un("LeakyRelu", T(kH, {2}, {-1, 1}), alpha(0.1f)), kH, {2}, {-0.0999755859375, 1}));
    QVERIFY(values_are(bin("LeakyReluGrad", F({3}, {1, 1, 2}), F({3}, {-1, 0, 2}), alpha(0.3f)), kF, {3},
                       {0.3, 0.3, 2}, 1e-7));
    QVERIFY(values_are(bin("LeakyReluGrad", T(kBF, {2}, {4, 4}), T(kBF, {2}, {-1, 1})), kBF, {2}, {0.80078125, 4}));
    EXPECT_ERROR(un("LeakyRelu", I32({1}, {1})), "LeakyRelu: unsupported dtype int32");
    QCOMPARE(op_def("LeakyRelu").attrs.front().name, std::string("alpha"));  // TF's attr order
  }

  void elu_selu() {
    const double e1 = std::exp(-1.0) - 1.0;
    QVERIFY(values_are(un("Elu", D({3}, {-1, 0, 2})), kD, {3}, {e1, 0, 2}, 1e-15));
    QVERIFY(values_are(un("Elu", F({2}, {-1, 2})), kF, {2}, {e1, 2}, 1e-7));
    QVERIFY(values_are(un("Selu", D({3}, {-1, 0, 2})), kD, {3}, {kScaleAlpha * e1, 0, kScale * 2}, 1e-15));
    // EluGrad(g, y) = y < 0 ? (y + 1) * g : g; SeluGrad(g, y) = y < 0 ? g * (y + scale_alpha) : g * scale.
    QVERIFY(values_are(bin("EluGrad", D({2}, {2, 2}), D({2}, {-0.5, 1})), kD, {2}, {1, 2}));
    QVERIFY(values_are(bin("SeluGrad", D({2}, {1, 1}), D({2}, {-1, 2})), kD, {2}, {kScaleAlpha - 1, kScale}, 1e-15));
    // half: one rounding of the float result.
    QVERIFY(values_are(un("Elu", T(kH, {1}, {-1})), kH, {1}, {-0.63232421875}));
    EXPECT_ERROR(un("Elu", I32({1}, {1})), "Elu: unsupported dtype int32");
    EXPECT_ERROR(un("Selu", I64({1}, {1})), "Selu: unsupported dtype int64");
  }

  // Above -threshold: x; below threshold: exp(x); else log1p(exp(x)), with
  // threshold = log(epsilon(T)) + 2 computed in T.
  void softplus() {
    QVERIFY(values_are(un("Softplus", F({5}, {0, 1, -20, 20, 100})), kF, {5},
                       {std::log(2.0), 1.31326162815094, 2.06115369216775e-09, 20, 100}, 1e-7));
    // float's threshold is -13.94: 13.9 is still log1p(exp(x)), 14 is x.
    QCOMPARE(un("Softplus", F({1}, {14})).data<float>()[0], 14.0f);
    // double's is -34.04: -20 is log1p(exp(-20)), -40 is exp(-40), 40 is 40.
    QVERIFY(values_are(un("Softplus", D({3}, {-20, -40, 40})), kD, {3},
                       {2.061153620314381e-09, 4.248354255291589e-18, 40}, 1e-15));
    // half: Eigen's NumTraits<half>::epsilon() is 2^-13, so the threshold is
    // half(half(log(2^-13)) + 2) = -7.0078125: below it exp(x)
    // (-7.01171875 -> 0.000901222..., where log1p(exp(x)) would round to
    // 0.000900745...), above it log1p(exp(x)).
    QVERIFY(values_are(un("Softplus", T(kH, {2}, {-7.01171875, -7})), kH, {2},
                       {0.0009012222290039062, 0.0009112358093261719}));
    // bfloat16: threshold -2.84375: 3 stays 3, 2.5 is log1p(exp(2.5)) = 2.5789 -> 2.578125.
    QVERIFY(values_are(un("Softplus", T(kBF, {2}, {3, 2.5})), kBF, {2}, {3, 2.578125}));
    QVERIFY(values_are(un("Softplus", F({2}, {NAN, -INFINITY})), kF, {2}, {kNaN, 0}));
    // gradients / (exp(-features) + 1)
    QVERIFY(values_are(bin("SoftplusGrad", D({2}, {1, 2}), D({2}, {0, std::log(3.0)})), kD, {2}, {0.5, 1.5}, 1e-15));
  }

  // Softmax / LogSoftmax on the 16-bit floats sum in float32: 4096 equal
  // logits give 1/4096 each (a half running sum would stop at 2048).
  void softmax_16_bit_accumulates_in_float() {
    for (DType t : {kH, kBF}) {
      const Tensor x = T(t, {1, 4096}, std::vector<double>(4096, 0.0));
      const Tensor sm = un("Softmax", x);
      QCOMPARE(sm.dtype(), t);
      const std::vector<double> v = as_doubles(sm);
      QVERIFY(std::all_of(v.begin(), v.end(), [](double e) { return e == 1.0 / 4096; }));
      const double expected = t == kH ? -8.3203125 : -8.3125;  // -log(4096) = -8.3178 rounded to T
      const std::vector<double> l = as_doubles(un("LogSoftmax", x));
      QVERIFY2(l[0] == expected && l[4095] == expected, qPrintable(QString::number(l[0], 'g', 10)));
    }
  }

  void softsign() {
    QVERIFY(values_are(un("Softsign", F({3}, {-3, 0, 1})), kF, {3}, {-0.75, 0, 0.5}));
    QVERIFY(values_are(un("Softsign", T(kBF, {1}, {3})), kBF, {1}, {0.75}));
    QVERIFY(values_are(bin("SoftsignGrad", D({2}, {1, 2}), D({2}, {-3, 1})), kD, {2}, {0.0625, 0.5}));
  }

  void errors_and_shapes() {
    for (const char* op : {"Relu6Grad", "LeakyReluGrad", "EluGrad", "SeluGrad", "SoftplusGrad", "SoftsignGrad"}) {
      EXPECT_ERROR(bin(op, F({2}, {1, 2}), F({2, 1}, {1, 2})),
                   "Inputs to operation test_node of type " + std::string(op) +
                       " must have the same size and shape.  Input 0: [2] != input 1: [2,1]");
      EXPECT_ERROR(bin(op, F({1}, {1}), D({1}, {1})), "both inputs must have the same dtype");
      auto info = infer(op, {}, {{kF, Shape{2, -1}}, {kF, Shape{-1, 3}}});
      QCOMPARE(qshape(info[0].shape), QString("[2,3]"));
      EXPECT_ERROR(infer(op, {}, {{kF, Shape{2}}, {kF, Shape{3}}}), "must have the same shape");
    }
    for (const char* op : {"Relu6", "LeakyRelu", "Elu", "Selu", "Softplus", "Softsign"}) {
      auto info = infer(op, {}, {{kH, Shape{-1, 4}}});
      QCOMPARE(qshape(info[0].shape), QString("[?,4]"));
      QCOMPARE(info[0].dtype, kH);
      // Empty tensors run.
      QCOMPARE(un(op, F({0, 3}, {})).shape(), Shape({0, 3}));
    }
  }

  // ---- gradients against central differences (float64) -----------------------------

  void gradients_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::newRow("Relu6") << "Relu6" << -2.0 << 8.0;
    QTest::newRow("LeakyRelu") << "LeakyRelu" << -2.0 << 2.0;
    QTest::newRow("Elu") << "Elu" << -2.0 << 2.0;
    QTest::newRow("Selu") << "Selu" << -2.0 << 2.0;
    QTest::newRow("Softplus") << "Softplus" << -3.0 << 3.0;
    QTest::newRow("Softsign") << "Softsign" << -3.0 << 3.0;
  }
  void gradients() {
    QFETCH(QString, op);
    QFETCH(double, lo);
    QFETCH(double, hi);
    const AttrMap attrs = op == "LeakyRelu" ? alpha(0.3f) : AttrMap{};
    Model m;
    check_gradients(m, m.op(op.toStdString(), {m.x("x", values({2, 3}, lo, hi))}, attrs));
    // Second order: through Relu6Grad, LeakyReluGrad, EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad.
    if (op == "Softsign") return;  // TensorFlow registers no gradient for SoftsignGrad
    Model m2;
    const std::string x = m2.x("x", values({2, 3}, lo, hi));
    const std::string dy_dx = add_gradients(m2.g, {m2.op(op.toStdString(), {x}, attrs)}, {x}, OpRegistry::global())[0];
    if (op == "Relu6" || op == "LeakyRelu") {
      check_gradients(m2, m2.op("Mul", {dy_dx, x}));  // piecewise linear
      return;
    }
    check_gradients(m2, dy_dx, 1e-5, 1e-4);
  }

  // The backprop ops as forward ops: both inputs' gradients (nn_grad.py's *GradGrad).
  void gradient_ops_data() {
    QTest::addColumn<QString>("op");
    for (const char* op : {"Relu6Grad", "LeakyReluGrad", "EluGrad", "SeluGrad", "SoftplusGrad"})
      QTest::newRow(op) << QString(op);
  }
  void gradient_ops() {
    QFETCH(QString, op);
    Model m;
    const AttrMap attrs = op == "LeakyReluGrad" ? alpha(0.3f) : AttrMap{};
    const bool elu = op == "EluGrad" || op == "SeluGrad";
    // EluGrad/SeluGrad read the forward outputs (> -1 for Elu), the others the features.
    const std::string g = m.x("g", values({2, 3}, -1.5, 1.5, 1.0));
    const std::string f = m.x("f", op == "Relu6Grad" ? values({2, 3}, -2, 8) : elu ? values({2, 3}, -0.9, 1.5)
                                                                                   : values({2, 3}, -2, 2));
    check_gradients(m, m.op(op.toStdString(), {g, f}, attrs));
  }

  // The graph nn_grad.py builds: Softplus -> grad * Sigmoid(x); SoftplusGrad's
  // gradient under control_dependencies([grad]); LeakyReluGrad keeps alpha.
  void gradient_graphs() {
    Model m;
    const std::string x = m.x("x", values({3}, -1, 1));
    const std::string sp = m.op("Softplus", {x});
    add_gradients(m.g, {sp}, {x}, OpRegistry::global());
    bool sigmoid = false;
    for (const Node& n : m.g.nodes()) sigmoid = sigmoid || n.op == "Sigmoid";
    QVERIFY(sigmoid);

    Model l;
    const std::string lx = l.x("x", values({3}, -1, 1));
    add_gradients(l.g, {l.op("LeakyRelu", {lx}, alpha(0.25f))}, {lx}, OpRegistry::global());
    bool found = false;
    for (const Node& n : l.g.nodes())
      if (n.op == "LeakyReluGrad") {
        found = true;
        const float* a = n.find_attr("alpha")->get_if<float>();
        QVERIFY(a && *a == 0.25f);
      }
    QVERIFY(found);

    Model s;
    const std::string dy = s.x("dy", values({3}, -1, 1));
    const std::string sx = s.x("x", values({3}, -1, 1, 2.0));
    const std::string spg = s.op("SoftplusGrad", {dy, sx});
    const auto grads = add_gradients(s.g, {spg}, {dy, sx}, OpRegistry::global());
    int with_control = 0;
    for (const Node& n : s.g.nodes())
      if ((n.op == "Exp" || n.op == "Neg") && n.name.find("SoftplusGrad_grad") != std::string::npos)
        for (const std::string& in : n.inputs) with_control += !in.empty() && in[0] == '^';
    QVERIFY2(with_control >= 2, "Neg/Exp carry the control edge on grad");

    // SoftsignGrad: TensorFlow defines none, and add_gradients says so.
    Model n;
    const std::string nx = n.x("x", values({3}, -1, 1));
    const std::string ssg = n.op("SoftsignGrad", {nx, nx});
    EXPECT_ERROR(add_gradients(n.g, {ssg}, {nx}, OpRegistry::global()), "SoftsignGrad");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsActivations)
#include "test_ops_activations.moc"
