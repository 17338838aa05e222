// Reshape, Shape, Size, Rank, Fill, Split, SplitV, Concat, ConcatV2, Pack.
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestOpsArray : public QObject {
  Q_OBJECT
 private slots:
  void reshape() {
    Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor out = run1("Reshape", {}, {x, I32({2}, {3, 2})});
    QVERIFY(tensor_near(out, DType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(out.shares_buffer_with(x));  // no copy
    out = run1("Reshape", {}, {x, I64({2}, {-1, 2})});
    QVERIFY(tensor_near(out, DType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}));
    out = run1("Reshape", {}, {x, I32({1}, {-1})});
    QVERIFY(tensor_near(out, DType::Float, {6}, {1, 2, 3, 4, 5, 6}));
    out = run1("Reshape", {}, {F({1}, {7}), I32({0}, {})});
    QVERIFY(tensor_near(out, DType::Float, {}, {7}));
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({2}, {2, 2})}),
                 "Input to reshape is a tensor with 6 values, but the requested shape has 4");
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({2}, {-1, -1})}), "Only one input size may be -1, not both 0 and 1");
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({2}, {-1, 4})}), "requires a multiple of 4");
  }
  void reshape_shape_fn() {
    Tensor shape = I32({2}, {-1, 2});
    auto out = infer("Reshape", {{"T", DType::Float}}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{2}}},
                     {nullptr, &shape});
    QCOMPARE(qshape(out[0].shape), QString("[3,2]"));
    out = infer("Reshape", {}, {{DType::Float, Shape{-1, 3}}, {DType::Int32, Shape{2}}}, {nullptr, &shape});
    QCOMPARE(qshape(out[0].shape), QString("[?,2]"));
    out = infer("Reshape", {}, {{DType::Float, Shape{-1, 3}}, {DType::Int32, Shape{3}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,?,?]"));
    Tensor bad = I32({2}, {4, 4});
    EXPECT_ERROR(infer("Reshape", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{2}}}, {nullptr, &bad}),
                 "tensor with 6 values");
  }
  void shape_size_rank() {
    Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
    QVERIFY(tensor_near(run1("Shape", {}, {x}), DType::Int32, {2}, {2, 3}));
    QVERIFY(tensor_near(run1("Shape", {{"out_type", DType::Int64}}, {x}), DType::Int64, {2}, {2, 3}));
    QVERIFY(tensor_near(run1("Shape", {}, {scalar_f(1)}), DType::Int32, {0}, {}));
    QVERIFY(tensor_near(run1("Size", {}, {x}), DType::Int32, {}, {6}));
    QVERIFY(tensor_near(run1("Size", {{"out_type", DType::Int64}}, {x}), DType::Int64, {}, {6}));
    QVERIFY(tensor_near(run1("Rank", {}, {x}), DType::Int32, {}, {2}));
    auto info = infer("Shape", {{"out_type", DType::Int64}}, {{DType::Float, Shape{-1, 3, 4}}});
    QCOMPARE(info[0].dtype, DType::Int64);
    QCOMPARE(qshape(info[0].shape), QString("[3]"));
    info = infer("Rank", {}, {{DType::Float, Shape::unknown_rank()}});
    QCOMPARE(qshape(info[0].shape), QString("[]"));
  }
  void fill() {
    QVERIFY(tensor_near(run1("Fill", {}, {I32({2}, {2, 2}), scalar_f(1.5f)}), DType::Float, {2, 2},
                        {1.5, 1.5, 1.5, 1.5}));
    QVERIFY(tensor_near(run1("Fill", {}, {I64({1}, {3}), Tensor::scalar<int64_t>(-4)}), DType::Int64, {3},
                        {-4, -4, -4}));
    QVERIFY(tensor_near(run1("Fill", {}, {I32({1}, {2}), Tensor::scalar<bool>(true)}), DType::Bool, {2}, {1, 1}));
    QVERIFY(tensor_near(run1("Fill", {}, {I32({0}, {}), Tensor::scalar<double>(2)}), DType::Double, {}, {2}));
    EXPECT_ERROR(run1("Fill", {}, {I32({1}, {2}), F({1}, {1})}), "value must be a scalar");
    EXPECT_ERROR(run1("Fill", {}, {I32({1}, {-2}), scalar_f(1)}), "non-negative");
    Tensor dims = I32({2}, {3, 4});
    auto info = infer("Fill", {}, {{DType::Int32, Shape{2}}, {DType::Float, Shape{}}}, {&dims, nullptr});
    QCOMPARE(qshape(info[0].shape), QString("[3,4]"));
    QCOMPARE(info[0].dtype, DType::Float);
  }
  void split() {
    Tensor x = F({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
    auto out = run_op("Split", {{"num_split", 2}}, {scalar_i(1), x});
    QCOMPARE(out.size(), size_t(2));
    QVERIFY(tensor_near(out[0], DType::Float, {2, 2}, {1, 2, 5, 6}));
    QVERIFY(tensor_near(out[1], DType::Float, {2, 2}, {3, 4, 7, 8}));
    out = run_op("Split", {{"num_split", 2}}, {scalar_i(-2), x});
    QVERIFY(tensor_near(out[0], DType::Float, {1, 4}, {1, 2, 3, 4}));
    QVERIFY(tensor_near(out[1], DType::Float, {1, 4}, {5, 6, 7, 8}));
    EXPECT_ERROR(run_op("Split", {{"num_split", 2}}, {scalar_i(0), F({5}, {1, 2, 3, 4, 5})}),
                 "Number of ways to split should evenly divide the split dimension, but got split_dim 0 (size = 5) "
                 "and num_split 2");
    EXPECT_ERROR(run_op("Split", {{"num_split", 2}}, {scalar_i(2), x}), "axis");
    QCOMPARE(op_def("Split").outputs_for(make_node("Split", {{"num_split", 3}})), 3);
    Tensor axis = scalar_i(1);
    auto info = infer("Split", {{"num_split", 2}}, {{DType::Int32, Shape{}}, {DType::Float, Shape{-1, 4}}},
                      {&axis, nullptr});
    QCOMPARE(info.size(), size_t(2));
    QCOMPARE(qshape(info[1].shape), QString("[?,2]"));
    EXPECT_ERROR(infer("Split", {{"num_split", 3}}, {{DType::Int32, Shape{}}, {DType::Float, Shape{-1, 4}}},
                       {&axis, nullptr}),
                 "evenly divide");
  }
  void split_v() {
    Tensor x = I32({2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = run_op("SplitV", {{"num_split", 2}}, {x, I32({2}, {1, -1}), scalar_i(1)});
    QVERIFY(tensor_near(out[0], DType::Int32, {2, 1}, {1, 4}));
    QVERIFY(tensor_near(out[1], DType::Int32, {2, 2}, {2, 3, 5, 6}));
    out = run_op("SplitV", {{"num_split", 3}}, {x, I64({3}, {0, 2, 1}), scalar_i(-1)});
    QVERIFY(tensor_near(out[0], DType::Int32, {2, 0}, {}));
    QVERIFY(tensor_near(out[1], DType::Int32, {2, 2}, {1, 2, 4, 5}));
    QVERIFY(tensor_near(out[2], DType::Int32, {2, 1}, {3, 6}));
    EXPECT_ERROR(run_op("SplitV", {{"num_split", 2}}, {x, I32({2}, {-1, -1}), scalar_i(1)}), "only be one -1");
    EXPECT_ERROR(run_op("SplitV", {{"num_split", 2}}, {x, I32({2}, {1, 1}), scalar_i(1)}), "Determined shape");
    Tensor sizes = I32({2}, {1, -1});
    Tensor axis = scalar_i(1);
    auto info = infer("SplitV", {{"num_split", 2}},
                      {{DType::Int32, Shape{2, 3}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{}}},
                      {nullptr, &sizes, &axis});
    QCOMPARE(qshape(info[0].shape), QString("[2,1]"));
    QCOMPARE(qshape(info[1].shape), QString("[2,2]"));
  }
  void concat() {
    Tensor a = F({2, 2}, {1, 2, 3, 4});
    Tensor b = F({2, 1}, {5, 6});
    QVERIFY(tensor_near(run1("ConcatV2", {{"N", 2}}, {a, b, scalar_i(1)}), DType::Float, {2, 3}, {1, 2, 5, 3, 4, 6}));
    QVERIFY(tensor_near(run1("ConcatV2", {{"N", 2}}, {a, b, scalar_i(-1)}), DType::Float, {2, 3}, {1, 2, 5, 3, 4, 6}));
    QVERIFY(tensor_near(run1("Concat", {{"N", 2}}, {scalar_i(0), a, F({1, 2}, {7, 8})}), DType::Float, {3, 2},
                        {1, 2, 3, 4, 7, 8}));
    QVERIFY(tensor_near(run1("ConcatV2", {{"N", 3}}, {B({1}, {true}), B({2}, {false, true}), B({0}, {}), scalar_i(0)}),
                        DType::Bool, {3}, {1, 0, 1}));
    EXPECT_ERROR(run1("ConcatV2", {{"N", 2}}, {F({2, 3}, std::vector<float>(6, 0)), F({2, 4}, std::vector<float>(8, 0)),
                                               scalar_i(0)}),
                 "ConcatOp : Dimensions of inputs should match: shape[0] = [2,3] vs. shape[1] = [2,4]");
    EXPECT_ERROR(run1("ConcatV2", {{"N", 2}}, {a, F({2}, {1, 2}), scalar_i(0)}), "Ranks of all input tensors");
    EXPECT_ERROR(run1("ConcatV2", {{"N", 2}}, {a, a, scalar_i(2)}), "range [-2, 2), but got 2");
    EXPECT_ERROR(run1("ConcatV2", {{"N", 2}}, {a, I32({2, 2}, {1, 2, 3, 4}), scalar_i(0)}), "same dtype");
  }
  void concat_shape_fn() {
    Tensor axis = scalar_i(1);
    auto info = infer("ConcatV2", {{"N", 2}}, {{DType::Float, Shape{-1, 2}}, {DType::Float, Shape{4, 3}}, {DType::Int32, Shape{}}},
                      {nullptr, nullptr, &axis});
    QCOMPARE(qshape(info[0].shape), QString("[4,5]"));
    info = infer("Concat", {{"N", 2}}, {{DType::Int32, Shape{}}, {DType::Float, Shape{-1, 2}}, {DType::Float, Shape{4, -1}}},
                 {&axis, nullptr, nullptr});
    QCOMPARE(qshape(info[0].shape), QString("[4,?]"));
    info = infer("ConcatV2", {{"N", 2}}, {{DType::Float, Shape{-1, 2}}, {DType::Float, Shape{4, 3}}, {DType::Int32, Shape{}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,?]"));
    Tensor axis0 = scalar_i(0);
    EXPECT_ERROR(infer("ConcatV2", {{"N", 2}}, {{DType::Float, Shape{2, 3}}, {DType::Float, Shape{2, 4}}, {DType::Int32, Shape{}}},
                       {nullptr, nullptr, &axis0}),
                 "Dimensions of inputs should match");
  }
  void pack() {
    Tensor a = F({2}, {1, 2});
    Tensor b = F({2}, {3, 4});
    QVERIFY(tensor_near(run1("Pack", {{"N", 2}}, {a, b}), DType::Float, {2, 2}, {1, 2, 3, 4}));
    QVERIFY(tensor_near(run1("Pack", {{"N", 2}, {"axis", 1}}, {a, b}), DType::Float, {2, 2}, {1, 3, 2, 4}));
    QVERIFY(tensor_near(run1("Pack", {{"N", 2}, {"axis", -1}}, {a, b}), DType::Float, {2, 2}, {1, 3, 2, 4}));
    QVERIFY(tensor_near(run1("Pack", {{"N", 3}}, {scalar_i(1), scalar_i(2), scalar_i(3)}), DType::Int32, {3}, {1, 2, 3}));
    QVERIFY(tensor_near(run1("Pack", {{"N", 2}}, {B({1}, {true}), B({1}, {false})}), DType::Bool, {2, 1}, {1, 0}));
    EXPECT_ERROR(run1("Pack", {{"N", 2}}, {a, F({3}, {1, 2, 3})}),
                 "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]");
    EXPECT_ERROR(run1("Pack", {{"N", 2}, {"axis", 2}}, {a, b}), "axis = 2 not in [-2, 2)");
    auto info = infer("Pack", {{"N", 2}, {"axis", 1}}, {{DType::Float, Shape{-1, 3}}, {DType::Float, Shape{5, -1}}});
    QCOMPARE(qshape(info[0].shape), QString("[5,2,3]"));
  }
};

QTEST_APPLESS_MAIN(TestOpsArray)
#include "test_ops_array.moc"
