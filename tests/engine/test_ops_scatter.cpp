// Row scatters into variables: ScatterAdd/Sub/Mul/Div/Min/Max/Update on ref
// variables (state_ops.cc, kernels/scatter_op.cc) and their ResourceScatter*
// forms (resource_variable_ops.cc). Values worked out from TensorFlow's CPU
// functor (indices walked in order, duplicates accumulate, ScatterUpdate's
// last write wins), its checks and words, and the shape functions.
#include "test_main.h"
#include "engine/op_cases/state.h"
#include "elementwise_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// Runs a ref scatter on `var`; returns the op's output.
Tensor scatter_ref(const char* op, Variable& var, const Tensor& indices, const Tensor& updates) {
  AttrMap attrs = {{"T", var.value.dtype()}, {"Tindices", indices.dtype()}};
  return run_op(op, std::move(attrs), {Tensor(), indices, updates}, {&var, nullptr, nullptr})[0];
}

std::unique_ptr<Variable> variable_of(Tensor value) {
  auto v = std::make_unique<Variable>();
  v->name = "v";
  v->value = std::move(value);
  return v;
}

// Runs a resource scatter on a handle; returns the variable's value after it.
Tensor scatter_resource(const char* op, const Tensor& handle, const Tensor& indices, const Tensor& updates,
                        DType dtype = DType::Invalid) {
  AttrMap attrs = {{"dtype", dtype == DType::Invalid ? updates.dtype() : dtype}, {"Tindices", indices.dtype()}};
  run_op(op, std::move(attrs), {handle, indices, updates});
  return handle.handles()[0].variable->value;
}

const Tensor& value_of(const Tensor& handle) { return handle.handles()[0].variable->value; }

}  // namespace

class TestOpsScatter : public QObject {
  Q_OBJECT
 private slots:
  void each_kind_on_rows_with_a_repeated_index() {
    const Tensor indices = I32({3}, {2, 0, 2});
    const Tensor adds = F({3, 2}, {10, 20, 30, 40, 50, 60});
    const Tensor divisors = F({3, 2}, {2, 4, 5, 8, 0.5, 2});
    const Tensor bounds = F({3, 2}, {4, 1, 0, 9, 7, 3});
    struct Case {
      const char* op;
      const Tensor& updates;
      std::vector<double> expected;
    };
    const Case cases[] = {
        {"Add", adds, {31, 42, 3, 4, 65, 86}},
        {"Sub", adds, {-29, -38, 3, 4, -55, -74}},
        {"Mul", adds, {30, 80, 3, 4, 2500, 7200}},
        {"Div", divisors, {0.2, 0.25, 3, 4, 5, 0.75}},
        {"Min", bounds, {0, 2, 3, 4, 4, 1}},
        {"Max", bounds, {1, 9, 3, 4, 7, 6}},
        {"Update", bounds, {0, 9, 3, 4, 7, 3}},  // the last write to row 2 wins
    };
    for (const Case& c : cases) {
      const std::string ref = std::string("Scatter") + c.op;
      auto var = variable_of(F({3, 2}, {1, 2, 3, 4, 5, 6}));
      const Tensor out = scatter_ref(ref.c_str(), *var, indices, c.updates);
      QVERIFY2(tensor_near(out, DType::Float, {3, 2}, c.expected), ref.c_str());
      QVERIFY2(tensor_near(var->value, DType::Float, {3, 2}, c.expected), ref.c_str());
      const Tensor h = resource_handle(F({3, 2}, {1, 2, 3, 4, 5, 6}));
      const std::string res = "Resource" + ref;
      QVERIFY2(tensor_near(scatter_resource(res.c_str(), h, indices, c.updates), DType::Float, {3, 2}, c.expected),
               res.c_str());
    }
  }

  void scalar_updates_and_multi_dim_indices() {
    auto var = variable_of(I32({3}, {1, 2, 3}));
    QVERIFY(values_are(scatter_ref("ScatterAdd", *var, I64({2}, {0, 0}), I32({}, {5})), DType::Int32, {3}, {11, 2, 3}));
    // indices [2,2] into rows of 2: updates [2,2,2].
    auto rows = variable_of(T(DType::Double, {3, 2}, {1, 1, 1, 1, 1, 1}));
    QVERIFY(values_are(scatter_ref("ScatterMul", *rows, I32({2, 2}, {0, 2, 2, 1}),
                                   T(DType::Double, {2, 2, 2}, {2, 3, 4, 5, 6, 7, 8, 9})),
                       DType::Double, {3, 2}, {2, 3, 8, 9, 24, 35}));
    const Tensor h = resource_handle(T(DType::Half, {2, 2}, {1, 2, 3, 4}));
    QVERIFY(values_are(scatter_resource("ResourceScatterSub", h, I32({1}, {1}), T(DType::Half, {}, {0.5})),
                       DType::Half, {2, 2}, {1, 2, 2.5, 3.5}));
    // No indices: nothing changes.
    auto same = variable_of(F({2}, {1, 2}));
    QVERIFY(values_are(scatter_ref("ScatterUpdate", *same, I32({0}, {}), F({0}, {})), DType::Float, {2}, {1, 2}));
  }

  void integer_arithmetic() {
    auto var = variable_of(I32({3}, {-7, 7, std::numeric_limits<int32_t>::min()}));
    // Truncating division; the most negative int32 / -1 wraps (not a trap).
    QVERIFY(values_are(scatter_ref("ScatterDiv", *var, I32({3}, {0, 1, 2}), I32({3}, {2, -2, -1})), DType::Int32, {3},
                       {-3, -3, double(std::numeric_limits<int32_t>::min())}));
    auto small = variable_of(T(DType::Int8, {1}, {120}));
    QVERIFY(values_are(scatter_ref("ScatterAdd", *small, I32({1}, {0}), T(DType::Int8, {1}, {10})), DType::Int8, {1},
                       {-126}));
  }

  void min_max_and_nan() {
    // std::min/max as Eigen's cwiseMin/Max: a NaN update is not taken, a NaN element stays.
    auto var = variable_of(F({2}, {NAN, 1}));
    const Tensor out = scatter_ref("ScatterMin", *var, I32({2}, {0, 1}), F({2}, {0, NAN}));
    QVERIFY(std::isnan(out.data<float>()[0]));
    QCOMPARE(out.data<float>()[1], 1.0f);
    auto hi = variable_of(F({2}, {NAN, 1}));
    const Tensor up = scatter_ref("ScatterMax", *hi, I32({2}, {0, 1}), F({2}, {5, NAN}));
    QVERIFY(std::isnan(up.data<float>()[0]));
    QCOMPARE(up.data<float>()[1], 1.0f);
  }

  void update_moves_strings_and_bools() {
    auto var = variable_of(Tensor::from_strings({3}, {"a", "b", "c"}));
    const Tensor out = scatter_ref("ScatterUpdate", *var, I32({2}, {2, 0}), Tensor::from_strings({2}, {"z", "x"}));
    QCOMPARE(out.strings(), (std::vector<std::string>{"x", "b", "z"}));
    const Tensor h = resource_handle(B({3}, {true, true, true}));
    QVERIFY(values_are(scatter_resource("ResourceScatterUpdate", h, I64({1}, {1}), B({}, {false})), DType::Bool, {3},
                       {1, 0, 1}));
  }

  void an_index_out_of_range_stops_the_walk() {
    // Rows before the bad index stay updated, as TensorFlow's in-place functor leaves them.
    auto var = variable_of(F({3, 1}, {1, 2, 3}));
    EXPECT_ERROR(scatter_ref("ScatterAdd", *var, I32({3}, {1, 5, 0}), F({3, 1}, {10, 20, 30})),
                 "indices[1] = 5 is not in [0, 3)");
    QVERIFY(values_are(var->value, DType::Float, {3, 1}, {1, 12, 3}));
    auto neg = variable_of(F({3, 1}, {1, 2, 3}));
    EXPECT_ERROR(scatter_ref("ScatterUpdate", *neg, I64({1, 2}, {0, -1}), F({1, 2, 1}, {7, 8})),
                 "indices[0,1] = -1 is not in [0, 3)");
    const Tensor h = resource_handle(F({2}, {1, 2}));
    EXPECT_ERROR(scatter_resource("ResourceScatterMax", h, I32({}, {2}), F({}, {9})), "indices = 2 is not in [0, 2)");
    QVERIFY(values_are(value_of(h), DType::Float, {2}, {1, 2}));
  }

  void ref_kernel_checks() {
    auto var = variable_of(F({3, 2}, {1, 2, 3, 4, 5, 6}));
    EXPECT_ERROR(scatter_ref("ScatterAdd", *var, I32({3}, {0, 1, 2}), F({2, 2}, {1, 2, 3, 4})),
                 "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape "
                 "[2,2], indices.shape [3], params.shape [3,2]");
    EXPECT_ERROR(scatter_ref("ScatterDiv", *var, I32({2}, {0, 1}), F({2, 2}, {1, 0, 3, 4})), "updates must not contain 0");
    QVERIFY(values_are(var->value, DType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}));
    auto scalar = variable_of(F({}, {1}));
    EXPECT_ERROR(scatter_ref("ScatterSub", *scalar, I32({1}, {0}), F({}, {1})), "params must be at least 1-D, got shape []");
    Variable empty;
    empty.name = "w";
    EXPECT_ERROR(run_op("ScatterAdd", {{"T", DType::Float}, {"Tindices", DType::Int32}},
                        {Tensor(), I32({1}, {0}), F({}, {1})}, {&empty, nullptr, nullptr}),
                 "Attempting to use uninitialized value w");
    EXPECT_ERROR(scatter_ref("ScatterAdd", *var, I32({1}, {0}), I32({}, {1})), "do not match the variable's float");
    EXPECT_ERROR(scatter_ref("ScatterAdd", *var, F({1}, {0}), F({}, {1})), "indices must be int32 or int64");
  }

  void resource_kernel_checks() {
    const Tensor h = resource_handle(F({3, 2}, {1, 2, 3, 4, 5, 6}));
    EXPECT_ERROR(scatter_resource("ResourceScatterAdd", h, I32({1}, {0}), I32({1, 2}, {1, 2}), DType::Int32),
                 "DType of scatter resource and updates does not match.");
    EXPECT_ERROR(scatter_resource("ResourceScatterAdd", h, I32({2}, {0, 1}), F({2}, {1, 2})),
                 "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape "
                 "[2], indices.shape [2], params.shape [3,2]");
    EXPECT_ERROR(scatter_resource("ResourceScatterAdd", h, I32({2}, {0, 1}), F({3, 2}, {1, 2, 3, 4, 5, 6})),
                 "The shape of indices ([2]) must be a prefix of the shape of updates ([3,2])");
    // Rows of the wrong length (TensorFlow does not check them).
    EXPECT_ERROR(scatter_resource("ResourceScatterAdd", h, I32({2}, {0, 1}), F({2, 3}, {1, 2, 3, 4, 5, 6})),
                 "Must have updates.shape");
    EXPECT_ERROR(scatter_resource("ResourceScatterDiv", h, I32({1}, {0}), F({}, {0})), "updates must not contain 0");
    QVERIFY(values_are(value_of(h), DType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}));
    EXPECT_ERROR(scatter_resource("ResourceScatterAdd", resource_handle(Tensor(), "gone", DType::Float, Shape{2}),
                                  I32({1}, {0}), F({}, {1})),
                 "does not exist");
  }

  void shape_functions() {
    const AttrMap attrs = {{"T", DType::Float}, {"Tindices", DType::Int32}};
    auto out = infer("ScatterAdd", attrs,
                     {{DType::Float, Shape{3, 2}}, {DType::Int32, Shape{-1}}, {DType::Float, Shape{4, 2}}});
    QCOMPARE(qshape(out[0].shape), QStringLiteral("[3,2]"));
    QCOMPARE(out[0].dtype, DType::Float);
    out = infer("ScatterUpdate", attrs, {{DType::Float, Shape{3, 2}}, {DType::Int32, Shape{4}}, {DType::Float, Shape{}}});
    QCOMPARE(qshape(out[0].shape), QStringLiteral("[3,2]"));
    EXPECT_ERROR(infer("ScatterMax", attrs,
                       {{DType::Float, Shape{3, 2}}, {DType::Int32, Shape{4}}, {DType::Float, Shape{4, 3}}}),
                 "Dimension 1 in both shapes must be equal, but are 3 and 2");
    EXPECT_ERROR(infer("ScatterSub", attrs, {{DType::Float, Shape{3, 2}}, {DType::Int32, Shape{4}}, {DType::Float, Shape{4}}}),
                 "Shapes must be equal rank, but are 1 and 2");
    // Resource forms: the variable's shape from the handle; no outputs.
    const Tensor h = resource_handle(F({3, 2}, {1, 2, 3, 4, 5, 6}));
    const AttrMap rattrs = {{"dtype", DType::Float}, {"Tindices", DType::Int32}};
    const std::vector<TensorInfo> ok = {{DType::Resource, Shape{}}, {DType::Int32, Shape{2}}, {DType::Float, Shape{2, 2}}};
    QVERIFY(infer("ResourceScatterMul", rattrs, ok, {&h}).empty());
    const std::vector<TensorInfo> bad = {{DType::Resource, Shape{}}, {DType::Int32, Shape{2}}, {DType::Float, Shape{3, 2}}};
    EXPECT_ERROR(infer("ResourceScatterMul", rattrs, bad, {&h}), "Dimension 0 in both shapes must be equal, but are 3 and 2");
    EXPECT_ERROR(infer("ResourceScatterMul", {{"dtype", DType::Double}, {"Tindices", DType::Int32}}, ok, {&h}),
                 "Trying to read variable with wrong dtype. Expected float got double");
  }

  void signatures_as_tensorflow() {
    for (const char* kind : {"Add", "Sub", "Mul", "Div", "Min", "Max", "Update"}) {
      const std::string ref = std::string("Scatter") + kind;
      const OpDef& def = op_def(ref);
      QVERIFY2(def.is_ref_input(0), ref.c_str());
      QVERIFY2(def.gradient_kind == GradientKind::NotDifferentiable, ref.c_str());
      QCOMPARE(def.inputs.size(), size_t(3));
      const OpDef& res = op_def("Resource" + ref);
      QVERIFY2(res.outputs.empty(), kind);
      QVERIFY2(res.gradient_kind == GradientKind::NotDifferentiable, kind);
      bool locking = false;
      for (const AttrDef& a : def.attrs)
        if (a.name == "use_locking") {
          const bool* b = a.default_value ? a.default_value->get_if<bool>() : nullptr;
          QVERIFY2(b && *b == (ref == "ScatterUpdate"), ref.c_str());
          locking = true;
        }
      QVERIFY2(locking, ref.c_str());
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsScatter)
#include "test_ops_scatter.moc"
