// ArgMax / ArgMin and the scans Cumsum / Cumprod against TensorFlow's
// documented semantics and error texts.
#include "test_main.h"
#include <cmath>

#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestOpsScan : public QObject {
  Q_OBJECT
 private slots:
  void argmax_argmin() {
    Tensor x = F({2, 3}, {1, 5, 5, 7, 2, 7});
    QVERIFY(tensor_near(run1("ArgMax", {}, {x, scalar_i(1)}), DType::Int64, {2}, {1, 0}));  // ties: the first
    QVERIFY(tensor_near(run1("ArgMin", {}, {x, scalar_i(1)}), DType::Int64, {2}, {0, 1}));
    QVERIFY(tensor_near(run1("ArgMax", {}, {x, scalar_i(0)}), DType::Int64, {3}, {1, 0, 1}));
    QVERIFY(tensor_near(run1("ArgMin", {}, {x, I64({}, {-2})}), DType::Int64, {3}, {0, 1, 0}));
    QVERIFY(tensor_near(run1("ArgMax", {{"output_type", DType::Int32}}, {x, scalar_i(-1)}), DType::Int32, {2}, {1, 0}));
    QVERIFY(tensor_near(run1("ArgMax", {}, {T(DType::Half, {4}, {0.5, -1, 2.5, 2.5}), scalar_i(0)}), DType::Int64, {},
                        {2}));
    QVERIFY(tensor_near(run1("ArgMin", {}, {T(DType::UInt8, {3}, {9, 3, 3}), scalar_i(0)}), DType::Int64, {}, {1}));
    // 3-D along the middle axis.
    QVERIFY(tensor_near(run1("ArgMax", {}, {I32({2, 2, 2}, {1, 8, 3, 2, 9, 4, 0, 5}), scalar_i(1)}), DType::Int64,
                        {2, 2}, {1, 0, 0, 1}));
    // NaN never wins; an all-NaN slice gives 0.
    QVERIFY(tensor_near(run1("ArgMax", {}, {F({3}, {NAN, 1, 2}), scalar_i(0)}), DType::Int64, {}, {2}));
    QVERIFY(tensor_near(run1("ArgMin", {}, {F({3}, {1, NAN, 0}), scalar_i(0)}), DType::Int64, {}, {2}));
    QVERIFY(tensor_near(run1("ArgMax", {}, {F({2}, {NAN, NAN}), scalar_i(0)}), DType::Int64, {}, {0}));
    // An empty kept dim gives an empty output, no error.
    QVERIFY(tensor_near(run1("ArgMax", {}, {F({3, 0}, {}), scalar_i(0)}), DType::Int64, {0}, {}));
  }
  void argmax_errors() {
    Tensor x = F({2, 3}, {1, 5, 5, 7, 2, 7});
    EXPECT_ERROR(run1("ArgMax", {}, {x, scalar_i(2)}), "Expected dimension in the range [-2, 2), but got 2");
    EXPECT_ERROR(run1("ArgMin", {}, {x, scalar_i(-3)}), "Expected dimension in the range [-2, 2), but got -3");
    EXPECT_ERROR(run1("ArgMax", {}, {F({0, 3}, {}), scalar_i(0)}), "Reduction axis 0 is empty in shape [0,3]");
    EXPECT_ERROR(run1("ArgMax", {}, {x, I32({1}, {0})}), "dim must be a scalar, but received tensor of shape: [1]");
    EXPECT_ERROR(run1("ArgMax", {}, {F({}, {1}), scalar_i(0)}), "Expected dimension in the range [0, 0), but got 0");
    EXPECT_ERROR(run1("ArgMax", {}, {B({2}, {true, false}), scalar_i(0)}), "ArgMax: unsupported dtype bool");
  }
  void argmax_shape_fn() {
    Tensor one = I32({}, {1});
    auto out = infer("ArgMax", {}, {{DType::Float, Shape{2, -1, 4}}, {DType::Int32, Shape{}}}, {nullptr, &one});
    QCOMPARE(out[0].dtype, DType::Int64);
    QCOMPARE(qshape(out[0].shape), QString("[2,4]"));
    out = infer("ArgMin", {{"output_type", DType::Int32}}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{}}});
    QCOMPARE(out[0].dtype, DType::Int32);
    QCOMPARE(qshape(out[0].shape), QString("[?]"));
    out = infer("ArgMax", {}, {{DType::Float, Shape{5}}, {DType::Int32, Shape{}}});
    QCOMPARE(qshape(out[0].shape), QString("[]"));
    Tensor three = I32({}, {3});
    EXPECT_ERROR(infer("ArgMax", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{}}}, {nullptr, &three}),
                 "Dimension (3) must be in the range [-2, 2), where 2 is the number of dimensions in the input.");
    EXPECT_ERROR(infer("ArgMax", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{1}}}),
                 "Shape must be rank 0 but is rank 1");
  }

  void cumsum() {
    Tensor x = F({3}, {1, 2, 3});
    QVERIFY(tensor_near(run1("Cumsum", {}, {x, scalar_i(0)}), DType::Float, {3}, {1, 3, 6}));
    QVERIFY(tensor_near(run1("Cumsum", {{"exclusive", true}}, {x, scalar_i(0)}), DType::Float, {3}, {0, 1, 3}));
    QVERIFY(tensor_near(run1("Cumsum", {{"reverse", true}}, {x, scalar_i(0)}), DType::Float, {3}, {6, 5, 3}));
    QVERIFY(tensor_near(run1("Cumsum", {{"exclusive", true}, {"reverse", true}}, {x, I64({}, {-1})}), DType::Float, {3},
                        {5, 3, 0}));
    Tensor m = I32({2, 2}, {1, 2, 3, 4});
    QVERIFY(tensor_near(run1("Cumsum", {}, {m, scalar_i(0)}), DType::Int32, {2, 2}, {1, 2, 4, 6}));
    QVERIFY(tensor_near(run1("Cumsum", {}, {m, scalar_i(-1)}), DType::Int32, {2, 2}, {1, 3, 3, 7}));
    QVERIFY(tensor_near(run1("Cumsum", {}, {T(DType::Half, {3}, {0.5, 0.25, 1}), scalar_i(0)}), DType::Half, {3},
                        {0.5, 0.75, 1.75}));
    QVERIFY(tensor_near(run1("Cumsum", {}, {T(DType::Int8, {2}, {100, 100}), scalar_i(0)}), DType::Int8, {2},
                        {100, -56}));
    QVERIFY(tensor_near(run1("Cumsum", {}, {F({0, 2}, {}), scalar_i(1)}), DType::Float, {0, 2}, {}));
  }
  void cumprod() {
    Tensor x = D({3}, {1, 2, 3});
    QVERIFY(tensor_near(run1("Cumprod", {}, {x, scalar_i(0)}), DType::Double, {3}, {1, 2, 6}));
    QVERIFY(tensor_near(run1("Cumprod", {{"exclusive", true}}, {x, scalar_i(0)}), DType::Double, {3}, {1, 1, 2}));
    QVERIFY(tensor_near(run1("Cumprod", {{"reverse", true}}, {x, scalar_i(0)}), DType::Double, {3}, {6, 6, 3}));
    QVERIFY(tensor_near(run1("Cumprod", {{"exclusive", true}, {"reverse", true}}, {x, scalar_i(0)}), DType::Double, {3},
                        {6, 3, 1}));
    QVERIFY(tensor_near(run1("Cumprod", {}, {I64({2, 2}, {2, 3, 4, 5}), scalar_i(0)}), DType::Int64, {2, 2},
                        {2, 3, 8, 15}));
    QVERIFY(tensor_near(run1("Cumprod", {}, {T(DType::BFloat16, {3}, {2, 0.5, -4}), scalar_i(0)}), DType::BFloat16,
                        {3}, {2, 1, -4}));
  }
  void scan_errors() {
    Tensor m = F({2, 2}, {1, 2, 3, 4});
    EXPECT_ERROR(run1("Cumsum", {}, {m, I32({1}, {0})}), "ScanOp: axis must be a scalar, not [1]");
    // The message shows the axis after adding the rank to a negative one.
    EXPECT_ERROR(run1("Cumsum", {}, {m, scalar_i(-3)}), "ScanOp: Expected scan axis in the range [-2, 2), but got -1");
    EXPECT_ERROR(run1("Cumprod", {}, {m, scalar_i(5)}), "ScanOp: Expected scan axis in the range [-2, 2), but got 5");
    EXPECT_ERROR(run1("Cumsum", {}, {F({}, {1}), scalar_i(0)}), "ScanOp: Expected scan axis in the range [0, 0), but got 0");
    EXPECT_ERROR(run1("Cumsum", {}, {B({1}, {true}), scalar_i(0)}), "Cumsum: unsupported dtype bool");
    auto out = infer("Cumprod", {}, {{DType::Float, Shape{-1, 3}}, {DType::Int32, Shape{}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,3]"));
    EXPECT_ERROR(infer("Cumsum", {}, {{DType::Float, Shape{2}}, {DType::Int32, Shape{1}}}),
                 "Shape must be rank 0 but is rank 1");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsScan)
#include "test_ops_scan.moc"
