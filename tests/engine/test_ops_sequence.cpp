// Range, LinSpace, Where and InvertPermutation against TensorFlow's
// documented semantics and error texts.
#include "test_main.h"
#include <cmath>
#include <limits>

#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {
Tensor i32(int32_t v) { return Tensor::scalar<int32_t>(v); }
Tensor i64(int64_t v) { return Tensor::scalar<int64_t>(v); }
Tensor f32(float v) { return Tensor::scalar<float>(v); }
}  // namespace

class TestOpsSequence : public QObject {
  Q_OBJECT
 private slots:
  void range() {
    QVERIFY(tensor_near(run1("Range", {}, {i32(0), i32(10), i32(2)}), DType::Int32, {5}, {0, 2, 4, 6, 8}));
    QVERIFY(tensor_near(run1("Range", {}, {i32(10), i32(0), i32(-3)}), DType::Int32, {4}, {10, 7, 4, 1}));
    QVERIFY(tensor_near(run1("Range", {}, {i32(5), i32(5), i32(1)}), DType::Int32, {0}, {}));
    QVERIFY(tensor_near(run1("Range", {}, {i32(5), i32(5), i32(-1)}), DType::Int32, {0}, {}));
    QVERIFY(tensor_near(run1("Range", {{"Tidx", DType::Int64}}, {i64(-3), i64(3), i64(4)}), DType::Int64, {2}, {-3, 1}));
    QVERIFY(tensor_near(run1("Range", {{"Tidx", DType::Float}}, {f32(0.5f), f32(2), f32(0.3f)}), DType::Float, {5},
                        {0.5, 0.8, 1.1, 1.4, 1.7}));
    QVERIFY(tensor_near(run1("Range", {{"Tidx", DType::Double}}, {D({}, {1}), D({}, {-1}), D({}, {-0.5})}),
                        DType::Double, {4}, {1, 0.5, 0, -0.5}));
    QVERIFY(tensor_near(run1("Range", {{"Tidx", DType::Half}}, {T(DType::Half, {}, {0}), T(DType::Half, {}, {1}),
                                                                T(DType::Half, {}, {0.25})}),
                        DType::Half, {4}, {0, 0.25, 0.5, 0.75}));
    // Length-1 vectors still pass as scalars (TF's legacy allowance).
    QVERIFY(tensor_near(run1("Range", {}, {I32({1}, {1}), i32(4), I32({1}, {1})}), DType::Int32, {3}, {1, 2, 3}));
    // The size is computed without overflow: |limit - start| exceeds int32 here.
    const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    QVERIFY(tensor_near(run1("Range", {}, {i32(lo), i32(hi), i32(1 << 30)}), DType::Int32, {4},
                        {-2147483648.0, -1073741824.0, 0, 1073741824.0}));
  }
  void range_errors() {
    EXPECT_ERROR(run1("Range", {}, {i32(0), i32(5), i32(0)}), "Requires delta != 0: 0");
    EXPECT_ERROR(run1("Range", {}, {i32(5), i32(1), i32(1)}), "Requires start <= limit when delta > 0: 5/1");
    EXPECT_ERROR(run1("Range", {}, {i32(1), i32(5), i32(-1)}), "Requires start >= limit when delta < 0: 1/5");
    EXPECT_ERROR(run1("Range", {}, {f32(2.5f), f32(1), f32(0.5f)}), "Requires start <= limit when delta > 0: 2.5/1");
    EXPECT_ERROR(run1("Range", {}, {I32({2}, {0, 1}), i32(5), i32(1)}), "start must be a scalar, not shape [2]");
    EXPECT_ERROR(run1("Range", {}, {i32(0), I32({1, 1}, {5}), i32(1)}), "limit must be a scalar, not shape [1,1]");
    EXPECT_ERROR(run1("Range", {}, {i64(static_cast<int64_t>(5e18)), i64(static_cast<int64_t>(-5e18)), i64(-1)}),
                 "Requires ((limit - start) / delta) <= 9223372036854775807");
    EXPECT_ERROR(run1("Range", {}, {f32(0), f32(INFINITY), f32(1)}),
                 "Requires ((limit - start) / delta) <= 9223372036854775807");
    EXPECT_ERROR(run1("Range", {}, {i32(0), i64(5), i32(1)}), "Range: start, limit and delta must have one dtype");
  }
  void range_shape_fn() {
    Tensor s = i32(0), l = i32(10), d = i32(3), zero = i32(0);
    const TensorInfo scalar{DType::Int32, Shape{}};
    auto out = infer("Range", {}, {scalar, scalar, scalar}, {&s, &l, &d});
    QCOMPARE(out[0].dtype, DType::Int32);
    QCOMPARE(qshape(out[0].shape), QString("[4]"));
    out = infer("Range", {}, {scalar, scalar, scalar}, {&s, nullptr, &d});
    QCOMPARE(qshape(out[0].shape), QString("[?]"));
    // The shape function's delta message carries no value.
    const std::string msg = error_of([&] { infer("Range", {}, {scalar, scalar, scalar}, {&s, &l, &zero}); });
    QCOMPARE(QString::fromStdString(msg), QString("Requires delta != 0"));
    EXPECT_ERROR(infer("Range", {}, {{DType::Int32, Shape{2}}, scalar, scalar}), "Shape must be rank 0 but is rank 1 for 'start'");
    out = infer("Range", {{"Tidx", DType::Float}}, {{DType::Float, Shape{}}, {DType::Float, Shape{}}, {DType::Float, Shape{}}});
    QCOMPARE(out[0].dtype, DType::Float);
  }

  void linspace() {
    QVERIFY(tensor_near(run1("LinSpace", {}, {f32(3), f32(7), i32(3)}), DType::Float, {3}, {3, 5, 7}));
    QVERIFY(tensor_near(run1("LinSpace", {}, {D({}, {5}), D({}, {6}), i64(6)}), DType::Double, {6},
                        {5, 5.2, 5.4, 5.6, 5.8, 6}, 1e-12));
    QVERIFY(tensor_near(run1("LinSpace", {}, {f32(9), f32(100), i32(1)}), DType::Float, {1}, {9}));
    // The last value is exactly stop ((1/41) * 41 would be 0.99999994 in float).
    Tensor ends = run1("LinSpace", {}, {f32(0), f32(1), i32(42)});
    QCOMPARE(ends.data<float>()[0], 0.0f);
    QCOMPARE(ends.data<float>()[41], 1.0f);
    QVERIFY(tensor_near(run1("LinSpace", {}, {T(DType::Half, {}, {3}), T(DType::Half, {}, {7}), i32(3)}), DType::Half,
                        {3}, {3, 5, 7}));
    // bfloat16: each value the bfloat16 nearest to i / (num - 1).
    Tensor b = run1("LinSpace", {}, {T(DType::BFloat16, {}, {0}), T(DType::BFloat16, {}, {1}), i64(600)});
    for (int i = 0; i < 600; ++i)
      QCOMPARE(static_cast<float>(b.data<bfloat16>()[i]), static_cast<float>(bfloat16(static_cast<float>(i / 599.0))));
  }
  void linspace_errors() {
    EXPECT_ERROR(run1("LinSpace", {}, {f32(0), f32(1), i32(0)}), "Requires num > 0: 0");
    EXPECT_ERROR(run1("LinSpace", {}, {F({1}, {0}), f32(1), i32(3)}), "start must be a scalar, not shape [1]");
    EXPECT_ERROR(run1("LinSpace", {}, {f32(0), F({1}, {1}), i32(3)}), "stop must be a scalar, not shape [1]");
    EXPECT_ERROR(run1("LinSpace", {}, {f32(0), f32(1), I32({1}, {3})}), "num must be a scalar, not shape [1]");
    EXPECT_ERROR(run1("LinSpace", {}, {i32(0), i32(1), i32(3)}), "LinSpace: unsupported dtype int32");
    Tensor n = i32(-1);
    EXPECT_ERROR(infer("LinSpace", {}, {{DType::Float, Shape{}}, {DType::Float, Shape{}}, {DType::Int32, Shape{}}},
                       {nullptr, nullptr, &n}),
                 "Requires num > 0: -1");
    auto out = infer("LinSpace", {}, {{DType::Float, Shape{}}, {DType::Float, Shape{}}, {DType::Int32, Shape{}}});
    QCOMPARE(qshape(out[0].shape), QString("[?]"));
  }

  void where() {
    QVERIFY(tensor_near(run1("Where", {}, {B({2, 2}, {true, false, true, false})}), DType::Int64, {2, 2}, {0, 0, 1, 0}));
    QVERIFY(tensor_near(run1("Where", {}, {F({2, 1, 2}, {0, 1.5f, -2, 0})}), DType::Int64, {2, 3}, {0, 0, 1, 1, 0, 0}));
    QVERIFY(tensor_near(run1("Where", {}, {I32({4}, {0, 0, 7, 0})}), DType::Int64, {1, 1}, {2}));
    QVERIFY(tensor_near(run1("Where", {}, {B({2, 3}, std::vector<bool>(6, false))}), DType::Int64, {0, 2}, {}));
    QVERIFY(tensor_near(run1("Where", {}, {F({2}, {NAN, 0})}), DType::Int64, {1, 1}, {0}));  // NaN != 0
    EXPECT_ERROR(run1("Where", {}, {T(DType::Half, {2}, {1, 0})}), "No WhereOp available for float16/half type on CPU");
    EXPECT_ERROR(run1("Where", {}, {B({}, {true})}), "WhereOp : Unhandled input dimensions: 0");
    auto out = infer("Where", {}, {{DType::Bool, Shape{-1, 3}}});
    QCOMPARE(out[0].dtype, DType::Int64);
    QCOMPARE(qshape(out[0].shape), QString("[?,2]"));
  }

  void invert_permutation() {
    QVERIFY(tensor_near(run1("InvertPermutation", {}, {I32({4}, {2, 0, 3, 1})}), DType::Int32, {4}, {1, 3, 0, 2}));
    QVERIFY(tensor_near(run1("InvertPermutation", {}, {I64({3}, {1, 2, 0})}), DType::Int64, {3}, {2, 0, 1}));
    QVERIFY(tensor_near(run1("InvertPermutation", {}, {I32({0}, {})}), DType::Int32, {0}, {}));
    EXPECT_ERROR(run1("InvertPermutation", {}, {I32({3}, {0, 3, 1})}), "3 is not between 0 and 3");
    EXPECT_ERROR(run1("InvertPermutation", {}, {I32({2}, {-1, 0})}), "-1 is not between 0 and 2");
    EXPECT_ERROR(run1("InvertPermutation", {}, {I32({3}, {1, 1, 0})}), "1 is duplicated in the input.");
    EXPECT_ERROR(run1("InvertPermutation", {}, {I32({}, {0})}), "invert_permutation expects a 1D vector.");
    EXPECT_ERROR(infer("InvertPermutation", {}, {{DType::Int32, Shape{2, 2}}}), "Shape must be rank 1 but is rank 2");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsSequence)
#include "test_ops_sequence.moc"
