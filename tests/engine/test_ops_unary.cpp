// Unary element-wise ops and the *Grad ops built from their outputs:
// TensorFlow's documented values per dtype, the 16-bit floats rounded as
// TensorFlow's CPU kernels round them, integer wrap-around, errors.
#include "test_main.h"
#include "elementwise_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

const DType kF = DType::Float, kD = DType::Double, kH = DType::Half, kBF = DType::BFloat16;

Tensor un(const char* op, const Tensor& x) { return run1(op, {}, {x}); }

}  // namespace

class TestOpsUnary : public QObject {
  Q_OBJECT
 private slots:
  void abs_neg_sign() {
    QVERIFY(values_are(un("Abs", F({3}, {-1.5f, 0, 2})), kF, {3}, {1.5, 0, 2}));
    QVERIFY(!std::signbit(un("Abs", F({1}, {-0.0f})).data<float>()[0]));
    QVERIFY(values_are(un("Abs", T(kH, {2}, {-2.5, 3})), kH, {2}, {2.5, 3}));
    // std::abs of the most negative int8 wraps back to itself.
    QVERIFY(values_are(un("Abs", T(DType::Int8, {3}, {-128, -5, 7})), DType::Int8, {3}, {-128, 5, 7}));
    QVERIFY(values_are(un("Abs", I64({1}, {-4000000000})), DType::Int64, {1}, {4000000000}));
    QVERIFY(values_are(un("Neg", T(DType::Int8, {2}, {-128, 5})), DType::Int8, {2}, {-128, -5}));
    QVERIFY(values_are(un("Neg", T(kBF, {2}, {1.5, -0.25})), kBF, {2}, {-1.5, 0.25}));
    QVERIFY(values_are(un("Sign", F({4}, {-3, 0, 2.5f, NAN})), kF, {4}, {-1, 0, 1, kNaN}));
    QVERIFY(values_are(un("Sign", I32({3}, {-7, 0, 9})), DType::Int32, {3}, {-1, 0, 1}));
    QVERIFY(values_are(un("Sign", T(kBF, {2}, {-0.001, 100})), kBF, {2}, {-1, 1}));
    EXPECT_ERROR(un("Abs", T(DType::UInt8, {1}, {1})), "Abs: unsupported dtype uint8");
    EXPECT_ERROR(un("Sign", T(DType::Int8, {1}, {1})), "Sign: unsupported dtype int8");
  }

  void square_and_reciprocal() {
    QVERIFY(values_are(un("Square", T(DType::UInt8, {2}, {16, 15})), DType::UInt8, {2}, {0, 225}));
    // 46341^2 = 2147488281 wraps in int32.
    QVERIFY(values_are(un("Square", I32({1}, {46341})), DType::Int32, {1}, {-2147479015.0}));
    QVERIFY(values_are(un("Square", T(kBF, {1}, {3})), kBF, {1}, {9}));
    for (const char* op : {"Reciprocal", "Inv"}) {
      QVERIFY(values_are(un(op, F({3}, {2, -4, 0})), kF, {3}, {0.5, -0.25, kInf}));
      // 1/3 rounded to half: 1365/4096.
      QVERIFY(values_are(un(op, T(kH, {1}, {3})), kH, {1}, {0.333251953125}));
      EXPECT_ERROR(un(op, I32({1}, {2})), std::string(op) + ": unsupported dtype int32");
    }
  }

  void floor_ceil_round_rint() {
    const Tensor x = F({6}, {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.6f});
    QVERIFY(values_are(un("Floor", x), kF, {6}, {-2, -1, 0, 1, 2, 2}));
    QVERIFY(values_are(un("Ceil", x), kF, {6}, {-1, 0, 1, 2, 3, 3}));
    // Half to even.
    QVERIFY(values_are(un("Round", x), kF, {6}, {-2, 0, 0, 2, 2, 3}));
    QVERIFY(values_are(un("Rint", x), kF, {6}, {-2, 0, 0, 2, 2, 3}));
    QVERIFY(values_are(un("Round", D({3}, {-2.5, 3.5, 8388609})), kD, {3}, {-2, 4, 8388609}));
    QVERIFY(values_are(un("Round", T(kH, {3}, {2.5, 0.5, -3.5})), kH, {3}, {2, 0, -4}));
    QVERIFY(values_are(un("Floor", T(kBF, {2}, {-0.75, 7.5})), kBF, {2}, {-1, 7}));
    QVERIFY(values_are(un("Round", I64({2}, {-7, 9})), DType::Int64, {2}, {-7, 9}));  // integers unchanged
    QVERIFY(values_are(un("Floor", F({2}, {NAN, -INFINITY})), kF, {2}, {kNaN, -kInf}));
    EXPECT_ERROR(un("Floor", I32({1}, {1})), "Floor: unsupported dtype int32");
    EXPECT_ERROR(un("Rint", I32({1}, {1})), "Rint: unsupported dtype int32");
  }

  void exp_log_family() {
    QVERIFY(values_are(un("Exp", F({2}, {0, 1})), kF, {2}, {1, 2.718281828}, 1e-7));
    QVERIFY(values_are(un("Log", D({4}, {1, std::exp(2.0), 0, -1})), kD, {4}, {0, 2, -kInf, kNaN}, 1e-15));
    // e and log(10) rounded to the 16-bit floats.
    QVERIFY(values_are(un("Exp", T(kH, {1}, {1})), kH, {1}, {2.71875}));
    QVERIFY(values_are(un("Exp", T(kBF, {1}, {1})), kBF, {1}, {2.71875}));
    QVERIFY(values_are(un("Log", T(kH, {1}, {10})), kH, {1}, {2.302734375}));
    // expm1 and log1p keep precision near 0.
    const Tensor tiny = D({1}, {1e-10});
    QVERIFY(std::fabs(un("Expm1", tiny).data<double>()[0] - 1.00000000005e-10) < 1e-24);
    QVERIFY(std::fabs(un("Log1p", tiny).data<double>()[0] - 9.9999999995e-11) < 1e-24);
    QVERIFY(values_are(un("Expm1", F({2}, {0, 1})), kF, {2}, {0, 1.718281828}, 1e-7));
    QVERIFY(values_are(un("Log1p", F({3}, {0, 1.718281828f, -1})), kF, {3}, {0, 1, -kInf}, 1e-7));
    EXPECT_ERROR(un("Exp", I32({1}, {1})), "Exp: unsupported dtype int32");
  }

  void sqrt_rsqrt() {
    QVERIFY(values_are(un("Sqrt", F({3}, {4, 2, -1})), kF, {3}, {2, 1.414213562, kNaN}, 1e-7));
    QVERIFY(values_are(un("Sqrt", T(kH, {1}, {2})), kH, {1}, {1.4140625}));
    QVERIFY(values_are(un("Rsqrt", F({3}, {4, 0.25f, 0})), kF, {3}, {0.5, 2, kInf}));
    QVERIFY(values_are(un("Rsqrt", T(kBF, {1}, {16})), kBF, {1}, {0.25}));
  }

  void trigonometric_and_erf() {
    const double pi = 3.14159265358979323846;
    QVERIFY(values_are(un("Sin", D({3}, {0, pi / 6, -pi / 2})), kD, {3}, {0, 0.5, -1}, 1e-15));
    QVERIFY(values_are(un("Cos", D({3}, {0, pi / 3, pi})), kD, {3}, {1, 0.5, -1}, 1e-15));
    QVERIFY(values_are(un("Erf", D({4}, {0, 1, -0.5, 6})), kD, {4}, {0, 0.8427007929497149, -0.5204998778130465, 1},
                       1e-15));
    QVERIFY(values_are(un("Erf", T(kH, {1}, {1})), kH, {1}, {0.8427734375}));
    QVERIFY(values_are(un("Sin", T(kBF, {1}, {0})), kBF, {1}, {0}));
    EXPECT_ERROR(un("Erf", I64({1}, {1})), "Erf: unsupported dtype int64");
  }

  void activations() {
    QVERIFY(values_are(un("Tanh", T(kH, {1}, {0.5})), kH, {1}, {0.462158203125}));
    QVERIFY(values_are(un("Sigmoid", T(kBF, {2}, {0, 1})), kBF, {2}, {0.5, 0.73046875}));
    QVERIFY(values_are(un("Sigmoid", F({2}, {-200, 200})), kF, {2}, {0, 1}));
    QVERIFY(values_are(un("Relu", F({4}, {-1, 0, 2, NAN})), kF, {4}, {0, 0, 2, kNaN}));
    QVERIFY(values_are(un("Relu", T(kH, {2}, {-0.5, 0.5})), kH, {2}, {0, 0.5}));
    QVERIFY(values_are(un("Relu", T(DType::Int8, {3}, {-3, 0, 4})), DType::Int8, {3}, {0, 0, 4}));
    QVERIFY(values_are(un("Relu", T(DType::UInt16, {1}, {7})), DType::UInt16, {1}, {7}));
  }

  void empty_and_scalar_inputs() {
    QVERIFY(values_are(un("Abs", F({0, 3}, {})), kF, {0, 3}, {}));
    QVERIFY(values_are(un("Round", T(kH, {}, {-1.5})), kH, {}, {-2}));
    auto info = infer("Rsqrt", {{"T", AttrValue(kH)}}, {{kH, Shape{-1, 4}}});
    QCOMPARE(info[0].dtype, kH);
    QCOMPARE(qshape(info[0].shape), QString("[?,4]"));
  }

  // ---- y/dy gradient ops (y is the forward output) ----
  void gradient_ops() {
    QVERIFY(values_are(run1("SigmoidGrad", {}, {F({2}, {0.5f, 0.25f}), F({2}, {2, 4})}), kF, {2}, {0.5, 0.75}));
    QVERIFY(values_are(run1("TanhGrad", {}, {F({1}, {0.5f}), F({1}, {2})}), kF, {1}, {1.5}));
    QVERIFY(values_are(run1("SqrtGrad", {}, {D({1}, {2}), D({1}, {3})}), kD, {1}, {0.75}));
    QVERIFY(values_are(run1("RsqrtGrad", {}, {D({1}, {0.5}), D({1}, {2})}), kD, {1}, {-0.125}));
    for (const char* op : {"ReciprocalGrad", "InvGrad"})
      QVERIFY(values_are(run1(op, {}, {F({2}, {0.5f, -2}), F({2}, {2, 1})}), kF, {2}, {-0.5, -4}));
    // Half rounds after each step: 1 - 0.300048828125 is a tie that goes to
    // 0.7001953125, and the product rounds to 1721/8192.
    QVERIFY(values_are(run1("SigmoidGrad", {}, {T(kH, {1}, {0.3}), T(kH, {1}, {1})}), kH, {1}, {0.2100830078125}));
    QVERIFY(values_are(run1("TanhGrad", {}, {T(kBF, {1}, {0.5}), T(kBF, {1}, {4})}), kBF, {1}, {3}));
    // Equal element counts suffice; the output takes input 0's shape.
    QVERIFY(values_are(run1("SqrtGrad", {}, {F({2, 1}, {1, 2}), F({2}, {2, 2})}), kF, {2, 1}, {1, 0.5}));
    EXPECT_ERROR(run1("SqrtGrad", {}, {F({2}, {1, 2}), F({3}, {1, 2, 3})}),
                 "The two arguments to a cwise op must have same number of elements, got 2 and 3");
    EXPECT_ERROR(run1("TanhGrad", {}, {I32({1}, {1}), I32({1}, {1})}), "TanhGrad: unsupported dtype int32");
    auto info = infer("SqrtGrad", {}, {{kF, Shape{2, -1}}, {kF, Shape{-1, 3}}});
    QCOMPARE(qshape(info[0].shape), QString("[2,?]"));
  }

  void relu_grad() {
    // gradients * (features > 0): a NaN gradient stays NaN even where features <= 0.
    QVERIFY(values_are(run1("ReluGrad", {}, {F({4}, {1, 2, 3, NAN}), F({4}, {-1, 0, 2, -1})}), kF, {4},
                       {0, 0, 3, kNaN}));
    QVERIFY(values_are(run1("ReluGrad", {}, {I64({2}, {5, 6}), I64({2}, {1, -1})}), DType::Int64, {2}, {5, 0}));
    EXPECT_ERROR(run1("ReluGrad", {}, {F({2}, {1, 2}), F({2, 1}, {1, 2})}),
                 "Inputs to operation test_node of type ReluGrad must have the same size and shape.  "
                 "Input 0: [2] != input 1: [2,1]");
    auto info = infer("ReluGrad", {}, {{kF, Shape{2, -1}}, {kF, Shape{-1, 3}}});
    QCOMPARE(qshape(info[0].shape), QString("[2,3]"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsUnary)
#include "test_ops_unary.moc"
