// Reductions: Sum, Mean, Prod, Max, Min, All, Any and L2Loss against
// TensorFlow's documented semantics: axes (negative, scalar, int64), keep_dims,
// empty axes, size-0 dimensions (the reducer identities), NaN, integer
// wrap-around and truncating Mean, 16-bit floats accumulated in float, and
// TF's error messages.
#include "test_main.h"
#include <cmath>
#include <limits>

#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {
Tensor m23() { return F({2, 3}, {1, 2, 3, 4, 5, 6}); }
constexpr double kInf = std::numeric_limits<double>::infinity();

// Exact comparison (tensor_near cannot compare infinities: inf - inf is NaN).
bool exactly(const Tensor& t, DType dtype, const Shape& shape, const std::vector<double>& expected) {
  return t.dtype() == dtype && t.shape() == shape && as_doubles(t) == expected;
}
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
    QVERIFY(tensor_near(run1("Sum", {}, {x, I32({0}, {})}), DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(tensor_near(run1("Mean", {{"keep_dims", true}}, {x, I64({0}, {})}), DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(tensor_near(run1("Prod", {}, {F({}, {7}), I32({0}, {})}), DType::Float, {}, {7}));
    QVERIFY(tensor_near(run1("All", {}, {B({2}, {true, false}), I32({0}, {})}), DType::Bool, {2}, {1, 0}));
  }
  void mean() {
    QVERIFY(tensor_near(run1("Mean", {}, {m23(), scalar_i(0)}), DType::Float, {3}, {2.5, 3.5, 4.5}));
    QVERIFY(tensor_near(run1("Mean", {}, {m23(), I32({2}, {0, 1})}), DType::Float, {}, {3.5}));
    // Integer mean: a 64-bit sum divided with truncation (toward zero).
    QVERIFY(tensor_near(run1("Mean", {}, {I32({2, 2}, {1, 2, 3, 4}), scalar_i(1)}), DType::Int32, {2}, {1, 3}));
    QVERIFY(tensor_near(run1("Mean", {}, {I32({2}, {-1, -2}), scalar_i(0)}), DType::Int32, {}, {-1}));
    QVERIFY(tensor_near(run1("Mean", {}, {T(DType::Int8, {3}, {100, 100, 100}), scalar_i(0)}), DType::Int8, {}, {100}));
    QVERIFY(tensor_near(run1("Mean", {}, {T(DType::UInt8, {2}, {200, 250}), scalar_i(0)}), DType::UInt8, {}, {225}));
    QVERIFY(tensor_near(run1("Mean", {}, {T(DType::Half, {4}, {1, 2, 3, 4}), scalar_i(0)}), DType::Half, {}, {2.5}));
  }
  void prod() {
    QVERIFY(tensor_near(run1("Prod", {}, {m23(), scalar_i(0)}), DType::Float, {3}, {4, 10, 18}));
    QVERIFY(tensor_near(run1("Prod", {}, {m23(), I32({1}, {-1})}), DType::Float, {2}, {6, 120}));
    QVERIFY(tensor_near(run1("Prod", {{"keep_dims", true}}, {I64({2, 3}, {1, 2, 3, 4, 5, 6}), I32({2}, {1, 0})}),
                        DType::Int64, {1, 1}, {720}));
    QVERIFY(tensor_near(run1("Prod", {}, {T(DType::BFloat16, {3}, {2, 0.5, -4}), scalar_i(0)}), DType::BFloat16, {},
                        {-4}));
  }
  void max_min() {
    QVERIFY(tensor_near(run1("Max", {}, {m23(), scalar_i(1)}), DType::Float, {2}, {3, 6}));
    QVERIFY(tensor_near(run1("Max", {}, {F({2, 2}, {-5, -1, -3, -7}), scalar_i(0)}), DType::Float, {2}, {-3, -1}));
    QVERIFY(tensor_near(run1("Max", {{"keep_dims", true}}, {I64({2, 2}, {-5, -1, -3, -7}), I32({2}, {0, 1})}),
                        DType::Int64, {1, 1}, {-1}));
    QVERIFY(tensor_near(run1("Min", {}, {m23(), scalar_i(1)}), DType::Float, {2}, {1, 4}));
    QVERIFY(tensor_near(run1("Min", {}, {F({2, 2}, {-5, -1, -3, -7}), I64({}, {-2})}), DType::Float, {2}, {-5, -7}));
    QVERIFY(tensor_near(run1("Max", {}, {T(DType::UInt16, {2}, {5, 65535}), scalar_i(0)}), DType::UInt16, {}, {65535}));
    QVERIFY(tensor_near(run1("Min", {}, {T(DType::Int8, {3}, {-128, 0, 127}), scalar_i(0)}), DType::Int8, {}, {-128}));
    QVERIFY(tensor_near(run1("Max", {}, {T(DType::Half, {3}, {0.5, -2, 1.5}), scalar_i(0)}), DType::Half, {}, {1.5}));
    // -inf is a value like any other (Eigen's bottom value for floats is -inf, not lowest()).
    QVERIFY(exactly(run1("Max", {}, {F({2}, {-INFINITY, -INFINITY}), scalar_i(0)}), DType::Float, {}, {-kInf}));
    // NaN propagates (PropagateNaN reducers).
    for (const char* op : {"Max", "Min"}) {
      Tensor out = run1(op, {}, {F({3}, {1, NAN, 3}), scalar_i(0)});
      QVERIFY2(std::isnan(out.data<float>()[0]), op);
    }
  }
  void all_any() {
    Tensor x = B({2, 3}, {true, false, true, true, true, true});
    QVERIFY(tensor_near(run1("All", {}, {x, scalar_i(1)}), DType::Bool, {2}, {0, 1}));
    QVERIFY(tensor_near(run1("Any", {}, {x, scalar_i(1)}), DType::Bool, {2}, {1, 1}));
    QVERIFY(tensor_near(run1("All", {{"keep_dims", true}}, {x, I64({2}, {0, 1})}), DType::Bool, {1, 1}, {0}));
    QVERIFY(tensor_near(run1("Any", {}, {B({2, 2}, {false, false, false, true}), scalar_i(-2)}), DType::Bool, {2},
                        {0, 1}));
  }
  // Empty reductions fill the output with the reducer's identity.
  void size_zero_dims() {
    Tensor ef = F({0, 3}, {});
    QVERIFY(tensor_near(run1("Sum", {}, {ef, scalar_i(0)}), DType::Float, {3}, {0, 0, 0}));
    QVERIFY(tensor_near(run1("Prod", {}, {ef, scalar_i(0)}), DType::Float, {3}, {1, 1, 1}));
    QVERIFY(exactly(run1("Max", {}, {ef, scalar_i(0)}), DType::Float, {3}, {-kInf, -kInf, -kInf}));
    QVERIFY(exactly(run1("Min", {}, {ef, scalar_i(0)}), DType::Float, {3}, {kInf, kInf, kInf}));
    QVERIFY(exactly(run1("Max", {}, {T(DType::BFloat16, {0}, {}), scalar_i(0)}), DType::BFloat16, {}, {-kInf}));
    Tensor mean = run1("Mean", {}, {ef, scalar_i(0)});
    QCOMPARE(mean.shape(), Shape({3}));
    for (int i = 0; i < 3; ++i) QVERIFY(std::isnan(mean.data<float>()[i]));
    Tensor ei = I32({2, 0}, {});
    QVERIFY(tensor_near(run1("Max", {{"keep_dims", true}}, {ei, scalar_i(1)}), DType::Int32, {2, 1},
                        {std::numeric_limits<int32_t>::lowest(), std::numeric_limits<int32_t>::lowest()}));
    QVERIFY(tensor_near(run1("Min", {}, {ei, scalar_i(1)}), DType::Int32, {2},
                        {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::max()}));
    QVERIFY(tensor_near(run1("Mean", {}, {ei, scalar_i(1)}), DType::Int32, {2}, {0, 0}));
    QVERIFY(tensor_near(run1("All", {}, {B({0}, {}), scalar_i(0)}), DType::Bool, {}, {1}));
    QVERIFY(tensor_near(run1("Any", {}, {B({0}, {}), scalar_i(0)}), DType::Bool, {}, {0}));
    // Reducing a non-empty dim of an empty tensor gives an empty output.
    QVERIFY(tensor_near(run1("Sum", {}, {ef, scalar_i(1)}), DType::Float, {0}, {}));
  }
  // float16/bfloat16 accumulate in float: 4096 half ones sum to 4096 (a half
  // accumulator sticks at 2048, where 2048 + 1 rounds back to 2048).
  void sixteen_bit_floats_accumulate_in_float() {
    QVERIFY(tensor_near(run1("Sum", {}, {T(DType::Half, {4096}, std::vector<double>(4096, 1.0)), scalar_i(0)}),
                        DType::Half, {}, {4096}));
    QVERIFY(tensor_near(run1("Sum", {}, {T(DType::BFloat16, {1024}, std::vector<double>(1024, 1.0)), scalar_i(0)}),
                        DType::BFloat16, {}, {1024}));
    QVERIFY(tensor_near(run1("Mean", {}, {T(DType::Half, {4096}, std::vector<double>(4096, 3.0)), scalar_i(0)}),
                        DType::Half, {}, {3}));
  }
  void integers_wrap() {
    QVERIFY(tensor_near(run1("Sum", {}, {T(DType::Int8, {2}, {100, 100}), scalar_i(0)}), DType::Int8, {}, {-56}));
    QVERIFY(tensor_near(run1("Sum", {}, {T(DType::UInt8, {2}, {200, 100}), scalar_i(0)}), DType::UInt8, {}, {44}));
    QVERIFY(tensor_near(run1("Prod", {}, {I32({2}, {65536, 65536}), scalar_i(0)}), DType::Int32, {}, {0}));
  }
  void l2loss() {
    QVERIFY(tensor_near(run1("L2Loss", {}, {F({3}, {1, 2, 3})}), DType::Float, {}, {7}));
    QVERIFY(tensor_near(run1("L2Loss", {}, {T(DType::Half, {2, 2}, {1, 2, 3, 4})}), DType::Half, {}, {15}));
    QVERIFY(tensor_near(run1("L2Loss", {}, {D({0, 2}, {})}), DType::Double, {}, {0}));
    EXPECT_ERROR(run1("L2Loss", {}, {I32({1}, {1})}), "L2Loss: unsupported dtype int32");
  }
  // Integer FloorDiv / FloorMod, which the gradients' shape arithmetic uses
  // (Python's // and %: round toward -inf, remainder with the divisor's sign).
  void floor_div_and_mod() {
    Tensor x = I32({4}, {-7, 7, -7, 7}), y = I32({4}, {2, 2, -3, -3});
    QVERIFY(tensor_near(run1("FloorDiv", {}, {x, y}), DType::Int32, {4}, {-4, 3, 2, -3}));
    QVERIFY(tensor_near(run1("FloorMod", {}, {x, y}), DType::Int32, {4}, {1, 1, -1, -2}));
    QVERIFY(tensor_near(run1("FloorMod", {}, {I64({2, 2}, {-1, -2, 3, 4}), I64({}, {3})}), DType::Int64, {2, 2},
                        {2, 1, 0, 1}));
    QVERIFY(tensor_near(run1("FloorDiv", {}, {I32({}, {9}), I32({2}, {2, -2})}), DType::Int32, {2}, {4, -5}));
    EXPECT_ERROR(run1("FloorMod", {}, {I32({2}, {1, 2}), I32({2}, {1, 0})}), "Integer division by zero");
    EXPECT_ERROR(run1("FloorDiv", {}, {I32({2}, {1, 2}), I32({3}, {1, 2, 3})}), "Incompatible shapes: [2] vs. [3]");
  }
  void errors() {
    EXPECT_ERROR(run1("Sum", {}, {m23(), scalar_i(2)}), "Invalid reduction dimension (2 for input with 2 dimension(s)");
    EXPECT_ERROR(run1("Sum", {}, {m23(), scalar_i(-3)}), "Invalid reduction dimension (-3 for input with 2 dimension(s)");
    EXPECT_ERROR(run1("Max", {}, {F({}, {1}), I32({1}, {0})}), "Invalid reduction dimension (0 for input with 0 dimension(s)");
    // Duplicates are reported after normalisation.
    EXPECT_ERROR(run1("Sum", {}, {m23(), I32({2}, {1, 1})}),
                 "Invalid reduction arguments: Axes contains duplicate dimension: 1");
    EXPECT_ERROR(run1("Mean", {}, {m23(), I64({2}, {-1, 1})}),
                 "Invalid reduction arguments: Axes contains duplicate dimension: 1");
    EXPECT_ERROR(run1("All", {}, {B({2, 2}, {true, true, true, true}), I32({2}, {0, -2})}),
                 "Invalid reduction arguments: Axes contains duplicate dimension: 0");
    EXPECT_ERROR(run1("Sum", {}, {m23(), scalar_f(0)}), "int32 or int64");
    EXPECT_ERROR(run1("Sum", {}, {B({2}, {true, false}), scalar_i(0)}), "Sum: unsupported dtype bool");
    EXPECT_ERROR(run1("All", {}, {m23(), scalar_i(0)}), "All: unsupported dtype float");
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
    out = infer("Min", {{"keep_dims", true}}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{1}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,?]"));
    out = infer("Any", {}, {{DType::Bool, Shape{2, 3}}, {DType::Int32, Shape{1}}}, {nullptr, &axes});
    QCOMPARE(out[0].dtype, DType::Bool);
    QCOMPARE(qshape(out[0].shape), QString("[2]"));
    // TF's shape function lets duplicates through (the kernel refuses them) ...
    Tensor dup = I32({2}, {1, -1});
    out = infer("Prod", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{2}}}, {nullptr, &dup});
    QCOMPARE(qshape(out[0].shape), QString("[2]"));
    // ... and words the range error its own way.
    Tensor bad = I32({1}, {5});
    EXPECT_ERROR(infer("Sum", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{1}}}, {nullptr, &bad}),
                 "Invalid reduction dimension 5 for input with 2 dimensions.");
    EXPECT_ERROR(infer("Sum", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{1, 1}}}),
                 "Shape must be at most rank 1 but is rank 2");
    out = infer("L2Loss", {}, {{DType::Half, Shape{-1, 4}}});
    QCOMPARE(out[0].dtype, DType::Half);
    QCOMPARE(qshape(out[0].shape), QString("[]"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsReduce)
#include "test_ops_reduce.moc"
