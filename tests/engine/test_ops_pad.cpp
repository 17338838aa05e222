// Padding (Pad, PadV2, MirrorPad, MirrorPadGrad) and the set ops (Unique,
// ListDiff), with TensorFlow's documented examples on several dtypes.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

// t = [[1, 2, 3], [4, 5, 6]], paddings = [[1, 1], [2, 2]]
Tensor t23(DType t) { return T(t, {2, 3}, {1, 2, 3, 4, 5, 6}); }
const Tensor kPaddings = I32({2, 2}, {1, 1, 2, 2});

}  // namespace

class TestOpsPad : public QObject {
  Q_OBJECT
 private slots:
  void pad() {
    const std::vector<double> zero_padded = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0,
                                             0, 0, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int8, DType::UInt16, DType::Int64}) {
      QVERIFY(tensor_near(run1("Pad", {}, {t23(t), kPaddings}), t, {4, 7}, zero_padded));
      std::vector<double> with_nine = zero_padded;
      for (double& v : with_nine) v = v == 0 ? 9 : v;
      QVERIFY(tensor_near(run1("PadV2", {}, {t23(t), I64({2, 2}, {1, 1, 2, 2}), T(t, {}, {9})}), t, {4, 7}, with_nine));
    }
    QVERIFY(tensor_near(run1("Pad", {}, {B({2}, {true, true}), I32({1, 2}, {1, 0})}), DType::Bool, {3}, {0, 1, 1}));
    QCOMPARE(run1("Pad", {}, {S({1}, {"x"}), I32({1, 2}, {0, 2})}).strings(), (std::vector<std::string>{"x", "", ""}));
    QCOMPARE(run1("PadV2", {}, {S({1}, {"x"}), I32({1, 2}, {1, 0}), S({}, {"-"})}).strings(),
             (std::vector<std::string>{"-", "x"}));
    // Rank 3 and size-0 dims.
    QVERIFY(tensor_near(run1("Pad", {}, {F({1, 1, 2}, {1, 2}), I32({3, 2}, {0, 0, 1, 0, 0, 1})}), DType::Float, {1, 2, 3},
                        {0, 0, 0, 1, 2, 0}));
    QVERIFY(tensor_near(run1("Pad", {}, {F({0, 2}, {}), I32({2, 2}, {1, 0, 0, 1})}), DType::Float, {1, 3}, {0, 0, 0}));
    const Tensor x = t23(DType::Float);
    QVERIFY(run1("Pad", {}, {x, I32({2, 2}, {0, 0, 0, 0})}).shares_buffer_with(x));
    EXPECT_ERROR(run1("Pad", {}, {x, I32({2, 2}, {0, -1, 0, 0})}), "Paddings must be non-negative: 0 -1");
    EXPECT_ERROR(run1("Pad", {}, {x, I32({1, 2}, {0, 1})}), "The first dimension of paddings must be the rank of inputs[1,2], [2,3]");
    EXPECT_ERROR(run1("Pad", {}, {x, I32({2, 3}, {0, 0, 0, 0, 0, 0})}), "paddings must be a matrix with 2 columns: [2,3]");
    EXPECT_ERROR(run1("PadV2", {}, {x, kPaddings, F({1}, {0})}), "constant_values must be a scalar. Found: [1]");
    EXPECT_ERROR(run1("Pad", {}, {x, I64({2, 2}, {1LL << 40, 0, 1LL << 40, 0})}), "int64");
    auto info = infer("Pad", {}, {{DType::Float, Shape{2, -1}}, {DType::Int32, Shape{2, 2}}}, {nullptr, &kPaddings});
    QCOMPARE(qshape(info[0].shape), QString("[4,?]"));
    info = infer("PadV2", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{2, 2}}, {DType::Float, Shape{}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,?]"));
    Tensor neg = I32({1, 2}, {-1, 0});
    EXPECT_ERROR(infer("Pad", {}, {{DType::Float, Shape{2}}, {DType::Int32, Shape{1, 2}}}, {nullptr, &neg}),
                 "Paddings must be non-negative");
  }

  void mirror_pad() {
    const std::vector<double> reflect = {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1};
    const std::vector<double> symmetric = {2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5};
    for (DType t : {DType::Float, DType::Half, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int64}) {
      QVERIFY(tensor_near(run1("MirrorPad", {{"mode", "REFLECT"}}, {t23(t), kPaddings}), t, {4, 7}, reflect));
      QVERIFY(tensor_near(run1("MirrorPad", {{"mode", "SYMMETRIC"}}, {t23(t), kPaddings}), t, {4, 7}, symmetric));
    }
    // [1, 2, 3] padded by 2 each side.
    QVERIFY(tensor_near(run1("MirrorPad", {{"mode", "REFLECT"}}, {F({3}, {1, 2, 3}), I32({1, 2}, {2, 2})}), DType::Float, {7},
                        {3, 2, 1, 2, 3, 2, 1}));
    QVERIFY(tensor_near(run1("MirrorPad", {{"mode", "SYMMETRIC"}}, {F({3}, {1, 2, 3}), I32({1, 2}, {2, 2})}), DType::Float, {7},
                        {2, 1, 1, 2, 3, 3, 2}));
    QVERIFY(tensor_near(run1("MirrorPad", {{"mode", "SYMMETRIC"}}, {B({2}, {true, false}), I64({1, 2}, {0, 2})}), DType::Bool,
                        {4}, {1, 0, 0, 1}));
    const Tensor x = t23(DType::Float);
    EXPECT_ERROR(run1("MirrorPad", {{"mode", "REFLECT"}}, {x, I32({2, 2}, {2, 0, 0, 0})}),
                 "paddings must be less thanthan the dimension size: 2, 0 not less than 2");
    EXPECT_ERROR(run1("MirrorPad", {{"mode", "SYMMETRIC"}}, {x, I32({2, 2}, {0, 0, 0, 4})}),
                 "paddings must be no greater than the dimension size: 0, 4 greater than 3");
    EXPECT_ERROR(run1("MirrorPad", {{"mode", "SYMMETRIC"}}, {x, I32({2, 2}, {0, -1, 0, 0})}), "paddings must be non-negative: 0 -1");
    EXPECT_ERROR(run1("MirrorPad", {{"mode", "REFLECT"}}, {F({1, 1, 1, 1, 1, 1}, {1}), I32({6, 2}, std::vector<int32_t>(12, 0))}),
                 "inputs rank not in [0,5]: 6");
  }

  void mirror_pad_grad() {
    // TensorFlow's example: [[1, 2, 3], [4, 5, 6], [7, 8, 9]], paddings [[0, 1], [0, 1]], SYMMETRIC -> [[1, 5], [11, 28]].
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int32, DType::UInt8}) {
      QVERIFY(tensor_near(run1("MirrorPadGrad", {{"mode", "SYMMETRIC"}},
                               {T(t, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), I32({2, 2}, {0, 1, 0, 1})}),
                          t, {2, 2}, {1, 5, 11, 28}));
    }
    // REFLECT [3,2,1,2,3,2,1] back onto [1,2,3]: each padded position adds to the one it mirrors.
    QVERIFY(tensor_near(run1("MirrorPadGrad", {{"mode", "REFLECT"}}, {F({7}, {1, 10, 100, 1000, 10000, 100000, 1000000}),
                                                                      I32({1, 2}, {2, 2})}),
                        DType::Float, {3}, {100 + 1000000, 1000 + 10 + 100000, 10000 + 1}));
    EXPECT_ERROR(run1("MirrorPadGrad", {{"mode", "REFLECT"}}, {F({3}, {1, 2, 3}), I32({1, 2}, {1, 1})}),
                 "paddings must be less thanthan the output dimension size: 1, 1 not less than 1");
    EXPECT_ERROR(run1("MirrorPadGrad", {{"mode", "SYMMETRIC"}}, {F({3}, {1, 2, 3}), I32({1, 2}, {2, 1})}),
                 "paddings must be no greater than the output dimension size: 2, 1 greater than 0");
    EXPECT_ERROR(run1("MirrorPadGrad", {{"mode", "SYMMETRIC"}}, {F({3}, {1, 2, 3}), I32({1, 2}, {-1, 1})}),
                 "Paddings must be non-negative: -1, 1");
    Tensor p = I32({2, 2}, {0, 1, 2, 0});
    auto info = infer("MirrorPadGrad", {{"mode", "REFLECT"}}, {{DType::Float, Shape{5, -1}}, {DType::Int32, Shape{2, 2}}}, {nullptr, &p});
    QCOMPARE(qshape(info[0].shape), QString("[4,?]"));
  }

  void unique() {
    // tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8]) = [1, 2, 4, 7, 8], idx [0, 0, 1, 2, 2, 2, 3, 4, 4]
    for (DType t : {DType::Float, DType::Half, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int32, DType::Int64}) {
      for (DType idx_type : {DType::Int32, DType::Int64}) {
        auto out = run_op("Unique", {{"out_idx", idx_type}}, {T(t, {9}, {1, 1, 2, 4, 4, 4, 7, 8, 8})});
        QVERIFY(tensor_near(out[0], t, {5}, {1, 2, 4, 7, 8}));
        QVERIFY(tensor_near(out[1], idx_type, {9}, {0, 0, 1, 2, 2, 2, 3, 4, 4}));
      }
    }
    // First-occurrence order, not sorted.
    auto out = run_op("Unique", {}, {I32({6}, {4, 1, 4, 2, 1, 7})});
    QVERIFY(tensor_near(out[0], DType::Int32, {4}, {4, 1, 2, 7}));
    QVERIFY(tensor_near(out[1], DType::Int32, {6}, {0, 1, 0, 2, 1, 3}));
    out = run_op("Unique", {}, {Tensor::from_strings({4}, {"b", "a", "b", ""})});
    QCOMPARE(out[0].strings(), (std::vector<std::string>{"b", "a", ""}));
    out = run_op("Unique", {}, {B({3}, {false, false, true})});
    QVERIFY(tensor_near(out[0], DType::Bool, {2}, {0, 1}));
    // -0.0 equals 0.0; NaN never equals itself.
    out = run_op("Unique", {}, {F({4}, {0.0f, -0.0f, NAN, NAN})});
    QCOMPARE(out[0].shape().dim(0), int64_t{3});
    QVERIFY(tensor_near(out[1], DType::Int32, {4}, {0, 0, 1, 2}));
    out = run_op("Unique", {}, {F({0}, {})});
    QVERIFY(tensor_near(out[0], DType::Float, {0}, {}));
    EXPECT_ERROR(run_op("Unique", {}, {F({2, 2}, {1, 2, 3, 4})}), "unique expects a 1D vector.");
    auto info = infer("Unique", {}, {{DType::Float, Shape{-1}}});
    QCOMPARE(qshape(info[0].shape), QString("[?]"));
    QCOMPARE(qshape(info[1].shape), QString("[?]"));
  }

  void list_diff() {
    // tf.compat.v1.setdiff1d([1, 2, 3, 4, 5, 6], [1, 3, 5]) = [2, 4, 6], idx [1, 3, 5]
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::Int16, DType::Int64, DType::UInt32}) {
      auto out = run_op("ListDiff", {}, {T(t, {6}, {1, 2, 3, 4, 5, 6}), T(t, {3}, {1, 3, 5})});
      QVERIFY(tensor_near(out[0], t, {3}, {2, 4, 6}));
      QVERIFY(tensor_near(out[1], DType::Int32, {3}, {1, 3, 5}));
    }
    // x's order and duplicates are kept.
    auto out = run_op("ListDiff", {{"out_idx", DType::Int64}}, {I32({6}, {5, 1, 5, 2, 9, 1}), I32({2}, {1, 7})});
    QVERIFY(tensor_near(out[0], DType::Int32, {4}, {5, 5, 2, 9}));
    QVERIFY(tensor_near(out[1], DType::Int64, {4}, {0, 2, 3, 4}));
    out = run_op("ListDiff", {}, {Tensor::from_strings({3}, {"a", "b", "c"}), Tensor::from_strings({1}, {"b"})});
    QCOMPARE(out[0].strings(), (std::vector<std::string>{"a", "c"}));
    out = run_op("ListDiff", {}, {I32({2}, {1, 2}), I32({2}, {2, 1})});
    QVERIFY(tensor_near(out[0], DType::Int32, {0}, {}));
    EXPECT_ERROR(run_op("ListDiff", {}, {I32({1, 1}, {1}), I32({1}, {1})}), "x should be a 1D vector.");
    EXPECT_ERROR(run_op("ListDiff", {}, {I32({1}, {1}), I32({}, {1})}), "y should be a 1D vector.");
    QVERIFY(!OpRegistry::global().find("SetDiff1D"));  // tf.setdiff1d emits ListDiff; TensorFlow has no SetDiff1D op
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsPad)
#include "test_ops_pad.moc"
