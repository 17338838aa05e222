// Const, Placeholder(WithDefault), Variable(V2), Assign(Add/Sub), Identity,
// StopGradient, NoOp, and the registry's op definitions.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestOpsState : public QObject {
  Q_OBJECT
 private slots:
  void registry_has_all_ops() {
    const char* ops[] = {"Const", "Placeholder", "PlaceholderWithDefault", "Variable", "VariableV2", "Assign",
                         "AssignAdd", "AssignSub", "Identity", "NoOp", "StopGradient", "MatMul", "Add", "AddV2",
                         "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "AddN", "BiasAdd", "Relu", "Sigmoid",
                         "Tanh", "Softmax", "Square", "Neg", "Exp", "Log", "Sqrt", "Sum", "Mean", "Max",
                         "Reshape", "Shape", "Size", "Rank", "Split", "SplitV", "Concat", "ConcatV2", "Pack",
                         "Cast", "Fill", "ZerosLike", "OnesLike", "RandomStandardNormal", "RandomUniform",
                         "TruncatedNormal", "SoftmaxCrossEntropyWithLogits",
                         "SparseSoftmaxCrossEntropyWithLogits"};
    for (const char* op : ops) {
      const OpDef* def = OpRegistry::global().find(op);
      QVERIFY2(def, op);
      QVERIFY2(def->kernel("CPU"), op);
      QVERIFY2(def->shape_fn, op);
    }
    QVERIFY(op_def("Assign").is_ref_input(0));
    QVERIFY(!op_def("Assign").is_ref_input(1));
    QVERIFY(op_def("AssignAdd").is_ref_input(0));
    QVERIFY(op_def("VariableV2").stateful);
    QVERIFY(op_def("Assign").stateful);
    QVERIFY(op_def("RandomUniform").stateful);
    QVERIFY(!op_def("Add").stateful);
    QCOMPARE(op_def("NoOp").outputs_for(make_node("NoOp")), 0);
    QCOMPARE(op_def("SoftmaxCrossEntropyWithLogits").outputs.size(), size_t{2});
    QCOMPARE(op_def("AddN").max_inputs(), -1);
  }
  void const_op() {
    Tensor v = F({2}, {1, 2});
    Tensor out = run1("Const", {{"value", v}, {"dtype", DType::Float}}, {});
    QVERIFY(tensor_near(out, DType::Float, {2}, {1, 2}));
    EXPECT_ERROR(run1("Const", {{"value", v}, {"dtype", DType::Int32}}, {}), "type mismatch");
    auto info = infer("Const", {{"value", I64({3}, {1, 2, 3})}}, {});
    QCOMPARE(info[0].dtype, DType::Int64);
    QCOMPARE(qshape(info[0].shape), QString("[3]"));
  }
  void placeholder() {
    Node n = make_node("Placeholder", {{"dtype", DType::Float}}, "images");
    std::vector<Tensor> outputs(1);
    KernelContext ctx(n, {}, {}, outputs, nullptr);
    std::string msg = error_of([&] { op_def("Placeholder").kernel("CPU")(ctx); });
    QCOMPARE(QString::fromStdString(msg), QString("You must feed a value for placeholder tensor 'images' with dtype float32"));
    auto info = infer("Placeholder", {{"dtype", DType::Float}, {"shape", Shape{-1, 784}}}, {});
    QCOMPARE(info[0].dtype, DType::Float);
    QCOMPARE(qshape(info[0].shape), QString("[?,784]"));
    info = infer("Placeholder", {{"dtype", DType::Int32}}, {});
    QVERIFY(!info[0].shape.rank_known());
    Tensor out = run1("PlaceholderWithDefault", {{"dtype", DType::Float}, {"shape", Shape{2}}}, {F({2}, {3, 4})});
    QVERIFY(tensor_near(out, DType::Float, {2}, {3, 4}));
    info = infer("PlaceholderWithDefault", {{"dtype", DType::Float}}, {{DType::Float, Shape{2}}});
    QCOMPARE(qshape(info[0].shape), QString("[2]"));
  }
  void variable() {
    Variable var;
    var.name = "w";
    AttrMap attrs = {{"dtype", DType::Float}, {"shape", Shape{2}}};
    Tensor out = run_op("VariableV2", attrs, {}, {}, &var)[0];
    QVERIFY(!out.valid());  // uninitialized: empty tensor
    var.value = F({2}, {1, 2});
    out = run_op("Variable", attrs, {}, {}, &var)[0];
    QVERIFY(tensor_near(out, DType::Float, {2}, {1, 2}));
    EXPECT_ERROR(run_op("VariableV2", attrs, {}, {}, nullptr), "no variable storage");
    auto info = infer("VariableV2", attrs, {});
    QCOMPARE(info[0].dtype, DType::Float);
    QCOMPARE(qshape(info[0].shape), QString("[2]"));
  }
  void assign() {
    Variable var;
    Tensor value = F({2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = run_op("Assign", {{"T", DType::Float}}, {Tensor(), value}, {&var, nullptr});
    QVERIFY(tensor_near(var.value, DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(tensor_near(out[0], DType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(!var.value.shares_buffer_with(value));  // cloned
    // Shape mismatch with validate_shape (default true).
    EXPECT_ERROR(run_op("Assign", {}, {Tensor(), F({3}, {1, 2, 3})}, {&var, nullptr}),
                 "Assign requires shapes of both tensors to match. lhs shape= [2,3] rhs shape= [3]");
    run_op("Assign", {{"validate_shape", false}}, {Tensor(), F({3}, {7, 8, 9})}, {&var, nullptr});
    QVERIFY(tensor_near(var.value, DType::Float, {3}, {7, 8, 9}));
    EXPECT_ERROR(run_op("Assign", {}, {Tensor(), F({3}, {1, 2, 3})}, {nullptr, nullptr}), "reference");
    EXPECT_ERROR(infer("Assign", {}, {{DType::Float, Shape{2, 3}}, {DType::Float, Shape{3}}}),
                 "Assign requires shapes of both tensors to match. lhs shape= [2,3] rhs shape= [3]");
    auto info = infer("Assign", {{"validate_shape", false}}, {{DType::Float, Shape{2, 3}}, {DType::Float, Shape{3}}});
    QCOMPARE(qshape(info[0].shape), QString("[3]"));
  }
  void assign_add_sub() {
    Variable var;
    var.name = "counter";
    EXPECT_ERROR(run_op("AssignAdd", {}, {Tensor(), F({2}, {1, 1})}, {&var, nullptr}),
                 "Attempting to use uninitialized value counter");
    var.value = F({2}, {1, 2});
    Tensor before = var.value;
    auto out = run_op("AssignAdd", {}, {Tensor(), F({2}, {10, 20})}, {&var, nullptr});
    QVERIFY(tensor_near(var.value, DType::Float, {2}, {11, 22}));
    QVERIFY(tensor_near(out[0], DType::Float, {2}, {11, 22}));
    QVERIFY(tensor_near(before, DType::Float, {2}, {1, 2}));  // earlier reads unaffected
    run_op("AssignSub", {}, {Tensor(), F({2}, {1, 2})}, {&var, nullptr});
    QVERIFY(tensor_near(var.value, DType::Float, {2}, {10, 20}));
    var.value = I64({1}, {5});
    run_op("AssignSub", {}, {Tensor(), I64({1}, {7})}, {&var, nullptr});
    QVERIFY(tensor_near(var.value, DType::Int64, {1}, {-2}));
    EXPECT_ERROR(run_op("AssignAdd", {}, {Tensor(), I64({2}, {1, 2})}, {&var, nullptr}),
                 "Cannot update variable with shape [1] using a Tensor with shape [2]");
  }
  void identity_and_noop() {
    Tensor x = F({2}, {1, 2});
    Tensor out = run1("Identity", {}, {x});
    QVERIFY(out.shares_buffer_with(x));
    QVERIFY(tensor_near(run1("StopGradient", {}, {x}), DType::Float, {2}, {1, 2}));
    QVERIFY(tensor_near(run1("Identity", {}, {B({1}, {true})}), DType::Bool, {1}, {1}));
    QVERIFY(run_op("NoOp", {}, {}).empty());
    EXPECT_ERROR(run1("Identity", {}, {Tensor()}), "empty");
    auto info = infer("Identity", {{"T", DType::Float}}, {{DType::Float, Shape{-1, 2}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,2]"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsState)
#include "test_ops_state.moc"
