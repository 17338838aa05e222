// Comparisons and logic (-> bool, broadcasting), Select, SelectV2,
// ClipByValue and BroadcastGradientArgs (TensorFlow's BCast reduction axes).
#include "test_main.h"
#include "elementwise_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor bin(const char* op, const Tensor& x, const Tensor& y, AttrMap attrs = {}) {
  return run1(op, std::move(attrs), {x, y});
}

// BroadcastGradientArgs(s0, s1) as two int32 lists.
std::pair<std::vector<double>, std::vector<double>> bcast(const std::vector<int32_t>& s0,
                                                          const std::vector<int32_t>& s1) {
  auto out = run_op("BroadcastGradientArgs", {},
                    {I32({static_cast<int64_t>(s0.size())}, s0), I32({static_cast<int64_t>(s1.size())}, s1)});
  return {as_doubles(out[0]), as_doubles(out[1])};
}

}  // namespace

class TestOpsCompare : public QObject {
  Q_OBJECT
 private slots:
  void ordering_comparisons() {
    const Tensor x = F({2, 1}, {1, 3}), y = F({3}, {1, 2, 3});
    QVERIFY(values_are(bin("Less", x, y), DType::Bool, {2, 3}, {0, 1, 1, 0, 0, 0}));
    QVERIFY(values_are(bin("LessEqual", x, y), DType::Bool, {2, 3}, {1, 1, 1, 0, 0, 1}));
    QVERIFY(values_are(bin("Greater", y, x), DType::Bool, {2, 3}, {0, 1, 1, 0, 0, 0}));
    QVERIFY(values_are(bin("GreaterEqual", y, x), DType::Bool, {2, 3}, {1, 1, 1, 0, 0, 1}));
    QVERIFY(values_are(bin("Greater", T(DType::UInt8, {2}, {0, 255}), T(DType::UInt8, {}, {7})), DType::Bool, {2},
                       {0, 1}));
    QVERIFY(values_are(bin("Less", T(DType::Half, {2}, {0.1, -1}), T(DType::Half, {2}, {0.1, 0})), DType::Bool, {2},
                       {0, 1}));
    // Every comparison with NaN is false.
    for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"})
      QVERIFY(values_are(bin(op, F({2}, {NAN, 1}), F({2}, {1, NAN})), DType::Bool, {2}, {0, 0}));
    EXPECT_ERROR(bin("Less", B({1}, {true}), B({1}, {false})), "Less: unsupported dtype bool");
    EXPECT_ERROR(bin("Greater", F({2}, {1, 2}), F({3}, {1, 2, 3})), "Incompatible shapes: [2] vs. [3]");
    auto info = infer("LessEqual", {}, {{DType::Int64, Shape{-1, 1}}, {DType::Int64, Shape{4}}});
    QCOMPARE(info[0].dtype, DType::Bool);
    QCOMPARE(qshape(info[0].shape), QString("[?,4]"));
  }

  void equality() {
    QVERIFY(values_are(bin("Equal", I64({2, 1}, {1, 2}), I64({2}, {1, 2})), DType::Bool, {2, 2}, {1, 0, 0, 1}));
    QVERIFY(values_are(bin("NotEqual", B({3}, {true, false, true}), B({}, {true})), DType::Bool, {3}, {0, 1, 0}));
    QVERIFY(values_are(bin("Equal", F({2}, {NAN, 0.0f}), F({2}, {NAN, -0.0f})), DType::Bool, {2}, {0, 1}));
    QVERIFY(values_are(bin("NotEqual", F({1}, {NAN}), F({1}, {NAN})), DType::Bool, {1}, {1}));
    QVERIFY(values_are(bin("Equal", T(DType::BFloat16, {1}, {0.1}), T(DType::BFloat16, {1}, {0.1})), DType::Bool, {1},
                       {1}));
    EXPECT_ERROR(bin("Equal", F({2}, {1, 2}), F({3}, {1, 2, 3})), "Incompatible shapes: [2] vs. [3]");
  }

  void equality_without_incompatible_shape_error() {
    const AttrMap lenient = {{"incompatible_shape_error", AttrValue(false)}};
    // Shapes that do not broadcast: a scalar, false for Equal and true for NotEqual.
    QVERIFY(values_are(bin("Equal", F({2, 3}, {1, 2, 3, 4, 5, 6}), F({4}, {1, 2, 3, 4}), lenient), DType::Bool, {},
                       {0}));
    QVERIFY(values_are(bin("NotEqual", F({2}, {1, 2}), F({3}, {1, 2, 3}), lenient), DType::Bool, {}, {1}));
    QVERIFY(values_are(bin("Equal", I32({2}, {1, 2}), I32({}, {2}), lenient), DType::Bool, {2}, {0, 1}));
    auto info = infer("Equal", lenient, {{DType::Float, Shape{2}}, {DType::Float, Shape{3}}});
    QCOMPARE(qshape(info[0].shape), QString("[]"));
    info = infer("NotEqual", lenient, {{DType::Float, Shape{-1}}, {DType::Float, Shape{3}}});
    QVERIFY(!info[0].shape.rank_known());
    EXPECT_ERROR(infer("Equal", {}, {{DType::Float, Shape{2}}, {DType::Float, Shape{3}}}),
                 "Incompatible shapes: [2] vs. [3]");
  }

  void logic() {
    const Tensor x = B({2, 1}, {true, false}), y = B({2}, {true, false});
    QVERIFY(values_are(bin("LogicalAnd", x, y), DType::Bool, {2, 2}, {1, 0, 0, 0}));
    QVERIFY(values_are(bin("LogicalOr", x, y), DType::Bool, {2, 2}, {1, 1, 1, 0}));
    QVERIFY(values_are(run1("LogicalNot", {}, {y}), DType::Bool, {2}, {0, 1}));
    QVERIFY(values_are(bin("LogicalOr", B({0}, {}), B({}, {true})), DType::Bool, {0}, {}));
    EXPECT_ERROR(bin("LogicalAnd", F({1}, {1}), F({1}, {1})), "LogicalAnd: unsupported dtype float32");
  }

  void select_scalar_condition_picks_a_whole_tensor() {
    const Tensor t = F({2}, {1, 2}), e = F({2}, {3, 4});
    const Tensor out = run1("Select", {}, {B({}, {false}), t, e});
    QVERIFY(values_are(out, DType::Float, {2}, {3, 4}));
    QVERIFY(out.shares_buffer_with(e));
    EXPECT_ERROR(run1("Select", {}, {B({}, {true}), F({2}, {1, 2}), F({3}, {1, 2, 3})}),
                 "'then' and 'else' must have the same size.  but received: [2] vs. [3]");
  }

  void select_vector_condition_picks_rows() {
    const Tensor t = I32({2, 3}, {1, 2, 3, 4, 5, 6}), e = I32({2, 3}, {-1, -2, -3, -4, -5, -6});
    QVERIFY(values_are(run1("Select", {}, {B({2}, {false, true}), t, e}), DType::Int32, {2, 3},
                       {-1, -2, -3, 4, 5, 6}));
    EXPECT_ERROR(run1("Select", {}, {B({3}, {true, true, false}), t, e}),
                 "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3");
    EXPECT_ERROR(run1("Select", {}, {B({1}, {true}), F({}, {1}), F({}, {2})}),
                 "'then' must be at least a vector, but saw shape: []");
    EXPECT_ERROR(run1("Select", {}, {B({2}, {true, false}), t, I32({2, 2}, {1, 2, 3, 4})}),
                 "'then' and 'else' must have the same size.  but received: [2,3] vs. [2,2]");
    // A vector condition with vector branches is element-wise.
    QVERIFY(values_are(run1("Select", {}, {B({3}, {true, false, true}), T(DType::Half, {3}, {1, 2, 3}),
                                            T(DType::Half, {3}, {-1, -2, -3})}),
                       DType::Half, {3}, {1, -2, 3}));
  }

  void select_elementwise() {
    QVERIFY(values_are(run1("Select", {}, {B({2, 2}, {true, false, false, true}), B({2, 2}, {true, true, true, true}),
                                            B({2, 2}, {false, false, false, false})}),
                       DType::Bool, {2, 2}, {1, 0, 0, 1}));
    EXPECT_ERROR(run1("Select", {}, {B({2, 2}, {true, false, false, true}), F({2, 3}, {1, 2, 3, 4, 5, 6}),
                                     F({2, 3}, {1, 2, 3, 4, 5, 6})}),
                 "Inputs to operation test_node of type Select must have the same size and shape.  "
                 "Input 0: [2,2] != input 1: [2,3]");
    EXPECT_ERROR(run1("Select", {}, {F({}, {1}), F({1}, {1}), F({1}, {2})}), "condition must be bool");
    auto info = infer("Select", {}, {{DType::Bool, Shape{-1}}, {DType::Float, Shape{2, 3}}, {DType::Float, Shape{-1, 3}}});
    QCOMPARE(qshape(info[0].shape), QString("[2,3]"));
    EXPECT_ERROR(infer("Select", {}, {{DType::Bool, Shape{3}}, {DType::Float, Shape{2, 3}}, {DType::Float, Shape{2, 3}}}),
                 "Select");
  }

  void select_v2_broadcasts_all_three() {
    const Tensor out = run1("SelectV2", {}, {B({2, 1}, {true, false}), F({3}, {1, 2, 3}), F({}, {9})});
    QVERIFY(values_are(out, DType::Float, {2, 3}, {1, 2, 3, 9, 9, 9}));
    QVERIFY(values_are(run1("SelectV2", {}, {B({3}, {true, false, true}), I64({2, 1}, {1, 2}), I64({1, 3}, {7, 8, 9})}),
                       DType::Int64, {2, 3}, {1, 8, 1, 2, 8, 2}));
    QVERIFY(values_are(run1("SelectV2", {}, {B({}, {false}), T(DType::UInt8, {}, {1}), T(DType::UInt8, {}, {2})}),
                       DType::UInt8, {}, {2}));
    QVERIFY(values_are(run1("SelectV2", {}, {B({0, 1}, {}), F({1, 3}, {1, 2, 3}), F({}, {0})}), DType::Float, {0, 3},
                       {}));
    EXPECT_ERROR(run1("SelectV2", {}, {B({2}, {true, false}), F({3}, {1, 2, 3}), F({}, {0})}),
                 "condition [2], then [3], and else [] must be broadcastable");
    auto info = infer("SelectV2", {}, {{DType::Bool, Shape{-1, 1}}, {DType::Float, Shape{3}}, {DType::Float, Shape{}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,3]"));
  }

  void clip_by_value() {
    const Tensor x = F({2, 3}, {-2, -0.5f, 0, 0.25f, 1, NAN});
    QVERIFY(values_are(run1("ClipByValue", {}, {x, F({}, {-0.5f}), F({}, {0.5f})}), DType::Float, {2, 3},
                       {-0.5, -0.5, 0, 0.25, 0.5, kNaN}));
    QVERIFY(values_are(run1("ClipByValue", {}, {I32({3}, {-5, 0, 5}), I32({3}, {-1, 1, 6}), I32({}, {3})}),
                       DType::Int32, {3}, {-1, 1, 6}));  // max(min(5, 3), 6)
    // min > max gives min everywhere.
    QVERIFY(values_are(run1("ClipByValue", {}, {T(DType::Int16, {2}, {-9, 9}), T(DType::Int16, {}, {4}),
                                                T(DType::Int16, {}, {2})}),
                       DType::Int16, {2}, {4, 4}));
    QVERIFY(values_are(run1("ClipByValue", {}, {T(DType::BFloat16, {2}, {-3, 3}), T(DType::BFloat16, {2}, {-1, -1}),
                                                T(DType::BFloat16, {2}, {1, 2})}),
                       DType::BFloat16, {2}, {-1, 2}));
    EXPECT_ERROR(run1("ClipByValue", {}, {F({2, 3}, {1, 2, 3, 4, 5, 6}), F({3}, {0, 0, 0}), F({}, {1})}),
                 "clip_value_min and clip_value_max must be either of the same shape as input, or a scalar. "
                 "input shape: [2,3]clip_value_min shape: [3]clip_value_max shape: []");
    EXPECT_ERROR(run1("ClipByValue", {}, {T(DType::UInt32, {1}, {1}), T(DType::UInt32, {}, {0}), T(DType::UInt32, {}, {2})}),
                 "ClipByValue: unsupported dtype uint32");
    auto info = infer("ClipByValue", {}, {{DType::Float, Shape{-1, 2}}, {DType::Float, Shape{}}, {DType::Float, Shape{}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,2]"));
  }

  // TensorFlow's BCast: identical shapes give empty lists; an axis where both
  // padded dims are 1 is listed for both inputs (the old FlowLens kernel
  // listed it for neither).
  void broadcast_gradient_args_matches_bcast() {
    using V = std::vector<double>;
    auto check = [](const std::vector<int32_t>& s0, const std::vector<int32_t>& s1, const V& r0, const V& r1) {
      const auto got = bcast(s0, s1);
      return got.first == r0 && got.second == r1;
    };
    QVERIFY(check({2, 1, 3}, {1}, {1}, {0, 1, 2}));
    QVERIFY(check({1}, {2, 1, 3}, {0, 1, 2}, {1}));
    QVERIFY(check({2, 3}, {3}, {}, {0}));
    QVERIFY(check({2, 3}, {2, 1}, {}, {1}));
    QVERIFY(check({1, 3}, {2, 1}, {0}, {1}));
    QVERIFY(check({2, 1, 3}, {1, 1, 3}, {1}, {0, 1}));
    QVERIFY(check({1, 1}, {1}, {0, 1}, {0, 1}));
    QVERIFY(check({1}, {1, 1, 1}, {0, 1, 2}, {0, 1, 2}));
    QVERIFY(check({1}, {1}, {}, {}));
    QVERIFY(check({1, 1}, {1, 1}, {}, {}));
    QVERIFY(check({}, {2, 3}, {0, 1}, {}));
    QVERIFY(check({5}, {}, {}, {0}));
    QVERIFY(check({4, 1}, {1}, {1}, {0, 1}));
    QVERIFY(check({3, 1, 1}, {1, 1}, {1, 2}, {0, 1, 2}));
    QVERIFY(check({0, 3}, {1, 3}, {}, {0}));
    QVERIFY(check({2, 3}, {2, 3}, {}, {}));
    EXPECT_ERROR(bcast({2, 3}, {4}), "Incompatible shapes: [2,3] vs. [4]");
    EXPECT_ERROR(bcast({0, 3}, {3, 3}), "Incompatible shapes: [0,3] vs. [3,3]");
    EXPECT_ERROR(run_op("BroadcastGradientArgs", {}, {I32({2, 1}, {1, 2}), I32({1}, {1})}), "In[0] must be a vector.[2,1]");
    auto out = run_op("BroadcastGradientArgs", {{"T", AttrValue(DType::Int64)}}, {I64({3}, {2, 1, 3}), I64({1}, {1})});
    QVERIFY(values_are(out[0], DType::Int64, {1}, {1}));
    QVERIFY(values_are(out[1], DType::Int64, {3}, {0, 1, 2}));
    auto info = infer("BroadcastGradientArgs", {}, {{DType::Int32, Shape{3}}, {DType::Int32, Shape{1}}});
    QCOMPARE(qshape(info[0].shape), QString("[?]"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsCompare)
#include "test_ops_compare.moc"
