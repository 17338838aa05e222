// Resource-variable ops run on handles (VarHandleOp's output): ReadVariableOp,
// AssignVariableOp, AssignAdd/SubVariableOp, VarIsInitializedOp,
// VariableShape, DestroyResourceOp, ResourceGather; IsVariableInitialized;
// their shape functions on handle data; printing a handle. Messages are
// TensorFlow's (resource_variable_ops.cc, resource_mgr.cc).
#include "test_main.h"
#include <QtTest>

#include "engine/op_cases/state.h"
#include "op_test_util.h"
#include "tensor/tensor_format.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Variable& storage(const Tensor& handle) { return *handle.handles()[0].variable; }

AttrMap dtype_attr(DType t) { return {{"dtype", AttrValue(t)}}; }

}  // namespace

class TestOpsResource : public QObject {
  Q_OBJECT
 private slots:
  void var_handle_outputs_the_bound_handle() {
    const Tensor h = resource_handle(F({2}, {1, 2}), "w");
    Variable state;
    state.value = h;
    auto out = run_op("VarHandleOp", {{"dtype", AttrValue(DType::Float)}, {"shape", AttrValue(Shape{2})}}, {}, {},
                      &state);
    QCOMPARE(out[0].dtype(), DType::Resource);
    QVERIFY(out[0].equals(h));
    Variable unbound;
    EXPECT_ERROR(run_op("VarHandleOp", {{"dtype", AttrValue(DType::Float)}, {"shape", AttrValue(Shape{2})}}, {}, {},
                        &unbound),
                 "no resource variable is bound");
    auto info = infer("VarHandleOp", {{"dtype", AttrValue(DType::Double)}, {"shape", AttrValue(Shape{-1, 3})}}, {});
    QCOMPARE(info[0].dtype, DType::Resource);
    QCOMPARE(info[0].shape, Shape{});
    QCOMPARE(info[0].handle_dtype, DType::Double);
    QCOMPARE(info[0].handle_shape, (Shape{-1, 3}));
    const OpDef& def = op_def("VarHandleOp");
    QVERIFY(def.keeps_state && def.stateful);
    QVERIFY(def.find_attr("allowed_devices") && def.find_attr("allowed_devices")->default_value);
  }

  void read_variable_returns_the_value_and_keeps_it() {
    const Tensor h = resource_handle(D({3}, {1, 2, 3}));
    Tensor read = run1("ReadVariableOp", dtype_attr(DType::Double), {h});
    QVERIFY(tensor_near(read, DType::Double, Shape{3}, {1, 2, 3}));
    run_op("AssignAddVariableOp", dtype_attr(DType::Double), {h, D({3}, {10, 10, 10})});
    QVERIFY(tensor_near(read, DType::Double, Shape{3}, {1, 2, 3}));  // copy on write
    QVERIFY(tensor_near(run1("ReadVariableOp", dtype_attr(DType::Double), {h}), DType::Double, Shape{3}, {11, 12, 13}));
    EXPECT_ERROR(run1("ReadVariableOp", dtype_attr(DType::Float), {h}),
                 "Trying to read variable with wrong dtype. Expected float got double");
  }

  void reading_a_variable_that_does_not_exist() {
    const Tensor h = resource_handle(Tensor(), "dense/kernel", DType::Float, Shape{2});
    QCOMPARE(QString::fromStdString(error_of([&] { run1("ReadVariableOp", dtype_attr(DType::Float), {h}); })),
             QString("Could not find variable dense/kernel. This could mean that the variable has been deleted. In "
                     "TF1, it can also mean the variable is uninitialized. Debug info: container=localhost, "
                     "status=Not found: Resource localhost/dense/kernel/N10tensorflow3VarE does not exist."));
    EXPECT_ERROR(run_op("AssignAddVariableOp", dtype_attr(DType::Float), {h, F({2}, {1, 1})}),
                 "Resource localhost/dense/kernel/N10tensorflow3VarE does not exist.");
    EXPECT_ERROR(run1("VariableShape", {}, {h}), "Resource localhost/dense/kernel/N10tensorflow3VarE does not exist.");
    EXPECT_ERROR(run1("ResourceGather", {{"dtype", AttrValue(DType::Float)}}, {h, I32({1}, {0})}),
                 "Resource localhost/dense/kernel/N10tensorflow3VarE does not exist.");
  }

  void assign_variable_creates_and_replaces() {
    const Tensor h = resource_handle(Tensor(), "v", DType::Float, Shape{2});
    QVERIFY(tensor_near(run1("VarIsInitializedOp", {}, {h}), DType::Bool, Shape{}, {0}));
    const Tensor value = F({2}, {3, 4});
    QCOMPARE(run_op("AssignVariableOp", dtype_attr(DType::Float), {h, value}).size(), size_t{0});
    QVERIFY(tensor_near(storage(h).value, DType::Float, Shape{2}, {3, 4}));
    QVERIFY(tensor_near(run1("VarIsInitializedOp", {}, {h}), DType::Bool, Shape{}, {1}));
    // Without validate_shape the variable takes the value's shape.
    run_op("AssignVariableOp", dtype_attr(DType::Float), {h, F({3}, {1, 2, 3})});
    QCOMPARE(storage(h).value.shape(), Shape{3});
    AttrMap validate = dtype_attr(DType::Float);
    validate["validate_shape"] = AttrValue(true);
    EXPECT_ERROR(run_op("AssignVariableOp", validate, {h, F({2}, {1, 2})}),
                 "Trying to assign to variable with tensor with wrong shape. Expected [3] got [2]");
    EXPECT_ERROR(run_op("AssignVariableOp", dtype_attr(DType::Float), {h, I32({2}, {1, 2})}),
                 "Variable and value dtypes don't match; respectively, float and int32");
    EXPECT_ERROR(run_op("AssignVariableOp", dtype_attr(DType::Double), {h, D({2}, {1, 2})}),
                 "Trying to assign variable with wrong dtype. Expected float got double");
    QCOMPARE(op_def("AssignVariableOp").outputs.size(), size_t{0});
  }

  void assign_add_and_sub_in_every_type() {
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int32, DType::Int64, DType::UInt8}) {
      const Tensor h = resource_handle(T(t, {3}, {5, 6, 7}));
      run_op("AssignAddVariableOp", dtype_attr(t), {h, T(t, {3}, {1, 2, 3})});
      QVERIFY2(tensor_near(storage(h).value, t, Shape{3}, {6, 8, 10}), dtype_name(t).c_str());
      run_op("AssignSubVariableOp", dtype_attr(t), {h, T(t, {3}, {4, 4, 4})});
      QVERIFY2(tensor_near(storage(h).value, t, Shape{3}, {2, 4, 6}), dtype_name(t).c_str());
    }
    // float16 rounds the sum: 2048 + 1 is not representable.
    const Tensor h = resource_handle(T(DType::Half, {1}, {2048}));
    run_op("AssignAddVariableOp", dtype_attr(DType::Half), {h, T(DType::Half, {1}, {1})});
    QVERIFY(tensor_near(storage(h).value, DType::Half, Shape{1}, {2048}, 0));
    EXPECT_ERROR(run_op("AssignAddVariableOp", dtype_attr(DType::Half), {h, T(DType::Half, {2}, {1, 1})}),
                 "Cannot update variable with shape [1] using a Tensor with shape [2], shapes must be equal.");
    QVERIFY(!op_def("AssignSubVariableOp").kernel_for("CPU", make_node("AssignSubVariableOp", dtype_attr(DType::String))));
  }

  void destroy_and_variable_shape() {
    const Tensor h = resource_handle(F({2, 3}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(tensor_near(run1("VariableShape", {}, {h}), DType::Int32, Shape{2}, {2, 3}));
    QVERIFY(tensor_near(run1("VariableShape", {{"out_type", AttrValue(DType::Int64)}}, {h}), DType::Int64, Shape{2},
                        {2, 3}));
    run_op("DestroyResourceOp", {}, {h});
    QVERIFY(tensor_near(run1("VarIsInitializedOp", {}, {h}), DType::Bool, Shape{}, {0}));
    EXPECT_ERROR(run1("ReadVariableOp", dtype_attr(DType::Float), {h}), "Could not find variable v.");
    run_op("DestroyResourceOp", {}, {h});  // ignore_lookup_error defaults to true
    EXPECT_ERROR(run_op("DestroyResourceOp", {{"ignore_lookup_error", AttrValue(false)}}, {h}),
                 "Resource localhost/v/<unknown> does not exist.");
    run_op("AssignVariableOp", dtype_attr(DType::Float), {h, F({1}, {9})});  // assigning re-creates it
    QVERIFY(tensor_near(run1("ReadVariableOp", dtype_attr(DType::Float), {h}), DType::Float, Shape{1}, {9}));
  }

  void resource_gather_rows() {
    const Tensor h = resource_handle(D({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}));
    const AttrMap attrs{{"dtype", AttrValue(DType::Double)}};
    QVERIFY(tensor_near(run1("ResourceGather", attrs, {h, I32({3}, {3, 0, 3})}), DType::Double, Shape{3, 2},
                        {30, 31, 0, 1, 30, 31}));
    QVERIFY(tensor_near(run1("ResourceGather", attrs, {h, I64({2, 1}, {2, 1})}), DType::Double, Shape{2, 1, 2},
                        {20, 21, 10, 11}));
    QVERIFY(tensor_near(run1("ResourceGather", attrs, {h, I32({}, {1})}), DType::Double, Shape{2}, {10, 11}));
    QVERIFY(tensor_near(run1("ResourceGather", attrs, {h, I32({0}, {})}), DType::Double, Shape{0, 2}, {}));
    // validate_indices is ignored: indices are always checked; the first bad one is named.
    AttrMap no_validate = attrs;
    no_validate["validate_indices"] = AttrValue(false);
    EXPECT_ERROR(run1("ResourceGather", no_validate, {h, I32({3}, {0, 7, -1})}), "indices[1] = 7 is not in [0, 4)");
    EXPECT_ERROR(run1("ResourceGather", attrs, {h, I32({2, 2}, {0, 1, -1, 0})}), "indices[1,0] = -1 is not in [0, 4)");
    EXPECT_ERROR(run1("ResourceGather", attrs, {resource_handle(D({}, {1})), I32({1}, {0})}),
                 "params must be at least 1 dimensional");
    const Tensor words = resource_handle(Tensor::from_strings(Shape{3}, {"a", "b", "c"}));
    Tensor picked = run1("ResourceGather", {{"dtype", AttrValue(DType::String)}}, {words, I32({2}, {2, 0})});
    QCOMPARE(picked.strings(), (std::vector<std::string>{"c", "a"}));
  }

  void resource_gather_batch_dims() {
    // params [2,3], batch_dims 1: indices [[2,0],[1,1]] pick per batch.
    const Tensor h = resource_handle(I32({2, 3}, {0, 1, 2, 10, 11, 12}));
    const AttrMap attrs{{"dtype", AttrValue(DType::Int32)}, {"batch_dims", AttrValue(1)}};
    QVERIFY(tensor_near(run1("ResourceGather", attrs, {h, I32({2, 2}, {2, 0, 1, 1})}), DType::Int32, Shape{2, 2},
                        {2, 0, 11, 11}));
    // TensorFlow's quirk: indices are checked against the flattened batch,
    // so 5 in batch 0 reads params[1,2]; the error names the offset index.
    QVERIFY(tensor_near(run1("ResourceGather", attrs, {h, I32({2, 1}, {5, 0})}), DType::Int32, Shape{2, 1}, {12, 10}));
    EXPECT_ERROR(run1("ResourceGather", attrs, {h, I32({2, 1}, {0, 3})}), "indices[1,0] = 6 is not in [0, 2)");
    EXPECT_ERROR(run1("ResourceGather", {{"dtype", AttrValue(DType::Int32)}, {"batch_dims", AttrValue(3)}},
                      {h, I32({2, 1}, {0, 0})}),
                 "params must have at least 3 (batch_dims) dimensions but it has shape [2,3]");
    EXPECT_ERROR(run1("ResourceGather", attrs, {h, I32({3, 1}, {0, 0, 0})}), "does not match params.shape[0] = 2");
    auto info = infer("ResourceGather", attrs,
                      {{DType::Resource, Shape{}, DType::Int32, Shape{2, 3}}, {DType::Int32, Shape{2, 5}}});
    QCOMPARE(info[0].shape, (Shape{2, 5}));
    EXPECT_ERROR(infer("ResourceGather", {{"dtype", AttrValue(DType::Int32)}, {"batch_dims", AttrValue(-1)}},
                       {{DType::Resource, Shape{}}, {DType::Int32, Shape{2}}}),
                 "batch_dims is negative (-1)");
  }

  void shape_functions_read_handle_data() {
    const TensorInfo handle{DType::Resource, Shape{}, DType::Float, Shape{4, -1}};
    auto read = infer("ReadVariableOp", dtype_attr(DType::Float), {handle});
    QCOMPARE(read[0].dtype, DType::Float);
    QCOMPARE(read[0].shape, (Shape{4, -1}));
    EXPECT_ERROR(infer("ReadVariableOp", dtype_attr(DType::Int32), {handle}),
                 "Trying to read variable with wrong dtype. Expected float got int32");
    QVERIFY(!infer("ReadVariableOp", dtype_attr(DType::Float), {{DType::Resource, Shape{}}})[0].shape.rank_known());
    EXPECT_ERROR(infer("AssignVariableOp", dtype_attr(DType::Float), {handle, {DType::Float, Shape{3, 2}}}),
                 "Dimension 0 in both shapes must be equal, but are 4 and 3. Shapes are [4,?] and [3,2].");
    QCOMPARE(infer("VariableShape", {}, {handle})[0].shape, Shape{2});
    auto gather = infer("ResourceGather", dtype_attr(DType::Float), {handle, {DType::Int64, Shape{7}}});
    QCOMPARE(gather[0].shape, (Shape{7, -1}));
    // A constant handle (the registry walk's) carries the same information.
    const Tensor h = resource_handle(F({2}, {1, 2}));
    QCOMPARE(infer("ReadVariableOp", dtype_attr(DType::Float), {{DType::Resource, Shape{}}}, {&h})[0].shape, Shape{2});
  }

  void is_variable_initialized_reads_the_ref() {
    Variable v;
    v.name = "w";
    QVERIFY(tensor_near(run_op("IsVariableInitialized", dtype_attr(DType::Float), {Tensor()}, {&v})[0], DType::Bool,
                        Shape{}, {0}));
    v.value = F({1}, {1});
    QVERIFY(tensor_near(run_op("IsVariableInitialized", dtype_attr(DType::Float), {Tensor()}, {&v})[0], DType::Bool,
                        Shape{}, {1}));
    QVERIFY(op_def("IsVariableInitialized").is_ref_input(0));
  }

  void a_handle_prints_as_its_variable() {
    const Tensor h = resource_handle(F({1}, {1}), "layer/bias");
    QCOMPARE(format_tensor(h), std::string("<resource localhost/layer/bias>"));
    QCOMPARE(describe_tensor(h), std::string("resource[]"));
    QVERIFY(h.clone().equals(h));
    QVERIFY(!h.equals(resource_handle(F({1}, {1}), "layer/bias")));  // another variable
    const Tensor two = Tensor::from_handles(Shape{2}, {h.handles()[0], h.handles()[0]});
    QCOMPARE(format_tensor(two), std::string("[<resource localhost/layer/bias>,<resource localhost/layer/bias>]"));
  }

  void handles_are_required() {
    EXPECT_ERROR(run1("ReadVariableOp", dtype_attr(DType::Float), {F({1}, {1})}), "must be a resource handle");
    EXPECT_ERROR(run1("ReadVariableOp", dtype_attr(DType::Float), {Tensor(DType::Resource, Shape{0})}),
                 "holds no resource handle");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsResource)
#include "test_ops_resource.moc"
