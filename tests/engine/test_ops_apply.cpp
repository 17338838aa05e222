// Dense optimizer ops against TensorFlow's CPU formulas (training_ops.cc),
// written out here per element in double from the inputs as rounded to T:
// GradientDescent, Momentum, KerasMomentum, Adam, Adagrad(V2), RMSProp,
// Ftrl(V2); ref and resource forms; float32, float64, float16, bfloat16;
// TensorFlow's check order and messages.
#include "test_main.h"
#include <QtTest>

#include <cmath>
#include <functional>

#include "optimizer_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

const DType kFloatTypes[] = {DType::Float, DType::Double, DType::Half, DType::BFloat16};

// Per-element expected values: f(element values of vars, rest scalars/grad) -> new vars.
using Formula = std::function<std::vector<double>(const std::vector<double>& vars, double g)>;

// Runs op in both forms for every float type, with var and slots `init`
// (per variable, 3 elements), scalars `scalars` (placed as in `layout`: an
// entry >= 0 is a scalar's value, NaN marks the gradient) and compares with f.
void check_dense(const char* ref_op, const char* resource_op, AttrMap attrs,
                 const std::vector<std::vector<double>>& init, const std::vector<double>& layout,
                 const std::vector<double>& grad, const std::function<std::vector<double>(
                     const std::vector<double>& vars, double g, const std::vector<double>& s)>& f) {
  for (DType t : kFloatTypes) {
    std::vector<Tensor> vars, rest;
    for (const auto& v : init) vars.push_back(T(t, {3}, v));
    const Tensor g = T(t, {3}, grad);
    std::vector<double> scalars;
    for (double x : layout) {
      if (std::isnan(x)) {
        rest.push_back(g);
      } else {
        rest.push_back(T(t, {}, {x}));
        scalars.push_back(as_doubles(rest.back())[0]);
      }
    }
    const std::vector<double> gd = as_doubles(g);
    std::vector<std::vector<double>> expected(vars.size(), std::vector<double>(3));
    for (int i = 0; i < 3; ++i) {
      std::vector<double> at;
      for (const Tensor& v : vars) at.push_back(as_doubles(v)[static_cast<size_t>(i)]);
      const std::vector<double> out = f(at, gd[static_cast<size_t>(i)], scalars);
      for (size_t k = 0; k < out.size(); ++k) expected[k][static_cast<size_t>(i)] = out[k];
    }
    AttrMap a = attrs;
    a["T"] = AttrValue(t);
    for (bool resource : {false, true}) {
      const char* op = resource ? resource_op : ref_op;
      if (!op) continue;
      const UpdateResult r = run_update(op, a, vars, rest, resource);
      for (size_t k = 0; k < vars.size(); ++k) {
        const std::string what = std::string(op) + " " + dtype_name(t) + " variable " + std::to_string(k);
        QVERIFY2(tensor_near(r.vars[k], t, Shape{3}, expected[k], tolerance_for(t)), what.c_str());
      }
      if (!resource) QVERIFY2(r.outputs[0].equals(r.vars[0]), op);
      if (resource) QCOMPARE(r.outputs.size(), size_t{0});
    }
  }
}

const double G = std::nan("");  // marks the gradient's place among the inputs

// Plain FTRL and its multiply-linear-by-lr form (TensorFlow's functors).
std::vector<double> ftrl(const std::vector<double>& v, double g, double lr, double l1, double l2, double l2s,
                         double lr_power, bool multiply) {
  const double w = v[0], a = v[1], l = v[2];
  const double gs = g + 2 * l2s * w;
  const double na = a + g * g;
  auto p = [&](double x) { return lr_power == -0.5 ? std::sqrt(x) : std::pow(x, -lr_power); };
  double nl, nw;
  if (multiply) {
    nl = l + (gs * lr - (p(na) - p(a)) * w);
    const double x = l1 * lr * (nl > 0 ? 1 : nl < 0 ? -1 : 0) - nl;
    nw = std::fabs(nl) > l1 * lr ? x / (p(na) + 2 * l2 * lr) : 0;
  } else {
    nl = l + (gs - (p(na) - p(a)) / lr * w);
    const double x = l1 * (nl > 0 ? 1 : nl < 0 ? -1 : 0) - nl;
    nw = std::fabs(nl) > l1 ? x / (p(na) / lr + 2 * l2) : 0;
  }
  return {nw, na, nl};
}

}  // namespace

class TestOpsApply : public QObject {
  Q_OBJECT
 private slots:
  void gradient_descent() {
    check_dense("ApplyGradientDescent", "ResourceApplyGradientDescent", {}, {{1, -2, 0.5}}, {0.25, G}, {2, -4, 0.1},
                [](const auto& v, double g, const auto& s) { return std::vector<double>{v[0] - g * s[0]}; });
  }

  void momentum_plain_and_nesterov() {
    for (bool nesterov : {false, true})
      check_dense("ApplyMomentum", "ResourceApplyMomentum", {{"use_nesterov", AttrValue(nesterov)}},
                  {{1, -2, 0.5}, {0.5, 0, -1}}, {0.1, G, 0.9}, {2, 1, -0.5}, [&](const auto& v, double g, const auto& s) {
                    const double lr = s[0], m = s[1];
                    const double a = v[1] * m + g;
                    const double w = nesterov ? v[0] - (g * lr + a * m * lr) : v[0] - a * lr;
                    return std::vector<double>{w, a};
                  });
  }

  void keras_momentum_plain_and_nesterov() {
    for (bool nesterov : {false, true})
      check_dense(nullptr, "ResourceApplyKerasMomentum", {{"use_nesterov", AttrValue(nesterov)}},
                  {{1, -2, 0.5}, {0.5, 0, -1}}, {0.1, G, 0.9}, {2, 1, -0.5}, [&](const auto& v, double g, const auto& s) {
                    const double lr = s[0], m = s[1];
                    const double a = v[1] * m - g * lr;
                    const double w = nesterov ? v[0] + (a * m - g * lr) : v[0] + a;
                    return std::vector<double>{w, a};
                  });
    QVERIFY(!OpRegistry::global().find("ApplyKerasMomentum"));  // TensorFlow has no ref form
  }

  void adam_plain_and_nesterov() {
    for (bool nesterov : {false, true})
      check_dense("ApplyAdam", "ResourceApplyAdam", {{"use_nesterov", AttrValue(nesterov)}},
                  {{1, -1, 0.5}, {0.1, 0, -0.2}, {0.01, 0, 0.04}}, {0.81, 0.998, 0.01, 0.9, 0.999, 1e-3, G},
                  {0.5, -2, 0.25}, [&](const auto& v, double g, const auto& s) {
                    const double b1p = s[0], b2p = s[1], lr = s[2], b1 = s[3], b2 = s[4], eps = s[5];
                    const double alpha = lr * std::sqrt(1 - b2p) / (1 - b1p);
                    const double m = v[1] + (g - v[1]) * (1 - b1);
                    const double vv = v[2] + (g * g - v[2]) * (1 - b2);
                    const double num = nesterov ? g * (1 - b1) + b1 * m : m;
                    return std::vector<double>{v[0] - num * alpha / (std::sqrt(vv) + eps), m, vv};
                  });
  }

  void adagrad_with_and_without_slot_updates() {
    for (bool update_slots : {true, false}) {
      check_dense("ApplyAdagrad", "ResourceApplyAdagrad", {{"update_slots", AttrValue(update_slots)}},
                  {{1, -2, 0.5}, {0.5, 1, 2}}, {0.1, G}, {2, 1, -0.5}, [&](const auto& v, double g, const auto& s) {
                    const double a = update_slots ? v[1] + g * g : v[1];
                    return std::vector<double>{v[0] - g * s[0] / std::sqrt(a), a};
                  });
      check_dense("ApplyAdagradV2", "ResourceApplyAdagradV2", {{"update_slots", AttrValue(update_slots)}},
                  {{1, -2, 0.5}, {0.5, 1, 2}}, {0.1, 0.01, G}, {2, 1, -0.5}, [&](const auto& v, double g, const auto& s) {
                    const double a = update_slots ? v[1] + g * g : v[1];
                    return std::vector<double>{v[0] - g * s[0] / (std::sqrt(a) + s[1]), a};
                  });
    }
  }

  void rmsprop() {
    check_dense("ApplyRMSProp", "ResourceApplyRMSProp", {}, {{1, -2, 0.5}, {0.5, 1, 2}, {0.1, 0, -0.1}},
                {0.01, 0.9, 0.5, 1e-3, G}, {2, 1, -0.5}, [](const auto& v, double g, const auto& s) {
                  const double lr = s[0], rho = s[1], momentum = s[2], eps = s[3];
                  const double ms = v[1] + (g * g - v[1]) * (1 - rho);
                  const double mom = v[2] * momentum + g * lr / std::sqrt(ms + eps);
                  return std::vector<double>{v[0] - mom, ms, mom};
                });
  }

  void ftrl_plain_and_multiplied() {
    // lr_power -0.5 (the sqrt special case) and -0.7 (pow); l1 large enough
    // to zero one element.
    for (double lr_power : {-0.5, -0.7})
      for (bool multiply : {false, true})
        check_dense("ApplyFtrl", "ResourceApplyFtrl", {{"multiply_linear_by_lr", AttrValue(multiply)}},
                    {{1, -2, 0.5}, {0.5, 1, 2}, {0.2, -0.3, 0.01}}, {G, 0.5, 0.1, 0.2, lr_power}, {2, 1, -0.05},
                    [&](const auto& v, double g, const auto& s) {
                      return ftrl(v, g, s[0], s[1], s[2], 0, s[3], multiply);
                    });
  }

  void ftrl_v2_follows_tensorflows_inverted_dispatch() {
    // training_ops.cc runs the multiply-linear-by-lr math when the attr is
    // false and the plain math when it is true (lr != 1 tells them apart).
    for (bool attr : {false, true})
      check_dense("ApplyFtrlV2", "ResourceApplyFtrlV2", {{"multiply_linear_by_lr", AttrValue(attr)}},
                  {{1, -2, 0.5}, {0.5, 1, 2}, {0.2, -0.3, 0.01}}, {G, 0.5, 0.1, 0.2, 0.05, -0.5}, {2, 1, -0.05},
                  [&](const auto& v, double g, const auto& s) {
                    return ftrl(v, g, s[0], s[1], s[2], s[3], s[4], /*multiply=*/!attr);
                  });
  }

  void float16_rounds_after_every_operation() {
    // var - grad * lr in half: 3 * 0.3 (0.2998...) rounds to 0.89990234 before
    // the subtraction, giving 0.099609375; one rounding at the end would give
    // 0.099853516.
    const UpdateResult r = run_update("ResourceApplyGradientDescent", {{"T", AttrValue(DType::Half)}},
                                      {T(DType::Half, {1}, {1})}, {T(DType::Half, {}, {0.3}), T(DType::Half, {1}, {3})},
                                      true);
    QCOMPARE(as_doubles(r.vars[0])[0], 0.099609375);
  }

  void checks_and_messages_in_tensorflows_order() {
    const Tensor w = F({2}, {1, 2}), w3 = F({3}, {1, 2, 3}), s = F({}, {0.1f}), v2 = F({2}, {1, 1});
    const AttrMap f{{"T", AttrValue(DType::Float)}};
    for (bool resource : {false, true}) {
      const std::string prefix = resource ? "Resource" : "";
      EXPECT_ERROR(run_update(prefix + "ApplyGradientDescent", f, {w}, {F({1}, {0.1f}), v2}, resource),
                   "alpha is not a scalar: [1]");
      EXPECT_ERROR(run_update(prefix + "ApplyGradientDescent", f, {w}, {s, w3}, resource),
                   "var and delta do not have the same shape[2] [3]");
      // Momentum: lr before the slot's shape, momentum after the gradient's.
      EXPECT_ERROR(run_update(prefix + "ApplyMomentum", f, {w, w3}, {F({2}, {1, 1}), v2, F({2}, {1, 1})}, resource),
                   "lr is not a scalar: [2]");
      EXPECT_ERROR(run_update(prefix + "ApplyMomentum", f, {w, w3}, {s, v2, F({2}, {1, 1})}, resource),
                   "var and accum do not have the same shape[2] [3]");
      EXPECT_ERROR(run_update(prefix + "ApplyMomentum", f, {w, w}, {s, v2, F({2}, {1, 1})}, resource),
                   "momentum is not a scalar: [2]");
      // Adam: every scalar before any shape; lr's message has a space before the colon.
      EXPECT_ERROR(run_update(prefix + "ApplyAdam", f, {w, w3, w}, {s, s, F({1}, {1}), s, s, s, v2}, resource),
                   "lr is not a scalar : [1]");
      EXPECT_ERROR(run_update(prefix + "ApplyAdam", f, {w, w, w3}, {s, s, s, s, s, s, v2}, resource),
                   "var and v do not have the same shape[2] [3]");
      EXPECT_ERROR(run_update(prefix + "ApplyRMSProp", f, {w, w, w}, {F({2}, {1, 1}), s, s, s, v2}, resource),
                   "lr is not a scalar : [2]");
      EXPECT_ERROR(run_update(prefix + "ApplyRMSProp", f, {w, w3, w}, {s, s, s, s, v2}, resource),
                   "var and ms do not have the same shape[2] [3]");
      EXPECT_ERROR(run_update(prefix + "ApplyAdagradV2", f, {w, w}, {s, F({1}, {1}), v2}, resource),
                   "epsilon is not a scalar: [1]");
      // Ftrl: shapes first, then the scalars; lr_power's message has no colon.
      EXPECT_ERROR(run_update(prefix + "ApplyFtrl", f, {w, w, w3}, {v2, F({1}, {1}), s, s, s}, resource),
                   "var and linear do not have the same shape[2] [3]");
      EXPECT_ERROR(run_update(prefix + "ApplyFtrl", f, {w, w, w}, {v2, s, F({1}, {1}), s, s}, resource),
                   "l1 regularization strength is not a scalar: [1]");
      EXPECT_ERROR(run_update(prefix + "ApplyFtrl", f, {w, w, w}, {v2, s, s, s, F({2}, {1, 1})}, resource),
                   "lr_power is not a scalar[2]");
      EXPECT_ERROR(run_update(prefix + "ApplyFtrlV2", f, {w, w, w}, {v2, s, s, s, F({1}, {1}), s}, resource),
                   "l2 shrinkage regularization strength is not a scalar: [1]");
      EXPECT_ERROR(run_update(prefix + "ApplyGradientDescent", f, {w}, {s, D({2}, {1, 1})}, resource),
                   "var is float32 but delta is float64");
      EXPECT_ERROR(run_update(prefix + "ApplyGradientDescent", f, {I32({2}, {1, 2})}, {s, v2}, resource),
                   "unsupported dtype int32");
    }
  }

  void uninitialized_and_missing_variables() {
    Variable w;
    w.name = "weights";
    EXPECT_ERROR(run_op("ApplyGradientDescent", {}, {Tensor(), F({}, {0.5f}), F({1}, {1})}, {&w}),
                 "Attempting to use uninitialized value weights");
    EXPECT_ERROR(run_op("ApplyGradientDescent", {}, {F({1}, {1}), F({}, {0.5f}), F({1}, {1})}),
                 "must be a reference to a variable");
    // A resource variable that was never assigned: TensorFlow's training ops
    // fail while locking it, before any other check.
    const Tensor missing = resource_handle(Tensor(), "w", DType::Float, Shape{1});
    EXPECT_ERROR(run_op("ResourceApplyGradientDescent", {}, {missing, F({2}, {0.5f, 1}), F({1}, {1})}),
                 "Invalid variable reference.");
    const Tensor h = resource_handle(F({1}, {1}), "w");
    EXPECT_ERROR(run_op("ResourceApplyMomentum", {}, {h, h, F({}, {0.1f}), F({1}, {1}), F({}, {0.9f})}),
                 "var and its slots must be different variables");
  }

  void shape_functions() {
    const TensorInfo handle{DType::Resource, Shape{}, DType::Float, Shape{4, -1}};
    const TensorInfo scalar{DType::Float, Shape{}};
    // Resource forms: handle data merged with the gradient; no outputs.
    QCOMPARE(infer("ResourceApplyMomentum", {}, {handle, handle, scalar, {DType::Float, Shape{4, 3}}, scalar}).size(),
             size_t{0});
    EXPECT_ERROR(infer("ResourceApplyAdam", {}, {handle, handle, handle, scalar, scalar, scalar, scalar, scalar, scalar,
                                                 {DType::Float, Shape{5, 3}}}),
                 "Dimension 0 in both shapes must be equal, but are 4 and 5. Shapes are [4,?] and [5,3].");
    EXPECT_ERROR(infer("ResourceApplyGradientDescent", {}, {handle, {DType::Float, Shape{1}}, {DType::Float, Shape{4, 3}}}),
                 "Shape must be rank 0 but is rank 1");
    // Ref forms: the merged shape is the output's.
    auto out = infer("ApplyFtrl", {}, {{DType::Float, Shape{-1, 3}}, {DType::Float, Shape{4, -1}},
                                       {DType::Float, Shape::unknown_rank()}, {DType::Float, Shape{-1, -1}}, scalar,
                                       scalar, scalar, scalar});
    QCOMPARE(out[0].shape, (Shape{4, 3}));
    QCOMPARE(out[0].dtype, DType::Float);
    // V2's shape function checks l2_shrinkage's rank but never lr_power's, as TensorFlow's.
    const TensorInfo v2{DType::Float, Shape{2}};
    QCOMPARE(infer("ApplyFtrlV2", {}, {v2, v2, v2, v2, scalar, scalar, scalar, scalar, v2})[0].shape, Shape{2});
    EXPECT_ERROR(infer("ApplyFtrlV2", {}, {v2, v2, v2, v2, scalar, scalar, scalar, v2, scalar}),
                 "Shape must be rank 0 but is rank 1");
  }

  void registrations() {
    for (const char* op : {"ApplyAdagrad", "ApplyAdagradV2", "ApplyRMSProp", "ApplyFtrl", "ApplyFtrlV2",
                           "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"}) {
      const OpDef& ref = op_def(op);
      const OpDef& res = op_def(std::string("Resource") + op);
      QVERIFY2(ref.is_ref_input(0) && ref.outputs.size() == 1 && ref.is_ref_output(0), op);
      QVERIFY2(!res.is_ref_input(0) && res.inputs[0].type == DType::Resource && res.outputs.empty(), op);
      QCOMPARE(ref.inputs.size(), res.inputs.size());
      QVERIFY2(ref.gradient_kind == GradientKind::NotDifferentiable, op);
      for (DType t : kFloatTypes)
        QVERIFY2(ref.kernel_for("CPU", make_node(op, {{"T", AttrValue(t)}})), op);
      QVERIFY2(!ref.kernel_for("CPU", make_node(op, {{"T", AttrValue(DType::Int32)}})), op);
    }
    const AttrDef* update_slots = op_def("ResourceApplyAdagrad").find_attr("update_slots");
    QVERIFY(update_slots && update_slots->default_value && *update_slots->default_value->get_if<bool>());
    QVERIFY(op_def("ResourceApplyFtrlV2").find_attr("multiply_linear_by_lr"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsApply)
#include "test_ops_apply.moc"
