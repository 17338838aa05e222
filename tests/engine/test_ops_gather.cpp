// Indexing ops: Gather, GatherV2 (axis, batch_dims), GatherNd, ScatterNd and
// OneHot, with the examples of TensorFlow's documentation, index range errors
// and their messages.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

// params = [[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]]
Tensor params(DType t) { return T(t, {4, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}); }

Tensor gather_v2(const Tensor& p, const Tensor& idx, int64_t axis, int64_t batch_dims = 0) {
  return run1("GatherV2", {{"batch_dims", AttrValue(batch_dims)}}, {p, idx, I64({}, {axis})});
}

}  // namespace

class TestOpsGather : public QObject {
  Q_OBJECT
 private slots:
  void gather() {
    for (DType t : {DType::Float, DType::Half, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int64}) {
      QVERIFY(tensor_near(run1("Gather", {}, {params(t), I32({2}, {3, 1})}), t, {2, 3}, {30, 31, 32, 10, 11, 12}));
      QVERIFY(tensor_near(gather_v2(params(t), I64({2}, {3, 1}), 0), t, {2, 3}, {30, 31, 32, 10, 11, 12}));
      QVERIFY(tensor_near(gather_v2(params(t), I32({2}, {2, 0}), 1), t, {4, 2}, {2, 0, 12, 10, 22, 20, 32, 30}));
      QVERIFY(tensor_near(gather_v2(params(t), I32({2}, {2, 0}), -1), t, {4, 2}, {2, 0, 12, 10, 22, 20, 32, 30}));
    }
    // tf.gather([0, 1, 2, 3, 4, 5], 3) = 3; indices [[2, 0], [2, 5]] keep their shape.
    const Tensor v = I32({6}, {0, 1, 2, 3, 4, 5});
    QVERIFY(tensor_near(run1("Gather", {}, {v, I32({}, {3})}), DType::Int32, {}, {3}));
    QVERIFY(tensor_near(run1("Gather", {}, {v, I32({2, 2}, {2, 0, 2, 5})}), DType::Int32, {2, 2}, {2, 0, 2, 5}));
    QVERIFY(tensor_near(run1("Gather", {}, {v, I32({0}, {})}), DType::Int32, {0}, {}));
    QVERIFY(tensor_near(run1("Gather", {}, {B({3}, {true, false, true}), I32({2}, {1, 2})}), DType::Bool, {2}, {0, 1}));
    QCOMPARE(run1("Gather", {}, {S({3}, {"a", "b", "c"}), I64({3}, {2, 2, 0})}).strings(),
             (std::vector<std::string>{"c", "c", "a"}));
    EXPECT_ERROR(run1("Gather", {}, {v, I32({2}, {1, 7})}), "indices[1] = 7 is not in [0, 6)");
    EXPECT_ERROR(run1("Gather", {}, {params(DType::Float), I32({2, 2}, {0, 1, -1, 2})}), "indices[1,0] = -1 is not in [0, 4)");
    EXPECT_ERROR(run1("Gather", {}, {v, I32({}, {6})}), "indices = 6 is not in [0, 6)");
    EXPECT_ERROR(gather_v2(params(DType::Float), I32({1}, {0}), 2), "Expected axis in the range [-2, 2), but got 2");
    EXPECT_ERROR(run1("Gather", {}, {F({}, {1}), I32({1}, {0})}), "params must be at least 1 dimensional");
  }

  void gather_batch_dims() {
    // batch_dims = 1: result[i, j] = params[i, indices[i, j]].
    const Tensor p = T(DType::Int16, {2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor idx = I32({2, 2}, {2, 0, 1, 1});
    QVERIFY(tensor_near(gather_v2(p, idx, 1, 1), DType::Int16, {2, 2}, {3, 1, 5, 5}));
    QVERIFY(tensor_near(gather_v2(p, idx, 1, -1), DType::Int16, {2, 2}, {3, 1, 5, 5}));
    // batch_dims = 1, axis 2 on [2, 2, 3]: result[b, i, j] = params[b, i, indices[b, j]].
    const Tensor p3 = T(DType::Float, {2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    QVERIFY(tensor_near(gather_v2(p3, I32({2, 1}, {2, 0}), 2, 1), DType::Float, {2, 2, 1}, {2, 5, 6, 9}));
    EXPECT_ERROR(gather_v2(p, idx, 1, 3), "Expected batch_dims in the range [-2, 2], but got 3");
    EXPECT_ERROR(gather_v2(p, idx, 0, 1), "batch_dims (1) must be less than or equal to axis (0).");
    EXPECT_ERROR(gather_v2(p, I32({3, 1}, {0, 0, 0}), 1, 1), "params.shape[0]: 2 should be equal to indices.shape[0]: 3");
    EXPECT_ERROR(gather_v2(p, I32({2, 1}, {0, 3}), 1, 1), "indices[1,0] = 3 is not in [0, 3)");
  }

  void gather_shape_fn() {
    Tensor axis = I32({}, {1});
    auto info = infer("GatherV2", {}, {{DType::Float, Shape{4, -1, 5}}, {DType::Int32, Shape{2, 3}}, {DType::Int32, Shape{}}},
                      {nullptr, nullptr, &axis});
    QCOMPARE(qshape(info[0].shape), QString("[4,2,3,5]"));
    info = infer("GatherV2", {}, {{DType::Float, Shape{4, -1, 5}}, {DType::Int32, Shape{2, 3}}, {DType::Int32, Shape{}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,?,?,?]"));
    info = infer("Gather", {}, {{DType::Float, Shape{4, 5}}, {DType::Int32, Shape{-1}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,5]"));
    Tensor far = I32({}, {3});
    EXPECT_ERROR(infer("GatherV2", {}, {{DType::Float, Shape{4, 5}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{}}},
                       {nullptr, nullptr, &far}),
                 "Shape must be at least rank 4 but is rank 2");
  }

  void gather_nd() {
    // TensorFlow's tf.gather_nd examples, on strings.
    const Tensor p = S({2, 2}, {"a", "b", "c", "d"});
    QCOMPARE(run1("GatherNd", {}, {p, I32({2, 2}, {0, 0, 1, 1})}).strings(), (std::vector<std::string>{"a", "d"}));
    QCOMPARE(run1("GatherNd", {}, {p, I32({2, 1}, {1, 0})}).strings(), (std::vector<std::string>{"c", "d", "a", "b"}));
    const Tensor p3 = S({2, 2, 2}, {"a0", "b0", "c0", "d0", "a1", "b1", "c1", "d1"});
    Tensor out = run1("GatherNd", {}, {p3, I32({1, 1}, {1})});
    QCOMPARE(qshape(out.shape()), QString("[1,2,2]"));
    QCOMPARE(out.strings(), (std::vector<std::string>{"a1", "b1", "c1", "d1"}));
    QCOMPARE(run1("GatherNd", {}, {p3, I32({2, 2}, {0, 1, 1, 0})}).strings(),
             (std::vector<std::string>{"c0", "d0", "a1", "b1"}));
    QCOMPARE(run1("GatherNd", {}, {p3, I64({2, 3}, {0, 0, 1, 1, 0, 1})}).strings(), (std::vector<std::string>{"b0", "b1"}));
    out = run1("GatherNd", {}, {p, I32({2, 1, 2}, {0, 0, 0, 1})});
    QCOMPARE(qshape(out.shape()), QString("[2,1]"));
    QCOMPARE(out.strings(), (std::vector<std::string>{"a", "b"}));
    // A rank-1 index picks one element: params.T of [[-8,-1,-2,-3,-7,-5],[8,1,2,3,7,5]], index [4, 1] = 7.
    for (DType t : {DType::Float, DType::Half, DType::Int32, DType::Int8}) {
      const Tensor q = T(t, {6, 2}, {-8, 8, -1, 1, -2, 2, -3, 3, -7, 7, -5, 5});
      QVERIFY(tensor_near(run1("GatherNd", {}, {q, I32({2}, {4, 1})}), t, {}, {7}));
      QVERIFY(tensor_near(run1("GatherNd", {}, {q, I32({1}, {4})}), t, {2}, {-7, 7}));
    }
    QVERIFY(tensor_near(run1("GatherNd", {}, {F({0, 3}, {}), I32({0, 2}, {})}), DType::Float, {0}, {}));
    EXPECT_ERROR(run1("GatherNd", {}, {F({5}, {1, 2, 3, 4, 5}), I32({2, 1}, {0, 5})}),
                 "indices[1] = [5] does not index into param shape [5]");
    EXPECT_ERROR(run1("GatherNd", {}, {F({2, 3}, {1, 2, 3, 4, 5, 6}), I32({1, 2, 2}, {0, 0, 1, 3})}),
                 "indices[0,1] = [1, 3] does not index into param shape [2,3]");
    EXPECT_ERROR(run1("GatherNd", {}, {F({0, 3}, {}), I32({1, 2}, {0, 0})}),
                 "Requested more than 0 entries, but params is empty.  Params shape: [0,3]");
    EXPECT_ERROR(run1("GatherNd", {}, {F({2}, {1, 2}), I32({1, 3}, {0, 0, 0})}),
                 "index innermost dimension length must be <= params rank; saw: 3 vs. 1");
    // bad_indices_policy IGNORE gives zeros for a bad index.
    QVERIFY(tensor_near(run1("GatherNd", {{"bad_indices_policy", "IGNORE"}}, {F({3}, {1, 2, 3}), I32({2, 1}, {2, 9})}),
                        DType::Float, {2}, {3, 0}));
    EXPECT_ERROR(run1("GatherNd", {{"bad_indices_policy", "SKIP"}}, {F({3}, {1, 2, 3}), I32({1, 1}, {0})}),
                 "Unknown bad indices handling attribute: SKIP");
    auto info = infer("GatherNd", {}, {{DType::Float, Shape{4, 5, 6}}, {DType::Int32, Shape{-1, 2}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,6]"));
    EXPECT_ERROR(infer("GatherNd", {}, {{DType::Float, Shape{4}}, {DType::Int32, Shape{3, 2}}}),
                 "indices.shape[-1] must be <= params.rank, but saw indices shape: [3,2] and params shape: [4]");
  }

  void scatter_nd() {
    // tf.scatter_nd([[4], [3], [1], [7]], [9, 10, 11, 12], [8]) = [0, 11, 0, 10, 9, 0, 0, 12]
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int32, DType::UInt8}) {
      QVERIFY(tensor_near(run1("ScatterNd", {}, {I32({4, 1}, {4, 3, 1, 7}), T(t, {4}, {9, 10, 11, 12}), I32({1}, {8})}), t,
                          {8}, {0, 11, 0, 10, 9, 0, 0, 12}));
    }
    // Slices: rows 0 and 2 of a [4, 4, 4] output; duplicates add up.
    std::vector<double> upd(32);
    for (int i = 0; i < 32; ++i) upd[static_cast<size_t>(i)] = i < 16 ? 5 + i / 4 : 5 + (i - 16) / 4;
    Tensor out = run1("ScatterNd", {}, {I64({2, 1}, {0, 2}), T(DType::Int64, {2, 4, 4}, upd), I64({3}, {4, 4, 4})});
    std::vector<double> want(64, 0);
    for (int i = 0; i < 16; ++i) want[static_cast<size_t>(i)] = want[static_cast<size_t>(32 + i)] = 5 + i / 4;
    QVERIFY(tensor_near(out, DType::Int64, {4, 4, 4}, want));
    QVERIFY(tensor_near(run1("ScatterNd", {}, {I32({3, 1}, {1, 1, 0}), F({3}, {1, 2, 4}), I32({1}, {3})}), DType::Float, {3},
                        {4, 3, 0}));
    QVERIFY(tensor_near(run1("ScatterNd", {}, {I32({2, 2}, {0, 1, 0, 1}), B({2}, {true, false}), I32({2}, {1, 2})}),
                        DType::Bool, {1, 2}, {0, 1}));
    QCOMPARE(run1("ScatterNd", {}, {I32({2, 1}, {1, 1}), S({2}, {"x", "y"}), I32({1}, {2})}).strings(),
             (std::vector<std::string>{"", "xy"}));
    EXPECT_ERROR(run1("ScatterNd", {}, {I32({3, 1}, {0, 1, 99}), F({3, 3}, std::vector<float>(9, 1)), I32({2}, {5, 3})}),
                 "indices[2] = [99] does not index into shape [5,3]");
    EXPECT_ERROR(run1("ScatterNd", {}, {I32({1, 3, 1}, {0, 1, 2}), F({3, 3}, std::vector<float>(9, 1)), I32({2}, {5, 3})}),
                 "Dimensions [0,2) of indices[shape=[1,3,1]] must match dimensions [0,2) of updates[shape=[3,3]]");
    EXPECT_ERROR(run1("ScatterNd", {}, {I32({2, 1}, {0, 1}), F({2, 4}, std::vector<float>(8, 1)), I32({2}, {5, 3})}),
                 "Dimensions [1,2) of input[shape=[5,3]] must match dimensions [1,2) of updates[shape=[2,4]]");
    EXPECT_ERROR(run1("ScatterNd", {}, {I32({1, 1}, {0}), F({1}, {1}), I32({1}, {-3})}), "Dimension -3 must be >= 0");
    EXPECT_ERROR(run1("ScatterNd", {}, {I32({1, 1}, {0}), F({1}, {1}), I64({3}, {1LL << 31, 1LL << 31, 1LL << 31})}),
                 "int64");
    QVERIFY(tensor_near(run1("ScatterNd", {{"bad_indices_policy", "IGNORE"}},
                             {I32({2, 1}, {1, 5}), F({2}, {7, 8}), I32({1}, {3})}),
                        DType::Float, {3}, {0, 7, 0}));
    Tensor shape = I32({2}, {5, 3});
    auto info = infer("ScatterNd", {}, {{DType::Int32, Shape{-1, 1}}, {DType::Float, Shape{-1, 3}}, {DType::Int32, Shape{2}}},
                      {nullptr, nullptr, &shape});
    QCOMPARE(qshape(info[0].shape), QString("[5,3]"));
    EXPECT_ERROR(infer("ScatterNd", {}, {{DType::Int32, Shape{2, 1}}, {DType::Float, Shape{2, 4}}, {DType::Int32, Shape{2}}},
                       {nullptr, nullptr, &shape}),
                 "Dimensions [1,2) of input[shape=[5,3]] must match dimensions [1,2) of updates[shape=[2,4]]");
  }

  void one_hot() {
    // indices [0, 2, -1, 1], depth 3, on 5, off 0: axis -1, and axis 0.
    const Tensor idx = I64({4}, {0, 2, -1, 1});
    for (DType t : {DType::Float, DType::Half, DType::BFloat16, DType::Int32, DType::Int8}) {
      QVERIFY(tensor_near(run1("OneHot", {}, {idx, I32({}, {3}), T(t, {}, {5}), T(t, {}, {0})}), t, {4, 3},
                          {5, 0, 0, 0, 0, 5, 0, 0, 0, 0, 5, 0}));
      QVERIFY(tensor_near(run1("OneHot", {{"axis", 0}}, {idx, I32({}, {3}), T(t, {}, {5}), T(t, {}, {0})}), t, {3, 4},
                          {5, 0, 0, 0, 0, 0, 0, 5, 0, 5, 0, 0}));
    }
    // indices [[0, 2], [1, -1]], depth 3, batch of one-hot rows; an index >= depth is all off too.
    QVERIFY(tensor_near(run1("OneHot", {}, {I32({2, 2}, {0, 2, 1, -1}), I32({}, {3}), F({}, {1}), F({}, {0})}), DType::Float,
                        {2, 2, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}));
    QVERIFY(tensor_near(run1("OneHot", {{"axis", 1}}, {T(DType::UInt8, {2}, {1, 7}), I32({}, {2}), B({}, {true}), B({}, {false})}),
                        DType::Bool, {2, 2}, {0, 1, 0, 0}));
    QCOMPARE(run1("OneHot", {}, {I32({2}, {1, 0}), I32({}, {2}), S({}, {"on"}), S({}, {"off"})}).strings(),
             (std::vector<std::string>{"off", "on", "on", "off"}));
    QVERIFY(tensor_near(run1("OneHot", {}, {I32({2}, {0, 1}), I32({}, {0}), F({}, {1}), F({}, {0})}), DType::Float, {2, 0}, {}));
    EXPECT_ERROR(run1("OneHot", {}, {idx, I32({}, {-1}), F({}, {1}), F({}, {0})}), "depth must be non-negative, got: -1");
    EXPECT_ERROR(run1("OneHot", {{"axis", 2}}, {idx, I32({}, {3}), F({}, {1}), F({}, {0})}),
                 "Expected axis to be -1 or between [0, 2).  But received: 2");
    EXPECT_ERROR(run1("OneHot", {}, {idx, I32({1}, {3}), F({}, {1}), F({}, {0})}), "depth must be a scalar, but got: [1]");
    EXPECT_ERROR(run1("OneHot", {}, {idx, I32({}, {3}), F({1}, {1}), F({}, {0})}), "on_value must be a scalar, but got: [1]");
    Tensor depth = I32({}, {4});
    auto info = infer("OneHot", {{"axis", 1}}, {{DType::Int64, Shape{2, -1}}, {DType::Int32, Shape{}}, {DType::Float, Shape{}},
                                                {DType::Float, Shape{}}},
                      {nullptr, &depth, nullptr, nullptr});
    QCOMPARE(qshape(info[0].shape), QString("[2,4,?]"));
    EXPECT_ERROR(infer("OneHot", {{"axis", -2}}, {{DType::Int64, Shape{2}}, {DType::Int32, Shape{}}, {DType::Float, Shape{}},
                                                   {DType::Float, Shape{}}}),
                 "axis must be >= -1");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsGather)
#include "test_ops_gather.moc"
