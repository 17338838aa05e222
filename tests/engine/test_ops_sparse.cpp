// SparseToDense, SparseReorder and SparseReshape: TensorFlow's documented
// behaviour on several dtypes, validate_indices, size-0 shapes, TensorFlow's
// error messages, and the gradients (built from TensorFlow's ops).
#include "test_main.h"
#include <map>

#include "engine/gradient_ops_gate.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

std::vector<Tensor> sparse_to_dense(Tensor indices, Tensor shape, Tensor values, Tensor default_value,
                                    bool validate = true) {
  return run_op("SparseToDense", {{"validate_indices", validate}},
                {std::move(indices), std::move(shape), std::move(values), std::move(default_value)});
}

std::vector<Tensor> reshape(Tensor indices, std::vector<int64_t> in_shape, std::vector<int64_t> new_shape) {
  const int64_t a = static_cast<int64_t>(in_shape.size()), b = static_cast<int64_t>(new_shape.size());
  return run_op("SparseReshape", {}, {std::move(indices), I64({a}, in_shape), I64({b}, new_shape)});
}

std::map<std::string, int> gradient_ops(Model& m, const std::string& y, const std::string& x) {
  add_gradients(m.g, {y}, {x}, OpRegistry::global());
  std::map<std::string, int> ops;
  for (const Node& n : m.g.nodes())
    if (n.name.rfind("gradients/" + y + "_grad/", 0) == 0) ++ops[n.op];
  return ops;
}

const char* kOutOfOrder =
    " is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly "
    "ordered copy.\n\n";

}  // namespace

class TestOpsSparse : public QObject {
  Q_OBJECT
 private slots:
  // ---- SparseToDense -------------------------------------------------------------------------
  void sparse_to_dense_index_forms() {
    // Vector indices: dense[indices[i]] = values[i].
    QVERIFY(tensor_near(sparse_to_dense(I32({2}, {1, 3}), I32({1}, {5}), F({2}, {10, 20}), F({}, {0}))[0], DType::Float, {5},
                        {0, 10, 0, 20, 0}));
    // Matrix indices [n, rank].
    QVERIFY(tensor_near(sparse_to_dense(I64({2, 2}, {0, 1, 2, 0}), I64({2}, {3, 2}), D({2}, {1, 2}), D({}, {-1}))[0],
                        DType::Double, {3, 2}, {-1, 1, -1, -1, 2, -1}));
    // A scalar index.
    QVERIFY(tensor_near(sparse_to_dense(I32({}, {2}), I32({1}, {4}), I32({}, {7}), I32({}, {1}))[0], DType::Int32, {4},
                        {1, 1, 7, 1}));
    // A scalar value goes to every index.
    QVERIFY(tensor_near(sparse_to_dense(I32({2, 2}, {0, 0, 1, 1}), I32({2}, {2, 2}), I64({}, {5}), I64({}, {0}))[0],
                        DType::Int64, {2, 2}, {5, 0, 0, 5}));
  }
  void sparse_to_dense_dtypes() {
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int16,
                    DType::Int32, DType::Int64, DType::Bool})
      QVERIFY2(tensor_near(sparse_to_dense(I32({2}, {0, 2}), I32({1}, {3}), T(t, {2}, {1, 1}), T(t, {}, {0}))[0], t, {3},
                           {1, 0, 1}),
               dtype_name(t).c_str());
    Tensor s = sparse_to_dense(I32({1}, {1}), I32({1}, {3}), Tensor::from_strings({1}, {"x"}),
                               Tensor::from_strings({}, {"-"}))[0];
    QCOMPARE(s.strings(), (std::vector<std::string>{"-", "x", "-"}));
  }
  void sparse_to_dense_validate_indices() {
    EXPECT_ERROR(sparse_to_dense(I64({2, 2}, {1, 0, 0, 1}), I64({2}, {2, 2}), F({2}, {1, 2}), F({}, {0})),
                 std::string("indices[1] = [0,1]") + kOutOfOrder);
    EXPECT_ERROR(sparse_to_dense(I32({2}, {1, 1}), I32({1}, {3}), F({2}, {1, 2}), F({}, {0})), "indices[1] = [1] is repeated");
    EXPECT_ERROR(sparse_to_dense(I32({2}, {0, 5}), I32({1}, {5}), F({2}, {1, 2}), F({}, {0})),
                 "indices[1] = [5] is out of bounds: need 0 <= index < [5]");
    EXPECT_ERROR(sparse_to_dense(I32({2, 2}, {0, 0, 1, -1}), I32({2}, {2, 3}), F({2}, {1, 2}), F({}, {0})),
                 "indices[1] = [1,-1] is out of bounds: need 0 <= index < [2,3]");
    // Without validation: any order, and a repeated index keeps the last value.
    QVERIFY(tensor_near(sparse_to_dense(I32({3}, {3, 1, 3}), I32({1}, {4}), F({3}, {1, 2, 3}), F({}, {0}), false)[0],
                        DType::Float, {4}, {0, 2, 0, 3}));
    EXPECT_ERROR(sparse_to_dense(I32({2}, {1, 4}), I32({1}, {4}), F({2}, {1, 2}), F({}, {0}), false),
                 "Indices are not valid (out of bounds).  Shape: [4]");
  }
  void sparse_to_dense_shapes_and_errors() {
    QVERIFY(tensor_near(sparse_to_dense(I32({0, 2}, {}), I32({2}, {0, 3}), F({0}, {}), F({}, {0}))[0], DType::Float, {0, 3}, {}));
    QVERIFY(tensor_near(sparse_to_dense(I32({0}, {}), I32({1}, {2}), F({}, {9}), F({}, {4}))[0], DType::Float, {2}, {4, 4}));
    EXPECT_ERROR(sparse_to_dense(I32({1, 1, 1}, {0}), I32({1}, {2}), F({1}, {1}), F({}, {0})),
                 "sparse_indices should be a scalar, vector, or matrix, got shape [1,1,1]");
    EXPECT_ERROR(sparse_to_dense(I32({1}, {0}), I32({}, {2}), F({1}, {1}), F({}, {0})),
                 "output_shape should be a vector, got shape []");
    EXPECT_ERROR(sparse_to_dense(I32({1, 2}, {0, 0}), I32({1}, {2}), F({1}, {1}), F({}, {0})),
                 "output_shape has incorrect number of elements: 1 should be: 2");
    EXPECT_ERROR(sparse_to_dense(I32({2}, {0, 1}), I32({1}, {2}), F({3}, {1, 2, 3}), F({}, {0})),
                 "sparse_values has incorrect shape [3], should be [] or [2]");
    EXPECT_ERROR(sparse_to_dense(I32({2}, {0, 1}), I32({1}, {2}), F({2}, {1, 2}), F({1}, {0})), "default_value should be a scalar.");
    EXPECT_ERROR(sparse_to_dense(I32({1}, {0}), I32({1}, {-1}), F({1}, {1}), F({}, {0})), "Dimension -1 must be >= 0");
    EXPECT_ERROR(sparse_to_dense(I64({1, 2}, {0, 0}), I64({2}, {int64_t{1} << 40, int64_t{1} << 40}), F({1}, {1}), F({}, {0})),
                 "more elements than int64 can count");
    const Tensor shape = I32({2}, {3, 2});
    auto info = infer("SparseToDense", {}, {{DType::Int32, Shape{4, 2}}, {DType::Int32, Shape{2}}, {DType::Float, Shape{4}},
                                            {DType::Float, Shape{}}},
                      {nullptr, &shape});
    QCOMPARE(qshape(info[0].shape), QString("[3,2]"));
    info = infer("SparseToDense", {}, {{DType::Int32, Shape{4, 2}}, {DType::Int32, Shape{2}}, {DType::Float, Shape{4}},
                                       {DType::Float, Shape{}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,?]"));
    QCOMPARE(info[0].dtype, DType::Float);
  }

  // ---- SparseReorder -------------------------------------------------------------------------
  void sparse_reorder_sorts_row_major() {
    for (DType t : {DType::Float, DType::Half, DType::Int32, DType::Int64, DType::Bool}) {
      auto out = run_op("SparseReorder", {}, {I64({3, 2}, {1, 0, 0, 1, 0, 0}), T(t, {3}, {1, 0, 1}), I64({2}, {2, 2})});
      QVERIFY2(tensor_near(out[0], DType::Int64, {3, 2}, {0, 0, 0, 1, 1, 0}), dtype_name(t).c_str());
      QVERIFY2(tensor_near(out[1], t, {3}, {1, 0, 1}), dtype_name(t).c_str());
    }
    auto out = run_op("SparseReorder", {}, {I64({3, 2}, {1, 0, 0, 1, 0, 0}), F({3}, {10, 20, 30}), I64({2}, {2, 2})});
    QVERIFY(tensor_near(out[1], DType::Float, {3}, {30, 20, 10}));
    out = run_op("SparseReorder", {}, {I64({2, 1}, {3, 0}), Tensor::from_strings({2}, {"a", "b"}), I64({1}, {4})});
    QCOMPARE(out[1].strings(), (std::vector<std::string>{"b", "a"}));
    // Out-of-bounds entries are sorted like the others, not refused.
    out = run_op("SparseReorder", {}, {I64({2, 1}, {5, 1}), F({2}, {1, 2}), I64({1}, {3})});
    QVERIFY(tensor_near(out[0], DType::Int64, {2, 1}, {1, 5}));
    QVERIFY(tensor_near(out[1], DType::Float, {2}, {2, 1}));
  }
  void sparse_reorder_forwards_ordered_input() {
    const Tensor indices = I64({2, 2}, {0, 1, 1, 0});
    const Tensor values = F({2}, {1, 2});
    auto out = run_op("SparseReorder", {}, {indices, values, I64({2}, {2, 2})});
    QVERIFY(out[0].shares_buffer_with(indices));
    QVERIFY(out[1].shares_buffer_with(values));
    out = run_op("SparseReorder", {}, {I64({0, 3}, {}), F({0}, {}), I64({3}, {1, 2, 3})});
    QVERIFY(tensor_near(out[0], DType::Int64, {0, 3}, {}));
  }
  void sparse_reorder_errors_and_shapes() {
    const Tensor v2 = F({2}, {1, 2});
    EXPECT_ERROR(run_op("SparseReorder", {}, {I64({2}, {0, 1}), v2, I64({1}, {2})}),
                 "Input indices should be a matrix but received shape [2]");
    EXPECT_ERROR(run_op("SparseReorder", {}, {I64({2, 1}, {0, 1}), F({2, 1}, {1, 2}), I64({1}, {2})}),
                 "Input values should be a vector but received shape [2,1]");
    EXPECT_ERROR(run_op("SparseReorder", {}, {I64({2, 1}, {0, 1}), v2, I64({}, {2})}),
                 "Input shape should be a vector but received shape []");
    EXPECT_ERROR(run_op("SparseReorder", {}, {I64({2, 1}, {0, 1}), v2, I64({1}, {-2})}), "Dimension -2 must be >= 0");
    EXPECT_ERROR(run_op("SparseReorder", {}, {I64({2, 1}, {0, 1}), v2, I64({1}, {0})}),
                 "Shape would have more than 2**63 - 1 elements");
    EXPECT_ERROR(run_op("SparseReorder", {}, {I64({2, 1}, {0, 1}), F({3}, {1, 2, 3}), I64({1}, {2})}),
                 "indices and values rows (indexing dimension) must match. (indices = 2, values = 3)");
    EXPECT_ERROR(run_op("SparseReorder", {}, {I64({2, 1}, {0, 1}), v2, I64({2}, {2, 2})}), "Shape rank must be SparseTensor rank.");
    auto info = infer("SparseReorder", {}, {{DType::Int64, Shape{-1, 3}}, {DType::Half, Shape{-1}}, {DType::Int64, Shape{3}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,3]"));
    QCOMPARE(info[1].dtype, DType::Half);
    EXPECT_ERROR(infer("SparseReorder", {}, {{DType::Int64, Shape{4}}, {DType::Half, Shape{4}}, {DType::Int64, Shape{3}}}),
                 "Shape must be rank 2 but is rank 1");
  }

  // ---- SparseReshape ---------------------------------------------------------------------------
  void sparse_reshape_documented_example() {
    // TensorFlow's documentation: [2,3,6] to [9,-1].
    auto out = reshape(I64({5, 3}, {0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 2, 3}), {2, 3, 6}, {9, -1});
    QVERIFY(tensor_near(out[0], DType::Int64, {5, 2}, {0, 0, 0, 1, 1, 2, 4, 2, 8, 1}));
    QVERIFY(tensor_near(out[1], DType::Int64, {2}, {9, 4}));
    out = reshape(I64({2, 2}, {0, 2, 1, 1}), {2, 3}, {-1});
    QVERIFY(tensor_near(out[0], DType::Int64, {2, 1}, {2, 4}));
    QVERIFY(tensor_near(out[1], DType::Int64, {1}, {6}));
    // The same shape: the inputs come back.
    const Tensor ind = I64({1, 2}, {1, 1});
    out = run_op("SparseReshape", {}, {ind, I64({2}, {2, 3}), I64({2}, {2, 3})});
    QVERIFY(out[0].shares_buffer_with(ind));
    // Size 0.
    out = reshape(I64({0, 2}, {}), {0, 3}, {3, 0, 5});
    QVERIFY(tensor_near(out[0], DType::Int64, {0, 3}, {}));
    QVERIFY(tensor_near(out[1], DType::Int64, {3}, {3, 0, 5}));
  }
  void sparse_reshape_errors() {
    const Tensor one = I64({1, 2}, {0, 0});
    EXPECT_ERROR(reshape(one, {2, 3}, {-1, -1}), "only one output dimension may be -1, not both 0 and 1");
    EXPECT_ERROR(reshape(one, {2, 3}, {3, -2}), "size 1 must be non-negative, not -2");
    EXPECT_ERROR(reshape(I64({0, 2}, {}), {0, 3}, {-1, 0}),
                 "reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are "
                 "non-zero");
    EXPECT_ERROR(reshape(one, {2, 3}, {4, -1}),
                 "Input to reshape is a SparseTensor with 6 dense values, but the requested shape requires a multiple of "
                 "4. input_shape=[2,3] output_shape=[4,1]");
    EXPECT_ERROR(reshape(one, {2, 3}, {2, 4}),
                 "Input to reshape is a tensor with 6 dense values, but the requested shape has 8. input_shape=[2,3] "
                 "output_shape=[2,4]");
    EXPECT_ERROR(reshape(one, {0, 3}, {3, 0}),
                 "Input tensor has 1 non zero elements but input shape ([0,3]) or output shape ([3,0]) is empty");
    EXPECT_ERROR(reshape(one, {-1, 3}, {3}), "Expected shape dimensions to be non-negative, got -1");
    EXPECT_ERROR(reshape(I64({2}, {0, 0}), {2}, {2}), "Input indices should be a matrix but received shape [2]");
    EXPECT_ERROR(run_op("SparseReshape", {}, {one, I64({}, {2}), I64({1}, {2})}),
                 "Input shape should be a vector but received shape []");
    EXPECT_ERROR(run_op("SparseReshape", {}, {one, I64({2}, {2, 3}), I64({1, 1}, {6})}),
                 "Target shape should be a vector but received shape [1,1]");
    EXPECT_ERROR(reshape(one, {6}, {6, 1}), "input_indices have 2 columns but input_shape has 1 dimensions");
    auto info = infer("SparseReshape", {}, {{DType::Int64, Shape{-1, 3}}, {DType::Int64, Shape{3}}, {DType::Int64, Shape{2}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,2]"));
    QCOMPARE(qshape(info[1].shape), QString("[2]"));
  }

  // ---- gradients -------------------------------------------------------------------------------
  void sparse_gradients_data() {
    QTest::addColumn<QString>("op");
    QTest::newRow("SparseToDense") << QString("SparseToDense");
    QTest::newRow("SparseReorder") << QString("SparseReorder");
  }
  // Numeric checks; SparseToDense's graph needs GatherNd and Range,
  // SparseReorder's StridedSlice, Range, InvertPermutation and GatherV2.
  void sparse_gradients() {
    QFETCH(QString, op);
    Model m;
    std::string y;
    if (op == "SparseToDense") {
      y = m.op("SparseToDense", {m.c("indices", I32({3, 2}, {0, 1, 1, 0, 2, 2})), m.c("shape", I32({2}, {3, 3})),
                                 m.x("values", D({3}, {0.5, -1.5, 2.5})), m.x("default", D({}, {0.25}))},
               {{"Tindices", AttrValue(DType::Int32)}});
    } else {
      const std::string r = m.op("SparseReorder", {m.c("indices", I64({3, 2}, {1, 0, 0, 1, 0, 0})),
                                                   m.x("values", D({3}, {0.5, -1.5, 2.5})), m.c("shape", I64({2}, {2, 2}))});
      y = tensor_name(r, 1);
    }
    CHECK_GRADIENTS_OF(m, y);
  }
  void sparse_gradients_are_tensorflows_graphs() {
    Model d;
    auto ops = gradient_ops(d, d.op("SparseToDense", {d.c("indices", I32({2}, {0, 2})), d.c("shape", I32({1}, {3})),
                                                      d.x("values", D({2}, {1, 2})), d.c("default", D({}, {0}))},
                                    {{"Tindices", AttrValue(DType::Int32)}}),
                            "values");
    for (const char* op : {"GatherNd", "Range", "Rank", "Sum", "Sub", "ZerosLike"}) QVERIFY2(ops.count(op), op);
    Model r;
    const std::string reordered = r.op("SparseReorder", {r.c("indices", I64({2, 1}, {1, 0})), r.x("values", D({2}, {1, 2})),
                                                          r.c("shape", I64({1}, {2}))});
    add_gradients(r.g, {tensor_name(reordered, 1)}, {"values"}, OpRegistry::global());
    ops.clear();
    for (const Node& n : r.g.nodes())
      if (n.name.rfind("gradients/SparseReorder_grad/", 0) == 0) ++ops[n.op];
    for (const char* op : {"StridedSlice", "Range", "SparseReorder", "InvertPermutation", "GatherV2"}) QVERIFY2(ops.count(op), op);
  }
  void sparse_reshape_has_no_gradient() {
    const OpDef& def = op_def("SparseReshape");
    QCOMPARE(def.gradient_kind, GradientKind::None);
    QVERIFY(!def.gradient_note.empty());
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsSparse)
#include "test_ops_sparse.moc"
