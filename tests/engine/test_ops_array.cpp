// Shape ops and joins: Reshape, Shape, ShapeN, Size, Rank, Fill, ExpandDims,
// Squeeze, IdentityN, Snapshot, PreventGradient, Split, SplitV, Concat,
// ConcatV2, ConcatOffset, Pack, Unpack. Expected values follow TensorFlow's
// documented semantics; messages are TensorFlow's.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

}  // namespace

class TestOpsArray : public QObject {
  Q_OBJECT
 private slots:
  void reshape() {
    Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor out = run1("Reshape", {}, {x, I32({2}, {3, 2})});
    QVERIFY(tensor_near(out, DType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(out.shares_buffer_with(x));  // no copy
    QVERIFY(tensor_near(run1("Reshape", {}, {x, I64({2}, {-1, 2})}), DType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(tensor_near(run1("Reshape", {}, {x, I32({1}, {-1})}), DType::Float, {6}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(tensor_near(run1("Reshape", {}, {F({1}, {7}), I32({0}, {})}), DType::Float, {}, {7}));
    // The -1 is inferred leaving out zero dims when the requested shape has one.
    QVERIFY(tensor_near(run1("Reshape", {}, {F({0, 3}, {}), I32({2}, {-1, 0})}), DType::Float, {3, 0}, {}));
    for (DType t : {DType::Half, DType::BFloat16, DType::Int8, DType::UInt16, DType::Bool})
      QVERIFY(tensor_near(run1("Reshape", {}, {T(t, {4}, {1, 0, 1, 1}), I32({2}, {2, 2})}), t, {2, 2}, {1, 0, 1, 1}));
    Tensor s = run1("Reshape", {}, {S({2, 2}, {"a", "b", "c", "d"}), I32({1}, {4})});
    QCOMPARE(s.strings(), (std::vector<std::string>{"a", "b", "c", "d"}));
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({2}, {2, 2})}),
                 "Input to reshape is a tensor with 6 values, but the requested shape has 4");
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({2}, {-1, -1})}), "Only one input size may be -1, not both 0 and 1");
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({2}, {-1, 4})}),
                 "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4");
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({2}, {-2, 3})}), "Size 0 must be non-negative, not -2");
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({2}, {-1, 0})}),
                 "Input to reshape is a tensor with 6 values, but the requested shape has 0");
    EXPECT_ERROR(run1("Reshape", {}, {x, I32({1, 2}, {3, 2})}), "sizes input must be 1-D, not shape [1,2]");
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
                 "Cannot reshape a tensor with 6 elements to shape [4,4] (16 elements)");
  }

  void shape_size_rank() {
    Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
    QVERIFY(tensor_near(run1("Shape", {}, {x}), DType::Int32, {2}, {2, 3}));
    QVERIFY(tensor_near(run1("Shape", {{"out_type", DType::Int64}}, {x}), DType::Int64, {2}, {2, 3}));
    QVERIFY(tensor_near(run1("Shape", {}, {scalar_f(1)}), DType::Int32, {0}, {}));
    QVERIFY(tensor_near(run1("Size", {}, {x}), DType::Int32, {}, {6}));
    QVERIFY(tensor_near(run1("Size", {{"out_type", DType::Int64}}, {x}), DType::Int64, {}, {6}));
    QVERIFY(tensor_near(run1("Rank", {}, {x}), DType::Int32, {}, {2}));
    QVERIFY(tensor_near(run1("Rank", {}, {S({}, {"s"})}), DType::Int32, {}, {0}));
    auto outs = run_op("ShapeN", {{"N", 3}}, {x, F({0}, {}), scalar_i(4)});
    QCOMPARE(outs.size(), size_t{3});
    QVERIFY(tensor_near(outs[0], DType::Int32, {2}, {2, 3}));
    QVERIFY(tensor_near(outs[1], DType::Int32, {1}, {0}));
    QVERIFY(tensor_near(outs[2], DType::Int32, {0}, {}));
    auto info = infer("Shape", {{"out_type", DType::Int64}}, {{DType::Float, Shape{-1, 3, 4}}});
    QCOMPARE(info[0].dtype, DType::Int64);
    QCOMPARE(qshape(info[0].shape), QString("[3]"));
    info = infer("Rank", {}, {{DType::Float, Shape::unknown_rank()}});
    QCOMPARE(qshape(info[0].shape), QString("[]"));
    info = infer("ShapeN", {{"N", 2}}, {{DType::Float, Shape{2, -1}}, {DType::Float, Shape::unknown_rank()}});
    QCOMPARE(qshape(info[0].shape), QString("[2]"));
    QCOMPARE(qshape(info[1].shape), QString("[?]"));
  }

  void fill() {
    QVERIFY(tensor_near(run1("Fill", {}, {I32({2}, {2, 2}), scalar_f(1.5f)}), DType::Float, {2, 2},
                        {1.5, 1.5, 1.5, 1.5}));
    QVERIFY(tensor_near(run1("Fill", {}, {I64({1}, {3}), Tensor::scalar<int64_t>(-4)}), DType::Int64, {3},
                        {-4, -4, -4}));
    QVERIFY(tensor_near(run1("Fill", {}, {I32({1}, {2}), Tensor::scalar<bool>(true)}), DType::Bool, {2}, {1, 1}));
    QVERIFY(tensor_near(run1("Fill", {}, {I32({0}, {}), Tensor::scalar<double>(2)}), DType::Double, {}, {2}));
    QVERIFY(tensor_near(run1("Fill", {}, {I32({2}, {1, 3}), T(DType::Half, {}, {-2.5})}), DType::Half, {1, 3},
                        {-2.5, -2.5, -2.5}));
    QVERIFY(tensor_near(run1("Fill", {}, {I32({2}, {2, 0}), T(DType::Int8, {}, {3})}), DType::Int8, {2, 0}, {}));
    QCOMPARE(run1("Fill", {}, {I32({1}, {2}), S({}, {"ab"})}).strings(), (std::vector<std::string>{"ab", "ab"}));
    // A 1-element value vector is TensorFlow's legacy scalar.
    QVERIFY(tensor_near(run1("Fill", {}, {I32({1}, {2}), F({1}, {4})}), DType::Float, {2}, {4, 4}));
    EXPECT_ERROR(run1("Fill", {}, {I32({1}, {2}), F({2}, {1, 2})}), "value must represent a scalar, got shape [2]");
    EXPECT_ERROR(run1("Fill", {}, {I32({1}, {-2}), scalar_f(1)}), "Dimension -2 must be >= 0");
    EXPECT_ERROR(run1("Fill", {}, {I64({3}, {1LL << 40, 1LL << 40, 1LL << 40}), scalar_f(1)}), "int64");
    Tensor dims = I32({2}, {3, 4});
    auto info = infer("Fill", {}, {{DType::Int32, Shape{2}}, {DType::Float, Shape{}}}, {&dims, nullptr});
    QCOMPARE(qshape(info[0].shape), QString("[3,4]"));
    QCOMPARE(info[0].dtype, DType::Float);
    Tensor neg = I32({1}, {-1});
    EXPECT_ERROR(infer("Fill", {}, {{DType::Int32, Shape{1}}, {DType::Float, Shape{}}}, {&neg, nullptr}),
                 "Fill dimensions must be >= 0");
  }

  void expand_dims() {
    Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
    const int64_t dims[] = {0, 1, 2, -1, -3};
    const char* shapes[] = {"[1,2,3]", "[2,1,3]", "[2,3,1]", "[2,3,1]", "[1,2,3]"};
    for (int i = 0; i < 5; ++i) {
      Tensor out = run1("ExpandDims", {}, {x, I64({}, {dims[i]})});
      QCOMPARE(qshape(out.shape()), QString(shapes[i]));
      QVERIFY(out.shares_buffer_with(x));
    }
    QCOMPARE(qshape(run1("ExpandDims", {}, {scalar_f(1), I32({1}, {0})}).shape()), QString("[1]"));
    QCOMPARE(qshape(run1("ExpandDims", {}, {S({2}, {"a", "b"}), I32({}, {1})}).shape()), QString("[2,1]"));
    EXPECT_ERROR(run1("ExpandDims", {}, {x, I32({}, {3})}), "Tried to expand dim index 3 for tensor with 2 dimensions.");
    EXPECT_ERROR(run1("ExpandDims", {}, {x, I32({}, {-4})}), "Tried to expand dim index -4 for tensor with 2 dimensions.");
    EXPECT_ERROR(run1("ExpandDims", {}, {x, I32({2}, {0, 1})}), "'dim' must be a tensor with a single value");
    Tensor d = I32({}, {-1});
    auto info = infer("ExpandDims", {}, {{DType::Float, Shape{-1, 3}}, {DType::Int32, Shape{}}}, {nullptr, &d});
    QCOMPARE(qshape(info[0].shape), QString("[?,3,1]"));
    Tensor far = I32({}, {5});
    EXPECT_ERROR(infer("ExpandDims", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{}}}, {nullptr, &far}),
                 "dim 5 not in the interval [-3, 2].");
  }

  void squeeze() {
    Tensor x = F({1, 2, 1, 3, 1}, {1, 2, 3, 4, 5, 6});
    QCOMPARE(qshape(run1("Squeeze", {}, {x}).shape()), QString("[2,3]"));
    AttrList dims;
    dims.i = {2, 4};
    Tensor out = run1("Squeeze", {{"squeeze_dims", dims}}, {x});
    QCOMPARE(qshape(out.shape()), QString("[1,2,3]"));
    QVERIFY(tensor_near(out, DType::Float, {1, 2, 3}, {1, 2, 3, 4, 5, 6}));
    dims.i = {-1, -1, 0};
    QCOMPARE(qshape(run1("Squeeze", {{"squeeze_dims", dims}}, {x}).shape()), QString("[2,1,3]"));
    QCOMPARE(qshape(run1("Squeeze", {}, {T(DType::UInt8, {1, 1}, {7})}).shape()), QString("[]"));
    dims.i = {1};
    EXPECT_ERROR(run1("Squeeze", {{"squeeze_dims", dims}}, {x}), "Can not squeeze dim[1], expected a dimension of 1, got 2");
    dims.i = {5};
    EXPECT_ERROR(run1("Squeeze", {{"squeeze_dims", dims}}, {x}), "Tried to squeeze dim index 5 for tensor with 5 dimensions.");
    EXPECT_ERROR(infer("Squeeze", {{"squeeze_dims", dims}}, {{DType::Float, Shape{1, 2}}}), "squeeze_dims[0] not in [-2,2).");
    auto info = infer("Squeeze", {}, {{DType::Float, Shape{1, -1, 3}}});
    QVERIFY(!info[0].shape.rank_known());  // an unknown dim might be 1
    dims.i = {1};
    info = infer("Squeeze", {{"squeeze_dims", dims}}, {{DType::Float, Shape{1, -1, 3}}});
    QCOMPARE(qshape(info[0].shape), QString("[1,3]"));
  }

  void identity_n_snapshot_prevent_gradient() {
    Tensor a = F({2}, {1, 2});
    Tensor b = S({1}, {"z"});
    AttrList types;
    types.type = {DType::Float, DType::String};
    auto outs = run_op("IdentityN", {{"T", types}}, {a, b});
    QCOMPARE(outs.size(), size_t{2});
    QVERIFY(outs[0].shares_buffer_with(a));
    QCOMPARE(outs[1].strings(), b.strings());
    auto info = infer("IdentityN", {{"T", types}}, {{DType::Float, Shape{2}}, {DType::String, Shape{-1}}});
    QCOMPARE(info[1].dtype, DType::String);
    QCOMPARE(qshape(info[1].shape), QString("[?]"));
    for (DType t : {DType::Float, DType::Half, DType::Int64, DType::Bool}) {
      Tensor x = T(t, {3}, {1, 0, 1});
      Tensor snap = run1("Snapshot", {}, {x});
      QVERIFY(tensor_near(snap, t, {3}, {1, 0, 1}));
      QVERIFY(!snap.shares_buffer_with(x));  // a copy, not an alias
    }
    Tensor p = run1("PreventGradient", {{"message", "why"}}, {a});
    QVERIFY(p.shares_buffer_with(a));
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
    out = run_op("Split", {{"num_split", 3}}, {scalar_i(0), S({3}, {"x", "y", "z"})});
    QCOMPARE(out[2].strings(), std::vector<std::string>{"z"});
    out = run_op("Split", {{"num_split", 2}}, {scalar_i(1), T(DType::BFloat16, {1, 2}, {0.5, -3})});
    QVERIFY(tensor_near(out[1], DType::BFloat16, {1, 1}, {-3}));
    EXPECT_ERROR(run_op("Split", {{"num_split", 2}}, {scalar_i(0), F({5}, {1, 2, 3, 4, 5})}),
                 "Number of ways to split should evenly divide the split dimension, but got split_dim 0 (size = 5) "
                 "and num_split 2");
    EXPECT_ERROR(run_op("Split", {{"num_split", 2}}, {scalar_i(2), x}),
                 "-input rank(-2) <= split_dim < input rank (2), but got 2");
    EXPECT_ERROR(run_op("Split", {{"num_split", 2}}, {I32({1}, {0}), x}), "split_dim must be a scalar but has rank 1");
    QCOMPARE(op_def("Split").outputs_for(make_node("Split", {{"num_split", 3}})), 3);
    Tensor axis = scalar_i(1);
    auto info = infer("Split", {{"num_split", 2}}, {{DType::Int32, Shape{}}, {DType::Float, Shape{-1, 4}}},
                      {&axis, nullptr});
    QCOMPARE(info.size(), size_t(2));
    QCOMPARE(qshape(info[1].shape), QString("[?,2]"));
    EXPECT_ERROR(infer("Split", {{"num_split", 3}}, {{DType::Int32, Shape{}}, {DType::Float, Shape{-1, 4}}},
                       {&axis, nullptr}),
                 "evenly divisible by 3 but is 4");
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
    out = run_op("SplitV", {{"num_split", 2}, {"Tlen", DType::Int8}}, {T(DType::Half, {3}, {1, 2, 3}), T(DType::Int8, {2}, {2, 1}), scalar_i(0)});
    QVERIFY(tensor_near(out[0], DType::Half, {2}, {1, 2}));
    EXPECT_ERROR(run_op("SplitV", {{"num_split", 2}}, {x, I32({2}, {-1, -1}), scalar_i(1)}),
                 "There can only be one -1 in the input.");
    EXPECT_ERROR(run_op("SplitV", {{"num_split", 2}}, {x, I32({2}, {1, 1}), scalar_i(1)}),
                 "Determined shape must either match input shape along split_dim exactly if fully specified, or be "
                 "less than the size of the input along split_dim if not fully specified.  Got: 2");
    EXPECT_ERROR(run_op("SplitV", {{"num_split", 2}}, {x, I32({3}, {1, 1, 1}), scalar_i(1)}),
                 "size of the split_tensor must be 1-D and have the same elements as outputs got 1 -D and 3 elements");
    Tensor sizes = I32({2}, {1, -1});
    Tensor axis = scalar_i(1);
    auto info = infer("SplitV", {{"num_split", 2}},
                      {{DType::Int32, Shape{2, 3}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{}}},
                      {nullptr, &sizes, &axis});
    QCOMPARE(qshape(info[0].shape), QString("[2,1]"));
    QCOMPARE(qshape(info[1].shape), QString("[2,2]"));
    Tensor big = I32({2}, {2, 2});
    EXPECT_ERROR(infer("SplitV", {{"num_split", 2}},
                       {{DType::Int32, Shape{2, 3}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{}}},
                       {nullptr, &big, &axis}),
                 "can't split axis of size 3 into pieces of size [2,2]");
  }

  void concat() {
    Tensor a = F({2, 2}, {1, 2, 3, 4});
    Tensor b = F({2, 1}, {5, 6});
    QVERIFY(tensor_near(run1("ConcatV2", {{"N", 2}}, {a, b, scalar_i(1)}), DType::Float, {2, 3}, {1, 2, 5, 3, 4, 6}));
    QVERIFY(tensor_near(run1("ConcatV2", {{"N", 2}}, {a, b, I64({}, {-1})}), DType::Float, {2, 3}, {1, 2, 5, 3, 4, 6}));
    QVERIFY(tensor_near(run1("Concat", {{"N", 2}}, {scalar_i(0), a, F({1, 2}, {7, 8})}), DType::Float, {3, 2},
                        {1, 2, 3, 4, 7, 8}));
    QVERIFY(tensor_near(run1("ConcatV2", {{"N", 3}}, {B({1}, {true}), B({2}, {false, true}), B({0}, {}), scalar_i(0)}),
                        DType::Bool, {3}, {1, 0, 1}));
    for (DType t : {DType::Half, DType::BFloat16, DType::Int8, DType::UInt32})
      QVERIFY(tensor_near(run1("ConcatV2", {{"N", 2}}, {T(t, {1, 2}, {1, 2}), T(t, {1, 1}, {3}), scalar_i(1)}), t, {1, 3},
                          {1, 2, 3}));
    Tensor s = run1("ConcatV2", {{"N", 2}}, {S({2, 1}, {"a", "c"}), S({2, 1}, {"b", "d"}), scalar_i(1)});
    QCOMPARE(s.strings(), (std::vector<std::string>{"a", "b", "c", "d"}));
    // TensorFlow's legacy form: scalars along axis 0 make a vector.
    QVERIFY(tensor_near(run1("ConcatV2", {{"N", 2}}, {scalar_f(1), scalar_f(2), scalar_i(0)}), DType::Float, {2}, {1, 2}));
    EXPECT_ERROR(run1("ConcatV2", {{"N", 2}}, {F({2, 3}, std::vector<float>(6, 0)), F({2, 4}, std::vector<float>(8, 0)),
                                               scalar_i(0)}),
                 "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. shape[1] = [2,4]");
    EXPECT_ERROR(run1("ConcatV2", {{"N", 2}}, {a, F({2}, {1, 2}), scalar_i(0)}),
                 "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,2] vs. shape[1] = [2]");
    EXPECT_ERROR(run1("ConcatV2", {{"N", 2}}, {a, a, scalar_i(2)}),
                 "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2");
    EXPECT_ERROR(run1("ConcatV2", {{"N", 2}}, {a, a, I32({2}, {0, 1})}), "axis tensor should be a scalar integer, but got shape [2]");
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
                 "Dimension 1 in both shapes must be equal, but are");
    EXPECT_ERROR(infer("ConcatV2", {{"N", 2}}, {{DType::Float, Shape{}}, {DType::Float, Shape{}}, {DType::Int32, Shape{}}}),
                 "Can't concatenate scalars (use tf.stack instead)");
  }

  void concat_offset() {
    // TensorFlow's documented example.
    auto out = run_op("ConcatOffset", {{"N", 3}}, {scalar_i(1), I32({3}, {2, 2, 7}), I32({3}, {2, 3, 7}), I32({3}, {2, 5, 7})});
    QVERIFY(tensor_near(out[0], DType::Int32, {3}, {0, 0, 0}));
    QVERIFY(tensor_near(out[1], DType::Int32, {3}, {0, 2, 0}));
    QVERIFY(tensor_near(out[2], DType::Int32, {3}, {0, 5, 0}));
    out = run_op("ConcatOffset", {{"N", 2}, {"shape_type", DType::Int64}}, {scalar_i(-1), I64({2}, {2, 3}), I64({2}, {2, 5})});
    QVERIFY(tensor_near(out[1], DType::Int64, {2}, {0, 3}));
    // Shapes that differ outside the concat dimension are rejected.
    EXPECT_ERROR(run_op("ConcatOffset", {{"N", 2}}, {scalar_i(0), I32({2}, {2, 3}), I32({2}, {4, 5})}),
                 "All dimensions except 0 must match. Input 1 has shape [4 5] and doesn't match input 0 with shape [2 3].");
    EXPECT_ERROR(run_op("ConcatOffset", {{"N", 2}}, {scalar_i(2), I32({2}, {2, 3}), I32({2}, {2, 5})}),
                 "Concat dim is out of range: 2 vs. 2");
    EXPECT_ERROR(run_op("ConcatOffset", {{"N", 2}}, {scalar_i(0), I32({2}, {2, 3}), I32({3}, {2, 5, 1})}),
                 "input 1 should contain 2 elements, but got 3");
  }

  void pack_unpack() {
    Tensor a = F({2}, {1, 2});
    Tensor b = F({2}, {3, 4});
    QVERIFY(tensor_near(run1("Pack", {{"N", 2}}, {a, b}), DType::Float, {2, 2}, {1, 2, 3, 4}));
    QVERIFY(tensor_near(run1("Pack", {{"N", 2}, {"axis", 1}}, {a, b}), DType::Float, {2, 2}, {1, 3, 2, 4}));
    QVERIFY(tensor_near(run1("Pack", {{"N", 2}, {"axis", -1}}, {a, b}), DType::Float, {2, 2}, {1, 3, 2, 4}));
    QVERIFY(tensor_near(run1("Pack", {{"N", 3}}, {scalar_i(1), scalar_i(2), scalar_i(3)}), DType::Int32, {3}, {1, 2, 3}));
    QVERIFY(tensor_near(run1("Pack", {{"N", 2}}, {B({1}, {true}), B({1}, {false})}), DType::Bool, {2, 1}, {1, 0}));
    QCOMPARE(run1("Pack", {{"N", 2}}, {S({}, {"p"}), S({}, {"q"})}).strings(), (std::vector<std::string>{"p", "q"}));
    EXPECT_ERROR(run1("Pack", {{"N", 2}}, {a, F({3}, {1, 2, 3})}),
                 "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]");
    EXPECT_ERROR(run1("Pack", {{"N", 2}, {"axis", 2}}, {a, b}), "axis = 2 not in [-2, 2)");
    auto info = infer("Pack", {{"N", 2}, {"axis", 1}}, {{DType::Float, Shape{-1, 3}}, {DType::Float, Shape{5, -1}}});
    QCOMPARE(qshape(info[0].shape), QString("[5,2,3]"));
    EXPECT_ERROR(infer("Pack", {{"N", 1}, {"axis", 3}}, {{DType::Float, Shape{2}}}), "Invalid axis: 3; must be in [-2,2)");

    auto parts = run_op("Unpack", {{"num", 3}, {"axis", 1}}, {T(DType::Int16, {2, 3}, {1, 2, 3, 4, 5, 6})});
    QVERIFY(tensor_near(parts[0], DType::Int16, {2}, {1, 4}));
    QVERIFY(tensor_near(parts[2], DType::Int16, {2}, {3, 6}));
    parts = run_op("Unpack", {{"num", 2}}, {S({2}, {"u", "v"})});
    QCOMPARE(parts[1].strings(), std::vector<std::string>{"v"});
    EXPECT_ERROR(run_op("Unpack", {{"num", 2}}, {F({3}, {1, 2, 3})}), "Input shape axis 0 must equal 2, got shape [3]");
    EXPECT_ERROR(run_op("Unpack", {{"num", 2}, {"axis", -3}}, {F({2, 1}, {1, 2})}), "axis = -3 not in [-2, 2)");
    EXPECT_ERROR(infer("Unpack", {{"num", 2}}, {{DType::Float, Shape{3}}}), "Dimension must be 2 but is 3");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsArray)
#include "test_ops_array.moc"
