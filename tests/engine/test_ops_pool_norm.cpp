// Pooling (MaxPool, MaxPoolV2, AvgPool and their gradients), fused batch norm
// (V1-V3 and gradients), LRN and resizing: hand-computed cases in both layouts
// and padding modes, the oneDNN path against the plain loop, gradients against
// numerical differentiation, running statistics with exponential_avg_factor,
// float16/bfloat16, and hostile attrs. Expected values follow TensorFlow's
// kernels, worked out by hand.
//
// FLOWLENS_BENCH=1 adds timings of the oneDNN path and the loop (benchmark slot).
#include "test_main.h"
#include <chrono>
#include <functional>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/gradient_check.h"
#include "op_test_util.h"
#include "ops/framework/onednn.h"
#include "ops/kernels/nn/pool_norm.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

AttrList ints(std::vector<int64_t> v) {
  AttrList l;
  l.i = std::move(v);
  return l;
}

AttrMap pool(const char* padding, std::vector<int64_t> ksize, std::vector<int64_t> strides, const char* format = "NHWC") {
  return {{"ksize", AttrValue(ints(std::move(ksize)))},
          {"strides", AttrValue(ints(std::move(strides)))},
          {"padding", AttrValue(std::string(padding))},
          {"data_format", AttrValue(std::string(format))}};
}

// [1,3,3,2]: channel 0 holds 1..9 row-major, channel 1 its negation; as NHWC
// or as NCHW ([1,2,3,3]).
Tensor image33(bool nchw, DType t = DType::Float) {
  std::vector<double> v;
  if (nchw) {
    for (int i = 1; i <= 9; ++i) v.push_back(i);
    for (int i = 1; i <= 9; ++i) v.push_back(-i);
    return T(t, {1, 2, 3, 3}, v);
  }
  for (int i = 1; i <= 9; ++i) v.push_back(i), v.push_back(-i);
  return T(t, {1, 3, 3, 2}, v);
}

// A [1,2,2,2] result given per channel (4 values each), laid out in `format`.
std::vector<double> per_channel(bool nchw, std::vector<double> c0, std::vector<double> c1) {
  if (nchw) {
    c0.insert(c0.end(), c1.begin(), c1.end());
    return c0;
  }
  std::vector<double> v;
  for (size_t i = 0; i < c0.size(); ++i) v.push_back(c0[i]), v.push_back(c1[i]);
  return v;
}
Shape out22(bool nchw) { return nchw ? Shape{1, 2, 2, 2} : Shape{1, 2, 2, 2}; }

// NHWC ksize/strides [1, k, k, 1] or NCHW [1, 1, k, k].
std::vector<int64_t> win(bool nchw, int64_t h, int64_t w) {
  return nchw ? std::vector<int64_t>{1, 1, h, w} : std::vector<int64_t>{1, h, w, 1};
}

// Deterministic distinct values (no ties: max pooling is differentiable there).
std::vector<double> distinct(int64_t n, uint32_t seed = 7) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7 * static_cast<double>(i) + seed) * 2 + 0.001 * i;
  return v;
}

Tensor random_tensor(DType t, Shape s, uint32_t seed = 3) { return T(t, s, distinct(s.num_elements(), seed)); }

struct PathGuard {
  explicit PathGuard(ops::CpuPath p) { ops::set_cpu_path(p); }
  ~PathGuard() { ops::set_cpu_path(ops::CpuPath::Auto); }
};

std::vector<Tensor> run_path(ops::CpuPath p, const std::string& op, const AttrMap& attrs, const std::vector<Tensor>& in) {
  PathGuard g(p);
  return run_op(op, attrs, in);
}

bool same_values(const Tensor& a, const Tensor& b, double tol) {
  return tensor_near(a, b.dtype(), b.shape(), as_doubles(b), tol);
}

Tensor F1(std::vector<float> v) { return F({static_cast<int64_t>(v.size())}, v); }

AttrMap bn(bool training, const char* format = "NHWC", float eps = 0.001f, float factor = 1.0f) {
  return {{"T", AttrValue(DType::Float)},
          {"U", AttrValue(DType::Float)},
          {"epsilon", AttrValue(eps)},
          {"exponential_avg_factor", AttrValue(factor)},
          {"data_format", AttrValue(std::string(format))},
          {"is_training", AttrValue(training)}};
}

double ms_per_call(const std::function<void()>& f, int reps) {
  f();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
}

}  // namespace

class TestOpsPoolNorm : public QObject {
  Q_OBJECT
 private slots:
  // ---- pooling, hand-computed ------------------------------------------------------------
  void max_pool_valid_same_explicit_both_layouts() {
    for (bool nchw : {false, true}) {
      const char* f = nchw ? "NCHW" : "NHWC";
      const Tensor x = image33(nchw);
      // 2x2 stride 1 VALID.
      QVERIFY(tensor_near(run1("MaxPool", pool("VALID", win(nchw, 2, 2), win(nchw, 1, 1), f), {x}), DType::Float,
                          out22(nchw), per_channel(nchw, {5, 6, 8, 9}, {-1, -2, -4, -5})));
      // 2x2 stride 2 SAME: one row/col of padding after; windows {0,1}, {2}.
      QVERIFY(tensor_near(run1("MaxPool", pool("SAME", win(nchw, 2, 2), win(nchw, 2, 2), f), {x}), DType::Float,
                          out22(nchw), per_channel(nchw, {5, 6, 8, 9}, {-1, -3, -7, -9})));
      // EXPLICIT: one row and column before; windows {0}, {1,2}.
      AttrMap e = pool("EXPLICIT", win(nchw, 2, 2), win(nchw, 2, 2), f);
      e["explicit_paddings"] = AttrValue(ints(nchw ? std::vector<int64_t>{0, 0, 0, 0, 1, 0, 1, 0}
                                                   : std::vector<int64_t>{0, 0, 1, 0, 1, 0, 0, 0}));
      QVERIFY(tensor_near(run1("MaxPool", e, {x}), DType::Float, out22(nchw),
                          per_channel(nchw, {1, 3, 7, 9}, {-1, -2, -4, -5})));
      // MaxPoolV2 takes the window as tensors.
      AttrMap v2{{"padding", AttrValue(std::string("SAME"))}, {"data_format", AttrValue(std::string(f))}};
      std::vector<int32_t> k(4, 1), s(4, 1);
      k[nchw ? 2 : 1] = k[nchw ? 3 : 2] = 2;
      s[nchw ? 2 : 1] = s[nchw ? 3 : 2] = 2;
      QVERIFY(tensor_near(run1("MaxPoolV2", v2, {x, I32({4}, k), I32({4}, s)}), DType::Float, out22(nchw),
                          per_channel(nchw, {5, 6, 8, 9}, {-1, -3, -7, -9})));
    }
  }

  void avg_pool_counts_only_real_elements() {
    for (bool nchw : {false, true}) {
      const char* f = nchw ? "NCHW" : "NHWC";
      const Tensor x = image33(nchw);
      QVERIFY(tensor_near(run1("AvgPool", pool("VALID", win(nchw, 2, 2), win(nchw, 1, 1), f), {x}), DType::Float,
                          out22(nchw), per_channel(nchw, {3, 4, 6, 7}, {-3, -4, -6, -7})));
      // SAME: (1+2+4+5)/4, (3+6)/2, (7+8)/2, 9/1 - the padding is not counted.
      QVERIFY(tensor_near(run1("AvgPool", pool("SAME", win(nchw, 2, 2), win(nchw, 2, 2), f), {x}), DType::Float,
                          out22(nchw), per_channel(nchw, {3, 4.5, 7.5, 9}, {-3, -4.5, -7.5, -9})));
      // 3x3 stride 1 SAME on 3x3: a corner window covers 4 elements.
      const Tensor y = run1("AvgPool", pool("SAME", win(nchw, 3, 3), win(nchw, 1, 1), f), {x});
      QCOMPARE(as_doubles(y)[0], 3.0);  // (1+2+4+5)/4
    }
  }

  void max_pool_grad_routes_to_first_max() {
    for (bool nchw : {false, true}) {
      const char* f = nchw ? "NCHW" : "NHWC";
      const Tensor x = image33(nchw);
      const AttrMap a = pool("VALID", win(nchw, 2, 2), win(nchw, 1, 1), f);
      const Tensor y = run1("MaxPool", a, {x});
      const Tensor g = T(DType::Float, out22(nchw), per_channel(nchw, {1, 2, 3, 4}, {10, 20, 30, 40}));
      // channel 0's maxima sit at 5, 6, 8, 9; channel 1's (negated) at 1, 2, 4, 5.
      std::vector<double> c0 = {0, 0, 0, 0, 1, 2, 0, 3, 4}, c1 = {10, 20, 0, 30, 40, 0, 0, 0, 0};
      std::vector<double> want;
      if (nchw) want = c0, want.insert(want.end(), c1.begin(), c1.end());
      else for (size_t i = 0; i < 9; ++i) want.push_back(c0[i]), want.push_back(c1[i]);
      QVERIFY(tensor_near(run1("MaxPoolGrad", a, {x, y, g}), DType::Float, x.shape(), want));
    }
    // Ties: the whole gradient goes to the first maximum in window order.
    const AttrMap a = pool("VALID", {1, 2, 2, 1}, {1, 2, 2, 1});
    const Tensor ones = F({1, 2, 2, 1}, {1, 1, 1, 1});
    QVERIFY(tensor_near(run1("MaxPoolGrad", a, {ones, F({1, 1, 1, 1}, {1}), F({1, 1, 1, 1}, {5})}), DType::Float,
                        {1, 2, 2, 1}, {5, 0, 0, 0}));
    const Tensor tie = F({1, 2, 2, 1}, {0, 3, 3, 1});
    QVERIFY(tensor_near(run1("MaxPoolGrad", a, {tie, F({1, 1, 1, 1}, {3}), F({1, 1, 1, 1}, {5})}), DType::Float,
                        {1, 2, 2, 1}, {0, 5, 0, 0}));
    // orig_output's values are not used (TensorFlow recomputes the argmax), its shape is.
    QVERIFY(tensor_near(run1("MaxPoolGrad", a, {tie, F({1, 1, 1, 1}, {-100}), F({1, 1, 1, 1}, {5})}), DType::Float,
                        {1, 2, 2, 1}, {0, 5, 0, 0}));
    EXPECT_ERROR(run1("MaxPoolGrad", a, {tie, F({1, 2, 1, 1}, {3, 3}), F({1, 1, 1, 1}, {5})}),
                 "Expected orig_output shape to be [1,1,1,1], but got [1,2,1,1]");
    EXPECT_ERROR(run1("MaxPoolGrad", a, {tie, F({1, 1, 1, 1}, {3}), F({1, 2, 1, 1}, {5, 5})}),
                 "Expected grad shape to be [1,1,1,1], but got [1,2,1,1]");
    // Overlapping windows add up: 3x3 stride 1 SAME, the global max collects all 9.
    const Tensor x = F({1, 3, 3, 1}, {1, 2, 3, 4, 9, 6, 7, 8, 5});
    const AttrMap s = pool("SAME", {1, 3, 3, 1}, {1, 1, 1, 1});
    const Tensor dx = run1("MaxPoolGrad", s, {x, run1("MaxPool", s, {x}), F({1, 3, 3, 1}, std::vector<float>(9, 1))});
    QVERIFY(tensor_near(dx, DType::Float, {1, 3, 3, 1}, {0, 0, 0, 0, 9, 0, 0, 0, 0}));
  }

  void max_pool_grad_grad_and_v2_forms() {
    const Tensor x = image33(false);
    const AttrMap a = pool("VALID", {1, 2, 2, 1}, {1, 1, 1, 1});
    const Tensor y = run1("MaxPool", a, {x});
    std::vector<double> gv;
    for (int i = 1; i <= 18; ++i) gv.push_back(10 * i);
    const Tensor g = D({1, 3, 3, 2}, gv);
    // Per window, the gradient at the input equal to orig_output: channel 0 at
    // flat positions 4, 5, 7, 8, channel 1 at 0, 1, 3, 4.
    const Tensor gg = run1("MaxPoolGradGrad", a, {T(DType::Double, x.shape(), as_doubles(x)),
                                                   T(DType::Double, y.shape(), as_doubles(y)), g});
    QVERIFY(tensor_near(gg, DType::Double, {1, 2, 2, 2}, {90, 20, 110, 40, 150, 80, 170, 100}));
    AttrMap v2{{"padding", AttrValue(std::string("VALID"))}};
    const Tensor k = I32({4}, {1, 2, 2, 1}), s = I32({4}, {1, 1, 1, 1});
    const Tensor xd = T(DType::Double, x.shape(), as_doubles(x)), yd = T(DType::Double, y.shape(), as_doubles(y));
    QVERIFY(same_values(run1("MaxPoolGradGradV2", v2, {xd, yd, g, k, s}), gg, 0));
    const Tensor g2 = D({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    QVERIFY(same_values(run1("MaxPoolGradV2", v2, {xd, yd, g2, k, s}), run1("MaxPoolGrad", a, {xd, yd, g2}), 0));
  }

  void avg_pool_grad_spreads_by_count() {
    for (bool nchw : {false, true}) {
      const char* f = nchw ? "NCHW" : "NHWC";
      // Windows of 4, 2, 2 and 1 elements: gradients 4, 2, 2, 1 give 1 everywhere.
      const Shape in = nchw ? Shape{1, 1, 3, 3} : Shape{1, 3, 3, 1};
      const Tensor shape = I32({4}, nchw ? std::vector<int32_t>{1, 1, 3, 3} : std::vector<int32_t>{1, 3, 3, 1});
      const Tensor g = F(nchw ? Shape{1, 1, 2, 2} : Shape{1, 2, 2, 1}, {4, 2, 2, 1});
      for (auto path : {ops::CpuPath::Reference, ops::CpuPath::OneDnn})
        QVERIFY(tensor_near(run_path(path, "AvgPoolGrad", pool("SAME", win(nchw, 2, 2), win(nchw, 2, 2), f), {shape, g})[0],
                            DType::Float, in, std::vector<double>(9, 1.0)));
    }
    EXPECT_ERROR(run1("AvgPoolGrad", pool("VALID", {1, 2, 2, 1}, {1, 1, 1, 1}), {I32({3}, {1, 3, 3}), F({1, 2, 2, 1}, {1, 1, 1, 1})}),
                 "out_backprop must be 1-dimensional and 4 elements");
    EXPECT_ERROR(run1("AvgPoolGrad", pool("VALID", {1, 2, 2, 1}, {1, 1, 1, 1}),
                      {I32({4}, {1, 4, 4, 1}), F({1, 2, 2, 1}, {1, 1, 1, 1})}),
                 "Expected grad shape to be [1,3,3,1], but got [1,2,2,1]");
  }

  // ---- oneDNN against the loop ----------------------------------------------------------
  void onednn_matches_reference() {
    struct Case {
      const char* padding;
      int64_t k, s;
    };
    for (bool nchw : {false, true})
      for (Case c : {Case{"VALID", 2, 2}, Case{"SAME", 3, 2}, Case{"SAME", 3, 1}, Case{"VALID", 3, 2}, Case{"SAME", 1, 3}}) {
        const char* f = nchw ? "NCHW" : "NHWC";
        const Tensor x = random_tensor(DType::Float, nchw ? Shape{2, 5, 7, 6} : Shape{2, 7, 6, 5});
        const AttrMap a = pool(c.padding, win(nchw, c.k, c.k), win(nchw, c.s, c.s), f);
        const std::string what = std::string(f) + " " + c.padding + " k" + std::to_string(c.k) + " s" + std::to_string(c.s);
        for (const char* op : {"MaxPool", "AvgPool"}) {
          const Tensor ref = run_path(ops::CpuPath::Reference, op, a, {x})[0];
          const Tensor dnn = run_path(ops::CpuPath::OneDnn, op, a, {x})[0];
          QVERIFY2(same_values(dnn, ref, 1e-6), (what + " " + op).c_str());
        }
        const Tensor y = run1("AvgPool", a, {x});
        std::vector<int32_t> dims;
        for (int64_t d : x.shape().dims()) dims.push_back(static_cast<int32_t>(d));
        const std::vector<Tensor> in = {I32({4}, dims), random_tensor(DType::Float, y.shape(), 5)};
        QVERIFY2(same_values(run_path(ops::CpuPath::OneDnn, "AvgPoolGrad", a, in)[0],
                             run_path(ops::CpuPath::Reference, "AvgPoolGrad", a, in)[0], 1e-5),
                 what.c_str());
      }
    // Explicit padding through oneDNN too.
    AttrMap e = pool("EXPLICIT", {1, 3, 3, 1}, {1, 2, 2, 1});
    e["explicit_paddings"] = AttrValue(ints({0, 0, 2, 1, 1, 2, 0, 0}));
    const Tensor x = random_tensor(DType::Float, {1, 6, 5, 3});
    QVERIFY(same_values(run_path(ops::CpuPath::OneDnn, "MaxPool", e, {x})[0],
                        run_path(ops::CpuPath::Reference, "MaxPool", e, {x})[0], 0));
  }

  void onednn_primitives_are_cached_per_shape() {
    PathGuard g(ops::CpuPath::OneDnn);
    const Tensor x = random_tensor(DType::Float, {2, 9, 9, 4});
    const AttrMap a = pool("SAME", {1, 3, 3, 1}, {1, 2, 2, 1});
    const Tensor scale = F1({1, 2, 3, 4}), offset = F1({0, 1, 0, 1});
    auto step = [&] {
      run1("MaxPool", a, {x});
      run1("AvgPool", a, {x});
      const std::vector<Tensor> bnout = run_op("FusedBatchNormV3", bn(true), {x, scale, offset, F({0}, {}), F({0}, {})});
      run_op("FusedBatchNormGradV3", bn(true), {x, x, scale, bnout[3], bnout[4], bnout[5]});
    };
    step();
    const std::size_t built = ops::onednn::primitives_built();
    step();
    step();
    QCOMPARE(ops::onednn::primitives_built(), built);
  }

  void onednn_batch_norm_matches_reference() {
    for (const char* f : {"NHWC", "NCHW", "NDHWC", "NCDHW"}) {
      const bool five = std::string(f).size() == 5;
      const Shape s = five ? Shape{2, 3, 4, 2, 5} : Shape{3, 4, 5, 6};
      const int64_t c = std::string(f).back() == 'C' ? s.dim(s.rank() - 1) : s.dim(1);
      const Tensor x = random_tensor(DType::Float, s);
      const Tensor scale = random_tensor(DType::Float, {c}, 9), offset = random_tensor(DType::Float, {c}, 11);
      const Tensor mean = random_tensor(DType::Float, {c}, 13);
      std::vector<double> vv = distinct(c, 17);
      for (double& v : vv) v = std::fabs(v) + 0.5;
      const Tensor var = T(DType::Float, {c}, vv);
      for (bool training : {true, false}) {
        const std::vector<Tensor> in = {x, scale, offset, training ? F({0}, {}) : mean, training ? F({0}, {}) : var};
        const auto ref = run_path(ops::CpuPath::Reference, "FusedBatchNormV3", bn(training, f), in);
        const auto dnn = run_path(ops::CpuPath::OneDnn, "FusedBatchNormV3", bn(training, f), in);
        for (int k = 0; k < 5; ++k) QVERIFY2(same_values(dnn[k], ref[k], 2e-5), (std::string(f) + " output " + std::to_string(k)).c_str());
        const Tensor dy = random_tensor(DType::Float, s, 19);
        const std::vector<Tensor> gin = {dy, x, scale, ref[3], ref[4], ref[5]};
        const auto gref = run_path(ops::CpuPath::Reference, "FusedBatchNormGradV3", bn(training, f), gin);
        const auto gdnn = run_path(ops::CpuPath::OneDnn, "FusedBatchNormGradV3", bn(training, f), gin);
        for (int k = 0; k < 3; ++k) QVERIFY2(same_values(gdnn[k], gref[k], 2e-4), (std::string(f) + " grad " + std::to_string(k)).c_str());
      }
    }
  }

  // ---- batch norm, hand-computed ------------------------------------------------------------
  void batch_norm_training_running_stats() {
    // One channel, x = {1, 3}: mean 2, biased variance 1, Bessel-corrected 2.
    const Tensor x = F({2, 1, 1, 1}, {1, 3});
    const float k = 2.0f / std::sqrt(1.001f);
    for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})
      for (auto path : {ops::CpuPath::Reference, ops::CpuPath::OneDnn}) {
        AttrMap a = bn(true);
        if (std::string(op) == "FusedBatchNorm") a.erase("U");
        auto out = run_path(path, op, a, {x, F1({2}), F1({1}), F({0}, {}), F({0}, {})});
        QVERIFY(tensor_near(out[0], DType::Float, {2, 1, 1, 1}, {1 - k, 1 + k}));
        QVERIFY(tensor_near(out[1], DType::Float, {1}, {2}));
        QVERIFY(tensor_near(out[2], DType::Float, {1}, {2}));  // n / (n - 1) * 1
        QVERIFY(tensor_near(out[3], DType::Float, {1}, {2}));
        QVERIFY(tensor_near(out[4], DType::Float, {1}, {1}));  // biased, for the gradient
        QCOMPARE(out.size(), std::string(op) == "FusedBatchNormV3" ? size_t{6} : size_t{5});
        // exponential_avg_factor 0.5 blends into the running values passed in.
        out = run_path(path, op, bn(true, "NHWC", 0.001f, 0.5f), {x, F1({2}), F1({1}), F1({10}), F1({4})});
        QVERIFY(tensor_near(out[0], DType::Float, {2, 1, 1, 1}, {1 - k, 1 + k}));
        QVERIFY(tensor_near(out[1], DType::Float, {1}, {6}));  // 0.5 * 10 + 0.5 * 2
        QVERIFY(tensor_near(out[2], DType::Float, {1}, {3}));  // 0.5 * 4 + 0.5 * 2
      }
    EXPECT_ERROR(run_op("FusedBatchNormV3", bn(true, "NHWC", 0.001f, 0.5f), {x, F1({2}), F1({1}), F({0}, {}), F({0}, {})}),
                 "When exponential_avg_factor != 1, mean must have the same number of elements as the channels of x, got 0 and 1");
  }

  void batch_norm_training_one_element_per_channel() {
    // TensorFlow's CPU kernel corrects by n / max(n - 1, 1): with n == 1 the
    // running variance is the biased one, 0, not 0 * inf.
    const Tensor x = F({1, 1, 1, 2}, {3, -5});
    for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})
      for (auto path : {ops::CpuPath::Reference, ops::CpuPath::OneDnn}) {
        AttrMap a = bn(true);
        if (std::string(op) == "FusedBatchNorm") a.erase("U");
        auto out = run_path(path, op, a, {x, F({2}, {2, 2}), F({2}, {1, 1}), F({0}, {}), F({0}, {})});
        QVERIFY(tensor_near(out[0], DType::Float, {1, 1, 1, 2}, {1, 1}));  // x - mean = 0, + offset
        QVERIFY(tensor_near(out[1], DType::Float, {2}, {3, -5}));
        QVERIFY(tensor_near(out[2], DType::Float, {2}, {0, 0}));
        QVERIFY(tensor_near(out[3], DType::Float, {2}, {3, -5}));
        QVERIFY(tensor_near(out[4], DType::Float, {2}, {0, 0}));
        AttrMap blend = bn(true, "NHWC", 0.001f, 0.5f);
        if (std::string(op) == "FusedBatchNorm") blend.erase("U");
        out = run_path(path, op, blend, {x, F({2}, {2, 2}), F({2}, {1, 1}), F({2}, {10, 20}), F({2}, {4, 8})});
        QVERIFY(tensor_near(out[1], DType::Float, {2}, {6.5, 7.5}));  // 0.5 * old + 0.5 * x
        QVERIFY(tensor_near(out[2], DType::Float, {2}, {2, 4}));      // 0.5 * old + 0.5 * 1 * 0
      }
  }

  void batch_norm_both_layouts_and_inference() {
    // NCHW [1,2,1,2]: channel 0 = {1,3} (mean 2, var 1), channel 1 = {10,20} (mean 15, var 25).
    const Tensor x = F({1, 2, 1, 2}, {1, 3, 10, 20});
    auto out = run_op("FusedBatchNormV3", bn(true, "NCHW", 0), {x, F1({1, 1}), F1({0, 0}), F({0}, {}), F({0}, {})});
    QVERIFY(tensor_near(out[0], DType::Float, {1, 2, 1, 2}, {-1, 1, -1, 1}));
    QVERIFY(tensor_near(out[1], DType::Float, {2}, {2, 15}));
    QVERIFY(tensor_near(out[2], DType::Float, {2}, {2, 50}));
    // The same values as NHWC [1,2,1,2]... transposed to [1,1,2,2].
    out = run_op("FusedBatchNormV3", bn(true, "NHWC", 0), {F({1, 1, 2, 2}, {1, 10, 3, 20}), F1({1, 1}), F1({0, 0}),
                                                           F({0}, {}), F({0}, {})});
    QVERIFY(tensor_near(out[0], DType::Float, {1, 1, 2, 2}, {-1, -1, 1, 1}));
    // Inference: (x - mean) / sqrt(var + eps) * scale + offset; the statistics pass through.
    out = run_op("FusedBatchNormV3", bn(false, "NCHW", 0), {x, F1({2, 1}), F1({1, 0}), F1({1, 10}), F1({4, 100})});
    QVERIFY(tensor_near(out[0], DType::Float, {1, 2, 1, 2}, {1, 3, 0, 1}));
    QVERIFY(tensor_near(out[1], DType::Float, {2}, {1, 10}));
    QVERIFY(tensor_near(out[2], DType::Float, {2}, {4, 100}));
    // The inference gradient: dx = dy * scale / sqrt(var + eps).
    const auto g = run_op("FusedBatchNormGradV3", bn(false, "NCHW", 0),
                          {F({1, 2, 1, 2}, {1, 1, 1, 1}), x, F1({2, 1}), F1({1, 10}), F1({4, 100}), F({}, {0})});
    QVERIFY(tensor_near(g[0], DType::Float, {1, 2, 1, 2}, {1, 1, 0.1, 0.1}));
    QVERIFY(tensor_near(g[1], DType::Float, {2}, {(0 + 2) / 2.0, (0 + 10) / 10.0}));
    QVERIFY(tensor_near(g[2], DType::Float, {2}, {2, 2}));
    QCOMPARE(g[3].shape(), Shape{0});
  }

  void batch_norm_errors() {
    const Tensor x = F({1, 1, 2, 2}, {1, 2, 3, 4});
    EXPECT_ERROR(run_op("FusedBatchNormV3", bn(true), {x, F1({1}), F1({1, 2}), F({0}, {}), F({0}, {})}),
                 "scale must have the same number of elements as the channels of x, got 1 and 2");
    EXPECT_ERROR(run_op("FusedBatchNormV3", bn(false), {x, F1({1, 1}), F1({1, 2}), F1({0}), F1({1, 1})}),
                 "When is_training=false, mean must have the same number of elements");
    EXPECT_ERROR(run_op("FusedBatchNormV3", bn(true), {F({2, 2}, {1, 2, 3, 4}), F1({1, 1}), F1({1, 2}), F({0}, {}), F({0}, {})}),
                 "input must be 4 or 5-dimensional");
    EXPECT_ERROR(run_op("FusedBatchNormV3", bn(true, "NCDHW"), {x, F1({1}), F1({1}), F({0}, {}), F({0}, {})}),
                 "input must be 5-dimensional for data_format NCDHW");
    EXPECT_ERROR(run_op("FusedBatchNormGradV3", bn(true), {x, F({1, 1, 4, 1}, {1, 2, 3, 4}), F1({1, 1}), F1({0, 0}), F1({1, 1}), F({}, {0})}),
                 "x and y_backprop must have same shape");
    const auto info = infer("FusedBatchNormV3", bn(false, "NCHW"),
                            {{DType::Float, Shape{-1, -1, 4, 4}}, {DType::Float, Shape{3}}, {DType::Float, Shape{-1}},
                             {DType::Float, Shape{-1}}, {DType::Float, Shape{-1}}});
    QCOMPARE(info[0].shape, (Shape{-1, 3, 4, 4}));
    QCOMPARE(info[2].shape, Shape{3});
    EXPECT_ERROR(infer("FusedBatchNormV3", bn(false), {{DType::Float, Shape{1, 2, 2, 3}}, {DType::Float, Shape{4}},
                                                       {DType::Float, Shape{3}}, {DType::Float, Shape{3}}, {DType::Float, Shape{3}}}),
                 "Dimensions must be equal, but are 3 and 4");
  }

  // ---- 16-bit floats --------------------------------------------------------------------
  void half_and_bfloat16_follow_float() {
    for (DType t : {DType::Half, DType::BFloat16}) {
      const double tol = t == DType::Half ? 3e-3 : 2e-2;
      const Tensor xf = random_tensor(DType::Float, {2, 5, 6, 3});
      const Tensor xh = T(t, xf.shape(), as_doubles(xf));
      const Tensor xr = T(DType::Float, xf.shape(), as_doubles(xh));  // the same values, rounded
      const AttrMap a = pool("SAME", {1, 3, 3, 1}, {1, 2, 2, 1});
      for (const char* op : {"MaxPool", "AvgPool"}) {
        const Tensor h = run1(op, a, {xh});
        QCOMPARE(h.dtype(), t);
        QVERIFY2(tensor_near(h, t, h.shape(), as_doubles(run1(op, a, {xr})), tol), op);
      }
      const Tensor g = random_tensor(DType::Float, run1("MaxPool", a, {xr}).shape(), 4);
      const Tensor gh = T(t, g.shape(), as_doubles(g));
      const Tensor gr = T(DType::Float, g.shape(), as_doubles(gh));
      QVERIFY(tensor_near(run1("MaxPoolGrad", a, {xh, run1("MaxPool", a, {xh}), gh}), t, xf.shape(),
                          as_doubles(run1("MaxPoolGrad", a, {xr, run1("MaxPool", a, {xr}), gr})), tol));
      AttrMap b = bn(true);
      b["T"] = AttrValue(t);
      const auto bh = run_op("FusedBatchNormV3", b, {xh, F1({1, 2, 3}), F1({0, 1, 0}), F({0}, {}), F({0}, {})});
      const auto bf = run_op("FusedBatchNormV3", bn(true), {xr, F1({1, 2, 3}), F1({0, 1, 0}), F({0}, {}), F({0}, {})});
      QVERIFY(tensor_near(bh[0], t, xf.shape(), as_doubles(bf[0]), tol * 4));
      QCOMPARE(bh[1].dtype(), DType::Float);
      QVERIFY(tensor_near(bh[2], DType::Float, {3}, as_doubles(bf[2]), 1e-5));
      const Tensor lh = run1("LRN", {{"depth_radius", AttrValue(int64_t{1})}}, {xh});
      QVERIFY(tensor_near(lh, t, xf.shape(), as_doubles(run1("LRN", {{"depth_radius", AttrValue(int64_t{1})}}, {xr})), tol));
      const Tensor rh = run1("ResizeBilinear", {}, {xh, I32({2}, {7, 4})});
      QVERIFY(tensor_near(rh, DType::Float, rh.shape(), as_doubles(run1("ResizeBilinear", {}, {xr, I32({2}, {7, 4})})), 1e-5));
    }
  }

  // ---- LRN --------------------------------------------------------------------------------
  void lrn_hand_case() {
    // depth 3, radius 1: sqr sums {1+4, 1+4+9, 4+9}.
    const AttrMap a{{"depth_radius", AttrValue(int64_t{1})}, {"bias", AttrValue(1.0f)}, {"alpha", AttrValue(0.5f)},
                    {"beta", AttrValue(0.75f)}};
    const Tensor x = F({1, 1, 1, 3}, {1, 2, 3});
    auto n = [](double s) { return std::pow(1 + 0.5 * s, -0.75); };
    QVERIFY(tensor_near(run1("LRN", a, {x}), DType::Float, {1, 1, 1, 3}, {1 * n(5), 2 * n(14), 3 * n(13)}));
    // Default attrs (radius 5, bias 1, alpha 1, beta 0.5).
    QVERIFY(tensor_near(run1("LRN", {}, {F({1, 1, 1, 2}, {3, 4})}), DType::Float, {1, 1, 1, 2},
                        {3 / std::sqrt(26.0), 4 / std::sqrt(26.0)}));
    EXPECT_ERROR(run1("LRN", {{"depth_radius", AttrValue(int64_t{-1})}}, {x}), "depth_radius = -1 larger than int max");
    EXPECT_ERROR(run1("LRN", {}, {F({3}, {1, 2, 3})}), "in must be 4-dimensional");
    EXPECT_ERROR(run1("LRNGrad", {}, {x, x, F({1, 1, 3, 1}, {1, 2, 3})}),
                 "input_grads, input_image, and out_image should have the same shape");
  }

  // ---- resize -----------------------------------------------------------------------------
  void resize_bilinear_modes() {
    const Tensor x = F({1, 1, 2, 1}, {0, 10});
    // Legacy: scale 2/4 = 0.5, sample at 0, .5, 1, 1.5 (clamped to 1).
    QVERIFY(tensor_near(run1("ResizeBilinear", {}, {x, I32({2}, {1, 4})}), DType::Float, {1, 1, 4, 1}, {0, 5, 10, 10}));
    // align_corners: scale 1/3, corners map to corners.
    QVERIFY(tensor_near(run1("ResizeBilinear", {{"align_corners", AttrValue(true)}}, {x, I32({2}, {1, 4})}),
                        DType::Float, {1, 1, 4, 1}, {0, 10 / 3.0, 20 / 3.0, 10}));
    // half_pixel_centers: (x + .5) * .5 - .5 = -.25, .25, .75, 1.25 -> clamped 0, 2.5, 7.5, 10.
    QVERIFY(tensor_near(run1("ResizeBilinear", {{"half_pixel_centers", AttrValue(true)}}, {x, I32({2}, {1, 4})}),
                        DType::Float, {1, 1, 4, 1}, {0, 2.5, 7.5, 10}));
    // Integer images give float output.
    QVERIFY(tensor_near(run1("ResizeBilinear", {}, {I32({1, 1, 2, 1}, {0, 3}), I32({2}, {1, 4})}), DType::Float,
                        {1, 1, 4, 1}, {0, 1.5, 3, 3}));
    // The gradient scatters along the same weights.
    QVERIFY(tensor_near(run1("ResizeBilinearGrad", {}, {F({1, 1, 4, 1}, {1, 1, 1, 1}), x}), DType::Float, {1, 1, 2, 1},
                        {1 + 0.5, 0.5 + 1 + 1}));
    // Two rows: the gradient of a 2x2 image seen at 1 row goes to its first row.
    QVERIFY(tensor_near(run1("ResizeBilinearGrad", {}, {F({1, 1, 1, 1}, {4}), F({1, 2, 2, 1}, {0, 0, 0, 0})}), DType::Float,
                        {1, 2, 2, 1}, {4, 0, 0, 0}));
    EXPECT_ERROR(run1("ResizeBilinear", {{"half_pixel_centers", AttrValue(true)}, {"align_corners", AttrValue(true)}},
                      {x, I32({2}, {2, 2})}),
                 "If half_pixel_centers is True, align_corners must be False.");
    EXPECT_ERROR(run1("ResizeBilinear", {}, {x, I32({2}, {0, 2})}), "output dimensions must be positive");
    EXPECT_ERROR(run1("ResizeBilinear", {}, {x, I32({3}, {1, 2, 2})}), "shape_t must have two elements");
    EXPECT_ERROR(run1("ResizeBilinear", {}, {F({1, 0, 2, 1}, {}), I32({2}, {2, 2})}), "input image must be of non-zero size");
  }

  void resize_nearest_modes() {
    const Tensor x = F({1, 1, 3, 1}, {1, 2, 3});
    // Legacy: floor(i * 3/5) = 0 0 1 1 2.
    QVERIFY(tensor_near(run1("ResizeNearestNeighbor", {}, {x, I32({2}, {1, 5})}), DType::Float, {1, 1, 5, 1},
                        {1, 1, 2, 2, 3}));
    // align_corners: round(i * 2/4) = 0 1 1 2 2 (roundf rounds halves away from zero).
    QVERIFY(tensor_near(run1("ResizeNearestNeighbor", {{"align_corners", AttrValue(true)}}, {x, I32({2}, {1, 5})}),
                        DType::Float, {1, 1, 5, 1}, {1, 2, 2, 3, 3}));
    // half_pixel_centers: floor((i + .5) * .6) = 0 0 1 2 2.
    QVERIFY(tensor_near(run1("ResizeNearestNeighbor", {{"half_pixel_centers", AttrValue(true)}}, {x, I32({2}, {1, 5})}),
                        DType::Float, {1, 1, 5, 1}, {1, 1, 2, 3, 3}));
    // The gradient adds each output gradient to its source pixel.
    QVERIFY(tensor_near(run1("ResizeNearestNeighborGrad", {}, {F({1, 1, 5, 1}, {1, 2, 3, 4, 5}), I32({2}, {1, 3})}),
                        DType::Float, {1, 1, 3, 1}, {3, 7, 5}));
    QVERIFY(tensor_near(run1("ResizeNearestNeighbor", {}, {I32({1, 1, 2, 1}, {7, 9}), I32({2}, {1, 4})}), DType::Int32,
                        {1, 1, 4, 1}, {7, 7, 9, 9}));
    EXPECT_ERROR(run1("ResizeNearestNeighborGrad", {}, {F({1, 1, 5, 1}, {1, 2, 3, 4, 5}), I32({2}, {1, -3})}),
                 "negative dimension");
    const Tensor size = I32({2}, {5, 6});
    const auto info = infer("ResizeBilinear", {}, {{DType::UInt8, Shape{2, -1, -1, 3}}, {DType::Int32, Shape{2}}},
                            {nullptr, &size});
    QCOMPARE(info[0].shape, (Shape{2, 5, 6, 3}));
    QCOMPARE(info[0].dtype, DType::Float);
  }

  // ---- hostile attrs and inputs -------------------------------------------------------------
  void hostile_pool_attrs_are_refused() {
    const Tensor x = image33(false);
    EXPECT_ERROR(run1("MaxPool", pool("VALID", {1, 0, 2, 1}, {1, 1, 1, 1}), {x}), "Sliding window ksize for dimension 1 was zero.");
    EXPECT_ERROR(run1("MaxPool", pool("VALID", {1, -3, 2, 1}, {1, 1, 1, 1}), {x}), "Sliding window ksize for dimension 1 was zero.");
    EXPECT_ERROR(run1("AvgPool", pool("VALID", {1, 2, 2}, {1, 1, 1, 1}), {x}), "Sliding window ksize field must specify 4 dimensions");
    EXPECT_ERROR(run1("AvgPool", pool("VALID", {1, 2, 2, 1}, {1, 1, 1}), {x}), "Sliding window stride field must specify 4 dimensions");
    EXPECT_ERROR(run1("MaxPool", pool("VALID", {1, 2, 2, 1}, {1, 0, 1, 1}), {x}), "Stride must be > 0, but got 0");
    EXPECT_ERROR(run1("MaxPool", pool("VALID", {1, 2, 2, 1}, {1, -2, 1, 1}), {x}), "Stride must be > 0");
    EXPECT_ERROR(run1("MaxPool", pool("VALID", {2, 2, 2, 1}, {1, 1, 1, 1}), {x}), "Pooling is not yet supported on the batch dimension.");
    EXPECT_ERROR(run1("AvgPool", pool("VALID", {1, 1, 1, 2}, {1, 1, 1, 2}), {x}), "Non-spatial pooling is not yet supported.");
    EXPECT_ERROR(run1("MaxPool", pool("VALID", {1, 2, 2, 2}, {1, 1, 1, 1}), {x}),
                 "MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
    EXPECT_ERROR(run1("MaxPool", pool("VALID", {1, int64_t{1} << 40, 2, 1}, {1, 1, 1, 1}), {x}),
                 "Computed output size would be negative");
    EXPECT_ERROR(run1("MaxPool", pool("VALID", {1, 5, 2, 1}, {1, 1, 1, 1}), {x}), "Computed output size would be negative");
    // A window one larger than the input gives an empty output, as in TensorFlow.
    QCOMPARE(run1("MaxPool", pool("VALID", {1, 4, 2, 1}, {1, 1, 1, 1}), {x}).shape(), (Shape{1, 0, 2, 2}));
    EXPECT_ERROR(run1("MaxPool", pool("SAME", {1, 2, 2, 1}, {1, 1, 1, 1}), {F({3, 3}, std::vector<float>(9, 0))}),
                 "tensor_in must be 4-dimensional");
    EXPECT_ERROR(run1("MaxPool", pool("SAME", {1, 2, 2, 1}, {1, 1, 1, 1}, "NCHW_VECT_C"), {x}), "Invalid data format");
    AttrMap e = pool("EXPLICIT", {1, 2, 2, 1}, {1, 1, 1, 1});
    e["explicit_paddings"] = AttrValue(ints({0, 0, 1, 1}));
    EXPECT_ERROR(run1("MaxPool", e, {x}), "explicit_paddings attribute must contain 8 values, but got: 4");
    e["explicit_paddings"] = AttrValue(ints({0, 0, -1, 1, 0, 0, 0, 0}));
    EXPECT_ERROR(run1("MaxPool", e, {x}), "All elements of explicit_paddings must be nonnegative");
    e["explicit_paddings"] = AttrValue(ints({1, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_ERROR(run1("MaxPool", e, {x}), "Nonzero explicit padding in the batch or depth dimensions is not supported");
    e["explicit_paddings"] = AttrValue(ints({0, 0, 2, 0, 0, 0, 0, 0}));
    EXPECT_ERROR(run1("MaxPool", e, {x}), "must be smaller than the window");
    AttrMap s = pool("SAME", {1, 2, 2, 1}, {1, 1, 1, 1});
    s["explicit_paddings"] = AttrValue(ints({0, 0, 1, 1, 1, 1, 0, 0}));
    EXPECT_ERROR(run1("MaxPool", s, {x}), "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    const AttrMap v2{{"padding", AttrValue(std::string("VALID"))}};
    EXPECT_ERROR(run1("MaxPoolV2", v2, {x, I32({4}, {1, 0, 1, 1}), I32({4}, {1, 1, 1, 1})}), "ksize must be a positive int32 value, got:0");
    EXPECT_ERROR(run1("MaxPoolV2", v2, {x, I32({3}, {1, 1, 1}), I32({4}, {1, 1, 1, 1})}), "Sliding window ksize field must specify 4 dimensions");
    // A huge orig_input_shape is refused before anything is allocated.
    EXPECT_ERROR(run1("AvgPoolGrad", pool("VALID", {1, 1, 1, 1}, {1, 1, 1, 1}),
                      {I32({4}, {1 << 30, 1 << 30, 1 << 30, 4}), F({1, 1, 1, 1}, {1})}),
                 "AvgPoolGrad");
    EXPECT_ERROR(run1("AvgPoolGrad", pool("VALID", {1, 1, 1, 1}, {1, 1, 1, 1}), {I32({4}, {1, -1, 1, 1}), F({1, 1, 1, 1}, {1})}),
                 "negative dimension");
    // Shape functions refuse the same attrs and predict the output.
    EXPECT_ERROR(infer("MaxPool", pool("VALID", {1, 0, 2, 1}, {1, 1, 1, 1}), {{DType::Float, Shape{1, 3, 3, 2}}}), "was zero");
    auto info = infer("MaxPool", pool("SAME", {1, 1, 3, 3}, {1, 1, 2, 2}, "NCHW"), {{DType::Float, Shape{-1, 4, 7, -1}}});
    QCOMPARE(info[0].shape, (Shape{-1, 4, 4, -1}));
    info = infer("MaxPoolV2", {{"padding", AttrValue(std::string("VALID"))}},
                 {{DType::Float, Shape{1, 5, 5, 1}}, {DType::Int32, Shape{4}}, {DType::Int32, Shape{4}}});
    QVERIFY(!info[0].shape.rank_known());
  }

  // ---- gradients against numerical differentiation ---------------------------------------------
  void pooling_gradients_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("padding");
    QTest::addColumn<bool>("nchw");
    for (const char* op : {"MaxPool", "AvgPool", "MaxPoolV2"})
      for (const char* p : {"VALID", "SAME"})
        for (bool nchw : {false, true})
          QTest::newRow((std::string(op) + " " + p + (nchw ? " NCHW" : " NHWC")).c_str()) << op << p << nchw;
  }
  void pooling_gradients() {
    QFETCH(QString, op);
    QFETCH(QString, padding);
    QFETCH(bool, nchw);
    Model m;
    const Shape s = nchw ? Shape{2, 3, 5, 4} : Shape{2, 5, 4, 3};
    const std::string x = m.x("x", D(s, distinct(s.num_elements())));
    const std::string f = nchw ? "NCHW" : "NHWC";
    if (op == "MaxPoolV2") {
      std::vector<int32_t> k(4, 1), st(4, 1);
      k[nchw ? 2 : 1] = k[nchw ? 3 : 2] = 3;
      st[nchw ? 2 : 1] = st[nchw ? 3 : 2] = 2;
      check_gradients(m, m.op("MaxPoolV2", {x, m.c("k", I32({4}, k)), m.c("s", I32({4}, st))},
                              {{"padding", AttrValue(padding.toStdString())}, {"data_format", AttrValue(f)}}));
      return;
    }
    check_gradients(m, m.op(op.toStdString(), {x}, pool(padding.toStdString().c_str(), win(nchw, 3, 2), win(nchw, 2, 1), f.c_str())));
  }

  void max_pool_explicit_gradient() {
    Model m;
    const std::string x = m.x("x", D({1, 5, 4, 2}, distinct(40)));
    AttrMap e = pool("EXPLICIT", {1, 3, 3, 1}, {1, 2, 1, 1});
    e["explicit_paddings"] = AttrValue(ints({0, 0, 2, 1, 0, 2, 0, 0}));
    check_gradients(m, m.op("MaxPool", {x}, e));
  }

  // Second order: MaxPoolGrad -> MaxPoolGradGrad, MaxPoolGradGrad -> MaxPoolGrad,
  // AvgPoolGrad -> AvgPool; the grad ops are linear in their gradient input.
  void pooling_grad_gradients() {
    for (bool nchw : {false, true}) {
      const Shape s = nchw ? Shape{1, 2, 5, 4} : Shape{1, 5, 4, 2};
      const AttrMap a = pool("SAME", win(nchw, 2, 3), win(nchw, 2, 1), nchw ? "NCHW" : "NHWC");
      {
        Model m;
        const std::string x = m.x("x", D(s, distinct(s.num_elements())));
        const std::string y = m.op("MaxPool", {x}, a);
        const Shape ys = Session(m.g).run(m.feeds, {y})[0].shape();
        const std::string g = m.x("g", D(ys, distinct(ys.num_elements(), 2)));
        const std::string mg = m.op("MaxPoolGrad", {x, y, g}, a);
        check_gradients(m, mg);
        Model m2;
        const std::string x2 = m2.x("x", D(s, distinct(s.num_elements())));
        const std::string y2 = m2.op("MaxPool", {x2}, a);
        const std::string g2 = m2.x("g", D(s, distinct(s.num_elements(), 4)));
        check_gradients(m2, m2.op("MaxPoolGradGrad", {x2, y2, g2}, a));
      }
      {
        Model m;
        const Shape gs = nchw ? Shape{1, 2, 3, 4} : Shape{1, 3, 4, 2};
        std::vector<int32_t> dims;
        for (int64_t d : s.dims()) dims.push_back(static_cast<int32_t>(d));
        const std::string g = m.x("g", D(gs, distinct(gs.num_elements(), 5)));
        check_gradients(m, m.op("AvgPoolGrad", {m.c("shape", I32({4}, dims)), g}, a));
      }
    }
  }

  void batch_norm_gradients_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("format");
    QTest::addColumn<bool>("training");
    for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})
      for (const char* f : {"NHWC", "NCHW"})
        for (bool t : {true, false})
          QTest::newRow((std::string(op) + " " + f + (t ? " training" : " inference")).c_str()) << op << f << t;
  }
  void batch_norm_gradients() {
    QFETCH(QString, op);
    QFETCH(QString, format);
    QFETCH(bool, training);
    for (auto path : {ops::CpuPath::Reference, ops::CpuPath::OneDnn}) {
      PathGuard guard(path);
      Model m;
      const Shape s = format == "NHWC" ? Shape{2, 3, 2, 3} : Shape{2, 3, 3, 2};
      auto to_float = [&](const std::string& t) { return m.b.cast(t, DType::Double, DType::Float); };
      const std::string x = to_float(m.x("x", D(s, distinct(s.num_elements()))));
      const std::string scale = to_float(m.x("scale", D({3}, {1.5, -0.7, 0.9})));
      const std::string offset = to_float(m.x("offset", D({3}, {0.1, 0.2, -0.3})));
      const std::string mean = m.c("mean", training ? F({0}, {}) : F1({0.2f, -0.1f, 0.3f}));
      const std::string var = m.c("var", training ? F({0}, {}) : F1({1.2f, 0.8f, 2.0f}));
      AttrMap a = bn(training, format.toStdString().c_str(), 0.01f);
      if (op == "FusedBatchNorm") a.erase("U");
      const std::string y = m.op(op.toStdString(), {x, scale, offset, mean, var}, a);
      check_gradients(m, m.b.cast(y, DType::Float, DType::Double), 1e-3, 1e-2);
    }
  }

  void lrn_and_resize_gradients() {
    {
      Model m;
      const std::string x = m.b.cast(m.x("x", D({1, 2, 2, 5}, distinct(20))), DType::Double, DType::Float);
      const std::string y = m.op("LRN", {x}, {{"T", AttrValue(DType::Float)}, {"depth_radius", AttrValue(int64_t{2})},
                                              {"alpha", AttrValue(0.3f)}, {"beta", AttrValue(0.75f)}, {"bias", AttrValue(1.5f)}});
      check_gradients(m, m.b.cast(y, DType::Float, DType::Double), 1e-3, 1e-2);
    }
    for (int mode = 0; mode < 3; ++mode) {
      const AttrMap a{{"align_corners", AttrValue(mode == 1)}, {"half_pixel_centers", AttrValue(mode == 2)}};
      Model m;
      const std::string x = m.x("x", D({1, 3, 4, 2}, distinct(24)));
      AttrMap b = a;
      const std::string y = m.op("ResizeBilinear", {x, m.c("size", I32({2}, {5, 7}))}, b);
      check_gradients(m, m.b.cast(y, DType::Float, DType::Double), 1e-3, 1e-2);
      Model n;
      const std::string xn = n.x("x", D({1, 3, 4, 2}, distinct(24)));
      check_gradients(n, n.op("ResizeNearestNeighbor", {xn, n.c("size", I32({2}, {5, 7}))}, a));
    }
  }

  // ---- measurement (FLOWLENS_BENCH=1) ------------------------------------------------------------
  void benchmark() {
    if (!std::getenv("FLOWLENS_BENCH")) QSKIP("set FLOWLENS_BENCH=1 to time the oneDNN path against the loop");
    for (const char* f : {"NHWC", "NCHW"}) {
      const bool nchw = std::string(f) == "NCHW";
      const Shape s = nchw ? Shape{32, 64, 56, 56} : Shape{32, 56, 56, 64};
      const Tensor x = random_tensor(DType::Float, s);
      const AttrMap a = pool("SAME", win(nchw, 3, 3), win(nchw, 2, 2), f);
      const Tensor y = run1("MaxPool", a, {x});
      std::vector<int32_t> dims;
      for (int64_t d : s.dims()) dims.push_back(static_cast<int32_t>(d));
      const Tensor gy = random_tensor(DType::Float, y.shape(), 2);
      const Tensor scale = random_tensor(DType::Float, {64}, 3), offset = random_tensor(DType::Float, {64}, 4);
      const auto bnout = run_op("FusedBatchNormV3", bn(true, f), {x, scale, offset, F({0}, {}), F({0}, {})});
      struct Job {
        const char* name;
        std::function<void()> fn;
      };
      const std::vector<Job> jobs = {
          {"MaxPool", [&] { run1("MaxPool", a, {x}); }},
          {"AvgPool", [&] { run1("AvgPool", a, {x}); }},
          {"AvgPoolGrad", [&] { run1("AvgPoolGrad", a, {I32({4}, dims), gy}); }},
          {"MaxPoolGrad", [&] { run1("MaxPoolGrad", a, {x, y, gy}); }},
          {"BN train", [&] { run_op("FusedBatchNormV3", bn(true, f), {x, scale, offset, F({0}, {}), F({0}, {})}); }},
          {"BN infer", [&] { run_op("FusedBatchNormV3", bn(false, f), {x, scale, offset, bnout[1], bnout[2]}); }},
          {"BN grad", [&] { run_op("FusedBatchNormGradV3", bn(true, f), {x, x, scale, bnout[3], bnout[4], bnout[5]}); }},
      };
      for (const Job& j : jobs) {
        double t[2] = {0, 0};
        // MaxPoolGrad has no oneDNN path (see pooling_ops.cpp): one column.
        const int paths = std::string(j.name) == "MaxPoolGrad" ? 1 : 2;
        for (int k = 0; k < paths; ++k) {
          PathGuard g(k == 0 ? ops::CpuPath::Reference : ops::CpuPath::OneDnn);
          t[k] = ms_per_call(j.fn, 5);
        }
        std::printf("BENCH %s %-12s loop %8.2f ms  oneDNN %8.2f ms\n", f, j.name, t[0], t[1]);
      }
    }
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpsPoolNorm)
#include "test_ops_pool_norm.moc"
