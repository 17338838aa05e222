// The division family: Div, RealDiv, DivNoNan, TruncateDiv, FloorDiv,
// FloorMod, Mod, TruncateMod (TensorFlow's cwise_ops.h semantics, its CPU
// dtypes and its error texts).
#include "test_main.h"
#include <limits>

#include "elementwise_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor bin(const char* op, const Tensor& x, const Tensor& y) { return run1(op, {}, {x, y}); }

const char* const kDivByZero = "Integer division by zero";
const char* const kInternal = "Unexpected error in binary operator (only integer div and mod should have errors)";

}  // namespace

class TestOpsDivision : public QObject {
  Q_OBJECT
 private slots:
  void div() {
    // Integers truncate toward zero, like TruncateDiv.
    QVERIFY(values_are(bin("Div", I32({4}, {-7, 7, -7, 7}), I32({4}, {2, 2, -2, -2})), DType::Int32, {4},
                       {-3, 3, 3, -3}));
    QVERIFY(values_are(bin("Div", T(DType::UInt8, {2}, {200, 7}), T(DType::UInt8, {}, {3})), DType::UInt8, {2},
                       {66, 2}));
    QVERIFY(values_are(bin("Div", F({3}, {1, -1, 0}), F({}, {0})), DType::Float, {3}, {kInf, -kInf, kNaN}));
    QVERIFY(values_are(bin("Div", D({2, 1}, {1, 2}), D({2}, {4, 8})), DType::Double, {2, 2}, {0.25, 0.125, 0.5, 0.25}));
    EXPECT_ERROR(bin("Div", I64({2}, {1, 2}), I64({2}, {1, 0})), kDivByZero);
    EXPECT_ERROR(bin("Div", T(DType::Int16, {}, {1}), T(DType::Int16, {3}, {1, 0, 2})), kDivByZero);
    // No int8 CPU kernel in TensorFlow although the op def lists it.
    EXPECT_ERROR(bin("Div", T(DType::Int8, {1}, {1}), T(DType::Int8, {1}, {1})), "Div: unsupported dtype int8");
    // The one overflowing quotient wraps instead of trapping.
    const int32_t lowest = std::numeric_limits<int32_t>::min();
    QVERIFY(values_are(bin("Div", I32({1}, {lowest}), I32({1}, {-1})), DType::Int32, {1}, {double(lowest)}));
  }

  void real_div_rounds_16_bit() {
    // 1/3 in bfloat16: 171 * 2^-9.
    QVERIFY(values_are(bin("RealDiv", T(DType::BFloat16, {1}, {1}), T(DType::BFloat16, {1}, {3})), DType::BFloat16, {1},
                       {0.333984375}));
    QVERIFY(values_are(bin("RealDiv", T(DType::Half, {2}, {1, 6}), T(DType::Half, {}, {4})), DType::Half, {2},
                       {0.25, 1.5}));
    // TensorFlow registers RealDiv's kernels (cwise_op_div.cc) for floating and
    // complex types only, although the op def lists the integers.
    EXPECT_ERROR(bin("RealDiv", I32({1}, {7}), I32({1}, {2})), "RealDiv: unsupported dtype int32");
    EXPECT_ERROR(bin("RealDiv", I64({1}, {7}), I64({1}, {2})), "RealDiv: unsupported dtype int64");
  }

  void div_no_nan() {
    // 0 wherever y == 0 (also -0.0), even for NaN or infinite x.
    QVERIFY(values_are(bin("DivNoNan", F({4}, {1, NAN, INFINITY, 4}), F({4}, {0, 0, -0.0f, 2})), DType::Float, {4},
                       {0, 0, 0, 2}));
    QVERIFY(values_are(bin("DivNoNan", T(DType::Half, {2, 1}, {3, -6}), T(DType::Half, {2}, {0, 2})), DType::Half,
                       {2, 2}, {0, 1.5, 0, -3}));
    QVERIFY(values_are(bin("DivNoNan", D({}, {5}), D({3}, {0, 5, -10})), DType::Double, {3}, {0, 1, -0.5}));
    EXPECT_ERROR(bin("DivNoNan", I32({1}, {1}), I32({1}, {1})), "DivNoNan: unsupported dtype int32");
    EXPECT_ERROR(bin("DivNoNan", T(DType::BFloat16, {1}, {1}), T(DType::BFloat16, {1}, {1})),
                 "DivNoNan: unsupported dtype bfloat16");
  }

  void truncate_div() {
    QVERIFY(values_are(bin("TruncateDiv", I32({3}, {-7, 7, 6}), I32({3}, {2, -2, 4})), DType::Int32, {3},
                       {-3, -3, 1}));
    QVERIFY(values_are(bin("TruncateDiv", T(DType::UInt16, {2, 1}, {9, 65535}), T(DType::UInt16, {2}, {2, 4})),
                       DType::UInt16, {2, 2}, {4, 2, 32767, 16383}));
    // TensorFlow leaves TruncateDiv out of its division-by-zero wording.
    EXPECT_ERROR(bin("TruncateDiv", I64({1}, {3}), I64({1}, {0})), kInternal);
    EXPECT_ERROR(bin("TruncateDiv", F({1}, {1}), F({1}, {2})), "TruncateDiv: unsupported dtype float32");
  }

  void floor_div() {
    QVERIFY(values_are(bin("FloorDiv", I32({5}, {-7, 7, -7, 7, -6}), I32({5}, {2, 2, -2, -2, 2})), DType::Int32, {5},
                       {-4, 3, 3, -4, -3}));
    QVERIFY(values_are(bin("FloorDiv", I64({2}, {std::numeric_limits<int64_t>::min(), -1}), I64({}, {3})),
                       DType::Int64, {2}, {-3074457345618258603.0, -1}));
    QVERIFY(values_are(bin("FloorDiv", T(DType::UInt16, {1}, {7}), T(DType::UInt16, {1}, {2})), DType::UInt16, {1},
                       {3}));
    QVERIFY(values_are(bin("FloorDiv", F({3}, {-7.5f, 7.5f, 1}), F({3}, {2, -2, 0})), DType::Float, {3},
                       {-4, -4, kInf}));
    QVERIFY(values_are(bin("FloorDiv", T(DType::BFloat16, {2}, {-1, 5}), T(DType::BFloat16, {}, {2})),
                       DType::BFloat16, {2}, {-1, 2}));
    EXPECT_ERROR(bin("FloorDiv", I32({2}, {1, 2}), I32({}, {0})), kDivByZero);
  }

  void floor_mod() {
    // The result takes the sign of y (Python's %).
    QVERIFY(values_are(bin("FloorMod", I32({4}, {-7, 7, -7, 7}), I32({4}, {3, -3, -3, 3})), DType::Int32, {4},
                       {2, -2, -1, 1}));
    QVERIFY(values_are(bin("FloorMod", D({3}, {-7.5, 7.5, 6}), D({3}, {2, -2, 3})), DType::Double, {3},
                       {0.5, -0.5, 0}));
    QVERIFY(values_are(bin("FloorMod", F({1}, {1}), F({1}, {0})), DType::Float, {1}, {kNaN}));
    QVERIFY(values_are(bin("FloorMod", T(DType::Half, {2, 1}, {-1, 5}), T(DType::Half, {2}, {3, -3})), DType::Half,
                       {2, 2}, {2, -1, 2, -1}));
    EXPECT_ERROR(bin("FloorMod", I64({1}, {5}), I64({1}, {0})), kDivByZero);
    EXPECT_ERROR(bin("FloorMod", T(DType::UInt8, {1}, {5}), T(DType::UInt8, {1}, {2})),
                 "FloorMod: unsupported dtype uint8");
    QVERIFY(values_are(bin("FloorMod", I32({1}, {std::numeric_limits<int32_t>::min()}), I32({1}, {-1})), DType::Int32,
                       {1}, {0}));
  }

  void mod_and_truncate_mod() {
    for (const char* op : {"Mod", "TruncateMod"}) {
      // The result takes the sign of x (C++ % and fmod).
      QVERIFY(values_are(bin(op, I32({4}, {-7, 7, -7, 7}), I32({4}, {3, -3, -3, 3})), DType::Int32, {4},
                         {-1, 1, -1, 1}));
      QVERIFY(values_are(bin(op, D({2}, {-7.5, 7.5}), D({}, {2})), DType::Double, {2}, {-1.5, 1.5}));
      QVERIFY(values_are(bin(op, F({1}, {3}), F({1}, {0})), DType::Float, {1}, {kNaN}));
      QVERIFY(values_are(bin(op, T(DType::BFloat16, {1}, {-5}), T(DType::BFloat16, {1}, {3})), DType::BFloat16, {1},
                         {-2}));
    }
    EXPECT_ERROR(bin("Mod", I32({1}, {5}), I32({1}, {0})), kDivByZero);
    EXPECT_ERROR(bin("TruncateMod", I32({1}, {5}), I32({1}, {0})), kInternal);
  }

  void shapes_and_errors() {
    EXPECT_ERROR(bin("FloorDiv", F({2, 3}, {1, 2, 3, 4, 5, 6}), F({4}, {1, 2, 3, 4})),
                 "Incompatible shapes: [2,3] vs. [4]");
    EXPECT_ERROR(bin("Div", F({1}, {1}), I32({1}, {1})), "same dtype");
    // An empty output computes nothing and refuses nothing.
    QVERIFY(values_are(bin("Div", I32({0}, {}), I32({1}, {0})), DType::Int32, {0}, {}));
    QVERIFY(values_are(bin("FloorMod", I32({2, 0}, {}), I32({2, 1}, {0, 1})), DType::Int32, {2, 0}, {}));
    auto info = infer("FloorMod", {}, {{DType::Int32, Shape{-1, 1}}, {DType::Int32, Shape{5}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,5]"));
    QCOMPARE(info[0].dtype, DType::Int32);
    EXPECT_ERROR(infer("DivNoNan", {}, {{DType::Float, Shape{2}}, {DType::Float, Shape{3}}}),
                 "Incompatible shapes: [2] vs. [3]");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsDivision)
#include "test_ops_division.moc"
