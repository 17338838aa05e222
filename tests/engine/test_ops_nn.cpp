// BiasAdd, Softmax, SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits.
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

// softmax([1,2,3]) = e^{x-3} / (e^-2 + e^-1 + 1)
static const std::vector<double> kSm123 = {0.0900305732, 0.2447284711, 0.6652409558};

class TestOpsNn : public QObject {
  Q_OBJECT
 private slots:
  void bias_add() {
    Tensor out = run1("BiasAdd", {}, {F({2, 3}, {1, 2, 3, 4, 5, 6}), F({3}, {10, 20, 30})});
    QVERIFY(tensor_near(out, DType::Float, {2, 3}, {11, 22, 33, 14, 25, 36}));
    out = run1("BiasAdd", {{"data_format", "NHWC"}}, {D({1, 2, 1, 2}, {1, 2, 3, 4}), D({2}, {1, -1})});
    QVERIFY(tensor_near(out, DType::Double, {1, 2, 1, 2}, {2, 1, 4, 3}));
    EXPECT_ERROR(run1("BiasAdd", {{"data_format", "NCHW"}}, {F({1, 2}, {1, 2}), F({2}, {1, 2})}), "NCHW");
    EXPECT_ERROR(run1("BiasAdd", {}, {F({2, 4}, std::vector<float>(8, 0)), F({3}, {1, 2, 3})}),
                 "Must provide as many biases as the last dimension of the input tensor: [3] vs. [2,4]");
    EXPECT_ERROR(run1("BiasAdd", {}, {F({3}, {1, 2, 3}), F({3}, {1, 2, 3})}), "at least 2D");
    auto info = infer("BiasAdd", {}, {{DType::Float, Shape{-1, -1}}, {DType::Float, Shape{5}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,5]"));
    EXPECT_ERROR(infer("BiasAdd", {}, {{DType::Float, Shape{-1, 4}}, {DType::Float, Shape{5}}}), "biases");
  }
  void softmax() {
    QVERIFY(tensor_near(run1("Softmax", {}, {F({3}, {1, 2, 3})}), DType::Float, {3}, kSm123));
    // Large logits: numerically stable.
    QVERIFY(tensor_near(run1("Softmax", {}, {F({3}, {1000, 1001, 1002})}), DType::Float, {3}, kSm123));
    Tensor out = run1("Softmax", {}, {D({2, 2}, {0, 0, 0, std::log(3.0)})});
    QVERIFY(tensor_near(out, DType::Double, {2, 2}, {0.5, 0.5, 0.25, 0.75}));
    EXPECT_ERROR(run1("Softmax", {}, {scalar_f(1)}), ">= 1 dimension");
    EXPECT_ERROR(run1("Softmax", {}, {I32({2}, {1, 2})}), "Softmax: unsupported dtype int32");
  }
  void softmax_cross_entropy() {
    Tensor logits = F({2, 3}, {1, 2, 3, 0, 0, 0});
    Tensor labels = F({2, 3}, {0, 0, 1, 0.5, 0.5, 0});
    auto out = run_op("SoftmaxCrossEntropyWithLogits", {}, {logits, labels});
    QCOMPARE(out.size(), size_t(2));
    // -log(softmax_3) and log(3) (uniform softmax, labels sum to 1).
    QVERIFY(tensor_near(out[0], DType::Float, {2}, {0.4076059644, 1.0986122887}));
    QVERIFY(tensor_near(out[1], DType::Float, {2, 3},
                        {kSm123[0], kSm123[1], kSm123[2] - 1, 1.0 / 3 - 0.5, 1.0 / 3 - 0.5, 1.0 / 3}));
    EXPECT_ERROR(run_op("SoftmaxCrossEntropyWithLogits", {}, {logits, F({2, 2}, {1, 0, 0, 1})}),
                 "logits and labels must be same size");
    auto info = infer("SoftmaxCrossEntropyWithLogits", {}, {{DType::Float, Shape{-1, 10}}, {DType::Float, Shape{8, -1}}});
    QCOMPARE(qshape(info[0].shape), QString("[8]"));
    QCOMPARE(qshape(info[1].shape), QString("[8,10]"));
  }
  void sparse_softmax_cross_entropy() {
    Tensor logits = D({2, 3}, {1, 2, 3, 0, 0, 0});
    auto out = run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I32({2}, {2, 0})});
    QVERIFY(tensor_near(out[0], DType::Double, {2}, {0.4076059644, 1.0986122887}));
    QVERIFY(tensor_near(out[1], DType::Double, {2, 3},
                        {kSm123[0], kSm123[1], kSm123[2] - 1, 1.0 / 3 - 1, 1.0 / 3, 1.0 / 3}));
    out = run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I64({2}, {0, 1})});
    QVERIFY(tensor_near(out[0], DType::Double, {2}, {2.4076059644, 1.0986122887}));
    EXPECT_ERROR(run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I32({2}, {3, 0})}),
                 "Received a label value of 3 which is outside the valid range of [0, 3)");
    EXPECT_ERROR(run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I32({2}, {-1, 0})}),
                 "outside the valid range");
    EXPECT_ERROR(run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I32({3}, {0, 0, 0})}),
                 "same first dimension");
    EXPECT_ERROR(run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, F({2}, {0, 0})}), "int32 or int64");
    auto info = infer("SparseSoftmaxCrossEntropyWithLogits", {}, {{DType::Float, Shape{-1, 10}}, {DType::Int32, Shape{4}}});
    QCOMPARE(qshape(info[0].shape), QString("[4]"));
    QCOMPARE(qshape(info[1].shape), QString("[4,10]"));
    QCOMPARE(info[1].dtype, DType::Float);
  }
};

QTEST_APPLESS_MAIN(TestOpsNn)
#include "test_ops_nn.moc"
