// Reductions: Sum, Mean, Max with axes, negative axes, keep_dims, empty axes.
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {
Tensor m23() { return F({2, 3}, {1, 2, 3, 4, 5, 6}); }
}  // namespace

class TestOpsReduce : public QObject {
  Q_OBJECT
 private slots:
  void sum_axes() {
    QVERIFY(tensor_near(run1("Sum", {}, {m23(), scalar_i(0)}), DType::Float, {3}, {5, 7, 9}));
    QVERIFY(tensor_near(run1("Sum", {}, {m23(), I32({1}, {1})}), DType::Float, {2}, {6, 15}));
    QVERIFY(tensor_near(run1("Sum", {}, {m23(), I64({1}, {-1})}), DType::Float, {2}, {6, 15}));
    QVERIFY(tensor_near(run1("Sum", {}, {m23(), I32({2}, {0, 1})}), DType::Float, {}, {21}));
    QVERIFY(tensor_near(run1("Sum", {}, {m23(), I32({2}, {-1, 0})}), DType::Float, {}, {21}));
    QVERIFY(tensor_near(run1("Sum", {{"keep_dims", true}}, {m23(), I32({1}, {1})}), DType::Float, {2, 1}, {6, 15}));
    QVERIFY(tensor_near(run1("Sum", {{"keep_dims", true}}, {m23(), I32({2}, {0, 1})}), DType::Float, {1, 1}, {21}));
    QVERIFY(tensor_near(run1("Sum", {}, {I64({2, 2}, {1, 2, 3, 4}), scalar_i(0)}), DType::Int64, {2}, {4, 6}));
  }
  void sum_3d() {
    Tensor x = D({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    QVERIFY(tensor_near(run1("Sum", {}, {x, I32({2}, {0, 2})}), DType::Double, {2}, {10, 18}));
    QVERIFY(tensor_near(run1("Sum", {}, {x, scalar_i(1)}), DType::Double, {2, 2}, {2, 4, 10, 12}));
    QVERIFY(tensor_near(run1("Sum", {{"keep_dims", true}}, {x, scalar_i(-2)}), DType::Double, {2, 1, 2},
                        {2, 4, 10, 12}));
    QVERIFY(tensor_near(run1("Sum", {}, {x, I32({2}, {1, 2})}), DType::Double, {2}, {6, 22}));
    // A size-1 dim between reduced dims.
    Tensor y = F({2, 1, 3}, {1, 2, 3, 4, 5, 6});
    QVERIFY(tensor_near(run1("Sum", {}, {y, I32({2}, {0, 2})}), DType::Float, {1}, {21}));
    QVERIFY(tensor_near(run1("Sum", {}, {y, scalar_i(0)}), DType::Float, {1, 3}, {5, 7, 9}));
  }
  void empty_axes_identity() {
    Tensor x = m23();
    Tensor out = run1("Sum", {}, {x, I32({0}, {})});
    QVERIFY(tensor_near(out, DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}));
    out = run1("Mean", {{"keep_dims", true}}, {x, I64({0}, {})});
    QVERIFY(tensor_near(out, DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}));
  }
  void mean() {
    QVERIFY(tensor_near(run1("Mean", {}, {m23(), scalar_i(0)}), DType::Float, {3}, {2.5, 3.5, 4.5}));
    QVERIFY(tensor_near(run1("Mean", {}, {m23(), I32({2}, {0, 1})}), DType::Float, {}, {3.5}));
    // Integer mean truncates like TF.
    QVERIFY(tensor_near(run1("Mean", {}, {I32({2, 2}, {1, 2, 3, 4}), scalar_i(1)}), DType::Int32, {2}, {1, 3}));
  }
  void max() {
    QVERIFY(tensor_near(run1("Max", {}, {m23(), scalar_i(1)}), DType::Float, {2}, {3, 6}));
    QVERIFY(tensor_near(run1("Max", {}, {F({2, 2}, {-5, -1, -3, -7}), scalar_i(0)}), DType::Float, {2}, {-3, -1}));
    QVERIFY(tensor_near(run1("Max", {{"keep_dims", true}}, {I64({2, 2}, {-5, -1, -3, -7}), I32({2}, {0, 1})}),
                        DType::Int64, {1, 1}, {-1}));
  }
  void errors() {
    EXPECT_ERROR(run1("Sum", {}, {m23(), scalar_i(2)}), "Invalid reduction dimension (2 for input with 2 dimension(s)");
    EXPECT_ERROR(run1("Sum", {}, {m23(), scalar_i(-3)}), "Invalid reduction dimension");
    EXPECT_ERROR(run1("Sum", {}, {m23(), scalar_f(0)}), "int32 or int64");
    EXPECT_ERROR(run1("Max", {}, {B({2}, {true, false}), scalar_i(0)}), "Max: unsupported dtype bool");
  }
  void shape_fn() {
    Tensor axes = I32({1}, {-1});
    auto out = infer("Sum", {{"T", DType::Float}}, {{DType::Float, Shape{-1, 3}}, {DType::Int32, Shape{1}}},
                     {nullptr, &axes});
    QCOMPARE(out[0].dtype, DType::Float);
    QCOMPARE(qshape(out[0].shape), QString("[?]"));
    out = infer("Mean", {{"keep_dims", true}}, {{DType::Float, Shape{-1, 3}}, {DType::Int32, Shape{1}}},
                {nullptr, &axes});
    QCOMPARE(qshape(out[0].shape), QString("[?,1]"));
    out = infer("Max", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{1}}});
    QVERIFY(!out[0].shape.rank_known());
    out = infer("Max", {{"keep_dims", true}}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{1}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,?]"));
    Tensor bad = I32({1}, {5});
    EXPECT_ERROR(infer("Sum", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{1}}}, {nullptr, &bad}),
                 "Invalid reduction dimension");
  }
};

QTEST_APPLESS_MAIN(TestOpsReduce)
#include "test_ops_reduce.moc"
