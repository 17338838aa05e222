// Sparse optimizer ops (SparseApplyAdagrad(V2), SparseApplyMomentum,
// SparseApplyFtrl(V2), ResourceSparseApplyKerasMomentum and the resource
// forms) against TensorFlow's per-row formulas: duplicate indices applied in
// order, rows of one element (TensorFlow's scalar path) and of several,
// index errors and whether rows before a bad index were updated.
#include "test_main.h"
#include <QtTest>

#include <cmath>

#include "optimizer_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

const DType kFloatTypes[] = {DType::Float, DType::Double, DType::Half, DType::BFloat16};

struct Rows {
  std::vector<double> var, slot1, slot2;
};

}  // namespace

class TestOpsSparseApply : public QObject {
  Q_OBJECT
 private slots:
  void adagrad_applies_duplicates_in_order() {
    // var [3,2]; rows 2, 0, 2 (row 2 twice).
    const std::vector<double> w0 = {1, 2, 3, 4, 5, 6}, a0 = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    const std::vector<double> g = {1, -1, 0.5, 0.25, 2, -2};
    const std::vector<int64_t> idx = {2, 0, 2};
    for (bool v2 : {false, true})
      for (DType t : kFloatTypes)
        for (bool resource : {false, true}) {
          const Tensor lr = T(t, {}, {0.1}), eps = T(t, {}, {0.01});
          std::vector<Tensor> rest = {lr};
          if (v2) rest.push_back(eps);
          rest.push_back(T(t, {3, 2}, g));
          rest.push_back(I64({3}, idx));
          const std::string op = std::string(resource ? "ResourceSparseApplyAdagrad" : "SparseApplyAdagrad") +
                                 (v2 ? "V2" : "");
          const UpdateResult r = run_update(op, {{"T", AttrValue(t)}, {"Tindices", AttrValue(DType::Int64)}},
                                            {T(t, {3, 2}, w0), T(t, {3, 2}, a0)}, rest, resource);
          const double l = as_doubles(lr)[0], e = as_doubles(eps)[0];
          std::vector<double> w = as_doubles(T(t, {3, 2}, w0)), a = as_doubles(T(t, {3, 2}, a0));
          const std::vector<double> gr = as_doubles(T(t, {3, 2}, g));
          for (size_t i = 0; i < idx.size(); ++i)
            for (size_t k = 0; k < 2; ++k) {
              const size_t at = static_cast<size_t>(idx[i]) * 2 + k;
              const double gk = gr[i * 2 + k];
              a[at] += gk * gk;
              w[at] -= v2 ? l * gk / (std::sqrt(a[at]) + e) : l * gk / std::sqrt(a[at]);
            }
          QVERIFY2(tensor_near(r.vars[0], t, Shape{3, 2}, w, tolerance_for(t)), (op + " " + dtype_name(t)).c_str());
          QVERIFY2(tensor_near(r.vars[1], t, Shape{3, 2}, a, tolerance_for(t)), (op + " " + dtype_name(t)).c_str());
        }
  }

  void adagrad_single_element_rows_and_update_slots() {
    // var [3]: TensorFlow's scalar path, lr * g / sqrt(accum).
    const UpdateResult r = run_update("SparseApplyAdagrad",
                                      {{"T", AttrValue(DType::Double)}, {"update_slots", AttrValue(false)}},
                                      {D({3}, {1, 2, 3}), D({3}, {4, 9, 16})},
                                      {D({}, {0.5}), D({2}, {2, 1}), I32({2}, {2, 1})}, false);
    QVERIFY(tensor_near(r.vars[0], DType::Double, Shape{3}, {1, 2 - 0.5 * 1 / 3.0, 3 - 0.5 * 2 / 4.0}, 1e-15));
    QVERIFY(tensor_near(r.vars[1], DType::Double, Shape{3}, {4, 9, 16}, 0));
  }

  void adagrad_checks_every_index_first() {
    for (bool resource : {false, true}) {
      const std::string op = resource ? "ResourceSparseApplyAdagrad" : "SparseApplyAdagrad";
      const AttrMap f{{"T", AttrValue(DType::Float)}};
      const Tensor w = F({3, 2}, {1, 2, 3, 4, 5, 6}), a = F({3, 2}, {1, 1, 1, 1, 1, 1}), lr = F({}, {0.1f});
      const Tensor g2 = F({2, 2}, {1, 1, 1, 1});
      EXPECT_ERROR(run_update(op, f, {w, a}, {lr, g2, I32({2}, {0, 3})}, resource),
                   "Index 3 at offset 1 in indices is out of range");
      EXPECT_ERROR(run_update(op, f, {w, a}, {lr, g2, I32({2}, {-1, 0})}, resource),
                   "Index -1 at offset 0 in indices is out of range");
      EXPECT_ERROR(run_update(op, f, {w, F({2}, {1, 1})}, {lr, g2, I32({2}, {0, 1})}, resource),
                   "var and accum do not have the same shape[3,2] [2]");
      EXPECT_ERROR(run_update(op, f, {F({}, {1}), F({}, {1})}, {lr, g2, I32({2}, {0, 1})}, resource),
                   "var must be at least 1 dimensional");
      EXPECT_ERROR(run_update(op, f, {w, a}, {F({1}, {1}), g2, I32({2}, {0, 1})}, resource), "lr is not a scalar: [1]");
      EXPECT_ERROR(run_update(op, f, {w, a}, {lr, g2, I32({2, 1}, {0, 1})}, resource), "indices must be one-dimensional");
      EXPECT_ERROR(run_update(op, f, {w, a}, {lr, F({2, 3}, {1, 1, 1, 1, 1, 1}), I32({2}, {0, 1})}, resource),
                   "var and grad must match in dimension 1");
      EXPECT_ERROR(run_update(op, f, {w, a}, {lr, g2, I32({3}, {0, 1, 2})}, resource),
                   "grad must be the same size as indices in the first dimension.");
      EXPECT_ERROR(run_update(op, f, {F({3, 0}, {}), F({3, 0}, {})}, {lr, F({2, 0}, {}), I32({2}, {0, 1})}, resource),
                   "Inner dimension should be greater than zero.");
    }
    // Nothing was updated by a bad index.
    Variable w, a;
    w.value = F({2}, {1, 2});
    a.value = F({2}, {1, 1});
    EXPECT_ERROR(run_op("SparseApplyAdagrad", {}, {Tensor(), Tensor(), F({}, {0.1f}), F({2}, {1, 1}), I32({2}, {0, 5})},
                        {&w, &a}),
                 "out of range");
    QVERIFY(tensor_near(w.value, DType::Float, Shape{2}, {1, 2}, 0));
  }

  void momentum_plain_nesterov_and_keras() {
    const std::vector<double> w0 = {1, 2, 3, 4}, a0 = {0.5, -0.5, 0.25, 0};
    const std::vector<double> g = {1, 2, -1, 0.5, 3, 1};
    const std::vector<int64_t> idx = {1, 0, 1};
    for (bool keras : {false, true})
      for (bool nesterov : {false, true})
        for (DType t : kFloatTypes)
          for (bool resource : {false, true}) {
            if (keras && !resource) continue;
            const std::string op = keras ? "ResourceSparseApplyKerasMomentum"
                                         : resource ? "ResourceSparseApplyMomentum" : "SparseApplyMomentum";
            const Tensor lr = T(t, {}, {0.1}), mom = T(t, {}, {0.9});
            const UpdateResult r =
                run_update(op, {{"T", AttrValue(t)}, {"use_nesterov", AttrValue(nesterov)}},
                           {T(t, {2, 2}, w0), T(t, {2, 2}, a0)}, {lr, T(t, {3, 2}, g), I32({3}, {1, 0, 1}), mom},
                           resource);
            const double l = as_doubles(lr)[0], m = as_doubles(mom)[0];
            std::vector<double> w = as_doubles(T(t, {2, 2}, w0)), a = as_doubles(T(t, {2, 2}, a0));
            const std::vector<double> gr = as_doubles(T(t, {3, 2}, g));
            for (size_t i = 0; i < idx.size(); ++i)
              for (size_t k = 0; k < 2; ++k) {
                const size_t at = static_cast<size_t>(idx[i]) * 2 + k;
                const double gk = gr[i * 2 + k];
                if (keras) {
                  a[at] = a[at] * m - gk * l;
                  w[at] += nesterov ? a[at] * m - gk * l : a[at];
                } else {
                  a[at] = a[at] * m + gk;
                  w[at] -= nesterov ? l * gk + l * m * a[at] : l * a[at];
                }
              }
            QVERIFY2(tensor_near(r.vars[0], t, Shape{2, 2}, w, tolerance_for(t)), (op + " " + dtype_name(t)).c_str());
            QVERIFY2(tensor_near(r.vars[1], t, Shape{2, 2}, a, tolerance_for(t)), (op + " " + dtype_name(t)).c_str());
          }
  }

  void momentum_leaves_rows_before_a_bad_index_updated() {
    Variable w, a;
    w.value = F({2}, {1, 2});
    a.value = F({2}, {0, 0});
    EXPECT_ERROR(run_op("SparseApplyMomentum", {}, {Tensor(), Tensor(), F({}, {0.5f}), F({2}, {1, 1}), I32({2}, {0, 9}),
                                                    F({}, {0.9f})},
                        {&w, &a}),
                 "Index 9 at offset 1 in indices is out of range");
    QVERIFY(tensor_near(w.value, DType::Float, Shape{2}, {0.5, 2}));
    QVERIFY(tensor_near(a.value, DType::Float, Shape{2}, {1, 0}));
    const Tensor hw = resource_handle(F({2}, {1, 2}), "w"), ha = resource_handle(F({2}, {0, 0}), "a");
    EXPECT_ERROR(run_op("ResourceSparseApplyKerasMomentum", {},
                        {hw, ha, F({}, {0.5f}), F({2}, {1, 1}), I32({2}, {0, 9}), F({}, {0.9f})}),
                 "indices[1] = 9 is not in [0, 2)");
    QVERIFY(tensor_near(hw.handles()[0].variable->value, DType::Float, Shape{2}, {0.5, 2}));
    EXPECT_ERROR(run_op("ResourceSparseApplyMomentum", {}, {hw, ha, F({1}, {0.5f}), F({2}, {1, 1}), I32({2}, {0, 1}),
                                                            F({}, {0.9f})}),
                 "lr is not a scalar : [1]");
    EXPECT_ERROR(run_op("ResourceSparseApplyMomentum", {}, {hw, ha, F({}, {0.5f}), F({2}, {1, 1}), I32({2}, {0, 1}),
                                                            F({1}, {0.9f})}),
                 "momentum is not a scalar: [1]");
  }

  void ftrl_rows_and_single_elements() {
    // Rows of 2 (TensorFlow's row path) and of 1 (its scalar path), with and
    // without shrinkage and multiply_linear_by_lr, duplicates in order.
    for (bool v2 : {false, true})
      for (bool multiply : {false, true})
        for (int width : {2, 1})
          for (bool resource : {false, true}) {
            const double lr = 0.5, l1 = 0.1, l2 = 0.2, l2s = 0.05, lr_power = -0.5;
            const int n = 3 * width;
            std::vector<double> w(static_cast<size_t>(n)), a(static_cast<size_t>(n)), l(static_cast<size_t>(n)),
                g(static_cast<size_t>(3 * width));
            for (int i = 0; i < n; ++i) w[i] = 1 - 0.3 * i, a[i] = 0.5 + 0.25 * i, l[i] = 0.2 - 0.1 * i;
            for (int i = 0; i < 3 * width; ++i) g[i] = 2 - 0.7 * i;
            const std::vector<int32_t> idx = {2, 0, 2};
            const Shape shape = width == 1 ? Shape{3} : Shape{3, width};
            const Shape gshape = width == 1 ? Shape{3} : Shape{3, width};
            std::vector<Tensor> rest = {D(gshape, g), I32({3}, idx), D({}, {lr}), D({}, {l1}), D({}, {l2})};
            if (v2) rest.push_back(D({}, {l2s}));
            rest.push_back(D({}, {lr_power}));
            const std::string op =
                std::string(resource ? "ResourceSparseApplyFtrl" : "SparseApplyFtrl") + (v2 ? "V2" : "");
            const UpdateResult r = run_update(op, {{"multiply_linear_by_lr", AttrValue(multiply)}},
                                              {D(shape, w), D(shape, a), D(shape, l)}, rest, resource);
            for (size_t i = 0; i < idx.size(); ++i)
              for (int k = 0; k < width; ++k) {
                const size_t at = static_cast<size_t>(idx[i] * width + k);
                const double gk = g[i * static_cast<size_t>(width) + static_cast<size_t>(k)];
                const double gs = v2 ? gk + 2 * l2s * w[at] : gk;
                const double na = a[at] + gk * gk;
                const double sigma = std::sqrt(na) - std::sqrt(a[at]);
                l[at] = multiply ? l[at] + gs * lr - sigma * w[at] : l[at] + gs - sigma / lr * w[at];
                const double bound = multiply ? l1 * lr : l1;
                const double y = multiply ? std::sqrt(na) + 2 * l2 * lr : std::sqrt(na) / lr + 2 * l2;
                w[at] = (std::clamp(l[at], -bound, bound) - l[at]) / y;
                a[at] = na;
              }
            QVERIFY2(tensor_near(r.vars[0], DType::Double, shape, w, 1e-12), op.c_str());
            QVERIFY2(tensor_near(r.vars[1], DType::Double, shape, a, 1e-12), op.c_str());
            QVERIFY2(tensor_near(r.vars[2], DType::Double, shape, l, 1e-12), op.c_str());
          }
  }

  void ftrl_checks_values_and_indices() {
    const Tensor w = F({2, 2}, {1, 2, 3, 4}), g = F({1, 2}, {1, 1}), idx = I32({1}, {1});
    const Tensor lr = F({}, {0.5f}), zero = F({}, {0}), lp = F({}, {-0.5f});
    for (bool resource : {false, true}) {
      const std::string op = resource ? "ResourceSparseApplyFtrl" : "SparseApplyFtrl";
      EXPECT_ERROR(run_update(op, {}, {w, w, w}, {g, idx, F({}, {-1}), zero, zero, lp}, resource),
                   "lr is not a positive scalar: []");
      EXPECT_ERROR(run_update(op, {}, {w, w, w}, {g, idx, lr, F({}, {-1}), zero, lp}, resource),
                   "l1 regularization strength is not a non-negative scalar: []");
      EXPECT_ERROR(run_update(op, {}, {w, w, w}, {g, idx, lr, zero, F({1}, {0}), lp}, resource),
                   "l2 regularization strength is not a non-negative scalar: [1]");
      EXPECT_ERROR(run_update(op, {}, {w, w, w}, {g, idx, lr, zero, zero, F({}, {0.5f})}, resource),
                   "lr_power is not a non-positive scalar: []");
      EXPECT_ERROR(run_update(op, {}, {w, w, F({4}, {1, 2, 3, 4})}, {g, idx, lr, zero, zero, lp}, resource),
                   "var and linear do not have the same shape[2,2] [4]");
      EXPECT_ERROR(run_update(op + "V2", {}, {w, w, w}, {g, idx, lr, zero, zero, F({}, {-1}), lp}, resource),
                   "l2 shrinkage regularization strength is not a non-negative scalar: []");
    }
    // The index is checked as its row is reached: row 0 is already updated.
    Variable v, a, l;
    v.value = F({2}, {1, 2});
    a.value = F({2}, {1, 1});
    l.value = F({2}, {0, 0});
    EXPECT_ERROR(run_op("SparseApplyFtrl", {}, {Tensor(), Tensor(), Tensor(), F({2}, {1, 1}), I64({2}, {0, 2}), lr,
                                                zero, zero, lp},
                        {&v, &a, &l}),
                 "Index 2 at offset 1 in indices is out of range");
    QVERIFY(tensor_near(a.value, DType::Float, Shape{2}, {2, 1}));
  }

  void shape_functions() {
    const TensorInfo handle{DType::Resource, Shape{}, DType::Float, Shape{10, 4}};
    const TensorInfo scalar{DType::Float, Shape{}};
    QCOMPARE(infer("ResourceSparseApplyAdagrad", {}, {handle, handle, scalar, {DType::Float, Shape{3, 4}},
                                                      {DType::Int32, Shape{3}}})
                 .size(),
             size_t{0});
    EXPECT_ERROR(infer("ResourceSparseApplyAdagrad", {}, {handle, handle, scalar, {DType::Float, Shape{3, 5}},
                                                          {DType::Int32, Shape{3}}}),
                 "Dimension 1 in both shapes must be equal, but are 4 and 5.");
    EXPECT_ERROR(infer("SparseApplyMomentum", {}, {{DType::Float, Shape{10, 4}}, {DType::Float, Shape{10, 4}}, scalar,
                                                   {DType::Float, Shape{3, 4}}, {DType::Int32, Shape{2}}, scalar}),
                 "Dimensions must be equal, but are 2 and 3");
    EXPECT_ERROR(infer("SparseApplyMomentum", {}, {{DType::Float, Shape{10, 4}}, {DType::Float, Shape{10, 4}}, scalar,
                                                   {DType::Float, Shape{}}, {DType::Int32, Shape{2}}, scalar}),
                 "Argument grad must not be a scalar.");
    auto out = infer("SparseApplyFtrl", {}, {{DType::Float, Shape{-1, 4}}, {DType::Float, Shape{10, -1}},
                                             {DType::Float, Shape::unknown_rank()}, {DType::Float, Shape{3, 4}},
                                             {DType::Int64, Shape{3}}, scalar, scalar, scalar, scalar});
    QCOMPARE(out[0].shape, (Shape{10, 4}));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsSparseApply)
#include "test_ops_sparse_apply.moc"
