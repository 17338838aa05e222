// UnsortedSegmentSum, UnsortedSegmentMax, SparseSegmentSum, SparseSegmentMean
// and SparseSegmentMeanGrad: TensorFlow's documented examples on several
// dtypes, negative ids, empty segments, size-0 tensors, TensorFlow's error
// messages, and the gradients (built from TensorFlow's ops).
#include "test_main.h"
#include <limits>
#include <map>

#include "engine/gradient_ops_gate.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// The documentation's c = [[1,2,3,4], [5,6,7,8], [4,3,2,1]] (unsorted ops)
// and [[1,2,3,4], [-1,-2,-3,-4], [5,6,7,8]] (sparse ops).
Tensor unsorted_c(DType t) { return T(t, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 4, 3, 2, 1}); }
Tensor sparse_c(DType t) { return T(t, {3, 4}, {1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8}); }

const std::vector<DType> kRealTypes = {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int8,
                                       DType::UInt8, DType::Int16, DType::Int32, DType::Int64};
const std::vector<DType> kSignedTypes = {DType::Float, DType::Double, DType::Half, DType::BFloat16,
                                         DType::Int8, DType::Int16, DType::Int32, DType::Int64};
const std::vector<DType> kFloatTypes = {DType::Float, DType::Double, DType::Half, DType::BFloat16};

// The dtype's lowest finite value, as a double.
double lowest(DType t) {
  switch (t) {
    case DType::Float: return std::numeric_limits<float>::lowest();
    case DType::Double: return std::numeric_limits<double>::lowest();
    case DType::Half: return -65504;
    case DType::BFloat16: return static_cast<float>(std::numeric_limits<bfloat16>::lowest());
    case DType::Int8: return -128;
    case DType::UInt8: return 0;
    case DType::Int16: return -32768;
    case DType::Int32: return std::numeric_limits<int32_t>::min();
    default: return static_cast<double>(std::numeric_limits<int64_t>::min());
  }
}

Tensor grad_values(const Shape& s) {
  std::vector<double> v;
  for (int64_t i = 0; i < s.num_elements(); ++i) v.push_back(0.3 * static_cast<double>(i % 7) - 0.8);
  return D(s, v);
}

// The op types add_gradients puts under gradients/<node>_grad/.
std::map<std::string, int> gradient_ops(Model& m, const std::string& y, const std::string& x) {
  add_gradients(m.g, {y}, {x}, OpRegistry::global());
  std::map<std::string, int> ops;
  for (const Node& n : m.g.nodes())
    if (n.name.rfind("gradients/" + y + "_grad/", 0) == 0) ++ops[n.op];
  return ops;
}

}  // namespace

class TestOpsSegment : public QObject {
  Q_OBJECT
 private slots:
  // ---- UnsortedSegmentSum / UnsortedSegmentMax ---------------------------------------------
  void unsorted_segment_sum_documented_example() {
    for (DType t : kRealTypes)
      QVERIFY2(tensor_near(run1("UnsortedSegmentSum", {}, {unsorted_c(t), I32({3}, {0, 1, 0}), I32({}, {2})}), t, {2, 4},
                           {5, 5, 5, 5, 5, 6, 7, 8}),
               dtype_name(t).c_str());
    // int64 ids and num_segments; an empty third segment sums to 0.
    QVERIFY(tensor_near(run1("UnsortedSegmentSum", {}, {unsorted_c(DType::Float), I64({3}, {0, 1, 0}), I64({}, {3})}),
                        DType::Float, {3, 4}, {5, 5, 5, 5, 5, 6, 7, 8, 0, 0, 0, 0}));
  }
  void unsorted_segment_sum_ids_of_any_rank_and_negative_ids() {
    // Negative ids are dropped.
    QVERIFY(tensor_near(run1("UnsortedSegmentSum", {}, {unsorted_c(DType::Int32), I32({3}, {0, -1, 0}), I32({}, {2})}),
                        DType::Int32, {2, 4}, {5, 5, 5, 5, 0, 0, 0, 0}));
    // ids [2,2] over data [2,2,1]: the output is [num_segments, 1].
    QVERIFY(tensor_near(run1("UnsortedSegmentSum", {}, {D({2, 2, 1}, {1, 2, 3, 4}), I32({2, 2}, {0, 1, 1, -1}), I32({}, {3})}),
                        DType::Double, {3, 1}, {1, 5, 0}));
    // A scalar id: all of data is one row.
    QVERIFY(tensor_near(run1("UnsortedSegmentSum", {}, {D({2}, {7, 8}), I32({}, {1}), I32({}, {3})}), DType::Double, {3, 2},
                        {0, 0, 7, 8, 0, 0}));
    // ids in any order.
    QVERIFY(tensor_near(run1("UnsortedSegmentSum", {}, {D({4}, {1, 2, 3, 4}), I32({4}, {2, 0, 2, 1}), I32({}, {3})}),
                        DType::Double, {3}, {2, 4, 4}));
  }
  void unsorted_segment_max_documented_example() {
    for (DType t : kRealTypes)
      QVERIFY2(tensor_near(run1("UnsortedSegmentMax", {}, {unsorted_c(t), I32({3}, {0, 1, 0}), I32({}, {2})}), t, {2, 4},
                           {4, 3, 3, 4, 5, 6, 7, 8}),
               dtype_name(t).c_str());
  }
  void unsorted_segment_max_empty_segments_hold_lowest() {
    for (DType t : kSignedTypes) {
      const double lo = lowest(t);
      QVERIFY2(tensor_near(run1("UnsortedSegmentMax", {}, {T(t, {2}, {-3, 5}), I32({2}, {0, -1}), I32({}, {3})}), t, {3},
                           {-3, lo, lo}, 0),
               dtype_name(t).c_str());
    }
    QVERIFY(tensor_near(run1("UnsortedSegmentMax", {}, {T(DType::UInt8, {1}, {9}), I32({1}, {1}), I32({}, {2})}),
                        DType::UInt8, {2}, {0, 9}, 0));
  }
  void unsorted_segment_size_zero() {
    // No data rows: every segment keeps its initial value.
    QVERIFY(tensor_near(run1("UnsortedSegmentSum", {}, {F({0, 2}, {}), I32({0}, {}), I32({}, {2})}), DType::Float, {2, 2},
                        {0, 0, 0, 0}));
    QVERIFY(tensor_near(run1("UnsortedSegmentMax", {}, {I32({0, 2}, {}), I32({0}, {}), I32({}, {1})}), DType::Int32, {1, 2},
                        {lowest(DType::Int32), lowest(DType::Int32)}, 0));
    // No segments: every id must be dropped.
    QVERIFY(tensor_near(run1("UnsortedSegmentSum", {}, {F({2}, {1, 2}), I32({2}, {-1, -1}), I32({}, {0})}), DType::Float,
                        {0}, {}));
    // TensorFlow checks no ids when data is empty.
    QVERIFY(tensor_near(run1("UnsortedSegmentSum", {}, {F({2, 0}, {}), I32({2}, {0, 7}), I32({}, {3})}), DType::Float, {3, 0},
                        {}));
  }
  void unsorted_segment_errors() {
    for (const char* op : {"UnsortedSegmentSum", "UnsortedSegmentMax"}) {
      EXPECT_ERROR(run1(op, {}, {F({4}, {1, 2, 3, 4}), I32({4}, {0, 1, 5, 2}), I32({}, {4})}),
                   "segment_ids[2] = 5 is out of range [0, 4)");
      EXPECT_ERROR(run1(op, {}, {F({2, 2}, {1, 2, 3, 4}), I64({2, 2}, {0, 1, 1, 9}), I32({}, {3})}),
                   "segment_ids[1,1] = 9 is out of range [0, 3)");
      EXPECT_ERROR(run1(op, {}, {F({2}, {1, 2}), I32({2}, {0, 1}), I32({}, {-1})}),
                   "Input num_segments == -1 must not be negative.");
      EXPECT_ERROR(run1(op, {}, {F({2}, {1, 2}), I32({2}, {0, 1}), I32({1}, {2})}),
                   "num_segments should be a scalar, not shape [1]");
      EXPECT_ERROR(run1(op, {}, {F({3, 2}, {1, 2, 3, 4, 5, 6}), I32({2}, {0, 1}), I32({}, {2})}),
                   "data.shape = [3,2] does not start with segment_ids.shape = [2]");
      // A size no tensor can have is refused before anything is allocated.
      EXPECT_ERROR(run1(op, {}, {F({1, 4}, {1, 2, 3, 4}), I32({1}, {0}), I64({}, {int64_t{1} << 62})}),
                   "more elements than int64 can count");
    }
    EXPECT_ERROR(run1("UnsortedSegmentMax", {}, {B({1}, {true}), I32({1}, {0}), I32({}, {1})}),
                 "UnsortedSegmentMax: unsupported dtype bool");
  }
  void unsorted_segment_shape_function() {
    const Tensor n = I32({}, {3});
    auto info = infer("UnsortedSegmentSum", {}, {{DType::Float, Shape{5, 4}}, {DType::Int32, Shape{5}}, {DType::Int32, Shape{}}},
                      {nullptr, nullptr, &n});
    QCOMPARE(qshape(info[0].shape), QString("[3,4]"));
    info = infer("UnsortedSegmentMax", {}, {{DType::Float, Shape{-1, 2, 4}}, {DType::Int32, Shape{5, -1}}, {DType::Int32, Shape{}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,4]"));
    EXPECT_ERROR(infer("UnsortedSegmentSum", {}, {{DType::Float, Shape{5, 4}}, {DType::Int32, Shape{4}}, {DType::Int32, Shape{}}}),
                 "Dimensions must be equal, but are 5 and 4");
    const Tensor negative = I32({}, {-2});
    EXPECT_ERROR(infer("UnsortedSegmentSum", {}, {{DType::Float, Shape{5}}, {DType::Int32, Shape{5}}, {DType::Int32, Shape{}}},
                       {nullptr, nullptr, &negative}),
                 "must be non-negative but is -2");
  }

  // ---- SparseSegmentSum / SparseSegmentMean -------------------------------------------------
  void sparse_segment_sum_documented_examples() {
    for (DType t : kSignedTypes) {
      const std::string name = dtype_name(t);
      const char* n = name.c_str();
      QVERIFY2(tensor_near(run1("SparseSegmentSum", {}, {sparse_c(t), I32({2}, {0, 1}), I32({2}, {0, 0})}), t, {1, 4},
                           {0, 0, 0, 0}),
               n);
      QVERIFY2(tensor_near(run1("SparseSegmentSum", {}, {sparse_c(t), I32({2}, {0, 1}), I32({2}, {0, 1})}), t, {2, 4},
                           {1, 2, 3, 4, -1, -2, -3, -4}),
               n);
      QVERIFY2(tensor_near(run1("SparseSegmentSum", {}, {sparse_c(t), I32({2}, {0, 2}), I32({2}, {0, 1})}), t, {2, 4},
                           {1, 2, 3, 4, 5, 6, 7, 8}),
               n);
      QVERIFY2(tensor_near(run1("SparseSegmentSum", {}, {sparse_c(t), I32({3}, {0, 1, 2}), I32({3}, {0, 0, 1})}), t, {2, 4},
                           {0, 0, 0, 0, 5, 6, 7, 8}),
               n);
    }
    QVERIFY(tensor_near(run1("SparseSegmentSum", {}, {T(DType::UInt8, {2}, {200, 3}), I64({3}, {0, 1, 1}), I64({3}, {0, 0, 1})}),
                        DType::UInt8, {2}, {203, 3}));
  }
  void sparse_segment_gaps_and_repeats() {
    // Segment 1 is empty: 0. Indices may repeat and come in any order.
    QVERIFY(tensor_near(run1("SparseSegmentSum", {}, {sparse_c(DType::Float), I32({3}, {2, 0, 2}), I32({3}, {0, 2, 2})}),
                        DType::Float, {3, 4}, {5, 6, 7, 8, 0, 0, 0, 0, 6, 8, 10, 12}));
    QVERIFY(tensor_near(run1("SparseSegmentMean", {}, {sparse_c(DType::Double), I32({2}, {0, 2}), I32({2}, {1, 3})}),
                        DType::Double, {4, 4}, {0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8}));
  }
  void sparse_segment_mean_documented_examples() {
    for (DType t : kFloatTypes) {
      const std::string name = dtype_name(t);
      const char* n = name.c_str();
      QVERIFY2(tensor_near(run1("SparseSegmentMean", {}, {sparse_c(t), I32({2}, {0, 2}), I32({2}, {0, 0})}), t, {1, 4},
                           {3, 4, 5, 6}),
               n);
      QVERIFY2(tensor_near(run1("SparseSegmentMean", {}, {sparse_c(t), I32({3}, {0, 1, 2}), I32({3}, {0, 0, 1})}), t, {2, 4},
                           {0, 0, 0, 0, 5, 6, 7, 8}),
               n);
      // An empty segment is 0, not NaN.
      QVERIFY2(tensor_near(run1("SparseSegmentMean", {}, {sparse_c(t), I32({1}, {2}), I32({1}, {1})}), t, {2, 4},
                           {0, 0, 0, 0, 5, 6, 7, 8}),
               n);
    }
    // Twelve rows in one segment (TensorFlow divides by the count there too).
    std::vector<int32_t> twelve(12, 1), zeros(12, 0);
    QVERIFY(tensor_near(run1("SparseSegmentMean", {}, {D({2}, {0.5, 3}), I32({12}, twelve), I32({12}, zeros)}), DType::Double,
                        {1}, {3}));
    EXPECT_ERROR(run1("SparseSegmentMean", {}, {I32({2}, {1, 2}), I32({1}, {0}), I32({1}, {0})}),
                 "SparseSegmentMean: unsupported dtype int32");
  }
  void sparse_segment_size_zero() {
    QVERIFY(tensor_near(run1("SparseSegmentSum", {}, {sparse_c(DType::Float), I32({0}, {}), I32({0}, {})}), DType::Float,
                        {0, 4}, {}));
    QVERIFY(tensor_near(run1("SparseSegmentMean", {}, {F({2, 0}, {}), I32({2}, {0, 1}), I32({2}, {0, 1})}), DType::Float,
                        {2, 0}, {}));
  }
  void sparse_segment_errors() {
    const Tensor c = sparse_c(DType::Float);
    for (const char* op : {"SparseSegmentSum", "SparseSegmentMean"}) {
      EXPECT_ERROR(run1(op, {}, {c, I32({1, 2}, {0, 1}), I32({2}, {0, 0})}), "indices should be a vector.");
      EXPECT_ERROR(run1(op, {}, {c, I32({2}, {0, 1}), I32({1, 2}, {0, 0})}), "segment_ids should be a vector.");
      EXPECT_ERROR(run1(op, {}, {c, I32({2}, {0, 1}), I32({3}, {0, 0, 0})}), "segment_ids and indices should have same size.");
      EXPECT_ERROR(run1(op, {}, {c, I32({2}, {0, 1}), I32({2}, {1, 0})}), "segment ids are not increasing");
      EXPECT_ERROR(run1(op, {}, {c, I32({2}, {0, 1}), I32({2}, {-1, 0})}),
                   "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted.");
      EXPECT_ERROR(run1(op, {}, {c, I32({2}, {0, 1}), I32({2}, {-3, -2})}), "segment ids must be >= 0");
      EXPECT_ERROR(run1(op, {}, {c, I32({3}, {0, 3, 1}), I32({3}, {0, 0, 1})}), "Bad: indices[1] == 3 out of range [0, 3)");
      EXPECT_ERROR(run1(op, {}, {c, I32({1}, {-1}), I32({1}, {0})}), "Bad: indices[0] == -1 out of range [0, 3)");
      EXPECT_ERROR(run1(op, {}, {F({}, {1}), I32({1}, {0}), I32({1}, {0})}), "Shape must be at least rank 1 but is rank 0");
    }
  }
  void sparse_segment_shape_function() {
    const Tensor ids = I32({3}, {0, 0, 4});
    auto info = infer("SparseSegmentSum", {}, {{DType::Float, Shape{7, 2, 3}}, {DType::Int32, Shape{3}}, {DType::Int32, Shape{3}}},
                      {nullptr, nullptr, &ids});
    QCOMPARE(qshape(info[0].shape), QString("[5,2,3]"));
    info = infer("SparseSegmentMean", {}, {{DType::Float, Shape{7, 2}}, {DType::Int32, Shape{-1}}, {DType::Int32, Shape{3}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,2]"));
    EXPECT_ERROR(infer("SparseSegmentSum", {}, {{DType::Float, Shape{7}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{3}}}),
                 "Dimensions must be equal, but are 2 and 3");
    EXPECT_ERROR(infer("SparseSegmentSum", {}, {{DType::Float, Shape{7}}, {DType::Int32, Shape{2, 1}}, {DType::Int32, Shape{2}}}),
                 "Shape must be rank 1 but is rank 2");
  }

  // ---- SparseSegmentMeanGrad ------------------------------------------------------------------
  void sparse_segment_mean_grad() {
    // output[indices[i]] += grad[ids[i]] / |segment ids[i]|; row 3 gets nothing.
    for (DType t : kFloatTypes)
      QVERIFY2(tensor_near(run1("SparseSegmentMeanGrad", {},
                                {T(t, {3, 2}, {1, 2, 3, 4, 5, 6}), I32({4}, {0, 2, 1, 1}), I32({4}, {0, 0, 2, 2}), I32({}, {4})}),
                           t, {4, 2}, {0.5, 1, 5, 6, 0.5, 1, 0, 0}),
               dtype_name(t).c_str());
    QVERIFY(tensor_near(run1("SparseSegmentMeanGrad", {}, {F({2}, {3, 6}), I64({0}, {}), I64({0}, {}), I32({}, {3})}),
                        DType::Float, {3}, {0, 0, 0}));
    const Tensor g = F({3}, {1, 2, 3});
    EXPECT_ERROR(run1("SparseSegmentMeanGrad", {}, {g, I32({2}, {0, 4}), I32({2}, {0, 1}), I32({}, {4})}),
                 "Index 4 out of range [0, 4).");
    EXPECT_ERROR(run1("SparseSegmentMeanGrad", {}, {g, I32({2}, {0, 1}), I32({2}, {-1, 1}), I32({}, {4})}),
                 "Segment id -1 out of range [0, 3).");
    EXPECT_ERROR(run1("SparseSegmentMeanGrad", {}, {g, I32({2}, {0, 1}), I32({2}, {0, 3}), I32({}, {4})}),
                 "Invalid number of segments");
    EXPECT_ERROR(run1("SparseSegmentMeanGrad", {}, {g, I32({2}, {0, 1}), I32({2}, {0, 1}), I32({1}, {4})}),
                 "output_dim0 should be a scalar.");
    EXPECT_ERROR(run1("SparseSegmentMeanGrad", {}, {g, I32({2}, {0, 1}), I32({2}, {0, 1}), I32({}, {-1})}),
                 "Cannot specify a negative value for output_dim0");
    const Tensor four = I32({}, {4});
    auto info = infer("SparseSegmentMeanGrad", {},
                      {{DType::Float, Shape{3, 5}}, {DType::Int32, Shape{6}}, {DType::Int32, Shape{6}}, {DType::Int32, Shape{}}},
                      {nullptr, nullptr, nullptr, &four});
    QCOMPARE(qshape(info[0].shape), QString("[4,5]"));
  }

  // ---- gradients --------------------------------------------------------------------------------
  void segment_gradients_data() {
    QTest::addColumn<QString>("op");
    for (const char* op : {"UnsortedSegmentSum", "UnsortedSegmentMax", "SparseSegmentSum", "SparseSegmentMean"})
      QTest::newRow(op) << QString(op);
  }
  // Numeric checks; their graphs need GatherV2, SelectV2, LogicalAnd, Equal
  // and StridedSlice from the array and math families.
  void segment_gradients() {
    QFETCH(QString, op);
    Model m;
    std::string y;
    const Tensor data = D({4, 2}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9, 2.0, -0.6});
    if (op == "UnsortedSegmentSum")
      y = m.op("UnsortedSegmentSum", {m.x("data", data), m.c("ids", I32({4}, {2, -1, 0, 2})), m.c("n", I32({}, {4}))});
    else if (op == "UnsortedSegmentMax")  // no ties, one dropped row (an empty segment's lowest() would swamp the loss)
      y = m.op("UnsortedSegmentMax", {m.x("data", data), m.c("ids", I64({4}, {1, -1, 0, 1})), m.c("n", I32({}, {2}))});
    else
      y = m.op(op.toStdString(), {m.x("data", data), m.c("indices", I32({5}, {3, 0, 3, 1, 2})), m.c("ids", I32({5}, {0, 0, 2, 2, 2}))});
    CHECK_GRADIENTS_OF(m, y);
  }
  void segment_gradients_are_tensorflows_graphs() {
    const Tensor data = grad_values({4, 2});
    Model sum;
    auto ops = gradient_ops(sum, sum.op("UnsortedSegmentSum", {sum.x("data", data), sum.c("ids", I32({4}, {0, 1, -1, 0})),
                                                                sum.c("n", I32({}, {2}))}),
                            "data");
    for (const char* op : {"Maximum", "ZerosLike", "GatherV2", "GreaterEqual", "Rank", "Fill", "ConcatV2", "Reshape",
                           "LogicalAnd", "SelectV2"})
      QVERIFY2(ops.count(op), op);
    Model max;
    ops = gradient_ops(max, max.op("UnsortedSegmentMax", {max.x("data", data), max.c("ids", I32({4}, {0, 1, -1, 0})),
                                                           max.c("n", I32({}, {2}))}),
                       "data");
    for (const char* op : {"Equal", "Cast", "UnsortedSegmentSum", "RealDiv", "SelectV2"}) QVERIFY2(ops.count(op), op);
    QCOMPARE(ops["GatherV2"], 2);
    Model mean;
    ops = gradient_ops(mean, mean.op("SparseSegmentMean", {mean.x("data", data), mean.c("i", I32({2}, {0, 1})),
                                                            mean.c("s", I32({2}, {0, 0}))}),
                       "data");
    for (const char* op : {"Shape", "StridedSlice", "SparseSegmentMeanGrad"}) QVERIFY2(ops.count(op), op);
    Model ssum;
    ops = gradient_ops(ssum, ssum.op("SparseSegmentSum", {ssum.x("data", data), ssum.c("i", I32({2}, {0, 1})),
                                                          ssum.c("s", I32({2}, {0, 0}))}),
                       "data");
    for (const char* op : {"Shape", "StridedSlice", "GatherV2", "UnsortedSegmentSum"}) QVERIFY2(ops.count(op), op);
  }
  void sparse_segment_mean_grad_has_no_gradient() {
    const OpDef& def = op_def("SparseSegmentMeanGrad");
    QCOMPARE(def.gradient_kind, GradientKind::None);
    QVERIFY(!def.gradient_note.empty());
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsSegment)
#include "test_ops_segment.moc"
