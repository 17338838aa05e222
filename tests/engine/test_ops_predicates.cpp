// The float class tests IsFinite, IsNan and IsInf (TensorFlow's math_ops.cc:
// T in {bfloat16, half, float, double}, y: bool, no gradient).
#include "test_main.h"
#include "elementwise_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestOpsPredicates : public QObject {
  Q_OBJECT
 private slots:
  void classify_each_float_type() {
    const std::vector<double> x = {1.5, -0.0, INFINITY, -INFINITY, NAN, -2.0, 65504.0};
    for (DType dtype : {DType::Float, DType::Double, DType::Half, DType::BFloat16}) {
      const Tensor in = T(dtype, {7}, x);
      const QByteArray what = QByteArray(dtype_name(dtype).c_str());
      QVERIFY2(values_are(run1("IsFinite", {{"T", dtype}}, {in}), DType::Bool, {7}, {1, 1, 0, 0, 0, 1, 1}), what);
      QVERIFY2(values_are(run1("IsNan", {{"T", dtype}}, {in}), DType::Bool, {7}, {0, 0, 0, 0, 1, 0, 0}), what);
      QVERIFY2(values_are(run1("IsInf", {{"T", dtype}}, {in}), DType::Bool, {7}, {0, 0, 1, 1, 0, 0, 0}), what);
    }
  }

  void half_overflow_is_infinite() {
    // 70000 rounds to +inf in half, but stays finite in bfloat16 (float's exponent range).
    QVERIFY(values_are(run1("IsInf", {{"T", DType::Half}}, {T(DType::Half, {1}, {70000.0})}), DType::Bool, {1}, {1}));
    QVERIFY(values_are(run1("IsInf", {{"T", DType::BFloat16}}, {T(DType::BFloat16, {1}, {70000.0})}), DType::Bool,
                       {1}, {0}));
  }

  void keeps_the_shape_including_empty() {
    QVERIFY(values_are(run1("IsNan", {{"T", DType::Float}}, {F({2, 0, 3}, {})}), DType::Bool, {2, 0, 3}, {}));
    QVERIFY(values_are(run1("IsFinite", {{"T", DType::Double}}, {D({}, {NAN})}), DType::Bool, {}, {0}));
    const auto info = infer("IsInf", {{"T", DType::Half}}, {{DType::Half, Shape{-1, 4}}});
    QCOMPARE(info[0].dtype, DType::Bool);
    QCOMPARE(qshape(info[0].shape), QStringLiteral("[?,4]"));
  }

  void refuses_non_float_types() {
    EXPECT_ERROR(run1("IsNan", {{"T", DType::Int32}}, {I32({2}, {1, 2})}), "int32");
    EXPECT_ERROR(run1("IsFinite", {}, {B({1}, {true})}), "bool");
  }

  void registered_without_gradient() {
    for (const char* op : {"IsFinite", "IsNan", "IsInf"}) {
      const OpDef& def = op_def(op);
      QVERIFY2(def.gradient_kind == GradientKind::NotDifferentiable, op);
      QCOMPARE(def.outputs.size(), size_t(1));
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsPredicates)
#include "test_ops_predicates.moc"
