// BatchMatMul and BatchMatMulV2 against TensorFlow's documented semantics:
// products of the last two dimensions, adjoints, V2's broadcasting of the
// batch dimensions, size-0 batches, TF's error texts, the shape functions and
// the gradients (math_grad._BatchMatMulV2, summing over broadcast batches).
#include "gradient_check.h"
#include "engine/op_cases/op_case.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// A reference product per batch, by definition.
std::vector<double> reference(const std::vector<double>& x, const std::vector<double>& y, int64_t batches,
                              int64_t m, int64_t k, int64_t n, bool broadcast_x, bool broadcast_y) {
  std::vector<double> out(static_cast<size_t>(batches * m * n), 0.0);
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += x[static_cast<size_t>((broadcast_x ? 0 : b) * m * k + i * k + p)] *
                 y[static_cast<size_t>((broadcast_y ? 0 : b) * k * n + p * n + j)];
        out[static_cast<size_t>(b * m * n + i * n + j)] = acc;
      }
  return out;
}

std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) v[static_cast<size_t>(i)] = t.data<float>()[i];
  return v;
}

}  // namespace

class TestOpsBatchMatMul : public QObject {
  Q_OBJECT
 private slots:
  void products_per_batch() {
    const Tensor x = gen(DType::Float, {2, 2, 3}), y = gen(DType::Float, {2, 3, 4}, -2, 2, 7);
    for (const char* op : {"BatchMatMul", "BatchMatMulV2"}) {
      Tensor out = run1(op, {}, {x, y});
      QVERIFY(tensor_near(out, DType::Float, {2, 2, 4}, reference(values_of(x), values_of(y), 2, 2, 3, 4, false, false)));
    }
  }
  void adjoints_transpose_each_matrix() {
    // x^T per batch: [2, 3, 2] adjointed is [2, 2, 3]; y^T: [2, 4, 3] is [2, 3, 4].
    const Tensor x = F({1, 3, 2}, {1, 2, 3, 4, 5, 6}), y = F({1, 2, 3}, {1, 0, 2, 0, 1, 3});
    // x^T = [[1,3,5],[2,4,6]], y^T = [[1,0],[0,1],[2,3]] -> x^T y^T = [[11,18],[14,22]]
    QVERIFY(tensor_near(run1("BatchMatMulV2", {{"adj_x", true}, {"adj_y", true}}, {x, y}), DType::Float, {1, 2, 2},
                        {11, 18, 14, 22}));
    QVERIFY(tensor_near(run1("BatchMatMul", {{"adj_x", true}, {"adj_y", true}}, {x, y}), DType::Float, {1, 2, 2},
                        {11, 18, 14, 22}));
  }
  void v2_broadcasts_batch_dimensions() {
    const Tensor x = gen(DType::Float, {2, 3}), y = gen(DType::Float, {4, 3, 5}, -2, 2, 3);
    QVERIFY(tensor_near(run1("BatchMatMulV2", {}, {x, y}), DType::Float, {4, 2, 5},
                        reference(values_of(x), values_of(y), 4, 2, 3, 5, true, false)));
    const Tensor a = gen(DType::Float, {3, 1, 2, 2}), b = gen(DType::Float, {2, 2, 2}, -1, 1, 5);
    Tensor out = run1("BatchMatMulV2", {}, {a, b});
    QCOMPARE(qshape(out.shape()), QString("[3,2,2,2]"));
    // out[i, j] = a[i, 0] * b[j]
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        const float* pa = a.data<float>() + i * 4;
        const float* pb = b.data<float>() + j * 4;
        const float* po = out.data<float>() + (i * 2 + j) * 4;
        QCOMPARE(po[0], pa[0] * pb[0] + pa[1] * pb[2]);
        QCOMPARE(po[3], pa[2] * pb[1] + pa[3] * pb[3]);
      }
  }
  void dtypes_and_empty_batches() {
    QVERIFY(tensor_near(run1("BatchMatMulV2", {}, {I32({1, 2, 2}, {1, 2, 3, 4}), I32({1, 2, 1}, {1, 1})}), DType::Int32,
                        {1, 2, 1}, {3, 7}));
    QVERIFY(tensor_near(run1("BatchMatMulV2", {}, {T(DType::Half, {1, 1, 2}, {0.5, 2}), T(DType::Half, {1, 2, 1}, {2, 0.25})}),
                        DType::Half, {1, 1, 1}, {1.5}));
    QVERIFY(tensor_near(run1("BatchMatMulV2", {}, {F({0, 2, 3}, {}), F({0, 3, 2}, {})}), DType::Float, {0, 2, 2}, {}));
    QVERIFY(tensor_near(run1("BatchMatMulV2", {}, {F({2, 2, 0}, {}), F({2, 0, 1}, {})}), DType::Float, {2, 2, 1},
                        {0, 0, 0, 0}));
  }
  void tensorflow_errors() {
    EXPECT_ERROR(run1("BatchMatMulV2", {}, {F({3}, {1, 2, 3}), F({3, 1}, {1, 2, 3})}), "In[0] ndims must be >= 2: 1");
    EXPECT_ERROR(run1("BatchMatMulV2", {}, {gen(DType::Float, {2, 2, 3}), gen(DType::Float, {3, 3, 4})}),
                 "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,4]");
    EXPECT_ERROR(run1("BatchMatMulV2", {}, {gen(DType::Float, {2, 3}), gen(DType::Float, {2, 4})}),
                 "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,4]");
    EXPECT_ERROR(run1("BatchMatMul", {}, {gen(DType::Float, {2, 3}), gen(DType::Float, {1, 3, 4})}),
                 "In[0] and In[1] has different ndims: [2,3] vs. [1,3,4]");
    EXPECT_ERROR(run1("BatchMatMul", {}, {gen(DType::Float, {1, 2, 3}), gen(DType::Float, {2, 3, 4})}),
                 "In[0].dim(0) and In[1].dim(0) must be the same: [1,2,3] vs [2,3,4]");
  }
  void shape_functions() {
    auto out = infer("BatchMatMulV2", {{"adj_y", true}}, {{DType::Float, Shape{-1, 1, 2, 3}}, {DType::Float, Shape{5, 4, 3}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,5,2,4]"));
    out = infer("BatchMatMul", {}, {{DType::Float, Shape{-1, 2, 3}}, {DType::Float, Shape{7, 3, 4}}});
    QCOMPARE(qshape(out[0].shape), QString("[7,2,4]"));
    EXPECT_ERROR(infer("BatchMatMulV2", {}, {{DType::Float, Shape{2, 3}}, {DType::Float, Shape{4, 2}}}),
                 "Dimensions must be equal, but are 3 and 4");
    EXPECT_ERROR(infer("BatchMatMulV2", {}, {{DType::Float, Shape{3}}, {DType::Float, Shape{3, 2}}}),
                 "Shape must be at least rank 2 but is rank 1");
  }
  void gradients_match_numerical_ones() {
    for (bool adj_x : {false, true})
      for (bool adj_y : {false, true}) {
        Model m;
        const Shape sx = adj_x ? Shape{2, 3, 2} : Shape{2, 2, 3};
        const Shape sy = adj_y ? Shape{4, 3} : Shape{3, 4};
        const std::string x = m.x("x", gen(DType::Double, sx, -1, 1, 2));
        const std::string y = m.x("y", gen(DType::Double, sy, -1, 1, 3));
        check_gradients(m, m.op("BatchMatMulV2", {x, y}, {{"adj_x", adj_x}, {"adj_y", adj_y}}));
      }
    Model v1;
    const std::string x = v1.x("x", gen(DType::Double, {2, 2, 3}, -1, 1, 4));
    const std::string y = v1.x("y", gen(DType::Double, {2, 3, 2}, -1, 1, 5));
    check_gradients(v1, v1.op("BatchMatMul", {x, y}));
  }
  void broadcast_gradients_with_unknown_shapes() {
    Model m;
    m.static_shapes = false;  // the Shape / StridedSlice / BroadcastGradientArgs path
    const std::string x = m.x("x", gen(DType::Double, {3, 1, 2, 3}, -1, 1, 6));
    const std::string y = m.x("y", gen(DType::Double, {2, 3, 2}, -1, 1, 7));
    check_gradients(m, m.op("BatchMatMulV2", {x, y}));
  }
};

QTEST_GUILESS_MAIN(TestOpsBatchMatMul)
#include "test_ops_batch_matmul.moc"
