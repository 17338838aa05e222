// RandomStandardNormal, RandomUniform, TruncatedNormal: seeding and rough statistics.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor draw(const char* op, int64_t seed, int64_t seed2, int n = 10000, DType dtype = DType::Float) {
  return run1(op, {{"dtype", dtype}, {"seed", seed}, {"seed2", seed2}}, {I32({1}, {n})});
}

void stats(const Tensor& t, double& mean, double& stddev, double& lo, double& hi) {
  std::vector<double> v = as_doubles(t);
  double s = 0, s2 = 0;
  lo = 1e300;
  hi = -1e300;
  for (double x : v) {
    s += x;
    s2 += x * x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  mean = s / double(v.size());
  stddev = std::sqrt(s2 / double(v.size()) - mean * mean);
}

}  // namespace

class TestOpsRandom : public QObject {
  Q_OBJECT
 private slots:
  void same_seed_same_values() {
    for (const char* op : {"RandomStandardNormal", "RandomUniform", "TruncatedNormal"}) {
      QVERIFY2(draw(op, 7, 3, 100).equals(draw(op, 7, 3, 100)), op);
      QVERIFY2(!draw(op, 7, 3, 100).equals(draw(op, 7, 4, 100)), op);
      QVERIFY2(!draw(op, 7, 3, 100).equals(draw(op, 8, 3, 100)), op);
      QVERIFY2(!draw(op, 0, 0, 100).equals(draw(op, 0, 0, 100)), op);  // nondeterministic
    }
  }
  void uniform() {
    Tensor t = draw("RandomUniform", 1, 2);
    QCOMPARE(t.dtype(), DType::Float);
    QCOMPARE(qshape(t.shape()), QString("[10000]"));
    double mean, sd, lo, hi;
    stats(t, mean, sd, lo, hi);
    QVERIFY(lo >= 0.0);
    QVERIFY(hi < 1.0);
    QVERIFY(std::fabs(mean - 0.5) < 0.02);
    QVERIFY(std::fabs(sd - std::sqrt(1.0 / 12)) < 0.02);
    stats(draw("RandomUniform", 1, 2, 10000, DType::Double), mean, sd, lo, hi);
    QVERIFY(lo >= 0.0 && hi < 1.0);
  }
  void normal() {
    double mean, sd, lo, hi;
    stats(draw("RandomStandardNormal", 5, 6), mean, sd, lo, hi);
    QVERIFY(std::fabs(mean) < 0.05);
    QVERIFY(std::fabs(sd - 1.0) < 0.05);
    QVERIFY(hi > 2.0 && lo < -2.0);  // not truncated
    Tensor d = draw("RandomStandardNormal", 5, 6, 10, DType::Double);
    QCOMPARE(d.dtype(), DType::Double);
  }
  void truncated_normal() {
    double mean, sd, lo, hi;
    stats(draw("TruncatedNormal", 9, 9), mean, sd, lo, hi);
    QVERIFY(lo >= -2.0 && hi <= 2.0);
    QVERIFY(std::fabs(mean) < 0.05);
    // Stddev of a standard normal truncated to [-2, 2] is about 0.880.
    QVERIFY(std::fabs(sd - 0.88) < 0.05);
  }
  void shapes_and_errors() {
    Tensor t = run1("RandomUniform", {{"dtype", DType::Float}, {"seed", 1}}, {I64({3}, {2, 0, 3})});
    QCOMPARE(qshape(t.shape()), QString("[2,0,3]"));
    EXPECT_ERROR(run1("RandomUniform", {{"dtype", DType::Int32}}, {I32({1}, {2})}), "RandomUniform: unsupported dtype int32");
    EXPECT_ERROR(run1("TruncatedNormal", {{"dtype", DType::Float}}, {I32({1}, {-2})}), "non-negative");
    Tensor shape = I32({2}, {4, 5});
    auto info = infer("RandomStandardNormal", {{"dtype", DType::Double}}, {{DType::Int32, Shape{2}}}, {&shape});
    QCOMPARE(info[0].dtype, DType::Double);
    QCOMPARE(qshape(info[0].shape), QString("[4,5]"));
    info = infer("RandomStandardNormal", {{"dtype", DType::Float}}, {{DType::Int32, Shape{3}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,?,?]"));
  }
  void own_variable_advances_stream() {
    // When the executor binds a variable to the node, successive runs differ
    // but a fresh node (fresh variable) repeats the sequence.
    AttrMap attrs = {{"dtype", DType::Float}, {"seed", 3}, {"seed2", 4}};
    Variable v1, v2;
    Tensor a1 = run_op("RandomUniform", attrs, {I32({1}, {8})}, {}, &v1)[0];
    Tensor a2 = run_op("RandomUniform", attrs, {I32({1}, {8})}, {}, &v1)[0];
    Tensor b1 = run_op("RandomUniform", attrs, {I32({1}, {8})}, {}, &v2)[0];
    QVERIFY(!a1.equals(a2));
    QVERIFY(a1.equals(b1));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsRandom)
#include "test_ops_random.moc"
