// Element-wise arithmetic, broadcasting, unary ops, Cast, AddN, MatMul.
#include "op_test_util.h"

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
  }
  void incompatible_shapes() {
    EXPECT_ERROR(run1("Add", {}, {F({2, 3}, {1, 2, 3, 4, 5, 6}), F({4}, {1, 2, 3, 4})}),
                 "Incompatible shapes: [2,3] vs. [4]");
    EXPECT_ERROR(run1("Mul", {}, {F({2}, {1, 2}), D({2}, {1, 2})}), "same dtype");
    EXPECT_ERROR(run1("Add", {}, {B({1}, {true}), B({1}, {false})}), "Add: unsupported dtype bool");
  }
  void div_max_min() {
    QVERIFY(tensor_near(run1("RealDiv", {}, {F({2}, {6, 9}), F({2}, {2, 3})}), DType::Float, {2}, {3, 3}));
    QVERIFY(tensor_near(run1("RealDiv", {}, {I32({2}, {7, -7}), scalar_i(2)}), DType::Int32, {2}, {3, -3}));
    EXPECT_ERROR(run1("RealDiv", {}, {I32({2}, {7, 1}), I32({2}, {1, 0})}), "Integer division by zero");
    QVERIFY(tensor_near(run1("Maximum", {}, {F({3}, {1, 5, 3}), scalar_f(2)}), DType::Float, {3}, {2, 5, 3}));
    QVERIFY(tensor_near(run1("Minimum", {}, {F({3}, {1, 5, 3}), scalar_f(2)}), DType::Float, {3}, {1, 2, 2}));
    QVERIFY(tensor_near(run1("Maximum", {}, {I64({2, 1}, {1, 4}), I64({2}, {2, 3})}), DType::Int64, {2, 2},
                        {2, 3, 4, 4}));
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
  }
  void unary() {
    QVERIFY(tensor_near(run1("Relu", {}, {F({3}, {-1, 0, 2})}), DType::Float, {3}, {0, 0, 2}));
    QVERIFY(tensor_near(run1("Relu", {}, {I32({2}, {-5, 5})}), DType::Int32, {2}, {0, 5}));
    QVERIFY(tensor_near(run1("Sigmoid", {}, {F({3}, {0, 2, -2})}), DType::Float, {3},
                        {0.5, 0.880797078, 0.119202922}));
    QVERIFY(tensor_near(run1("Sigmoid", {}, {D({2}, {-800, 800})}), DType::Double, {2}, {0, 1}));
    QVERIFY(tensor_near(run1("Tanh", {}, {D({2}, {1, 0})}), DType::Double, {2}, {0.761594156, 0}));
    QVERIFY(tensor_near(run1("Square", {}, {F({2}, {-3, 2})}), DType::Float, {2}, {9, 4}));
    QVERIFY(tensor_near(run1("Square", {}, {I64({1}, {-4})}), DType::Int64, {1}, {16}));
    QVERIFY(tensor_near(run1("Neg", {}, {F({2}, {-3, 2})}), DType::Float, {2}, {3, -2}));
    QVERIFY(tensor_near(run1("Exp", {}, {F({2}, {0, 1})}), DType::Float, {2}, {1, 2.718281828}));
    QVERIFY(tensor_near(run1("Log", {}, {F({2}, {1, 2.718281828f})}), DType::Float, {2}, {0, 1}));
    QVERIFY(tensor_near(run1("Sqrt", {}, {F({2}, {4, 2})}), DType::Float, {2}, {2, 1.414213562}));
    EXPECT_ERROR(run1("Sigmoid", {}, {I32({1}, {1})}), "Sigmoid: unsupported dtype int32");
    auto info = infer("Tanh", {{"T", DType::Float}}, {{DType::Float, Shape{-1, 4}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,4]"));
  }
  void cast() {
    AttrMap a = {{"SrcT", DType::Float}, {"DstT", DType::Int32}};
    QVERIFY(tensor_near(run1("Cast", a, {F({3}, {1.7f, -1.7f, 0})}), DType::Int32, {3}, {1, -1, 0}));
    a = {{"SrcT", DType::Int32}, {"DstT", DType::Bool}};
    QVERIFY(tensor_near(run1("Cast", a, {I32({2}, {0, 3})}), DType::Bool, {2}, {0, 1}));
    a = {{"SrcT", DType::Bool}, {"DstT", DType::Float}};
    QVERIFY(tensor_near(run1("Cast", a, {B({2}, {true, false})}), DType::Float, {2}, {1, 0}));
    a = {{"SrcT", DType::Float}, {"DstT", DType::Double}};
    QVERIFY(tensor_near(run1("Cast", a, {F({1}, {0.5f})}), DType::Double, {1}, {0.5}));
    a = {{"SrcT", DType::Int64}, {"DstT", DType::Int32}};
    QVERIFY(tensor_near(run1("Cast", a, {I64({1}, {42})}), DType::Int32, {1}, {42}));
    a = {{"SrcT", DType::Int32}, {"DstT", DType::Float}};
    EXPECT_ERROR(run1("Cast", a, {F({1}, {1})}), "SrcT");
    a = {{"SrcT", DType::Float}, {"DstT", DType::String}};
    EXPECT_ERROR(run1("Cast", a, {F({1}, {1})}), "Cast: unsupported dtype string");
    auto info = infer("Cast", {{"SrcT", DType::Float}, {"DstT", DType::Int64}}, {{DType::Float, Shape{2}}});
    QCOMPARE(info[0].dtype, DType::Int64);
  }
  void zeros_ones_like() {
    QVERIFY(tensor_near(run1("ZerosLike", {}, {F({2}, {3, 4})}), DType::Float, {2}, {0, 0}));
    QVERIFY(tensor_near(run1("OnesLike", {}, {I64({2, 1}, {3, 4})}), DType::Int64, {2, 1}, {1, 1}));
    QVERIFY(tensor_near(run1("OnesLike", {}, {B({1}, {false})}), DType::Bool, {1}, {1}));
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

QTEST_APPLESS_MAIN(TestOpsMath)
#include "test_ops_math.moc"
