// Tile, BroadcastTo, DynamicStitch and MatMul's 16-bit and integer kernels
// against TensorFlow's documented semantics and error texts.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {
Tensor m22() { return F({2, 2}, {1, 2, 3, 4}); }
std::vector<std::string> strings_of(const Tensor& t) { return t.strings(); }
}  // namespace

class TestOpsTile : public QObject {
  Q_OBJECT
 private slots:
  void tile() {
    QVERIFY(tensor_near(run1("Tile", {}, {m22(), I32({2}, {1, 2})}), DType::Float, {2, 4}, {1, 2, 1, 2, 3, 4, 3, 4}));
    QVERIFY(tensor_near(run1("Tile", {}, {m22(), I64({2}, {2, 1})}), DType::Float, {4, 2}, {1, 2, 3, 4, 1, 2, 3, 4}));
    QVERIFY(tensor_near(run1("Tile", {}, {I32({1, 2}, {5, 6}), I32({2}, {2, 2})}), DType::Int32, {2, 4},
                        {5, 6, 5, 6, 5, 6, 5, 6}));
    QVERIFY(tensor_near(run1("Tile", {}, {T(DType::Half, {2, 1, 1}, {1, 2}), I32({3}, {1, 2, 3})}), DType::Half,
                        {2, 2, 3}, {1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}));
    QVERIFY(tensor_near(run1("Tile", {}, {m22(), I32({2}, {0, 3})}), DType::Float, {0, 6}, {}));
    QVERIFY(tensor_near(run1("Tile", {}, {F({}, {7}), I32({0}, {})}), DType::Float, {}, {7}));
    Tensor s = run1("Tile", {}, {Tensor::from_strings(Shape{2}, {"a", "b"}), I32({1}, {2})});
    QCOMPARE(strings_of(s), (std::vector<std::string>{"a", "b", "a", "b"}));
  }
  void tile_errors() {
    EXPECT_ERROR(run1("Tile", {}, {m22(), I32({1, 2}, {1, 1})}), "Expected multiples to be 1-D, but got shape [1,2]");
    EXPECT_ERROR(run1("Tile", {}, {m22(), I32({1}, {2})}),
                 "Expected multiples argument to be a vector of length 2 but got length 1");
    EXPECT_ERROR(run1("Tile", {}, {m22(), I32({2}, {1, -1})}), "Expected multiples[1] >= 0, but got -1");
    EXPECT_ERROR(run1("Tile", {}, {m22(), I64({2}, {int64_t{1} << 62, int64_t{1} << 62})}), "Tile:");
    Tensor mult = I32({2}, {3, 2});
    auto out = infer("Tile", {}, {{DType::Float, Shape{2, -1}}, {DType::Int32, Shape{2}}}, {nullptr, &mult});
    QCOMPARE(qshape(out[0].shape), QString("[6,?]"));
    out = infer("Tile", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{2}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,?]"));
    EXPECT_ERROR(infer("Tile", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{3}}}),
                 "Shape must be rank 2 but is rank 3");
  }

  void broadcast_to() {
    QVERIFY(tensor_near(run1("BroadcastTo", {}, {F({3}, {1, 2, 3}), I32({2}, {2, 3})}), DType::Float, {2, 3},
                        {1, 2, 3, 1, 2, 3}));
    QVERIFY(tensor_near(run1("BroadcastTo", {}, {F({3, 1}, {1, 2, 3}), I64({3}, {2, 3, 2})}), DType::Float, {2, 3, 2},
                        {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
    QVERIFY(tensor_near(run1("BroadcastTo", {}, {I32({}, {7}), I32({2}, {2, 2})}), DType::Int32, {2, 2}, {7, 7, 7, 7}));
    QVERIFY(tensor_near(run1("BroadcastTo", {}, {B({2}, {true, false}), I32({2}, {2, 2})}), DType::Bool, {2, 2},
                        {1, 0, 1, 0}));
    QVERIFY(tensor_near(run1("BroadcastTo", {}, {m22(), I32({2}, {2, 2})}), DType::Float, {2, 2}, {1, 2, 3, 4}));
    QVERIFY(tensor_near(run1("BroadcastTo", {}, {F({1}, {5}), I32({2}, {0, 2})}), DType::Float, {0, 2}, {}));
    // An empty output is returned before the shapes are checked (TF's order).
    QVERIFY(tensor_near(run1("BroadcastTo", {}, {F({3}, {1, 2, 3}), I32({2}, {0, 2})}), DType::Float, {0, 2}, {}));
    Tensor s = run1("BroadcastTo", {}, {Tensor::from_strings(Shape{1}, {"x"}), I32({1}, {3})});
    QCOMPARE(strings_of(s), (std::vector<std::string>{"x", "x", "x"}));
  }
  void broadcast_to_errors() {
    EXPECT_ERROR(run1("BroadcastTo", {}, {m22(), I32({1}, {4})}),
                 "Rank of input (2) must be no greater than rank of output shape (1).");
    EXPECT_ERROR(run1("BroadcastTo", {}, {F({3}, {1, 2, 3}), I32({1}, {2})}), "Incompatible shapes: [3] vs. [2]");
    EXPECT_ERROR(run1("BroadcastTo", {}, {F({3}, {1, 2, 3}), I32({1}, {1})}),
                 "Unable to broadcast tensor of shape [3] to tensor of shape [1]");
    EXPECT_ERROR(run1("BroadcastTo", {}, {F({1}, {1}), I32({1, 1}, {1})}),
                 "shape must be a vector of {int32,int64}, got shape [1,1]");
    EXPECT_ERROR(run1("BroadcastTo", {}, {F({1}, {1}), I32({2}, {2, -2})}), "Dimension -2 must be >= 0");
    Tensor target = I32({2}, {2, 3});
    auto out = infer("BroadcastTo", {}, {{DType::Float, Shape{3}}, {DType::Int32, Shape{2}}}, {nullptr, &target});
    QCOMPARE(qshape(out[0].shape), QString("[2,3]"));
    out = infer("BroadcastTo", {}, {{DType::Float, Shape{3}}, {DType::Int32, Shape{2}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,3]"));
    Tensor bad = I32({2}, {2, 4});
    EXPECT_ERROR(infer("BroadcastTo", {}, {{DType::Float, Shape{3}}, {DType::Int32, Shape{2}}}, {nullptr, &bad}),
                 "Dimensions must be equal, but are 3 and 4");
    EXPECT_ERROR(infer("BroadcastTo", {}, {{DType::Float, Shape{1, 1, 3}}, {DType::Int32, Shape{2}}}),
                 "Shape must be at most rank 2 but is rank 3");
  }

  void dynamic_stitch() {
    // The example of TF's op documentation.
    const AttrMap attrs{{"N", 3}, {"T", DType::Int32}};
    Tensor merged = run1("DynamicStitch", attrs,
                         {I32({}, {6}), I32({2}, {4, 1}), I32({2, 2}, {5, 2, 0, 3}), I32({2}, {61, 62}),
                          I32({2, 2}, {41, 42, 11, 12}), I32({2, 2, 2}, {51, 52, 21, 22, 1, 2, 31, 32})});
    QVERIFY(tensor_near(merged, DType::Int32, {7, 2}, {1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62}));
    // A later (input, position) wins; rows no index names are zero.
    QVERIFY(tensor_near(run1("DynamicStitch", {{"N", 2}}, {I32({3}, {0, 1, 2}), I32({1}, {1}), F({3}, {1, 2, 3}), F({1}, {9})}),
                        DType::Float, {3}, {1, 9, 3}));
    QVERIFY(tensor_near(run1("DynamicStitch", {{"N", 1}}, {I32({2}, {0, 3}), D({2}, {1, 2})}), DType::Double, {4},
                        {1, 0, 0, 2}));
    // Only negative indices: no rows, no error (TF checks bounds only when there are rows).
    QVERIFY(tensor_near(run1("DynamicStitch", {{"N", 1}}, {I32({1}, {-1}), F({1, 2}, {1, 2})}), DType::Float, {0, 2}, {}));
    Tensor s = run1("DynamicStitch", {{"N", 1}}, {I32({2}, {1, 0}), Tensor::from_strings(Shape{2}, {"b", "a"})});
    QCOMPARE(strings_of(s), (std::vector<std::string>{"a", "b"}));
  }
  void dynamic_stitch_errors() {
    EXPECT_ERROR(run1("DynamicStitch", {{"N", 2}}, {I32({2}, {0, 1}), I32({2}, {2, 3}), F({2}, {1, 2}), F({3}, {1, 2, 3})}),
                 "data[1].shape = [3] does not start with indices[1].shape = [2]");
    EXPECT_ERROR(run1("DynamicStitch", {{"N", 2}}, {I32({2}, {0, 1}), I32({1}, {2}), F({2, 2}, {1, 2, 3, 4}), F({1, 3}, {1, 2, 3})}),
                 "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [2,2], data[1].shape = [1,3], "
                 "indices[0].shape = [2], indices[1].shape = [1]");
    EXPECT_ERROR(run1("DynamicStitch", {{"N", 1}}, {I32({2}, {0, -1}), F({2}, {1, 2})}), "indices[1] is out of range");
    EXPECT_ERROR(run1("DynamicStitch", {{"N", 1}}, {I32({1}, {0})}), "DynamicStitchOp: Must have even number of arguments");
    Tensor i0 = I32({2}, {0, 6}), i1 = I32({1}, {2});
    auto out = infer("DynamicStitch", {{"N", 2}},
                     {{DType::Int32, Shape{2}}, {DType::Int32, Shape{1}}, {DType::Float, Shape{2, 2}}, {DType::Float, Shape{1, -1}}},
                     {&i0, &i1});
    QCOMPARE(qshape(out[0].shape), QString("[7,2]"));
    out = infer("DynamicStitch", {{"N", 2}},
                {{DType::Int32, Shape{2}}, {DType::Int32, Shape{1}}, {DType::Float, Shape{2, 2}}, {DType::Float, Shape{1, 2}}},
                {&i0, nullptr});
    QCOMPARE(qshape(out[0].shape), QString("[?,2]"));
  }

  void matmul_dtypes() {
    for (DType t : {DType::Half, DType::BFloat16, DType::Int16, DType::Int32, DType::Int64}) {
      Tensor a = T(t, {2, 2}, {1, 2, 3, 4}), b = T(t, {2, 2}, {5, 6, 7, 8});
      QVERIFY2(tensor_near(run1("MatMul", {}, {a, b}), t, {2, 2}, {19, 22, 43, 50}), dtype_name(t).c_str());
      QVERIFY2(tensor_near(run1("MatMul", {{"transpose_a", true}}, {a, b}), t, {2, 2}, {26, 30, 38, 44}),
               dtype_name(t).c_str());
      QVERIFY2(tensor_near(run1("MatMul", {{"transpose_b", true}}, {a, b}), t, {2, 2}, {17, 23, 39, 53}),
               dtype_name(t).c_str());
      QVERIFY2(tensor_near(run1("MatMul", {}, {T(t, {1, 0}, {}), T(t, {0, 2}, {})}), t, {1, 2}, {0, 0}),
               dtype_name(t).c_str());
    }
    // float16 accumulates in float: 2048 + 1 + 1 is 2050 (a half accumulator
    // rounds 2049 back to 2048, twice).
    QVERIFY(tensor_near(run1("MatMul", {}, {T(DType::Half, {1, 3}, {2048, 1, 1}), T(DType::Half, {3, 1}, {1, 1, 1})}),
                        DType::Half, {1, 1}, {2050}, 0));
    QVERIFY(tensor_near(run1("MatMul", {}, {I32({1, 2}, {-3, 4}), I32({2, 1}, {5, -6})}), DType::Int32, {1, 1}, {-39}));
    EXPECT_ERROR(run1("MatMul", {}, {T(DType::UInt8, {1, 1}, {1}), T(DType::UInt8, {1, 1}, {1})}),
                 "MatMul: unsupported dtype uint8");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsTile)
#include "test_ops_tile.moc"
