// Training ops (ApplyGradientDescent, ApplyMomentum, ApplyAdam,
// SyntheticClassification), the gradient helper ops, and the _Send/_Recv
// signatures.
#include "test_main.h"
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Variable* var_with(Variable& v, Tensor value, const char* name = "w") {
  v.value = std::move(value);
  v.name = name;
  return &v;
}

}  // namespace

class TestOpsTraining : public QObject {
  Q_OBJECT
 private slots:
  void gradient_descent_float_and_double() {
    Variable v;
    var_with(v, F({2}, {1, 2}));
    Tensor before = v.value;
    auto out = run_op("ApplyGradientDescent", {}, {Tensor(), scalar_f(0.5f), F({2}, {2, -4})}, {&v});
    QVERIFY(tensor_near(out[0], DType::Float, Shape{2}, {0, 4}));
    QVERIFY(tensor_near(v.value, DType::Float, Shape{2}, {0, 4}));
    QVERIFY(tensor_near(before, DType::Float, Shape{2}, {1, 2}));  // earlier readers keep their value
    QVERIFY(!before.shares_buffer_with(v.value));

    Variable d;
    var_with(d, D({1}, {1.0}));
    run_op("ApplyGradientDescent", {}, {Tensor(), Tensor::scalar<double>(0.1), D({1}, {3.0})}, {&d});
    QVERIFY(tensor_near(d.value, DType::Double, Shape{1}, {0.7}, 1e-12));
  }

  void uninitialized_and_mismatch_errors() {
    Variable v;
    v.name = "weights";
    EXPECT_ERROR(run_op("ApplyGradientDescent", {}, {Tensor(), scalar_f(0.5f), F({1}, {1})}, {&v}),
                 "Attempting to use uninitialized value weights");
    var_with(v, F({2}, {1, 2}));
    EXPECT_ERROR(run_op("ApplyGradientDescent", {}, {Tensor(), scalar_f(0.5f), F({3}, {1, 2, 3})}, {&v}),
                 "same shape");
    EXPECT_ERROR(run_op("ApplyGradientDescent", {}, {Tensor(), Tensor::scalar<double>(0.5), F({2}, {1, 2})}, {&v}),
                 "alpha");
    EXPECT_ERROR(run_op("ApplyGradientDescent", {}, {F({2}, {1, 2}), scalar_f(0.5f), F({2}, {1, 2})}), "reference");
    Variable acc;
    acc.name = "w/Momentum";
    EXPECT_ERROR(run_op("ApplyMomentum", {}, {Tensor(), Tensor(), scalar_f(0.1f), F({2}, {1, 1}), scalar_f(0.9f)},
                        {&v, &acc}),
                 "Attempting to use uninitialized value w/Momentum");
  }

  void momentum_plain_and_nesterov() {
    for (bool nesterov : {false, true}) {
      Variable v, a;
      var_with(v, D({2}, {1.0, -2.0}));
      var_with(a, D({2}, {0.5, 0.0}), "a");
      const double lr = 0.1, mom = 0.9, g[2] = {2.0, 1.0};
      auto out = run_op("ApplyMomentum", {{"use_nesterov", AttrValue(nesterov)}},
                        {Tensor(), Tensor(), Tensor::scalar<double>(lr), D({2}, {g[0], g[1]}),
                         Tensor::scalar<double>(mom)},
                        {&v, &a});
      const double a0 = 0.5 * mom + g[0], a1 = 0.0 * mom + g[1];
      const double w0 = nesterov ? 1.0 - (g[0] * lr + a0 * mom * lr) : 1.0 - lr * a0;
      const double w1 = nesterov ? -2.0 - (g[1] * lr + a1 * mom * lr) : -2.0 - lr * a1;
      QVERIFY(tensor_near(a.value, DType::Double, Shape{2}, {a0, a1}, 1e-12));
      QVERIFY(tensor_near(out[0], DType::Double, Shape{2}, {w0, w1}, 1e-12));
      QVERIFY(tensor_near(v.value, DType::Double, Shape{2}, {w0, w1}, 1e-12));
    }
  }

  void adam_matches_tf_formulas() {
    for (bool nesterov : {false, true}) {
      Variable w, m, v;
      var_with(w, F({2}, {1.0f, -1.0f}));
      var_with(m, F({2}, {0.1f, 0.0f}), "m");
      var_with(v, F({2}, {0.01f, 0.0f}), "v");
      const double b1 = 0.9, b2 = 0.999, eps = 1e-8, lr = 0.01, b1p = 0.81, b2p = 0.998001, g[2] = {0.5, -2.0};
      auto out = run_op("ApplyAdam", {{"use_nesterov", AttrValue(nesterov)}},
                        {Tensor(), Tensor(), Tensor(), scalar_f(float(b1p)), scalar_f(float(b2p)), scalar_f(float(lr)),
                         scalar_f(float(b1)), scalar_f(float(b2)), scalar_f(float(eps)), F({2}, {0.5f, -2.0f})},
                        {&w, &m, &v});
      const double lr_t = lr * std::sqrt(1 - b2p) / (1 - b1p);
      const double m0[2] = {0.1, 0.0}, v0[2] = {0.01, 0.0}, w0[2] = {1.0, -1.0};
      std::vector<double> em, ev, ew;
      for (int i = 0; i < 2; ++i) {
        const double mm = m0[i] + (g[i] - m0[i]) * (1 - b1);
        const double vv = v0[i] + (g[i] * g[i] - v0[i]) * (1 - b2);
        const double num = nesterov ? mm * b1 + (1 - b1) * g[i] : mm;
        em.push_back(mm);
        ev.push_back(vv);
        ew.push_back(w0[i] - lr_t * num / (std::sqrt(vv) + eps));
      }
      QVERIFY(tensor_near(m.value, DType::Float, Shape{2}, em));
      QVERIFY(tensor_near(v.value, DType::Float, Shape{2}, ev));
      QVERIFY(tensor_near(w.value, DType::Float, Shape{2}, ew));
      QVERIFY(tensor_near(out[0], DType::Float, Shape{2}, ew));
    }
  }

  void apply_defs_take_refs_and_infer_shapes() {
    auto refs = [](const char* op) {
      std::vector<int> r;
      for (int i = 0; i < 10; ++i)
        if (op_def(op).is_ref_input(i)) r.push_back(i);
      return r;
    };
    QCOMPARE(refs("ApplyGradientDescent"), std::vector<int>{0});
    QCOMPARE(refs("ApplyMomentum"), (std::vector<int>{0, 1}));
    QCOMPARE(refs("ApplyAdam"), (std::vector<int>{0, 1, 2}));
    QVERIFY(op_def("ApplyAdam").stateful);
    auto out = infer("ApplyMomentum", {}, {{DType::Float, Shape{-1, 3}}, {DType::Float, Shape{4, -1}}, {DType::Float, Shape{}},
                                          {DType::Float, Shape::unknown_rank()}, {DType::Float, Shape{}}});
    QCOMPARE(out[0].shape, (Shape{4, 3}));
    QCOMPARE(out[0].dtype, DType::Float);
    EXPECT_ERROR(infer("ApplyGradientDescent", {}, {{DType::Float, Shape{2}}, {DType::Float, Shape{}}, {DType::Float, Shape{3}}}),
                 "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3].");
  }

  void synthetic_classification_is_deterministic_per_batch() {
    AttrMap attrs{{"batch_size", AttrValue(64)}, {"num_features", AttrValue(3)}, {"num_classes", AttrValue(4)},
                  {"seed", AttrValue(7)}};
    Variable counter_a, counter_b;
    auto a0 = run_op("SyntheticClassification", attrs, {}, {}, &counter_a);
    auto a1 = run_op("SyntheticClassification", attrs, {}, {}, &counter_a);
    auto b0 = run_op("SyntheticClassification", attrs, {}, {}, &counter_b);
    QCOMPARE(a0[0].shape(), (Shape{64, 3}));
    QCOMPARE(a0[0].dtype(), DType::Float);
    QCOMPARE(a0[1].shape(), (Shape{64}));
    QCOMPARE(a0[1].dtype(), DType::Int32);
    QVERIFY(a0[0].equals(b0[0]) && a0[1].equals(b0[1]));  // same seed, same batch index
    QVERIFY(!a0[0].equals(a1[0]));                         // next batch differs
    // Labels in range and every class present; classes are separable (well-spread centers).
    std::vector<int> count(4, 0);
    for (int32_t y : a0[1].values<int32_t>()) {
      QVERIFY(y >= 0 && y < 4);
      ++count[static_cast<size_t>(y)];
    }
    for (int c : count) QVERIFY(c > 0);
    AttrMap other = attrs;
    other["seed"] = AttrValue(8);
    QVERIFY(!run_op("SyntheticClassification", other, {})[0].equals(a0[0]));
    QVERIFY(op_def("SyntheticClassification").keeps_state);
    auto shapes = infer("SyntheticClassification", attrs, {});
    QCOMPARE(shapes[0].shape, (Shape{64, 3}));
    QCOMPARE(shapes[1].dtype, DType::Int32);
  }

  void synthetic_images_are_deterministic_and_laid_out_per_format() {
    AttrMap attrs{{"batch_size", AttrValue(16)}, {"height", AttrValue(8)}, {"width", AttrValue(6)},
                  {"channels", AttrValue(3)},    {"num_classes", AttrValue(4)}, {"seed", AttrValue(3)}};
    Variable counter_a, counter_b;
    auto a0 = run_op("SyntheticImages", attrs, {}, {}, &counter_a);
    auto a1 = run_op("SyntheticImages", attrs, {}, {}, &counter_a);
    auto b0 = run_op("SyntheticImages", attrs, {}, {}, &counter_b);
    QCOMPARE(a0[0].shape(), (Shape{16, 8, 6, 3}));
    QCOMPARE(a0[1].shape(), (Shape{16}));
    QVERIFY(a0[0].equals(b0[0]) && a0[1].equals(b0[1]));
    QVERIFY(!a0[0].equals(a1[0]));
    for (int32_t y : a0[1].values<int32_t>()) QVERIFY(y >= 0 && y < 4);
    // NCHW holds the same pixels transposed: same seed and batch index, same draws.
    AttrMap nchw = attrs;
    nchw["data_format"] = AttrValue("NCHW");
    auto c0 = run_op("SyntheticImages", nchw, {});
    QCOMPARE(c0[0].shape(), (Shape{16, 3, 8, 6}));
    QVERIFY(c0[1].equals(a0[1]));
    const auto nhwc_px = a0[0].values<float>();
    const auto nchw_px = c0[0].values<float>();
    for (int64_t n : {0, 15})
      for (int64_t y = 0; y < 8; ++y)
        for (int64_t x = 0; x < 6; ++x)
          for (int64_t c = 0; c < 3; ++c)
            QCOMPARE(nchw_px[static_cast<size_t>(((n * 3 + c) * 8 + y) * 6 + x)],
                     nhwc_px[static_cast<size_t>(((n * 8 + y) * 6 + x) * 3 + c)]);
    // Without noise two images of one class are equal and images of different classes differ.
    AttrMap clean = attrs;
    clean["noise"] = AttrValue(0.0f);
    auto d0 = run_op("SyntheticImages", clean, {});
    const auto labels = d0[1].values<int32_t>();
    const auto px = d0[0].values<float>();
    const size_t image = 8 * 6 * 3;
    for (size_t i = 1; i < 16; ++i) {
      const bool same_pixels = std::equal(px.begin(), px.begin() + image, px.begin() + i * image);
      QCOMPARE(same_pixels, labels[i] == labels[0]);
    }
    auto shapes = infer("SyntheticImages", nchw, {});
    QCOMPARE(shapes[0].shape, (Shape{16, 3, 8, 6}));
    QCOMPARE(shapes[1].dtype, DType::Int32);
    AttrMap bad = attrs;
    bad["data_format"] = AttrValue("HWCN");
    EXPECT_ERROR(run_op("SyntheticImages", bad, {}), "data_format");
    AttrMap huge = attrs;
    huge["height"] = AttrValue(int64_t{1} << 40);
    huge["width"] = AttrValue(int64_t{1} << 40);
    EXPECT_ERROR(run_op("SyntheticImages", huge, {}), "too many elements");
  }

  void elementwise_gradient_ops() {
    QVERIFY(tensor_near(run1("ReluGrad", {}, {D({3}, {1, 2, 3}), D({3}, {-1, 0, 2})}), DType::Double, Shape{3}, {0, 0, 3}));
    QVERIFY(tensor_near(run1("SigmoidGrad", {}, {D({2}, {0.5, 0.25}), D({2}, {1, 2})}), DType::Double, Shape{2},
                        {0.25, 2 * 0.25 * 0.75}));
    QVERIFY(tensor_near(run1("TanhGrad", {}, {F({1}, {0.5f}), F({1}, {2})}), DType::Float, Shape{1}, {1.5}));
    QVERIFY(tensor_near(run1("SqrtGrad", {}, {D({1}, {2}), D({1}, {1})}), DType::Double, Shape{1}, {0.25}));
    EXPECT_ERROR(run1("ReluGrad", {}, {D({3}, {1, 2, 3}), D({2}, {1, 2})}), "must have the same size and shape");
  }

  void broadcast_gradient_args() {
    auto r = run_op("BroadcastGradientArgs", {}, {I32({3}, {2, 3, 4}), I32({1}, {4})});
    QVERIFY(tensor_near(r[0], DType::Int32, Shape{0}, {}));
    QVERIFY(tensor_near(r[1], DType::Int32, Shape{2}, {0, 1}));
    r = run_op("BroadcastGradientArgs", {}, {I32({2}, {2, 1}), I32({2}, {1, 3})});
    QVERIFY(tensor_near(r[0], DType::Int32, Shape{1}, {1}));
    QVERIFY(tensor_near(r[1], DType::Int32, Shape{1}, {0}));
    r = run_op("BroadcastGradientArgs", {}, {I32({0}, {}), I32({2}, {2, 2})});
    QVERIFY(tensor_near(r[0], DType::Int32, Shape{2}, {0, 1}));
    EXPECT_ERROR(run_op("BroadcastGradientArgs", {}, {I32({1}, {2}), I32({1}, {3})}), "Incompatible shapes");
  }

  void bias_add_grad() {
    QVERIFY(tensor_near(run1("BiasAddGrad", {}, {D({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})}), DType::Double,
                        Shape{3}, {22, 26, 30}));
  }

  void comparisons_broadcast() {
    QVERIFY(tensor_near(run1("GreaterEqual", {}, {D({2, 2}, {1, 2, 3, 4}), D({2}, {2, 2})}), DType::Bool, Shape{2, 2},
                        {0, 1, 1, 1}));
    QVERIFY(tensor_near(run1("LessEqual", {}, {I32({3}, {1, 2, 3}), scalar_i(2)}), DType::Bool, Shape{3}, {1, 1, 0}));
  }

  void slice_concat_offset_unpack() {
    Tensor x = D({2, 3}, {1, 2, 3, 4, 5, 6});
    QVERIFY(tensor_near(run1("Slice", {}, {x, I32({2}, {0, 1}), I32({2}, {2, 2})}), DType::Double, Shape{2, 2}, {2, 3, 5, 6}));
    QVERIFY(tensor_near(run1("Slice", {}, {x, I32({2}, {1, 0}), I32({2}, {-1, 2})}), DType::Double, Shape{1, 2}, {4, 5}));
    EXPECT_ERROR(run1("Slice", {}, {x, I32({2}, {1, 0}), I32({2}, {2, 2})}), "Expected size[0] in [0, 1], but got 2");
    // Rank 3: one 2-D copy per leading index; rank 1 and 0 are single runs.
    std::vector<double> cube(24);
    for (int i = 0; i < 24; ++i) cube[static_cast<size_t>(i)] = i;
    Tensor x3 = D({2, 3, 4}, cube);
    QVERIFY(tensor_near(run1("Slice", {}, {x3, I32({3}, {1, 1, 1}), I32({3}, {1, 2, 2})}), DType::Double,
                        Shape{1, 2, 2}, {17, 18, 21, 22}));
    QVERIFY(tensor_near(run1("Slice", {}, {x3, I32({3}, {0, 2, 3}), I32({3}, {2, 1, 1})}), DType::Double,
                        Shape{2, 1, 1}, {11, 23}));
    QVERIFY(tensor_near(run1("Slice", {}, {D({4}, {1, 2, 3, 4}), I32({1}, {1}), I32({1}, {2})}), DType::Double,
                        Shape{2}, {2, 3}));
    auto off = run_op("ConcatOffset", {{"N", AttrValue(2)}}, {scalar_i(1), I32({2}, {2, 3}), I32({2}, {2, 5})});
    QCOMPARE(off.size(), size_t{2});
    QVERIFY(tensor_near(off[0], DType::Int32, Shape{2}, {0, 0}));
    QVERIFY(tensor_near(off[1], DType::Int32, Shape{2}, {0, 3}));
    auto parts = run_op("Unpack", {{"num", AttrValue(3)}, {"axis", AttrValue(1)}}, {x});
    QCOMPARE(parts.size(), size_t{3});
    QVERIFY(tensor_near(parts[1], DType::Double, Shape{2}, {2, 5}));
    auto s = infer("Slice", {}, {{DType::Double, Shape{2, 3}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{2}}});
    QCOMPARE(s[0].shape, (Shape{-1, -1}));
  }

  void transfer_ops_are_declared() {
    const OpDef& send = op_def("_Send");
    QCOMPARE(send.min_inputs(), 1);
    QCOMPARE(send.outputs.size(), size_t{0});
    const OpDef& recv = op_def("_Recv");
    QCOMPARE(recv.min_inputs(), 0);
    QCOMPARE(recv.outputs.size(), size_t{1});
    auto out = infer("_Recv", {{"tensor_type", AttrValue(DType::Double)}}, {});
    QCOMPARE(out[0].dtype, DType::Double);
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsTraining)
#include "test_ops_training.moc"
