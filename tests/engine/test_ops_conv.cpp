// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, DepthwiseConv2dNative
// and its backprops, and _FusedConv2D: hand-computed cases; every geometry
// (both layouts, VALID / SAME / EXPLICIT, strides, dilations, groups)
// against a direct loop written here, and the oneDNN path against the
// im2col + GEMM reference; float16 / bfloat16; shape functions; TensorFlow's
// errors for hostile attrs and sizes; numerical gradient checks; and the
// oneDNN primitive cache (a second run builds nothing).
#include "test_main.h"
#include <cmath>

#include "engine/gradient_ops_gate.h"
#include "engine/op_cases/op_case.h"
#include "ops/kernels/nn/conv_onednn.h"
#include "ops/kernels/nn/conv_reference.h"
#include "ops/framework/onednn.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// One convolution geometry, independent of the engine's own arithmetic.
struct Case {
  const char* format = "NHWC";
  int64_t n = 1, h = 5, w = 5, c = 2;       // input
  int64_t kh = 3, kw = 3, ki = 2, ko = 3;   // HWIO filter (ki = c / groups)
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  const char* padding = "VALID";
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;   // EXPLICIT
  bool nchw() const { return std::string(format) == "NCHW"; }
  int64_t groups() const { return c / ki; }
  // Output size and leading pad of one dimension, computed here from TensorFlow's definitions.
  std::pair<int64_t, int64_t> out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t before, int64_t after) const {
    const int64_t eff = (k - 1) * d + 1;
    const std::string p = padding;
    if (p == "VALID") return {in >= eff ? (in - eff) / s + 1 : 0, 0};
    if (p == "EXPLICIT") return {in + before + after >= eff ? (in + before + after - eff) / s + 1 : 0, before};
    const int64_t o = (in + s - 1) / s;
    const int64_t needed = std::max<int64_t>(0, (o - 1) * s + eff - in);
    return {o, needed / 2};
  }
  int64_t oh() const { return out(h, kh, sh, dh, pt, pb).first; }
  int64_t ow() const { return out(w, kw, sw, dw, pl, pr).first; }
  Shape in_shape() const { return nchw() ? Shape{n, c, h, w} : Shape{n, h, w, c}; }
  Shape out_shape() const { return nchw() ? Shape{n, ko, oh(), ow()} : Shape{n, oh(), ow(), ko}; }
  Shape filter_shape() const { return Shape{kh, kw, ki, ko}; }
  int64_t in_index(int64_t b, int64_t y, int64_t x, int64_t ch) const {
    return nchw() ? ((b * c + ch) * h + y) * w + x : ((b * h + y) * w + x) * c + ch;
  }
  int64_t out_index(int64_t b, int64_t y, int64_t x, int64_t ch) const {
    return nchw() ? ((b * ko + ch) * oh() + y) * ow() + x : ((b * oh() + y) * ow() + x) * ko + ch;
  }
  AttrMap attrs(DType t = DType::Float) const {
    AttrMap a{{"T", AttrValue(t)}, {"padding", AttrValue(std::string(padding))}, {"data_format", AttrValue(std::string(format))}};
    a["strides"] = AttrValue(int_list(nchw() ? std::vector<int64_t>{1, 1, sh, sw} : std::vector<int64_t>{1, sh, sw, 1}));
    a["dilations"] = AttrValue(int_list(nchw() ? std::vector<int64_t>{1, 1, dh, dw} : std::vector<int64_t>{1, dh, dw, 1}));
    if (std::string(padding) == "EXPLICIT")
      a["explicit_paddings"] = AttrValue(int_list(nchw() ? std::vector<int64_t>{0, 0, 0, 0, pt, pb, pl, pr}
                                                         : std::vector<int64_t>{0, 0, pt, pb, pl, pr, 0, 0}));
    return a;
  }
  std::string name() const {
    return std::string(format) + " in " + in_shape().to_string() + " filter " + filter_shape().to_string() + " " +
           padding + " s" + std::to_string(sh) + "x" + std::to_string(sw) + " d" + std::to_string(dh) + "x" +
           std::to_string(dw) + (std::string(padding) == "EXPLICIT" ? " pads " + std::to_string(pt) + std::to_string(pb) +
                                                                          std::to_string(pl) + std::to_string(pr)
                                                                    : "");
  }
};

// The direct definition: y = conv(x, w); dx, dw for a given dy (scatter form).
struct Direct {
  std::vector<double> y, dx, dw;
};
Direct direct(const Case& k, const std::vector<double>& x, const std::vector<double>& w, const std::vector<double>& dy) {
  Direct r;
  r.y.assign(static_cast<size_t>(k.out_shape().num_elements()), 0.0);
  r.dx.assign(x.size(), 0.0);
  r.dw.assign(w.size(), 0.0);
  const int64_t top = k.out(k.h, k.kh, k.sh, k.dh, k.pt, k.pb).second, left = k.out(k.w, k.kw, k.sw, k.dw, k.pl, k.pr).second;
  const int64_t og = k.ko / k.groups();
  for (int64_t b = 0; b < k.n; ++b)
    for (int64_t oy = 0; oy < k.oh(); ++oy)
      for (int64_t ox = 0; ox < k.ow(); ++ox)
        for (int64_t o = 0; o < k.ko; ++o) {
          const auto yi = static_cast<size_t>(k.out_index(b, oy, ox, o));
          for (int64_t fy = 0; fy < k.kh; ++fy)
            for (int64_t fx = 0; fx < k.kw; ++fx)
              for (int64_t i = 0; i < k.ki; ++i) {
                const int64_t iy = oy * k.sh - top + fy * k.dh, ix = ox * k.sw - left + fx * k.dw;
                if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
                const auto xi = static_cast<size_t>(k.in_index(b, iy, ix, (o / og) * k.ki + i));
                const auto wi = static_cast<size_t>(((fy * k.kw + fx) * k.ki + i) * k.ko + o);
                r.y[yi] += x[xi] * w[wi];
                r.dx[xi] += dy[yi] * w[wi];
                r.dw[wi] += x[xi] * dy[yi];
              }
        }
  return r;
}

std::vector<double> values(int64_t n, uint32_t seed) { return as_doubles(gen(DType::Double, Shape{n}, -1.0, 1.0, seed)); }

bool near(const Tensor& t, const std::vector<double>& expected, double tol, const std::string& what) {
  const std::vector<double> got = as_doubles(t);
  if (got.size() != expected.size()) {
    qWarning("%s: %zu values, expected %zu", what.c_str(), got.size(), expected.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - expected[i]) <= tol * (1.0 + std::fabs(expected[i])))) {
      qWarning("%s: value %zu is %.9g, expected %.9g", what.c_str(), i, got[i], expected[i]);
      return false;
    }
  return true;
}

Tensor shape_tensor(const Shape& s) {
  std::vector<int32_t> v;
  for (int64_t d : s.dims()) v.push_back(static_cast<int32_t>(d));
  return I32({static_cast<int64_t>(v.size())}, v);
}

// The geometries every pass is checked on: both layouts, each padding,
// strides, dilations, groups, odd sizes, 1x1 filters, rows and columns apart.
std::vector<Case> cases() {
  std::vector<Case> all;
  for (const char* format : {"NHWC", "NCHW"}) {
    auto add = [&](Case k) {
      k.format = format;
      all.push_back(k);
    };
    add({});
    Case same;
    same.padding = "SAME";
    add(same);
    Case strided = same;
    strided.h = 7;
    strided.w = 6;
    strided.sh = 2;
    strided.sw = 3;
    add(strided);
    Case valid_strided;
    valid_strided.h = 8;
    valid_strided.w = 7;
    valid_strided.sh = 2;
    valid_strided.sw = 2;
    add(valid_strided);
    Case dilated = same;
    dilated.h = 7;
    dilated.w = 8;
    dilated.dh = 2;
    dilated.dw = 3;
    add(dilated);
    Case explicit_pad;
    explicit_pad.padding = "EXPLICIT";
    explicit_pad.pt = 1;
    explicit_pad.pb = 2;
    explicit_pad.pl = 0;
    explicit_pad.pr = 3;
    explicit_pad.sh = 2;
    explicit_pad.dw = 2;
    add(explicit_pad);
    Case grouped = same;
    grouped.c = 4;
    grouped.ki = 2;
    grouped.ko = 6;
    grouped.n = 2;
    add(grouped);
    Case pointwise;
    pointwise.kh = pointwise.kw = 1;
    pointwise.c = pointwise.ki = 3;
    pointwise.ko = 4;
    pointwise.n = 2;
    add(pointwise);
    Case wide;
    wide.kh = 1;
    wide.kw = 3;
    wide.h = 3;
    wide.w = 9;
    wide.padding = "SAME";
    wide.sw = 2;
    add(wide);
  }
  return all;
}

// Depthwise geometries: c channels, multiplier m (ki = 1, ko = c * m).
std::vector<Case> depthwise_cases() {
  std::vector<Case> all;
  for (const Case& base : cases()) {
    if (base.groups() != 1) continue;
    Case k = base;
    k.c = 3;
    k.ki = 1;
    k.ko = 6;
    k.sw = k.sh;  // TensorFlow's depthwise kernels take one stride for rows and columns
    all.push_back(k);
  }
  return all;
}

// The depthwise filter [H, W, C, M] of a grouped case (same bytes as [H, W, 1, C * M]).
Shape depthwise_filter(const Case& k) { return Shape{k.kh, k.kw, k.c, k.ko / k.c}; }

// The engine's geometry of a case (for calling oneDNN and the reference directly).
ops::conv::Geometry geometry(const Case& k) {
  ops::conv::Params p;
  p.format = k.nchw() ? ops::DataFormat::NCHW : ops::DataFormat::NHWC;
  p.padding = ops::padding_from(k.padding);
  p.stride_rows = k.sh;
  p.stride_cols = k.sw;
  p.dilation_rows = k.dh;
  p.dilation_cols = k.dw;
  p.pad_top = k.pt;
  p.pad_bottom = k.pb;
  p.pad_left = k.pl;
  p.pad_right = k.pr;
  return ops::conv::make_geometry(p, {k.n, k.h, k.w, k.c}, {k.kh, k.kw, k.ki, k.ko});
}

bool close(const std::vector<float>& got, const std::vector<float>& want, double tol, const std::string& what) {
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * (1.0 + std::fabs(want[i])))) {
      qWarning("%s: value %zu is %.9g, reference %.9g", what.c_str(), i, got[i], want[i]);
      return false;
    }
  return true;
}

double tol_of(DType t) {
  switch (t) {
    case DType::Half: return 1e-2;
    case DType::BFloat16: return 6e-2;
    case DType::Float: return 1e-5;
    default: return 1e-10;
  }
}

// The output channel of flat index i of a case's output.
int64_t channel_of(const Case& k, int64_t i) { return k.nchw() ? (i / (k.oh() * k.ow())) % k.ko : i % k.ko; }

}  // namespace

class TestOpsConv : public QObject {
  Q_OBJECT
 private slots:
  // ---- hand-computed ------------------------------------------------------------------
  void conv2d_by_hand() {
    // 3x3 image 1..9, 2x2 filter [[1,2],[3,4]].
    const Tensor x = F({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), w = F({2, 2, 1, 1}, {1, 2, 3, 4});
    Case k;
    k.h = k.w = 3;
    k.c = k.ki = k.ko = 1;
    k.kh = k.kw = 2;
    QVERIFY(tensor_near(run1("Conv2D", k.attrs(), {x, w}), DType::Float, {1, 2, 2, 1}, {37, 47, 67, 77}));
    // SAME pads one row and column after (TensorFlow pads the extra after).
    k.padding = "SAME";
    QVERIFY(tensor_near(run1("Conv2D", k.attrs(), {x, w}), DType::Float, {1, 3, 3, 1}, {37, 47, 21, 67, 77, 33, 23, 26, 9}));
    // EXPLICIT: one row before (the window starts above the image).
    k.padding = "EXPLICIT";
    k.pt = 1;
    QVERIFY(tensor_near(run1("Conv2D", k.attrs(), {x, w}), DType::Float, {1, 3, 2, 1}, {11, 18, 37, 47, 67, 77}));
    // Stride 2 with SAME on 3x3: output 2x2, windows at rows/cols 0 and 2.
    k.padding = "SAME";
    k.pt = 0;
    k.sh = k.sw = 2;
    QVERIFY(tensor_near(run1("Conv2D", k.attrs(), {x, w}), DType::Float, {1, 2, 2, 1}, {37, 21, 23, 9}));
    // Dilation 2: the 2x2 filter covers the corners of the 3x3 image.
    k.sh = k.sw = 1;
    k.dh = k.dw = 2;
    k.padding = "VALID";
    QVERIFY(tensor_near(run1("Conv2D", k.attrs(), {x, w}), DType::Float, {1, 1, 1, 1}, {1 + 6 + 21 + 36}));
    // Two channels in, two out, NCHW: out[o] = sum_c w[c][o] * x[c] for a 1x1 filter.
    Case p;
    p.format = "NCHW";
    p.h = p.w = 1;
    p.kh = p.kw = 1;
    p.c = p.ki = p.ko = 2;
    QVERIFY(tensor_near(run1("Conv2D", p.attrs(DType::Double), {D({1, 2, 1, 1}, {3, 5}), D({1, 1, 2, 2}, {1, 2, 10, 20})}),
                        DType::Double, {1, 2, 1, 1}, {53, 106}));
    // Grouped: 4 channels in 2 groups, one output per group.
    Case grouped = p;
    grouped.format = "NHWC";
    grouped.c = 4;
    grouped.ko = 2;
    QVERIFY(tensor_near(run1("Conv2D", grouped.attrs(), {F({1, 1, 1, 4}, {1, 2, 3, 4}), F({1, 1, 2, 2}, {1, 10, 2, 20})}),
                        DType::Float, {1, 1, 1, 2}, {1 * 1 + 2 * 2, 3 * 10 + 4 * 20}));
    // int32, as TensorFlow's CPU Conv2D computes it.
    QVERIFY(tensor_near(run1("Conv2D", k.attrs(DType::Int32), {I32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), I32({2, 2, 1, 1}, {1, 2, 3, 4})}),
                        DType::Int32, {1, 1, 1, 1}, {64}));
  }

  void backprops_by_hand() {
    Case k;
    k.h = k.w = 3;
    k.c = k.ki = k.ko = 1;
    k.kh = k.kw = 2;
    const Tensor w = F({2, 2, 1, 1}, {1, 2, 3, 4}), dy = F({1, 2, 2, 1}, {1, 1, 1, 1});
    // Each input pixel gets the filter taps whose windows cover it.
    QVERIFY(tensor_near(run1("Conv2DBackpropInput", k.attrs(), {I32({4}, {1, 3, 3, 1}), w, dy}), DType::Float, {1, 3, 3, 1},
                        {1, 3, 2, 4, 10, 6, 3, 7, 4}));
    // input_sizes of two values: [H, W], batch from out_backprop, depth from the filter.
    QVERIFY(tensor_near(run1("Conv2DBackpropInput", k.attrs(), {I32({2}, {3, 3}), w, dy}), DType::Float, {1, 3, 3, 1},
                        {1, 3, 2, 4, 10, 6, 3, 7, 4}));
    // Each tap gets the sum of the pixels it saw.
    QVERIFY(tensor_near(run1("Conv2DBackpropFilter", k.attrs(),
                             {F({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), I32({4}, {2, 2, 1, 1}), dy}),
                        DType::Float, {2, 2, 1, 1}, {12, 16, 24, 28}));
  }

  void depthwise_by_hand() {
    // Two channels, multiplier 2: channel c is convolved with w[..., c, m] into output c * 2 + m.
    Case k;
    k.h = k.w = 2;
    k.kh = k.kw = 2;
    const AttrMap a = k.attrs();
    const Tensor x = F({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
    const Tensor w = F({2, 2, 2, 2}, {1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, -1});
    // channel 0: taps (1,1,1,1) and (0,0,0,0); channel 1: (1,1,1,1) and (1,1,1,-1).
    QVERIFY(tensor_near(run1("DepthwiseConv2dNative", a, {x, w}), DType::Float, {1, 1, 1, 4}, {10, 0, 100, 20}));
  }

  // ---- every geometry ---------------------------------------------------------------------
  void every_geometry_matches_the_direct_loop() {
    for (const Case& k : cases()) {
      const std::vector<double> xv = values(k.in_shape().num_elements(), 1), wv = values(k.filter_shape().num_elements(), 2),
                                dyv = values(k.out_shape().num_elements(), 3);
      const Direct want = direct(k, xv, wv, dyv);
      for (DType t : {DType::Double, DType::Float, DType::Half, DType::BFloat16}) {
        const Tensor x = T(t, k.in_shape(), xv), w = T(t, k.filter_shape(), wv), dy = T(t, k.out_shape(), dyv);
        // The 16-bit floats are compared with the direct loop on their rounded values.
        const Direct exact = t == DType::Double ? want : direct(k, as_doubles(x), as_doubles(w), as_doubles(dy));
        const std::string what = k.name() + " " + dtype_name(t);
        QVERIFY2(near(run1("Conv2D", k.attrs(t), {x, w}), exact.y, tol_of(t), what + " Conv2D"), what.c_str());
        QVERIFY2(near(run1("Conv2DBackpropInput", k.attrs(t), {shape_tensor(k.in_shape()), w, dy}), exact.dx, tol_of(t),
                      what + " Conv2DBackpropInput"),
                 what.c_str());
        QVERIFY2(near(run1("Conv2DBackpropFilter", k.attrs(t), {x, shape_tensor(k.filter_shape()), dy}), exact.dw,
                      tol_of(t), what + " Conv2DBackpropFilter"),
                 what.c_str());
        const Tensor out = run1("Conv2D", k.attrs(t), {x, w});
        QCOMPARE(out.shape(), k.out_shape());
        QCOMPARE(out.dtype(), t);
      }
    }
  }

  void onednn_matches_the_im2col_reference() {
    for (const Case& k : cases()) {
      const ops::conv::Geometry g = geometry(k);
      const Tensor x = gen(DType::Float, k.in_shape(), -1, 1, 4), w = gen(DType::Float, k.filter_shape(), -1, 1, 5),
                   dy = gen(DType::Float, k.out_shape(), -1, 1, 6);
      std::vector<float> fast(static_cast<size_t>(k.out_shape().num_elements())), ref(fast.size());
      QVERIFY2(ops::conv::onednn_forward(g, x.data<float>(), w.data<float>(), fast.data()), k.name().c_str());
      ops::conv::reference_forward(g, x.data<float>(), w.data<float>(), ref.data());
      QVERIFY2(close(fast, ref, 1e-5, k.name() + " forward"), k.name().c_str());
      fast.assign(static_cast<size_t>(x.num_elements()), 0);
      ref = fast;
      QVERIFY2(ops::conv::onednn_backward_data(g, w.data<float>(), dy.data<float>(), fast.data()), k.name().c_str());
      ops::conv::reference_backward_data(g, w.data<float>(), dy.data<float>(), ref.data());
      QVERIFY2(close(fast, ref, 1e-5, k.name() + " backward data"), k.name().c_str());
      fast.assign(static_cast<size_t>(w.num_elements()), 0);
      ref = fast;
      QVERIFY2(ops::conv::onednn_backward_filter(g, x.data<float>(), dy.data<float>(), fast.data()), k.name().c_str());
      ops::conv::reference_backward_filter(g, x.data<float>(), dy.data<float>(), ref.data());
      QVERIFY2(close(fast, ref, 1e-5, k.name() + " backward filter"), k.name().c_str());
    }
  }

  void deep_filter_gradients_through_gemm_match_the_direct_loop() {
    // 256+ input channels, NHWC: the filter gradient is computed by im2col + sgemm (conv_common.cpp).
    for (const char* padding : {"SAME", "VALID"}) {
      Case k;
      k.padding = padding;
      k.n = 2;
      k.h = 3;
      k.w = 4;
      k.c = k.ki = 256;
      k.kh = k.kw = 2;
      k.ko = 3;
      const std::vector<double> xv = values(k.in_shape().num_elements(), 41), dyv = values(k.out_shape().num_elements(), 42);
      const Direct want = direct(k, xv, std::vector<double>(static_cast<size_t>(k.filter_shape().num_elements())), dyv);
      QVERIFY(near(run1("Conv2DBackpropFilter", k.attrs(), {T(DType::Float, k.in_shape(), xv), shape_tensor(k.filter_shape()),
                                                            T(DType::Float, k.out_shape(), dyv)}),
                   want.dw, 1e-5, k.name()));
    }
  }

  void depthwise_matches_the_direct_loop() {
    for (const Case& k : depthwise_cases()) {
      const std::vector<double> xv = values(k.in_shape().num_elements(), 7), wv = values(k.filter_shape().num_elements(), 8),
                                dyv = values(k.out_shape().num_elements(), 9);
      for (DType t : {DType::Double, DType::Float, DType::Half, DType::BFloat16}) {
        const Tensor x = T(t, k.in_shape(), xv), w = T(t, depthwise_filter(k), wv), dy = T(t, k.out_shape(), dyv);
        const Direct want = direct(k, as_doubles(x), as_doubles(w), as_doubles(dy));
        const std::string what = k.name() + " depthwise " + dtype_name(t);
        QVERIFY2(near(run1("DepthwiseConv2dNative", k.attrs(t), {x, w}), want.y, tol_of(t), what), what.c_str());
        QVERIFY2(near(run1("DepthwiseConv2dNativeBackpropInput", k.attrs(t), {shape_tensor(k.in_shape()), w, dy}), want.dx,
                      tol_of(t), what + " backprop input"),
                 what.c_str());
        const Tensor dw = run1("DepthwiseConv2dNativeBackpropFilter", k.attrs(t), {x, shape_tensor(depthwise_filter(k)), dy});
        QCOMPARE(dw.shape(), depthwise_filter(k));
        QVERIFY2(near(dw, want.dw, tol_of(t), what + " backprop filter"), what.c_str());
      }
    }
  }

  void fused_conv2d_matches_conv_then_its_ops() {
    const std::vector<std::vector<std::string>> patterns = {
        {"BiasAdd"}, {"BiasAdd", "Relu"}, {"BiasAdd", "Relu6"}, {"BiasAdd", "Elu"}, {"BiasAdd", "LeakyRelu"},
        {"FusedBatchNorm"}, {"FusedBatchNorm", "Relu"}, {"FusedBatchNorm", "Relu6"}, {"FusedBatchNorm", "Elu"},
        {"FusedBatchNorm", "LeakyRelu"}};
    std::vector<Case> geometries = {cases()[1], cases()[5], cases()[6], cases()[10], cases()[15]};
    for (const Case& k : geometries)
      for (const auto& ops : patterns)
        for (DType t : {DType::Float, DType::Double, DType::Half}) {
          const bool bn = ops[0] == "FusedBatchNorm";
          const Tensor x = gen(t, k.in_shape(), -3, 3, 11), w = gen(t, k.filter_shape(), -1, 1, 12);
          std::vector<Tensor> in{x, w};
          const Tensor a = gen(t, {k.ko}, -1, 1, 13), b = gen(t, {k.ko}, -1, 1, 14), mean = gen(t, {k.ko}, -1, 1, 15),
                       var = gen(t, {k.ko}, 0.1, 2, 16);
          if (bn) in.insert(in.end(), {a, b, mean, var});
          else in.push_back(a);
          AttrMap attrs = k.attrs(t);
          AttrList fused;
          fused.s = ops;
          attrs["fused_ops"] = AttrValue(fused);
          attrs["num_args"] = AttrValue(int64_t{bn ? 4 : 1});
          attrs["epsilon"] = AttrValue(0.001f);
          attrs["leakyrelu_alpha"] = AttrValue(0.3f);
          const Direct d = direct(k, as_doubles(x), as_doubles(w), std::vector<double>(static_cast<size_t>(k.out_shape().num_elements())));
          const std::vector<double> av = as_doubles(a), bv = as_doubles(b), mv = as_doubles(mean), vv = as_doubles(var);
          std::vector<double> want = d.y;
          for (size_t i = 0; i < want.size(); ++i) {
            const auto o = static_cast<size_t>(channel_of(k, static_cast<int64_t>(i)));
            double v = bn ? (want[i] - mv[o]) * av[o] / std::sqrt(vv[o] + static_cast<double>(0.001f)) + bv[o] : want[i] + av[o];
            if (ops.size() == 2) {
              if (ops[1] == "Relu") v = std::max(v, 0.0);
              if (ops[1] == "Relu6") v = std::min(std::max(v, 0.0), 6.0);
              if (ops[1] == "Elu") v = v < 0 ? std::exp(v) - 1 : v;
              if (ops[1] == "LeakyRelu") v = v < 0 ? v * static_cast<double>(0.3f) : v;
            }
            want[i] = v;
          }
          const std::string what = k.name() + " " + ops[0] + (ops.size() > 1 ? "+" + ops[1] : "") + " " + dtype_name(t);
          QVERIFY2(near(run1("_FusedConv2D", attrs, in), want, t == DType::Double ? 1e-9 : t == DType::Half ? 2e-2 : 1e-4, what),
                   what.c_str());
        }
  }

  // ---- shape functions ----------------------------------------------------------------------
  void shape_functions() {
    Case k;  // VALID 3x3
    auto info = infer("Conv2D", k.attrs(), {{DType::Float, Shape{-1, 5, 5, 2}}, {DType::Float, Shape{3, 3, 2, 4}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,3,3,4]"));
    QCOMPARE(info[0].dtype, DType::Float);
    Case s;
    s.format = "NCHW";
    s.padding = "SAME";
    s.sh = s.sw = 2;
    info = infer("Conv2D", s.attrs(), {{DType::Float, Shape{2, 3, 7, -1}}, {DType::Float, Shape{3, 3, 3, 8}}});
    QCOMPARE(qshape(info[0].shape), QString("[2,8,4,?]"));
    info = infer("Conv2D", s.attrs(), {{DType::Float, Shape::unknown_rank()}, {DType::Float, Shape::unknown_rank()}});
    QCOMPARE(qshape(info[0].shape), QString("[?,?,?,?]"));
    Case e;
    e.padding = "EXPLICIT";
    e.pt = 2;
    e.pr = 1;
    info = infer("Conv2D", e.attrs(), {{DType::Float, Shape{1, 5, 5, 2}}, {DType::Float, Shape{3, 3, 2, 4}}});
    QCOMPARE(qshape(info[0].shape), QString("[1,5,4,4]"));
    const Tensor sizes = I32({4}, {1, 5, 5, 2}), hw = I32({2}, {5, 5}), fsizes = I32({4}, {3, 3, 2, 4});
    info = infer("Conv2DBackpropInput", k.attrs(),
                 {{DType::Int32, Shape{4}}, {DType::Float, Shape{3, 3, 2, 4}}, {DType::Float, Shape{1, 3, 3, 4}}},
                 {&sizes, nullptr, nullptr});
    QCOMPARE(qshape(info[0].shape), QString("[1,5,5,2]"));
    info = infer("Conv2DBackpropInput", k.attrs(),
                 {{DType::Int32, Shape{2}}, {DType::Float, Shape{3, 3, 2, 4}}, {DType::Float, Shape{7, 3, 3, 4}}},
                 {&hw, nullptr, nullptr});
    QCOMPARE(qshape(info[0].shape), QString("[7,5,5,2]"));
    info = infer("Conv2DBackpropInput", k.attrs(),
                 {{DType::Int32, Shape{4}}, {DType::Float, Shape{3, 3, 2, 4}}, {DType::Float, Shape{7, 3, 3, 4}}});
    QCOMPARE(qshape(info[0].shape), QString("[7,?,?,?]"));
    info = infer("Conv2DBackpropFilter", k.attrs(),
                 {{DType::Float, Shape{1, 5, 5, 2}}, {DType::Int32, Shape{4}}, {DType::Float, Shape{1, 3, 3, 4}}},
                 {nullptr, &fsizes, nullptr});
    QCOMPARE(qshape(info[0].shape), QString("[3,3,2,4]"));
    info = infer("Conv2DBackpropFilter", k.attrs(),
                 {{DType::Float, Shape{1, 5, 5, 2}}, {DType::Int32, Shape{4}}, {DType::Float, Shape{1, 3, 3, 4}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,?,?,?]"));
    Case d;
    d.padding = "SAME";
    info = infer("DepthwiseConv2dNative", d.attrs(DType::Half), {{DType::Half, Shape{1, 5, 5, 3}}, {DType::Half, Shape{3, 3, 3, 2}}});
    QCOMPARE(qshape(info[0].shape), QString("[1,5,5,6]"));
    QCOMPARE(info[0].dtype, DType::Half);
    info = infer("DepthwiseConv2dNativeBackpropInput", d.attrs(),
                 {{DType::Int32, Shape{4}}, {DType::Float, Shape{3, 3, 3, 2}}, {DType::Float, Shape{1, 5, 5, 6}}}, {&sizes});
    QCOMPARE(qshape(info[0].shape), QString("[1,5,5,2]"));
    AttrMap fused = k.attrs();
    fused["num_args"] = AttrValue(int64_t{1});
    info = infer("_FusedConv2D", fused,
                 {{DType::Float, Shape{2, 5, 5, 2}}, {DType::Float, Shape{3, 3, 2, 4}}, {DType::Float, Shape{4}}});
    QCOMPARE(qshape(info[0].shape), QString("[2,3,3,4]"));
    // TensorFlow's shape-function errors.
    EXPECT_ERROR(infer("Conv2D", k.attrs(), {{DType::Float, Shape{1, 5, 5, 5}}, {DType::Float, Shape{3, 3, 2, 4}}}),
                 "Depth of input (5) is not a multiple of input depth of filter (2)");
    EXPECT_ERROR(infer("Conv2D", k.attrs(), {{DType::Float, Shape{1, 5, 5, 4}}, {DType::Float, Shape{3, 3, 2, 5}}}),
                 "Depth of output (5) is not a multiple of the number of groups (2)");
    EXPECT_ERROR(infer("Conv2D", k.attrs(), {{DType::Float, Shape{1, 2, 5, 2}}, {DType::Float, Shape{3, 3, 2, 4}}}),
                 "Negative dimension size caused by subtracting 3 from 2");
    EXPECT_ERROR(infer("Conv2D", k.attrs(), {{DType::Float, Shape{5, 5, 2}}, {DType::Float, Shape{3, 3, 2, 4}}}),
                 "Shape must be rank 4 but is rank 3");
    AttrMap bad = k.attrs();
    bad["strides"] = AttrValue(int_list({1, 1, 1}));
    EXPECT_ERROR(infer("Conv2D", bad, {{DType::Float, Shape{1, 5, 5, 2}}, {DType::Float, Shape{3, 3, 2, 4}}}),
                 "Conv2D on data format NHWC requires the stride attribute to contain 4 values, but got: 3");
    EXPECT_ERROR(infer("DepthwiseConv2dNative", bad, {{DType::Float, Shape{1, 5, 5, 2}}, {DType::Float, Shape{3, 3, 2, 4}}}),
                 "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: 3");
    bad = k.attrs();
    bad["dilations"] = AttrValue(int_list({1, 1}));
    EXPECT_ERROR(infer("Conv2D", bad, {{DType::Float, Shape{1, 5, 5, 2}}, {DType::Float, Shape{3, 3, 2, 4}}}),
                 "Conv2D requires the dilation attribute to contain 4 values, but got: 2");
    EXPECT_ERROR(infer("DepthwiseConv2dNative", k.attrs(), {{DType::Float, Shape{1, 5, 5, 3}}, {DType::Float, Shape{3, 3, 2, 4}}}),
                 "Dimensions must be equal, but are 3 and 2");
    const Tensor three = I32({3}, {1, 5, 5});
    EXPECT_ERROR(infer("Conv2DBackpropInput", k.attrs(),
                       {{DType::Int32, Shape{3}}, {DType::Float, Shape{3, 3, 2, 4}}, {DType::Float, Shape{1, 3, 3, 4}}},
                       {&three, nullptr, nullptr}),
                 "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: 3");
    EXPECT_ERROR(infer("Conv2DBackpropFilter", k.attrs(),
                       {{DType::Float, Shape{1, 5, 5, 2}}, {DType::Int32, Shape{3}}, {DType::Float, Shape{1, 3, 3, 4}}},
                       {nullptr, &three, nullptr}),
                 "Shape must be rank 4 but is rank 3");
  }

  // ---- errors ---------------------------------------------------------------------------------
  void hostile_attrs_and_sizes_fail_with_tensorflows_messages() {
    Case k;
    const Tensor x = gen(DType::Float, k.in_shape()), w = gen(DType::Float, k.filter_shape()),
                 dy = gen(DType::Float, k.out_shape());
    auto with = [&](const char* name, AttrValue v) {
      AttrMap a = k.attrs();
      a[name] = std::move(v);
      return a;
    };
    for (const char* op : {"Conv2D", "DepthwiseConv2dNative", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                           "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"}) {
      const std::string o = op;
      const bool depthwise = o.find("Depthwise") == 0;
      const Tensor filt = depthwise ? gen(DType::Float, {3, 3, 2, 1}) : w;
      const Tensor out_b = depthwise ? gen(DType::Float, {1, 3, 3, 2}) : dy;
      std::vector<Tensor> in;
      if (o.ends_with("BackpropInput")) in = {shape_tensor(k.in_shape()), filt, out_b};
      else if (o.ends_with("BackpropFilter")) in = {x, shape_tensor(filt.shape()), out_b};
      else in = {x, filt};
      QVERIFY2(run_op(op, k.attrs(), in).size() == 1, op);  // the base case runs
      EXPECT_ERROR(run_op(op, with("strides", AttrValue(int_list({1, 1, 1}))), in),
                   "Sliding window strides field must specify 4 dimensions");
      EXPECT_ERROR(run_op(op, with("strides", AttrValue(int_list({1, 0, 1, 1}))), in),
                   "Row and column strides should be larger than 0.");
      EXPECT_ERROR(run_op(op, with("strides", AttrValue(int_list({1, 1, -3, 1}))), in),
                   "Row and column strides should be larger than 0.");
      EXPECT_ERROR(run_op(op, with("strides", AttrValue(int_list({2, 1, 1, 1}))), in),
                   "Current implementation does not yet support strides in the batch and depth dimensions.");
      const int64_t huge = int64_t{1} << 41;  // both for the depthwise kernels, which take one stride
      EXPECT_ERROR(run_op(op, with("strides", AttrValue(int_list({1, huge, depthwise ? huge : 1, 1}))), in),
                   "Window geometry out of range");
      // Unequal row and column strides: Conv2D takes them, the depthwise kernels refuse them.
      const AttrMap unequal = with("strides", AttrValue(int_list({1, 2, 1, 1})));
      if (depthwise)
        EXPECT_ERROR(run_op(op, unequal, in),
                     "Current implementation only supports equal length strides in the row and column dimensions.");
      else if (o == "Conv2D")
        QCOMPARE(run1(op, unequal, in).shape(), Shape({1, 2, 3, 3}));
      EXPECT_ERROR(run_op(op, with("dilations", AttrValue(int_list({1, 1}))), in),
                   "Sliding window dilations field must specify 4 dimensions");
      EXPECT_ERROR(run_op(op, with("dilations", AttrValue(int_list({1, 0, 1, 1}))), in),
                   "Dilated rates should be larger than 0.");
      EXPECT_ERROR(run_op(op, with("dilations", AttrValue(int_list({1, 1, 1, 2}))), in),
                   "Current implementation does not yet support dilations in the batch and depth dimensions.");
      EXPECT_ERROR(run_op(op, with("data_format", AttrValue(std::string("NCDHW"))), in), "Invalid data format");
      EXPECT_ERROR(run_op(op, with("padding", AttrValue(std::string("EXPLICIT"))), in),
                   "explicit_paddings attribute must contain 8 values, but got: 0");
      EXPECT_ERROR(run_op(op, with("explicit_paddings", AttrValue(int_list({0, 0, 1, 1, 1, 1, 0, 0}))), in),
                   "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
      AttrMap a = with("padding", AttrValue(std::string("EXPLICIT")));
      a["explicit_paddings"] = AttrValue(int_list({0, 0, -1, 1, 1, 1, 0, 0}));
      EXPECT_ERROR(run_op(op, a, in), "All elements of explicit_paddings must be nonnegative");
      a["explicit_paddings"] = AttrValue(int_list({1, 0, 1, 1, 1, 1, 0, 0}));
      EXPECT_ERROR(run_op(op, a, in), "Nonzero explicit padding in the batch or depth dimensions is not supported");
      a["explicit_paddings"] = AttrValue(int_list({0, 0, int64_t{1} << 50, 0, 0, 0, 0, 0}));
      EXPECT_ERROR(run_op(op, a, in), "out of range");
    }
    // Conv2D's tensor checks.
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {gen(DType::Float, {5, 5, 2}), w}), "convolution input must be 4-dimensional: [5,5,2]");
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {x, gen(DType::Float, {3, 3, 2})}), "convolution filter must be 4-dimensional: [3,3,2]");
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {gen(DType::Float, {1, 5, 5, 3}), w}),
                 "input depth must be evenly divisible by filter depth: 3 vs 2");
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {x, gen(DType::Float, {3, 3, 0, 4})}), "filter depth must be stricly positive, got 0");
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {gen(DType::Float, {1, 5, 5, 4}), gen(DType::Float, {3, 3, 2, 3})}),
                 "Depth of output (3) is not a multiple of the number of groups (2)");
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {gen(DType::Float, {1, 1, 5, 2}), w}), "Computed output size would be negative");
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {x, gen(DType::Double, k.filter_shape())}), "both inputs must have the same dtype");
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {gen(DType::UInt8, k.in_shape(), 0, 5), gen(DType::UInt8, k.filter_shape(), 0, 5)}),
                 "unsupported dtype uint8");
    EXPECT_ERROR(run1("Conv2DBackpropFilter", k.attrs(DType::Int32),
                      {gen(DType::Int32, k.in_shape()), shape_tensor(k.filter_shape()), gen(DType::Int32, k.out_shape())}),
                 "unsupported dtype int32");
    // A huge filter of no elements: refused, not allocated.
    EXPECT_ERROR(run1("Conv2D", k.attrs(), {x, Tensor(DType::Float, Shape{int64_t{1} << 31, 3, 2, 0})}), "filter too large");
    // Backprops: sizes and shapes that disagree.
    EXPECT_ERROR(run1("Conv2DBackpropInput", k.attrs(), {I32({3}, {1, 5, 5}), w, dy}),
                 "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: 3");
    EXPECT_ERROR(run1("Conv2DBackpropInput", k.attrs(), {I32({2, 2}, {1, 5, 5, 2}), w, dy}),
                 "Conv2DBackpropInput: input_sizes input must be 1-dim, not 2");
    EXPECT_ERROR(run1("Conv2DBackpropInput", k.attrs(), {I32({4}, {1, -5, 5, 2}), w, dy}), "Dimension -5 must be >= 0");
    EXPECT_ERROR(run1("Conv2DBackpropInput", k.attrs(), {I32({2}, {-1, 5}), w, dy}),
                 "Conv2DBackpropInput: elements of input_sizes must be >= 0, not -1x5");
    EXPECT_ERROR(run1("Conv2DBackpropInput", k.attrs(), {I32({4}, {1, 6, 5, 2}), w, dy}),
                 "Conv2DBackpropInput: Size of out_backprop doesn't match computed: actual = 3, computed = 4 spatial_dim: 1 "
                 "input: 6 filter: 3 output: 3 stride: 1 dilation: 1");
    EXPECT_ERROR(run1("Conv2DBackpropInput", k.attrs(), {I32({4}, {2, 5, 5, 2}), w, dy}),
                 "Conv2DBackpropInput: input and out_backprop must have the same batch size. Input batch: 2, outbackprop "
                 "batch: 1, batch_dim: 0");
    EXPECT_ERROR(run1("Conv2DBackpropInput", k.attrs(), {I32({4}, {2147483647, 2147483647, 2147483647, 2}), w, dy}),
                 "more elements than int64 can count");
    EXPECT_ERROR(run1("Conv2DBackpropFilter", k.attrs(), {x, I32({4}, {3, 3, 2, 5}), dy}),
                 "Conv2DBackpropFilter: filter and out_backprop must have the same out_depth");
    EXPECT_ERROR(run1("Conv2DBackpropFilter", k.attrs(), {x, I32({3}, {3, 3, 2}), dy}),
                 "Conv2DBackpropFilter: filter must be 4-dimensional");
    EXPECT_ERROR(run1("Conv2DBackpropFilter", k.attrs(), {x, I32({4}, {3, 3, 0, 4}), dy}),
                 "Conv2DBackpropFilter: filter depth must be strictly greated than zero");
    EXPECT_ERROR(run1("Conv2DBackpropFilter", k.attrs(), {x, I32({}, {3}), dy}),
                 "Conv2DBackpropFilter: filter_sizes input must be 1-dim, not 0");
    // Depthwise.
    EXPECT_ERROR(run1("DepthwiseConv2dNative", k.attrs(), {x, gen(DType::Float, {3, 3, 3, 1})}),
                 "input and filter must have the same depth: 2 vs 3");
    EXPECT_ERROR(run1("DepthwiseConv2dNativeBackpropInput", k.attrs(), {shape_tensor(k.in_shape()), gen(DType::Float, {3, 3, 2, 2}), gen(DType::Float, {1, 3, 3, 2})}),
                 "DepthwiseConv2DBackpropInput: depth_multiplier * in_depth not equal to out_depth");
    EXPECT_ERROR(run1("DepthwiseConv2dNativeBackpropInput", k.attrs(), {shape_tensor(k.in_shape()), gen(DType::Float, {3, 3, 2, 1}), gen(DType::Float, {1, 4, 3, 2})}),
                 "DepthwiseConv2DBackpropInput: Number of rows of out_backprop doesn't match computed: actual = 4, computed = 3");
    EXPECT_ERROR(run1("DepthwiseConv2dNativeBackpropFilter", k.attrs(), {x, I32({4}, {3, -3, 2, 1}), gen(DType::Float, {1, 3, 3, 2})}),
                 "Dimension 1 of filter_sizes must be >= 0");
    // _FusedConv2D.
    AttrMap f = k.attrs();
    f["num_args"] = AttrValue(int64_t{1});
    EXPECT_ERROR(run1("_FusedConv2D", f, {x, w, gen(DType::Float, {4})}), "Fused Conv2D must have at least one fused op.");
    AttrList ops;
    ops.s = {"BiasAdd", "Tanh"};
    f["fused_ops"] = AttrValue(ops);
    EXPECT_ERROR(run1("_FusedConv2D", f, {x, w, gen(DType::Float, {3})}), "Fusion is not implemented: [BiasAdd,Tanh]");
    ops.s = {"BiasAdd"};
    f["fused_ops"] = AttrValue(ops);
    EXPECT_ERROR(run1("_FusedConv2D", f, {x, w, gen(DType::Float, {4})}), "bias must have one value per output channel: 4 vs 3");
    EXPECT_ERROR(run1("_FusedConv2D", f, {x, w, gen(DType::Float, {1, 3})}), "bias must be 1-dimensional");
    f["num_args"] = AttrValue(int64_t{2});
    EXPECT_ERROR(run1("_FusedConv2D", f, {x, w, gen(DType::Float, {3}), gen(DType::Float, {3})}),
                 "Fused Conv2D with BiasAdd must have one extra argument: bias.");
    ops.s = {"FusedBatchNorm", "Relu"};
    f["fused_ops"] = AttrValue(ops);
    EXPECT_ERROR(run1("_FusedConv2D", f, {x, w, gen(DType::Float, {3}), gen(DType::Float, {3})}),
                 "Fused Conv2D with FusedBatchNorm must have four extra arguments: scale, offset, mean, variance.");
  }

  void empty_and_all_padding_tensors() {
    Case k;
    // Batch 0: empty outputs; the filter gradient is all zeros.
    const Tensor x0 = Tensor(DType::Float, Shape{0, 5, 5, 2}), w = gen(DType::Float, k.filter_shape());
    QCOMPARE(run1("Conv2D", k.attrs(), {x0, w}).shape(), Shape({0, 3, 3, 3}));
    QVERIFY(tensor_near(run1("Conv2DBackpropFilter", k.attrs(), {x0, I32({4}, {1, 1, 2, 3}), Tensor(DType::Float, Shape{0, 5, 5, 3})}),
                        DType::Float, {1, 1, 2, 3}, std::vector<double>(6, 0.0)));
    // An empty image with explicit padding: every window is padding.
    Case e;
    e.padding = "EXPLICIT";
    e.h = 0;
    e.pt = 2;
    e.pb = 1;
    QVERIFY(tensor_near(run1("Conv2D", e.attrs(), {Tensor(DType::Float, Shape{1, 0, 5, 2}), w}), DType::Float, {1, 1, 3, 3},
                        std::vector<double>(9, 0.0)));
    // A VALID window past the image: zero rows, as TensorFlow computes (in - k + s) / s = 0.
    Case s;
    s.h = 2;
    s.sh = 2;
    QCOMPARE(run1("Conv2D", s.attrs(), {gen(DType::Float, {1, 2, 5, 2}), w}).shape(), Shape({1, 0, 3, 3}));
  }

  // ---- gradients ---------------------------------------------------------------------------------
  void gradients_match_numerical_differentiation_data() {
    QTest::addColumn<int>("which");
    for (int i = 0; i < 4; ++i) QTest::newRow(std::to_string(i).c_str()) << i;
  }
  void gradients_match_numerical_differentiation() {
    QFETCH(int, which);
    std::vector<Case> geometries(4);
    geometries[0].h = 4, geometries[0].w = 5, geometries[0].kh = 2, geometries[0].ko = 2, geometries[0].padding = "SAME",
    geometries[0].sh = 2;
    geometries[1].format = "NCHW", geometries[1].h = 4, geometries[1].w = 4, geometries[1].kh = 2, geometries[1].kw = 2,
    geometries[1].ko = 2, geometries[1].padding = "EXPLICIT", geometries[1].pt = 1, geometries[1].pr = 2,
    geometries[1].dw = 2;
    geometries[2].c = 4, geometries[2].ki = 2, geometries[2].ko = 2, geometries[2].h = 3, geometries[2].w = 4,
    geometries[2].kh = geometries[2].kw = 2;
    geometries[3].format = "NCHW", geometries[3].padding = "SAME", geometries[3].h = 3, geometries[3].w = 4,
    geometries[3].kh = 2, geometries[3].ko = 2, geometries[3].dh = 2;
    const Case& k = geometries[static_cast<size_t>(which)];
    REQUIRE_OPS({"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "ShapeN", "Shape"});
    const AttrMap a = k.attrs(DType::Double);
    for (bool static_shapes : {true, false}) {
      Model m;
      m.static_shapes = static_shapes;
      const std::string y = m.op("Conv2D", {m.x("x", gen(DType::Double, k.in_shape(), -1, 1, 21)),
                                            m.x("w", gen(DType::Double, k.filter_shape(), -1, 1, 22))}, a);
      CHECK_GRADIENTS_OF(m, y);
    }
    {
      Model m;
      const std::string y = m.op("Conv2DBackpropInput", {m.c("sizes", shape_tensor(k.in_shape())),
                                                         m.x("w", gen(DType::Double, k.filter_shape(), -1, 1, 23)),
                                                         m.x("dy", gen(DType::Double, k.out_shape(), -1, 1, 24))}, a);
      CHECK_GRADIENTS_OF(m, y);
    }
    {
      Model m;
      const std::string y = m.op("Conv2DBackpropFilter", {m.x("x", gen(DType::Double, k.in_shape(), -1, 1, 25)),
                                                          m.c("sizes", shape_tensor(k.filter_shape())),
                                                          m.x("dy", gen(DType::Double, k.out_shape(), -1, 1, 26))}, a);
      CHECK_GRADIENTS_OF(m, y);
    }
    if (k.groups() != 1) return;
    // The depthwise family on the same geometry with 2 channels, multiplier 2.
    Case d = k;
    d.ki = 1;
    d.ko = 4;
    d.sw = d.sh;  // one stride for rows and columns, as TensorFlow's depthwise kernels take
    const AttrMap da = d.attrs(DType::Double);
    {
      Model m;
      const std::string y = m.op("DepthwiseConv2dNative", {m.x("x", gen(DType::Double, d.in_shape(), -1, 1, 27)),
                                                           m.x("w", gen(DType::Double, depthwise_filter(d), -1, 1, 28))}, da);
      CHECK_GRADIENTS_OF(m, y);
    }
    {
      Model m;
      const std::string y = m.op("DepthwiseConv2dNativeBackpropInput",
                                 {m.c("sizes", shape_tensor(d.in_shape())), m.x("w", gen(DType::Double, depthwise_filter(d), -1, 1, 29)),
                                  m.x("dy", gen(DType::Double, d.out_shape(), -1, 1, 30))}, da);
      CHECK_GRADIENTS_OF(m, y);
    }
    {
      Model m;
      const std::string y = m.op("DepthwiseConv2dNativeBackpropFilter",
                                 {m.x("x", gen(DType::Double, d.in_shape(), -1, 1, 31)), m.c("sizes", shape_tensor(depthwise_filter(d))),
                                  m.x("dy", gen(DType::Double, d.out_shape(), -1, 1, 32))}, da);
      CHECK_GRADIENTS_OF(m, y);
    }
  }

  void conv2d_gradient_graph_is_tensorflows() {
    // Conv2D's gradient: one ShapeN of input and filter, then the two backprops with the node's attrs.
    Model m;
    Case k;
    k.padding = "SAME";
    k.dh = 2;
    AttrMap a = k.attrs(DType::Double);
    a["use_cudnn_on_gpu"] = AttrValue(false);
    const std::string y = m.op("Conv2D", {m.x("x", gen(DType::Double, k.in_shape())), m.x("w", gen(DType::Double, k.filter_shape()))}, a);
    add_gradients(m.g, {y}, {"x", "w"}, OpRegistry::global());
    int shape_n = 0, input = 0, filter = 0;
    for (const Node& n : m.g.nodes()) {
      if (n.op == "ShapeN") ++shape_n;
      if (n.op == "Conv2DBackpropInput" || n.op == "Conv2DBackpropFilter") {
        (n.op == "Conv2DBackpropInput" ? input : filter)++;
        QCOMPARE(n.find_attr("dilations")->to_string(), a["dilations"].to_string());
        QCOMPARE(n.find_attr("padding")->to_string(), a["padding"].to_string());
        QCOMPARE(n.find_attr("use_cudnn_on_gpu")->to_string(), AttrValue(false).to_string());
      }
    }
    QCOMPARE(shape_n, 1);
    QCOMPARE(input, 1);
    QCOMPARE(filter, 1);
  }

  // ---- the primitive cache -------------------------------------------------------------------------
  void a_second_run_builds_no_primitive() {
    Case k;  // a geometry no other test uses
    k.h = 11;
    k.w = 13;
    k.c = k.ki = 5;
    k.ko = 7;
    k.padding = "SAME";
    Case d = k;
    d.ki = 1;
    d.ko = 10;
    const Tensor x = gen(DType::Float, k.in_shape()), w = gen(DType::Float, k.filter_shape()),
                 dy = gen(DType::Float, k.out_shape()), dw = gen(DType::Float, depthwise_filter(d)),
                 ddy = gen(DType::Float, d.out_shape()), bias = gen(DType::Float, {k.ko});
    AttrMap fused = k.attrs();
    AttrList ops;
    ops.s = {"BiasAdd", "Relu"};
    fused["fused_ops"] = AttrValue(ops);
    fused["num_args"] = AttrValue(int64_t{1});
    auto step = [&] {
      run1("Conv2D", k.attrs(), {x, w});
      run1("Conv2DBackpropInput", k.attrs(), {shape_tensor(k.in_shape()), w, dy});
      run1("Conv2DBackpropFilter", k.attrs(), {x, shape_tensor(k.filter_shape()), dy});
      run1("DepthwiseConv2dNative", d.attrs(), {x, dw});
      run1("DepthwiseConv2dNativeBackpropInput", d.attrs(), {shape_tensor(d.in_shape()), dw, ddy});
      run1("DepthwiseConv2dNativeBackpropFilter", d.attrs(), {x, shape_tensor(depthwise_filter(d)), ddy});
      run1("_FusedConv2D", fused, {x, w, bias});
      run1("Conv2D", k.attrs(DType::Half), {T(DType::Half, k.in_shape(), as_doubles(x)), T(DType::Half, k.filter_shape(), as_doubles(w))});
    };
    const std::size_t before = ops::onednn::primitives_built();
    step();
    const std::size_t first = ops::onednn::primitives_built();
    QCOMPARE(first - before, std::size_t{7});  // one per pass: the float16 Conv2D reuses the float32 one
    step();
    step();
    QCOMPARE(ops::onednn::primitives_built(), first);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpsConv)
#include "test_ops_conv.moc"
