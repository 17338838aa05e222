// BiasAdd / BiasAddV1 / BiasAddGrad (both layouts, every number type),
// Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits (broadcast labels) and
// SparseSoftmaxCrossEntropyWithLogits, with their gradients. Expected values
// follow TensorFlow's definitions, worked out by hand.
#include "test_main.h"
#include <cmath>
#include <map>

#include "engine/gradient_ops_gate.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// softmax([1,2,3]) = e^{x-3} / (e^-2 + e^-1 + 1); log of the denominator + 3:
const std::vector<double> kSm123 = {0.0900305732, 0.2447284711, 0.6652409558};
constexpr double kLogSumExp123 = 3.4076059644;  // log(e + e^2 + e^3)

std::vector<double> iota(int n, double from = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(from + i);
  return v;
}

AttrMap nchw() { return {{"data_format", "NCHW"}}; }

// Tolerance for one rounding to the dtype.
double tol(DType t) { return t == DType::Half ? 2e-3 : t == DType::BFloat16 ? 1e-2 : 1e-6; }

}  // namespace

class TestOpsNn : public QObject {
  Q_OBJECT
 private slots:
  // ---- BiasAdd --------------------------------------------------------------------------
  void bias_add_every_number_type() {
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int16,
                    DType::UInt16, DType::Int32, DType::Int64, DType::UInt32, DType::UInt64})
      for (const char* op : {"BiasAdd", "BiasAddV1"}) {
        Tensor out = run1(op, {}, {T(t, {2, 3}, {1, 2, 3, 4, 5, 6}), T(t, {3}, {10, 20, 30})});
        QVERIFY2(tensor_near(out, t, {2, 3}, {11, 22, 33, 14, 25, 36}), dtype_name(t).c_str());
      }
    // Integers wrap around as TensorFlow's int8 addition does.
    QVERIFY(tensor_near(run1("BiasAdd", {}, {T(DType::Int8, {1, 1}, {100}), T(DType::Int8, {1}, {100})}), DType::Int8,
                        {1, 1}, {-56}));
    Tensor out = run1("BiasAdd", {{"data_format", "NHWC"}}, {D({1, 2, 1, 2}, {1, 2, 3, 4}), D({2}, {1, -1})});
    QVERIFY(tensor_near(out, DType::Double, {1, 2, 1, 2}, {2, 1, 4, 3}));
    QVERIFY(tensor_near(run1("BiasAdd", {}, {F({0, 3}, {}), F({3}, {1, 2, 3})}), DType::Float, {0, 3}, {}));
  }
  void bias_add_nchw_ranks_3_to_5() {
    // Channels are dimension 1: out[n, c, ...] = x[n, c, ...] + bias[c].
    QVERIFY(tensor_near(run1("BiasAdd", nchw(), {F({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), F({3}, {10, 20, 30})}),
                        DType::Float, {2, 3, 2}, {10, 11, 22, 23, 34, 35, 16, 17, 28, 29, 40, 41}));
    QVERIFY(tensor_near(run1("BiasAdd", nchw(), {D({1, 2, 2, 2}, iota(8)), D({2}, {1, -1})}), DType::Double,
                        {1, 2, 2, 2}, {1, 2, 3, 4, 3, 4, 5, 6}));
    QVERIFY(tensor_near(run1("BiasAdd", nchw(), {I32({1, 2, 1, 1, 2}, {0, 1, 2, 3}), I32({2}, {100, 200})}),
                        DType::Int32, {1, 2, 1, 1, 2}, {100, 101, 202, 203}));
    QVERIFY(tensor_near(run1("BiasAdd", nchw(), {T(DType::Half, {1, 2, 2}, {1, 2, 3, 4}), T(DType::Half, {2}, {0.5, 1})}),
                        DType::Half, {1, 2, 2}, {1.5, 2.5, 4, 5}));
    QVERIFY(tensor_near(run1("BiasAdd", nchw(), {F({0, 2, 3}, {}), F({2}, {1, 2})}), DType::Float, {0, 2, 3}, {}));
  }
  void bias_add_errors() {
    EXPECT_ERROR(run1("BiasAdd", nchw(), {F({1, 2}, {1, 2}), F({2}, {1, 2})}), "Shape must be at least rank 3 but is rank 2");
    EXPECT_ERROR(run1("BiasAdd", nchw(), {F({1, 2, 1, 1, 1, 1}, {1, 2}), F({2}, {1, 2})}),
                 "Only ranks up to 5 supported: [1,2,1,1,1,1]");
    EXPECT_ERROR(run1("BiasAdd", nchw(), {T(DType::Float, {1, 3, 2}, iota(6)), F({2}, {1, 2})}),
                 "Must provide as many biases as the last dimension of the input tensor: [2] vs. [1,3,2]");
    EXPECT_ERROR(run1("BiasAdd", {}, {F({2, 4}, std::vector<float>(8, 0)), F({3}, {1, 2, 3})}),
                 "Must provide as many biases as the last dimension of the input tensor: [3] vs. [2,4]");
    EXPECT_ERROR(run1("BiasAdd", {}, {F({3}, {1, 2, 3}), F({3}, {1, 2, 3})}), "Input tensor must be at least 2D: [3]");
    EXPECT_ERROR(run1("BiasAdd", {}, {F({1, 3}, {1, 2, 3}), F({1, 3}, {1, 2, 3})}), "Biases must be 1D: [1,3]");
    EXPECT_ERROR(run1("BiasAdd", {{"data_format", "NDHWC"}}, {F({1, 3}, {1, 2, 3}), F({3}, {1, 2, 3})}),
                 "Invalid data format");
    EXPECT_ERROR(run1("BiasAdd", {}, {B({1, 1}, {true}), B({1}, {true})}), "BiasAdd: unsupported dtype bool");
  }
  void bias_add_shape_function() {
    auto info = infer("BiasAdd", {}, {{DType::Float, Shape{-1, -1}}, {DType::Float, Shape{5}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,5]"));
    info = infer("BiasAdd", nchw(), {{DType::Float, Shape{-1, -1, 4, 4}}, {DType::Float, Shape{3}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,3,4,4]"));
    QCOMPARE(qshape(infer("BiasAdd", {}, {{DType::Float, Shape::unknown_rank()}, {DType::Float, Shape{3}}})[0].shape),
             QString("<unknown>"));
    EXPECT_ERROR(infer("BiasAdd", {}, {{DType::Float, Shape{-1, 4}}, {DType::Float, Shape{5}}}),
                 "Dimensions must be equal, but are 4 and 5");
    EXPECT_ERROR(infer("BiasAdd", nchw(), {{DType::Float, Shape{2, 3}}, {DType::Float, Shape{3}}}),
                 "Shape must be at least rank 3 but is rank 2");
    EXPECT_ERROR(infer("BiasAddV1", {}, {{DType::Float, Shape{2, 3}}, {DType::Float, Shape{1, 3}}}),
                 "Shape must be rank 1 but is rank 2");
  }

  // ---- BiasAddGrad ------------------------------------------------------------------------
  void bias_add_grad_layouts() {
    // NHWC: sum over all but the last dimension.
    QVERIFY(tensor_near(run1("BiasAddGrad", {}, {D({2, 2, 3}, iota(12, 1))}), DType::Double, {3}, {22, 26, 30}));
    // NCHW: sum over all but dimension 1, ranks 3 to 5.
    QVERIFY(tensor_near(run1("BiasAddGrad", nchw(), {T(DType::Float, {2, 3, 2}, iota(12))}), DType::Float, {3}, {14, 22, 30}));
    QVERIFY(tensor_near(run1("BiasAddGrad", nchw(), {T(DType::Float, {2, 2, 1, 2}, iota(8))}), DType::Float, {2}, {10, 18}));
    QVERIFY(tensor_near(run1("BiasAddGrad", nchw(), {I64({1, 2, 2, 1, 1}, {1, 2, 3, 4})}), DType::Int64, {2}, {3, 7}));
    // Size-0: zeros for the channels, or no channels.
    QVERIFY(tensor_near(run1("BiasAddGrad", {}, {F({0, 3}, {})}), DType::Float, {3}, {0, 0, 0}));
    QVERIFY(tensor_near(run1("BiasAddGrad", nchw(), {F({2, 0, 3}, {})}), DType::Float, {0}, {}));
  }
  void bias_add_grad_every_number_type() {
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int16,
                    DType::UInt16, DType::Int32, DType::Int64})
      QVERIFY2(tensor_near(run1("BiasAddGrad", {}, {T(t, {2, 3}, {1, 2, 3, 4, 5, 6})}), t, {3}, {5, 7, 9}),
               dtype_name(t).c_str());
    // half accumulates in float: 2048 + 1 + 1 is 2050, where half steps would stay at 2048.
    QVERIFY(tensor_near(run1("BiasAddGrad", {}, {T(DType::Half, {3, 1}, {2048, 1, 1})}), DType::Half, {1}, {2050}, 0));
  }
  void bias_add_grad_errors_and_shapes() {
    EXPECT_ERROR(run1("BiasAddGrad", {}, {F({3}, {1, 2, 3})}), "Input tensor must be at least 2D: [3]");
    EXPECT_ERROR(run1("BiasAddGrad", nchw(), {T(DType::Float, {2, 3}, iota(6))}), "Shape must be at least rank 3 but is rank 2");
    EXPECT_ERROR(run1("BiasAddGrad", {{"data_format", "HWCN"}}, {T(DType::Float, {2, 3}, iota(6))}), "Invalid data format");
    QCOMPARE(qshape(infer("BiasAddGrad", nchw(), {{DType::Float, Shape{-1, 5, 7, 7}}})[0].shape), QString("[5]"));
    QCOMPARE(qshape(infer("BiasAddGrad", {}, {{DType::Float, Shape{-1, -1, 4}}})[0].shape), QString("[4]"));
    QCOMPARE(qshape(infer("BiasAddGrad", {}, {{DType::Float, Shape::unknown_rank()}})[0].shape), QString("[?]"));
  }

  // ---- Softmax / LogSoftmax ---------------------------------------------------------------
  void softmax() {
    QVERIFY(tensor_near(run1("Softmax", {}, {F({3}, {1, 2, 3})}), DType::Float, {3}, kSm123));
    QVERIFY(tensor_near(run1("Softmax", {}, {F({3}, {1000, 1001, 1002})}), DType::Float, {3}, kSm123));  // stable
    QVERIFY(tensor_near(run1("Softmax", {}, {D({2, 2}, {0, 0, 0, std::log(3.0)})}), DType::Double, {2, 2},
                        {0.5, 0.5, 0.25, 0.75}));
    QVERIFY(tensor_near(run1("Softmax", {}, {D({2, 1, 2}, {0, 0, 1, 1})}), DType::Double, {2, 1, 2}, {0.5, 0.5, 0.5, 0.5}));
    for (DType t : {DType::Half, DType::BFloat16})
      QVERIFY2(tensor_near(run1("Softmax", {}, {T(t, {3}, {1, 2, 3})}), t, {3}, kSm123, tol(t)), dtype_name(t).c_str());
    QVERIFY(tensor_near(run1("Softmax", {}, {F({0, 3}, {})}), DType::Float, {0, 3}, {}));
    QVERIFY(tensor_near(run1("Softmax", {}, {F({2, 0}, {})}), DType::Float, {2, 0}, {}));
    EXPECT_ERROR(run1("Softmax", {}, {scalar_f(1)}), "logits must have >= 1 dimension, got []");
    EXPECT_ERROR(run1("Softmax", {}, {I32({2}, {1, 2})}), "Softmax: unsupported dtype int32");
    EXPECT_ERROR(infer("Softmax", {}, {{DType::Float, Shape{}}}), "Shape must be at least rank 1 but is rank 0");
  }
  void log_softmax() {
    const std::vector<double> expected = {1 - kLogSumExp123, 2 - kLogSumExp123, 3 - kLogSumExp123};
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16})
      QVERIFY2(tensor_near(run1("LogSoftmax", {}, {T(t, {3}, {1, 2, 3})}), t, {3}, expected, tol(t)), dtype_name(t).c_str());
    QVERIFY(tensor_near(run1("LogSoftmax", {}, {D({2, 2}, {0, 0, 5, 5})}), DType::Double, {2, 2},
                        {-std::log(2.0), -std::log(2.0), -std::log(2.0), -std::log(2.0)}));
    EXPECT_ERROR(run1("LogSoftmax", {}, {scalar_f(1)}), "logits must have >= 1 dimension");
  }

  // ---- SoftmaxCrossEntropyWithLogits ------------------------------------------------------
  void softmax_cross_entropy() {
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16}) {
      auto out = run_op("SoftmaxCrossEntropyWithLogits", {},
                        {T(t, {2, 3}, {1, 2, 3, 0, 0, 0}), T(t, {2, 3}, {0, 0, 1, 0.5, 0.5, 0})});
      QCOMPARE(out.size(), size_t(2));
      // -log(softmax_3) and log(3) (uniform softmax, labels summing to 1).
      QVERIFY2(tensor_near(out[0], t, {2}, {0.4076059644, 1.0986122887}, tol(t)), dtype_name(t).c_str());
      QVERIFY2(tensor_near(out[1], t, {2, 3},
                           {kSm123[0], kSm123[1], kSm123[2] - 1, 1.0 / 3 - 0.5, 1.0 / 3 - 0.5, 1.0 / 3}, tol(t)),
               dtype_name(t).c_str());
    }
  }
  void softmax_cross_entropy_broadcasts_labels() {
    // Labels [1,3] against logits [2,3]: each row scored against the same distribution.
    Tensor logits = F({2, 3}, {1, 2, 3, 0, 0, 0});
    auto out = run_op("SoftmaxCrossEntropyWithLogits", {}, {logits, F({1, 3}, {0, 0, 1})});
    QVERIFY(tensor_near(out[0], DType::Float, {2}, {0.4076059644, 1.0986122887}));
    QVERIFY(tensor_near(out[1], DType::Float, {2, 3},
                        {kSm123[0], kSm123[1], kSm123[2] - 1, 1.0 / 3, 1.0 / 3, 1.0 / 3 - 1}));
    // Labels [2,1]: one weight per row, broadcast over the classes.
    out = run_op("SoftmaxCrossEntropyWithLogits", {}, {logits, F({2, 1}, {1, 0.5})});
    QVERIFY(tensor_near(out[0], DType::Float, {2}, {3 * 0.4076059644 + 3, 1.5 * 1.0986122887}));
    QVERIFY(tensor_near(out[1], DType::Float, {2, 3},
                        {kSm123[0] - 1, kSm123[1] - 1, kSm123[2] - 1, 1.0 / 3 - 0.5, 1.0 / 3 - 0.5, 1.0 / 3 - 0.5}));
    // Logits [3] broadcast against labels [2,3]: the result is [2,3].
    out = run_op("SoftmaxCrossEntropyWithLogits", {}, {D({3}, {1, 2, 3}), D({2, 3}, {0, 0, 1, 1, 0, 0})});
    QVERIFY(tensor_near(out[0], DType::Double, {2}, {0.4076059644, 2.4076059644}));
    QVERIFY(tensor_near(out[1], DType::Double, {2, 3}, {kSm123[0], kSm123[1], kSm123[2] - 1, kSm123[0] - 1, kSm123[1], kSm123[2]}));
    out = run_op("SoftmaxCrossEntropyWithLogits", {}, {F({0, 3}, {}), F({1, 3}, {0, 0, 1})});
    QVERIFY(tensor_near(out[0], DType::Float, {0}, {}));
    QVERIFY(tensor_near(out[1], DType::Float, {0, 3}, {}));
  }
  void softmax_cross_entropy_errors_and_shapes() {
    Tensor logits = F({2, 3}, {1, 2, 3, 0, 0, 0});
    EXPECT_ERROR(run_op("SoftmaxCrossEntropyWithLogits", {}, {logits, F({2, 2}, {1, 0, 0, 1})}),
                 "logits and labels must be broadcastable: logits_size=[2,3] labels_size=[2,2]");
    EXPECT_ERROR(run_op("SoftmaxCrossEntropyWithLogits", {}, {F({3}, {1, 2, 3}), F({3}, {0, 0, 1})}),
                 "logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional");
    EXPECT_ERROR(run_op("SoftmaxCrossEntropyWithLogits", {}, {logits, F({2, 1, 3}, {0, 0, 1, 0, 0, 1})}),
                 "logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional");
    auto info = infer("SoftmaxCrossEntropyWithLogits", {}, {{DType::Float, Shape{-1, 10}}, {DType::Float, Shape{8, -1}}});
    QCOMPARE(qshape(info[0].shape), QString("[8]"));
    QCOMPARE(qshape(info[1].shape), QString("[8,10]"));
    info = infer("SoftmaxCrossEntropyWithLogits", {}, {{DType::Float, Shape{8, 10}}, {DType::Float, Shape{1, 10}}});
    QCOMPARE(qshape(info[0].shape), QString("[8]"));
    QCOMPARE(qshape(info[1].shape), QString("[8,10]"));
    info = infer("SoftmaxCrossEntropyWithLogits", {}, {{DType::Float, Shape{10}}, {DType::Float, Shape{4, 1}}});
    QCOMPARE(qshape(info[1].shape), QString("[4,10]"));
    EXPECT_ERROR(infer("SoftmaxCrossEntropyWithLogits", {}, {{DType::Float, Shape{2, 3}}, {DType::Float, Shape{4, 2, 3}}}),
                 "Shape must be broadcasted with rank 2, but is rank 3");
  }
  void sparse_softmax_cross_entropy() {
    for (DType t : {DType::Double, DType::Half, DType::BFloat16}) {
      Tensor logits = T(t, {2, 3}, {1, 2, 3, 0, 0, 0});
      auto out = run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I32({2}, {2, 0})});
      QVERIFY2(tensor_near(out[0], t, {2}, {0.4076059644, 1.0986122887}, tol(t)), dtype_name(t).c_str());
      QVERIFY2(tensor_near(out[1], t, {2, 3}, {kSm123[0], kSm123[1], kSm123[2] - 1, 1.0 / 3 - 1, 1.0 / 3, 1.0 / 3}, tol(t)),
               dtype_name(t).c_str());
      out = run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I64({2}, {0, 1})});
      QVERIFY2(tensor_near(out[0], t, {2}, {2.4076059644, 1.0986122887}, tol(t)), dtype_name(t).c_str());
    }
    Tensor logits = D({2, 3}, {1, 2, 3, 0, 0, 0});
    EXPECT_ERROR(run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I32({2}, {3, 0})}),
                 "Received a label value of 3 which is outside the valid range of [0, 3)");
    EXPECT_ERROR(run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I32({2}, {-1, 0})}), "outside the valid range");
    EXPECT_ERROR(run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, I32({3}, {0, 0, 0})}), "same first dimension");
    EXPECT_ERROR(run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {logits, F({2}, {0, 0})}), "int32 or int64");
    auto out = run_op("SparseSoftmaxCrossEntropyWithLogits", {}, {F({0, 5}, {}), I32({0}, {})});
    QVERIFY(tensor_near(out[1], DType::Float, {0, 5}, {}));
    auto info = infer("SparseSoftmaxCrossEntropyWithLogits", {}, {{DType::Float, Shape{-1, 10}}, {DType::Int32, Shape{4}}});
    QCOMPARE(qshape(info[0].shape), QString("[4]"));
    QCOMPARE(qshape(info[1].shape), QString("[4,10]"));
    QCOMPARE(info[1].dtype, DType::Float);
  }

  // ---- gradients ------------------------------------------------------------------------------
  void bias_add_nchw_gradient_data() {
    QTest::addColumn<int>("rank");
    for (int r : {3, 4, 5}) QTest::newRow(qPrintable(QString("rank%1").arg(r))) << r;
  }
  void bias_add_nchw_gradient() {
    QFETCH(int, rank);
    std::vector<int64_t> dims(static_cast<size_t>(rank), 2);
    dims[1] = 3;
    const Shape s(dims);
    std::vector<double> v;
    for (int64_t i = 0; i < s.num_elements(); ++i) v.push_back(0.1 * static_cast<double>(i) - 0.7);
    Model m;
    check_gradients(m, m.op("BiasAdd", {m.x("x", D(s, v)), m.x("b", D({3}, {0.1, -0.2, 0.3}))}, nchw()));
  }
  void log_softmax_gradient() {
    Model m;
    check_gradients(m, m.op("LogSoftmax", {m.x("x", D({2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9}))}));
  }
  void softmax_cross_entropy_gradient_for_logits_and_labels() {
    Model m;
    const std::string logits = m.x("logits", D({2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9}));
    const std::string labels = m.x("labels", D({2, 3}, {0.2, 0.5, 0.3, 0, 1, 0}));
    check_gradients(m, m.op("SoftmaxCrossEntropyWithLogits", {logits, labels}));
  }
  void softmax_cross_entropy_gradient_with_broadcast_labels() {
    Model m;
    const std::string logits = m.x("logits", D({2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9}));
    check_gradients(m, m.op("SoftmaxCrossEntropyWithLogits", {logits, m.c("labels", D({1, 3}, {0.2, 0.5, 0.3}))}));
  }
  void gradients_built_from_other_families_data() {
    QTest::addColumn<QString>("which");
    for (const char* w : {"BiasAddV1", "BiasAddGrad/NHWC", "BiasAddGrad/NCHW", "xent second order"})
      QTest::newRow(w) << QString(w);
  }
  // _BiasAddGradV1 needs Range, _BiasAddGradGrad StridedSlice and Tile, the
  // cross entropy's second order ExpandDims, BatchMatMulV2 and Squeeze.
  void gradients_built_from_other_families() {
    QFETCH(QString, which);
    Model m;
    std::string y;
    const Tensor x223 = D({2, 2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9, 0.1, 0.2, -0.3, 0.6, -0.8, 1.1});
    if (which == "BiasAddV1") {
      y = m.op("BiasAddV1", {m.x("x", x223), m.x("b", D({3}, {0.1, -0.2, 0.3}))});
    } else if (which == "BiasAddGrad/NHWC") {
      y = m.op("BiasAddGrad", {m.x("g", x223)});
    } else if (which == "BiasAddGrad/NCHW") {
      y = m.op("BiasAddGrad", {m.x("g", x223)}, nchw());
    } else {
      const std::string xent = m.op("SoftmaxCrossEntropyWithLogits",
                                    {m.x("logits", D({2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9})),
                                     m.c("labels", D({2, 3}, {0.2, 0.5, 0.3, 0, 1, 0}))});
      y = tensor_name(xent, 1);  // the backprop output: d backprop / d logits is the softmax Jacobian
    }
    CHECK_GRADIENTS_OF(m, y);
  }
  void xent_gradient_is_tensorflows_graph() {
    Model m;
    const std::string logits = m.x("logits", D({2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9}));
    const std::string xent = m.op("SoftmaxCrossEntropyWithLogits", {logits, m.x("labels", D({2, 3}, {0, 0, 1, 1, 0, 0}))});
    add_gradients(m.g, {xent, tensor_name(xent, 1)}, {logits}, OpRegistry::global());
    std::map<std::string, int> ops;
    for (const Node& n : m.g.nodes())
      if (n.name.rfind("gradients/SoftmaxCrossEntropyWithLogits_grad/", 0) == 0) ++ops[n.op];
    for (const char* op : {"LogSoftmax", "Neg", "Softmax", "ExpandDims", "BatchMatMulV2", "Squeeze", "AddV2"})
      QVERIFY2(ops.count(op), op);
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsNn)
#include "test_ops_nn.moc"
