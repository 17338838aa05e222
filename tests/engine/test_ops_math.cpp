// Broadcasting binary arithmetic (Add, AddV2, Sub, Mul, Maximum, Minimum,
// SquaredDifference, Pow), AddN and MatMul.
#include "test_main.h"
#include <limits>

#include "elementwise_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestOpsMath : public QObject {
  Q_OBJECT
 private slots:
  void add_same_shape() {
    Tensor out = run1("Add", {}, {F({2, 2}, {1, 2, 3, 4}), F({2, 2}, {10, 20, 30, 40})});
    QVERIFY(tensor_near(out, DType::Float, {2, 2}, {11, 22, 33, 44}));
    out = run1("AddV2", {}, {I64({3}, {1, -2, 3}), I64({3}, {5, 5, 5})});
    QVERIFY(tensor_near(out, DType::Int64, {3}, {6, 3, 8}));
  }
  void broadcast_row_vector() {
    Tensor out = run1("Add", {}, {F({2, 3}, {1, 2, 3, 4, 5, 6}), F({3}, {10, 20, 30})});
    QVERIFY(tensor_near(out, DType::Float, {2, 3}, {11, 22, 33, 14, 25, 36}));
    // Operand order swapped.
    out = run1("Sub", {}, {F({3}, {10, 20, 30}), F({2, 3}, {1, 2, 3, 4, 5, 6})});
    QVERIFY(tensor_near(out, DType::Float, {2, 3}, {9, 18, 27, 6, 15, 24}));
  }
  void broadcast_column_and_row() {
    Tensor out = run1("Add", {}, {F({2, 1}, {1, 2}), F({1, 3}, {10, 20, 30})});
    QVERIFY(tensor_near(out, DType::Float, {2, 3}, {11, 21, 31, 12, 22, 32}));
  }
  void broadcast_3d() {
    Tensor out = run1("Add", {}, {D({2, 1, 2}, {1, 2, 3, 4}), D({3, 1}, {10, 20, 30})});
    QVERIFY(tensor_near(out, DType::Double, {2, 3, 2}, {11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34}));
  }
  void broadcast_scalar() {
    Tensor out = run1("Mul", {}, {F({2, 2}, {1, 2, 3, 4}), scalar_f(2)});
    QVERIFY(tensor_near(out, DType::Float, {2, 2}, {2, 4, 6, 8}));
    out = run1("Sub", {}, {scalar_f(10), F({2}, {1, 2})});
    QVERIFY(tensor_near(out, DType::Float, {2}, {9, 8}));
    out = run1("Mul", {}, {scalar_i(3), scalar_i(-4)});
    QVERIFY(tensor_near(out, DType::Int32, {}, {-12}));
    // A [1,1] operand against a vector broadcasts to [1,2].
    out = run1("Add", {}, {F({1, 1}, {5}), F({2}, {1, 2})});
    QVERIFY(tensor_near(out, DType::Float, {1, 2}, {6, 7}));
  }
  void broadcast_zero_size() {
    Tensor out = run1("Add", {}, {F({0, 3}, {}), F({3}, {1, 2, 3})});
    QVERIFY(tensor_near(out, DType::Float, {0, 3}, {}));
    QVERIFY(values_are(run1("Mul", {}, {F({2, 1}, {1, 2}), F({2, 0}, {})}), DType::Float, {2, 0}, {}));
    QVERIFY(values_are(run1("Sub", {}, {I64({1, 0}, {}), I64({3, 1}, {1, 2, 3})}), DType::Int64, {3, 0}, {}));
    QVERIFY(values_are(run1("Maximum", {}, {scalar_f(1), F({0}, {})}), DType::Float, {0}, {}));
    EXPECT_ERROR(run1("Add", {}, {F({0}, {}), F({2}, {1, 2})}), "Incompatible shapes: [0] vs. [2]");
  }
  void broadcast_both_ways_and_padded_ones() {
    const Tensor x = D({2, 1, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor y = D({1}, {10});
    QVERIFY(values_are(run1("Sub", {}, {x, y}), DType::Double, {2, 1, 3}, {-9, -8, -7, -6, -5, -4}));
    QVERIFY(values_are(run1("Sub", {}, {y, x}), DType::Double, {2, 1, 3}, {9, 8, 7, 6, 5, 4}));
    QVERIFY(values_are(run1("AddV2", {}, {D({4, 1}, {1, 2, 3, 4}), D({1, 1, 2}, {10, 20})}), DType::Double, {1, 4, 2},
                       {11, 21, 12, 22, 13, 23, 14, 24}));
    auto info = infer("AddV2", {}, {{DType::Double, Shape{4, 1}}, {DType::Double, Shape{1, 1, 2}}});
    QCOMPARE(qshape(info[0].shape), QString("[1,4,2]"));
  }
  void incompatible_shapes() {
    EXPECT_ERROR(run1("Add", {}, {F({2, 3}, {1, 2, 3, 4, 5, 6}), F({4}, {1, 2, 3, 4})}),
                 "Incompatible shapes: [2,3] vs. [4]");
    EXPECT_ERROR(run1("Mul", {}, {F({2}, {1, 2}), D({2}, {1, 2})}), "same dtype");
    EXPECT_ERROR(run1("Add", {}, {B({1}, {true}), B({1}, {false})}), "Add: unsupported dtype bool");
  }
  void real_div_max_min() {
    QVERIFY(tensor_near(run1("RealDiv", {}, {F({2}, {6, 9}), F({2}, {2, 3})}), DType::Float, {2}, {3, 3}));
    // RealDiv has no integer CPU kernel in TensorFlow (Python's / casts first).
    EXPECT_ERROR(run1("RealDiv", {}, {I32({2}, {7, -7}), scalar_i(2)}), "RealDiv: unsupported dtype int32");
    QVERIFY(tensor_near(run1("Maximum", {}, {F({3}, {1, 5, 3}), scalar_f(2)}), DType::Float, {3}, {2, 5, 3}));
    QVERIFY(tensor_near(run1("Minimum", {}, {F({3}, {1, 5, 3}), scalar_f(2)}), DType::Float, {3}, {1, 2, 2}));
    QVERIFY(tensor_near(run1("Maximum", {}, {I64({2, 1}, {1, 4}), I64({2}, {2, 3})}), DType::Int64, {2, 2},
                        {2, 3, 4, 4}));
    // NaN propagates either way (scalar_max_op/scalar_min_op with PropagateNaN).
    const Tensor a = F({3}, {NAN, 1, 2}), b = F({3}, {1, NAN, 3});
    QVERIFY(values_are(run1("Maximum", {}, {a, b}), DType::Float, {3}, {kNaN, kNaN, 3}));
    QVERIFY(values_are(run1("Minimum", {}, {a, b}), DType::Float, {3}, {kNaN, kNaN, 2}));
    QVERIFY(values_are(run1("Minimum", {}, {T(DType::UInt16, {2}, {7, 65535}), T(DType::UInt16, {}, {9})}),
                       DType::UInt16, {2}, {7, 9}));
    QVERIFY(values_are(run1("Maximum", {}, {T(DType::Half, {2}, {-0.5, 0.25}), T(DType::Half, {2, 1}, {0, 1})}),
                       DType::Half, {2, 2}, {0, 0.25, 1, 1}));
  }
  void sixteen_bit_floats_round_each_result() {
    // 0.1 + 0.2 in half: 0.0999755859375 + 0.199951171875 is a tie that rounds to even.
    QVERIFY(values_are(run1("Add", {}, {T(DType::Half, {1}, {0.1}), T(DType::Half, {1}, {0.2})}), DType::Half, {1},
                       {0.2998046875}));
    QVERIFY(values_are(run1("AddV2", {}, {T(DType::BFloat16, {1}, {0.1}), T(DType::BFloat16, {1}, {0.2})}),
                       DType::BFloat16, {1}, {0.30078125}));
    QVERIFY(values_are(run1("Mul", {}, {T(DType::BFloat16, {2}, {3, 0.5}), T(DType::BFloat16, {}, {1.5})}),
                       DType::BFloat16, {2}, {4.5, 0.75}));
    QVERIFY(values_are(run1("Sub", {}, {T(DType::Half, {}, {1}), T(DType::Half, {2}, {0.25, 2048})}), DType::Half,
                       {2}, {0.75, -2047}));
  }
  void integers_wrap() {
    QVERIFY(values_are(run1("Add", {}, {T(DType::Int8, {2}, {100, -100}), T(DType::Int8, {}, {100})}), DType::Int8,
                       {2}, {-56, 0}));
    QVERIFY(values_are(run1("Sub", {}, {T(DType::UInt8, {1}, {0}), T(DType::UInt8, {1}, {1})}), DType::UInt8, {1},
                       {255}));
    QVERIFY(values_are(run1("Mul", {}, {I32({1}, {65536}), I32({1}, {65536})}), DType::Int32, {1}, {0}));
    QVERIFY(values_are(run1("Mul", {}, {T(DType::UInt16, {1}, {65535}), T(DType::UInt16, {1}, {65535})}),
                       DType::UInt16, {1}, {1}));
    QVERIFY(values_are(run1("AddV2", {}, {T(DType::UInt32, {1}, {4294967295.0}), T(DType::UInt32, {1}, {2})}),
                       DType::UInt32, {1}, {1}));
    QVERIFY(values_are(run1("Sub", {}, {I64({1}, {std::numeric_limits<int64_t>::min()}), I64({1}, {1})}),
                       DType::Int64, {1}, {static_cast<double>(std::numeric_limits<int64_t>::max())}));
    // Add has no uint16 kernel (nor op def entry), AddV2 does.
    EXPECT_ERROR(run1("Add", {}, {T(DType::UInt16, {1}, {1}), T(DType::UInt16, {1}, {1})}),
                 "Add: unsupported dtype uint16");
  }
  void squared_difference() {
    QVERIFY(values_are(run1("SquaredDifference", {}, {F({3}, {1, 2, 3}), scalar_f(5)}), DType::Float, {3},
                       {16, 9, 4}));
    QVERIFY(values_are(run1("SquaredDifference", {}, {I64({2, 1}, {1, -2}), I64({3}, {0, 1, 2})}), DType::Int64,
                       {2, 3}, {1, 0, 1, 4, 9, 16}));
    QVERIFY(values_are(run1("SquaredDifference", {}, {I32({3}, {0, 1, 2}), I32({2, 1}, {1, -2})}), DType::Int32,
                       {2, 3}, {1, 0, 1, 4, 9, 16}));
    // (0.0999755859375 - 0.300048828125)^2 = 0.0400293 rounds to 1312 * 2^-15 in half.
    QVERIFY(values_are(run1("SquaredDifference", {}, {T(DType::Half, {1}, {0.1}), T(DType::Half, {1}, {0.3})}),
                       DType::Half, {1}, {0.0400390625}));
    EXPECT_ERROR(run1("SquaredDifference", {}, {T(DType::UInt8, {1}, {1}), T(DType::UInt8, {1}, {1})}),
                 "SquaredDifference: unsupported dtype uint8");
  }
  void pow() {
    QVERIFY(values_are(run1("Pow", {}, {F({4}, {2, 4, 9, 2}), F({4}, {3, 0.5f, 0.5f, -1})}), DType::Float, {4},
                       {8, 2, 3, 0.5}));
    QVERIFY(values_are(run1("Pow", {}, {D({2, 1}, {2, -2}), D({2}, {2, 0.5})}), DType::Double, {2, 2},
                       {4, std::sqrt(2.0), 4, kNaN}, 1e-15));
    QVERIFY(values_are(run1("Pow", {}, {I32({4}, {2, 3, -2, 0}), I32({4}, {10, 0, 3, 0})}), DType::Int32, {4},
                       {1024, 1, -8, 1}));
    QVERIFY(values_are(run1("Pow", {}, {I32({}, {2}), I32({}, {31})}), DType::Int32, {}, {-2147483648.0}));  // wraps
    QVERIFY(values_are(run1("Pow", {}, {T(DType::Half, {1}, {2}), T(DType::Half, {1}, {0.5})}), DType::Half, {1},
                       {1.4140625}));
    EXPECT_ERROR(run1("Pow", {}, {I32({2}, {2, 1}), I32({2}, {1, -1})}),
                 "Integers to negative integer powers are not allowed");
    EXPECT_ERROR(run1("Pow", {}, {I64({1}, {1}), I64({}, {-1})}), "Integers to negative integer powers are not allowed");
    EXPECT_ERROR(run1("Pow", {}, {T(DType::Int8, {1}, {1}), T(DType::Int8, {1}, {1})}), "Pow: unsupported dtype int8");
    // Nothing is computed for an empty output, so nothing is refused.
    QVERIFY(values_are(run1("Pow", {}, {I32({0}, {}), I32({1}, {-1})}), DType::Int32, {0}, {}));
  }
  void binary_shape_fn() {
    auto out = infer("Add", {{"T", DType::Float}}, {{DType::Float, Shape{-1, 3}}, {DType::Float, Shape{3}}});
    QCOMPARE(out[0].dtype, DType::Float);
    QCOMPARE(qshape(out[0].shape), QString("[?,3]"));
    out = infer("Mul", {}, {{DType::Float, Shape{-1, 1}}, {DType::Float, Shape{4, 5}}});
    QCOMPARE(qshape(out[0].shape), QString("[4,5]"));
    out = infer("Mul", {}, {{DType::Float, Shape::unknown_rank()}, {DType::Float, Shape{4}}});
    QVERIFY(!out[0].shape.rank_known());
    EXPECT_ERROR(infer("Sub", {}, {{DType::Float, Shape{2, 3}}, {DType::Float, Shape{4}}}),
                 "Incompatible shapes: [2,3] vs. [4]");
    EXPECT_ERROR(infer("Sub", {}, {{DType::Float, Shape{2}}, {DType::Int32, Shape{2}}}), "same dtype");
  }
  void add_n() {
    Tensor out = run1("AddN", {{"N", 3}}, {F({2}, {1, 2}), F({2}, {10, 20}), F({2}, {100, 200})});
    QVERIFY(tensor_near(out, DType::Float, {2}, {111, 222}));
    out = run1("AddN", {{"N", 1}}, {I32({1}, {7})});
    QVERIFY(tensor_near(out, DType::Int32, {1}, {7}));
    EXPECT_ERROR(run1("AddN", {}, {F({2}, {1, 2}), F({3}, {1, 2, 3})}), "must have the same size and shape");
    auto info = infer("AddN", {}, {{DType::Float, Shape{-1, 2}}, {DType::Float, Shape{3, -1}}});
    QCOMPARE(qshape(info[0].shape), QString("[3,2]"));
    // Summed left to right, each sum rounded: 2048 + 1 is a half tie that stays 2048, twice.
    out = run1("AddN", {{"N", 3}}, {T(DType::Half, {1}, {2048}), T(DType::Half, {1}, {1}), T(DType::Half, {1}, {1})});
    QVERIFY(values_are(out, DType::Half, {1}, {2048}));
    out = run1("AddN", {{"N", 2}}, {T(DType::Int8, {2}, {100, -1}), T(DType::Int8, {2}, {100, -2})});
    QVERIFY(values_are(out, DType::Int8, {2}, {-56, -3}));
    out = run1("AddN", {{"N", 2}}, {T(DType::UInt64, {1}, {5}), T(DType::UInt64, {1}, {7})});
    QVERIFY(values_are(out, DType::UInt64, {1}, {12}));
    EXPECT_ERROR(run1("AddN", {}, {B({1}, {true}), B({1}, {true})}), "AddN: unsupported dtype bool");
  }
  // ---- MatMul ----
  void matmul_float() {
    Tensor a = F({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor b = F({3, 2}, {7, 8, 9, 10, 11, 12});
    QVERIFY(tensor_near(run1("MatMul", {}, {a, b}), DType::Float, {2, 2}, {58, 64, 139, 154}));
    Tensor at = F({3, 2}, {1, 4, 2, 5, 3, 6});
    Tensor bt = F({2, 3}, {7, 9, 11, 8, 10, 12});
    QVERIFY(tensor_near(run1("MatMul", {{"transpose_a", true}}, {at, b}), DType::Float, {2, 2}, {58, 64, 139, 154}));
    QVERIFY(tensor_near(run1("MatMul", {{"transpose_b", true}}, {a, bt}), DType::Float, {2, 2}, {58, 64, 139, 154}));
    QVERIFY(tensor_near(run1("MatMul", {{"transpose_a", true}, {"transpose_b", true}}, {at, bt}), DType::Float,
                        {2, 2}, {58, 64, 139, 154}));
  }
  void matmul_other_dtypes() {
    QVERIFY(tensor_near(run1("MatMul", {}, {D({1, 2}, {1, 2}), D({2, 1}, {3, 4})}), DType::Double, {1, 1}, {11}));
    Tensor a = I32({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor bt = I32({2, 3}, {7, 9, 11, 8, 10, 12});
    QVERIFY(tensor_near(run1("MatMul", {{"transpose_b", true}}, {a, bt}), DType::Int32, {2, 2}, {58, 64, 139, 154}));
    Tensor at = I64({3, 2}, {1, 4, 2, 5, 3, 6});
    Tensor b = I64({3, 2}, {7, 8, 9, 10, 11, 12});
    QVERIFY(tensor_near(run1("MatMul", {{"transpose_a", true}}, {at, b}), DType::Int64, {2, 2}, {58, 64, 139, 154}));
    // Empty inner dimension: zeros.
    QVERIFY(tensor_near(run1("MatMul", {}, {F({2, 0}, {}), F({0, 2}, {})}), DType::Float, {2, 2}, {0, 0, 0, 0}));
  }
  void matmul_errors() {
    EXPECT_ERROR(run1("MatMul", {}, {F({4, 3}, std::vector<float>(12, 1)), F({4, 1}, {1, 2, 3, 4})}),
                 "Matrix size-incompatible: In[0]: [4,3], In[1]: [4,1]");
    EXPECT_ERROR(run1("MatMul", {}, {F({3}, {1, 2, 3}), F({3, 1}, {1, 2, 3})}), "is not a matrix");
    EXPECT_ERROR(run1("MatMul", {}, {B({1, 1}, {true}), B({1, 1}, {true})}), "MatMul: unsupported dtype bool");
    EXPECT_ERROR(run1("MatMul", {}, {F({1, 1}, {1})}), "expects 2 input");
  }
  void matmul_shape_fn() {
    auto out = infer("MatMul", {{"T", DType::Float}}, {{DType::Float, Shape{-1, 3}}, {DType::Float, Shape{3, 5}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,5]"));
    QCOMPARE(out[0].dtype, DType::Float);
    out = infer("MatMul", {{"transpose_a", true}, {"transpose_b", true}},
                {{DType::Float, Shape{3, 2}}, {DType::Float, Shape::unknown_rank()}});
    QCOMPARE(qshape(out[0].shape), QString("[2,?]"));
    EXPECT_ERROR(infer("MatMul", {}, {{DType::Float, Shape{4, 3}}, {DType::Float, Shape{4, 1}}}),
                 "Matrix size-incompatible: In[0]: [4,3], In[1]: [4,1]");
    EXPECT_ERROR(infer("MatMul", {}, {{DType::Float, Shape{4, 3, 1}}, {DType::Float, Shape{4, 1}}}), "matrix");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsMath)
#include "test_ops_math.moc"
