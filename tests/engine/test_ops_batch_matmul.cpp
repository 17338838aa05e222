// BatchMatMul, BatchMatMulV2 and BatchMatMulV3 against TensorFlow's
// documented semantics: products of the last two dimensions, adjoints, V2's
// broadcasting of the batch dimensions, size-0 batches, TF's error texts, the
// shape functions and the gradients (math_grad._BatchMatMulV2, summing over
// broadcast batches); V3's (Ta, Tb, Tout) combinations; the 16-bit floats
// accumulating in float32 (MatMul too); grappler's _FusedMatMul.
#include "test_main.h"
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

AttrMap v3(DType ta, DType tb, DType tout) {
  return {{"Ta", AttrValue(ta)}, {"Tb", AttrValue(tb)}, {"Tout", AttrValue(tout)}};
}

AttrMap fused(DType t, std::vector<std::string> ops, int64_t num_args = 1) {
  AttrList l;
  l.s = std::move(ops);
  return {{"T", AttrValue(t)}, {"num_args", AttrValue(num_args)}, {"fused_ops", AttrValue(l)}};
}

// [1 x 9] ones times [9 x 1] {big, 1, ..., 1}: big + 8 in float32, but big
// again if the 16-bit type accumulated (big + 1 rounds back to big).
// add_gradients through a _FusedMatMul: TensorFlow registers none.
std::vector<std::string> add_gradients_of_fused() {
  Model m;
  m.static_shapes = true;
  const std::string a = m.b.constant("a", gen(DType::Float, {2, 3}));
  Node p;
  p.name = "x";
  p.op = "Placeholder";
  p.attrs["dtype"] = AttrValue(DType::Float);
  p.attrs["shape"] = AttrValue(Shape{3, 2});
  m.g.add_node(std::move(p));
  AttrMap attrs = fused(DType::Float, {"BiasAdd"});
  const std::string y = m.b.add("_FusedMatMul", "_FusedMatMul", {a, "x", m.b.constant("bias", gen(DType::Float, {2}))}, attrs);
  return add_gradients(m.g, {y}, {"x"}, OpRegistry::global());
}

Tensor ones_row(DType t) { return T(t, {1, 9}, std::vector<double>(9, 1.0)); }
Tensor big_then_ones(DType t, double big) {
  std::vector<double> v(9, 1.0);
  v[0] = big;
  return T(t, {9, 1}, v);
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
  // TF's 16-bit products go through float32 (Eigen's contraction on half and
  // bfloat16, BFloat16ToFloat in the batch kernel): sums are rounded once.
  void sixteen_bit_floats_accumulate_in_float() {
    const double half_big = 2048, bf16_big = 256;  // where +1 is below half the spacing
    QVERIFY(tensor_near(run1("MatMul", {}, {ones_row(DType::Half), big_then_ones(DType::Half, half_big)}), DType::Half,
                        {1, 1}, {2056}, 0));
    QVERIFY(tensor_near(run1("MatMul", {}, {ones_row(DType::BFloat16), big_then_ones(DType::BFloat16, bf16_big)}),
                        DType::BFloat16, {1, 1}, {264}, 0));
    for (const char* op : {"BatchMatMul", "BatchMatMulV2"}) {
      QVERIFY(tensor_near(run1(op, {}, {ones_row(DType::Half), big_then_ones(DType::Half, half_big)}), DType::Half,
                          {1, 1}, {2056}, 0));
      QVERIFY(tensor_near(run1(op, {}, {ones_row(DType::BFloat16), big_then_ones(DType::BFloat16, bf16_big)}),
                          DType::BFloat16, {1, 1}, {264}, 0));
    }
    const DType bf = DType::BFloat16;
    QVERIFY(tensor_near(run1("BatchMatMulV3", v3(bf, bf, bf), {ones_row(bf), big_then_ones(bf, bf16_big)}), bf, {1, 1},
                        {264}, 0));
    QVERIFY(tensor_near(run1("_FusedMatMul", fused(bf, {"BiasAdd"}),
                             {ones_row(bf), big_then_ones(bf, bf16_big), T(bf, {1}, {0})}),
                        bf, {1, 1}, {264}, 0));
  }

  void v3_type_combinations() {
    const DType i8 = DType::Int8, u8 = DType::UInt8, i32 = DType::Int32, bf = DType::BFloat16, f = DType::Float;
    // int8 x uint8 -> int32: [-128, 127] . [255, 255] = -255, no wrap in 8 bits.
    QVERIFY(tensor_near(run1("BatchMatMulV3", v3(i8, u8, i32), {T(i8, {1, 2}, {-128, 127}), T(u8, {2, 1}, {255, 255})}),
                        i32, {1, 1}, {-255}, 0));
    QVERIFY(tensor_near(run1("BatchMatMulV3", v3(u8, u8, i32), {T(u8, {1, 1, 2}, {200, 200}), T(u8, {2, 1}, {200, 1})}),
                        i32, {1, 1, 1}, {40200}, 0));
    // bfloat16 x int8 -> bfloat16, either side.
    QVERIFY(tensor_near(run1("BatchMatMulV3", v3(bf, i8, bf), {T(bf, {1, 2}, {0.5, 2}), T(i8, {2, 1}, {-4, 3})}), bf,
                        {1, 1}, {4}, 0));
    QVERIFY(tensor_near(run1("BatchMatMulV3", v3(u8, bf, bf), {T(u8, {1, 2}, {3, 1}), T(bf, {2, 1}, {0.25, 1})}), bf,
                        {1, 1}, {1.75}, 0));
    QCOMPARE(run1("BatchMatMulV3", v3(f, f, f), {gen(f, {3, 1, 2, 3}), gen(f, {4, 3, 2})}).shape(), Shape({3, 4, 2, 2}));
    // Combinations TensorFlow registers no CPU kernel for.
    EXPECT_ERROR(run1("BatchMatMulV3", v3(DType::Half, DType::Half, DType::Half),
                      {T(DType::Half, {1, 1}, {1}), T(DType::Half, {1, 1}, {1})}),
                 "BatchMatMulV3: no CPU kernel for Ta=float16, Tb=float16, Tout=float16");
    EXPECT_ERROR(run1("BatchMatMulV3", v3(i8, i8, f), {T(i8, {1, 1}, {1}), T(i8, {1, 1}, {1})}), "no CPU kernel");
    const OpDef& def = op_def("BatchMatMulV3");
    QVERIFY(def.kernel_for("CPU", make_node("BatchMatMulV3", v3(i8, u8, i32))) != nullptr);
    QVERIFY(def.kernel_for("CPU", make_node("BatchMatMulV3", v3(f, DType::Double, f))) == nullptr);
    // The shape function: V2's broadcast, dtype Tout.
    auto out = infer("BatchMatMulV3", v3(i8, u8, i32), {{i8, Shape{-1, 1, 2, 3}}, {u8, Shape{5, 3, 4}}});
    QCOMPARE(out[0].dtype, i32);
    QCOMPARE(qshape(out[0].shape), QString("[?,5,2,4]"));
    EXPECT_ERROR(run1("BatchMatMulV3", v3(f, f, f), {gen(f, {2, 2, 3}), gen(f, {3, 3, 4})}),
                 "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,4]");
  }

  void v3_gradients() {
    for (bool static_shapes : {true, false}) {
      Model m;
      m.static_shapes = static_shapes;
      const std::string x = m.x("x", gen(DType::Double, {3, 1, 2, 3}, -1, 1, 6));
      const std::string y = m.x("y", gen(DType::Double, {2, 4, 3}, -1, 1, 7));
      AttrMap attrs = v3(DType::Double, DType::Double, DType::Double);
      attrs["adj_y"] = AttrValue(true);
      check_gradients(m, m.b.add("BatchMatMulV3", "BatchMatMulV3", {x, y}, attrs));
    }
  }

  // _FusedMatMul: MatMul, + bias per column, then the activation (CPU fusions).
  void fused_matmul_values() {
    const DType f = DType::Float;
    const Tensor a = F({2, 2}, {1, 2, 3, 4});
    const Tensor b = F({2, 3}, {1, 0, -1, 0, 1, -2});  // a*b = [[1,2,-5],[3,4,-11]]
    const Tensor bias = F({3}, {-2, 3, 0.5});         // + bias = [[-1,5,-4.5],[1,7,-10.5]]
    QVERIFY(tensor_near(run1("_FusedMatMul", fused(f, {"BiasAdd"}), {a, b, bias}), f, {2, 3}, {-1, 5, -4.5, 1, 7, -10.5}));
    QVERIFY(tensor_near(run1("_FusedMatMul", fused(f, {"BiasAdd", "Relu"}), {a, b, bias}), f, {2, 3}, {0, 5, 0, 1, 7, 0}));
    QVERIFY(tensor_near(run1("_FusedMatMul", fused(f, {"BiasAdd", "Relu6"}), {a, b, bias}), f, {2, 3}, {0, 5, 0, 1, 6, 0}));
    const double e1 = std::exp(-1.0) - 1, e45 = std::exp(-4.5) - 1, e105 = std::exp(-10.5) - 1;
    QVERIFY(tensor_near(run1("_FusedMatMul", fused(f, {"BiasAdd", "Elu"}), {a, b, bias}), f, {2, 3},
                        {e1, 5, e45, 1, 7, e105}, 1e-6));
    AttrMap leaky = fused(f, {"BiasAdd", "LeakyRelu"});
    leaky["leakyrelu_alpha"] = AttrValue(0.1f);
    QVERIFY(tensor_near(run1("_FusedMatMul", leaky, {a, b, bias}), f, {2, 3}, {-0.1, 5, -0.45, 1, 7, -1.05}, 1e-6));
    // Transposes: a^T b^T.
    AttrMap tt = fused(f, {"BiasAdd"});
    tt["transpose_a"] = AttrValue(true);
    tt["transpose_b"] = AttrValue(true);
    QVERIFY(tensor_near(run1("_FusedMatMul", tt, {F({2, 1}, {1, 2}), F({2, 2}, {1, 1, 2, 3}), F({2}, {10, 20})}), f,
                        {1, 2}, {13, 28}));
    // k = 0: TensorFlow fills zeros and adds no bias.
    QVERIFY(tensor_near(run1("_FusedMatMul", fused(f, {"BiasAdd", "Elu"}), {F({2, 0}, {}), F({0, 3}, {}), bias}), f,
                        {2, 3}, {0, 0, 0, 0, 0, 0}));
    auto out = infer("_FusedMatMul", fused(f, {"BiasAdd"}), {{f, Shape{-1, 3}}, {f, Shape{3, 5}}, {f, Shape{5}}});
    QCOMPARE(qshape(out[0].shape), QString("[?,5]"));
  }

  void fused_matmul_errors() {
    const DType f = DType::Float;
    const Tensor a = gen(f, {2, 3}), b = gen(f, {3, 4}), bias = gen(f, {4});
    EXPECT_ERROR(run1("_FusedMatMul", fused(f, {}), {a, b, bias}), "Fused MatMul must have at least one fused op.");
    EXPECT_ERROR(run1("_FusedMatMul", fused(f, {"BiasAdd", "Tanh"}), {a, b, bias}),
                 "Fusion is not implemented: [BiasAdd,Tanh]");
    EXPECT_ERROR(run1("_FusedMatMul", fused(f, {"BiasAdd"}, 2), {a, b, bias}),
                 "Fused MatMul must have the number of inputs equal to 2 + num_args + num_host_args but in fact the "
                 "number of inputs is 3 and num_args is 2");
    EXPECT_ERROR(run1("_FusedMatMul", fused(f, {"BiasAdd"}, 0), {a, b}),
                 "Fused MatMul with BiasAdd must have one extra argument: bias");
    EXPECT_ERROR(run1("_FusedMatMul", fused(f, {"BiasAdd"}), {a, b, gen(f, {1, 4})}), "bias must be 1-dimensional[1,4]");
    EXPECT_ERROR(run1("_FusedMatMul", fused(f, {"BiasAdd"}), {a, b, gen(f, {3})}), "bias has 3 elements");
    EXPECT_ERROR(run1("_FusedMatMul", fused(f, {"BiasAdd"}), {a, gen(f, {4, 4}), gen(f, {4})}),
                 "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,4]");
    EXPECT_ERROR(run1("_FusedMatMul", fused(f, {"BiasAdd"}), {gen(f, {2, 3, 1}), b, bias}),
                 "In[0] and In[1] has different ndims: [2,3,1] vs. [3,4]");
    const DType h = DType::Half;
    EXPECT_ERROR(run1("_FusedMatMul", fused(h, {"BiasAdd"}), {gen(h, {2, 3}), gen(h, {3, 4}), gen(h, {4})}),
                 "_FusedMatMul doesn't support DT_HALF data type on CPU devices.");
    EXPECT_ERROR(add_gradients_of_fused(), "_FusedMatMul");
  }

  void broadcast_gradients_with_unknown_shapes() {
    Model m;
    m.static_shapes = false;  // the Shape / StridedSlice / BroadcastGradientArgs path
    const std::string x = m.x("x", gen(DType::Double, {3, 1, 2, 3}, -1, 1, 6));
    const std::string y = m.x("y", gen(DType::Double, {2, 3, 2}, -1, 1, 7));
    check_gradients(m, m.op("BatchMatMulV2", {x, y}));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpsBatchMatMul)
#include "test_ops_batch_matmul.moc"
