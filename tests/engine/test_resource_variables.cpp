// Resource variables in a session: VarHandleOps naming their storage by
// container and shared_name (shared, apart from ref variables), creation by
// AssignVariableOp, destruction, reads ordered by control edges, gradients
// with respect to a handle, add_optimizer's resource slots and updates, a
// training run that matches the same graph with ref variables step for step,
// and the debugger showing a resource variable by its value.
#include "test_main.h"
#include <QtTest>

#include <cmath>

#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "observe/debugger.h"
#include "observe/variable_values.h"
#include "ops/framework/op_registry.h"
#include "tensor/tensor_format.h"
#include "transform/gradients.h"
#include "transform/graph_builder.h"
#include "transform/optimizers.h"

using namespace flowlens;

namespace {

// TensorFlow's graph-mode tf.Variable(use_resource=True) for `v`, plus
// another handle to it, one in another container, one with the same name
// in a ref variable's namespace, and updates with ordered reads.
const char* kGraph = R"(
node { name: 'v' op: 'VarHandleOp' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 2 } } } } attr { key: 'shared_name' value { s: 'v' } } }
node { name: 'v/Initializer/initial_value' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
node { name: 'v/Assign' op: 'AssignVariableOp' input: 'v' input: 'v/Initializer/initial_value'
  attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'v/Read/ReadVariableOp' op: 'ReadVariableOp' input: 'v' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'v/IsInitialized/VarIsInitializedOp' op: 'VarIsInitializedOp' input: 'v' }
node { name: 'alias' op: 'VarHandleOp' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 2 } } } } attr { key: 'shared_name' value { s: 'v' } } }
node { name: 'alias/read' op: 'ReadVariableOp' input: 'alias' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'elsewhere' op: 'VarHandleOp' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 2 } } } } attr { key: 'shared_name' value { s: 'v' } }
  attr { key: 'container' value { s: 'other' } } }
node { name: 'elsewhere/IsInitialized' op: 'VarIsInitializedOp' input: 'elsewhere' }
node { name: 'ref_v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 2 } } } } attr { key: 'shared_name' value { s: 'v' } } }
node { name: 'ref_v/IsInitialized' op: 'IsVariableInitialized' input: 'ref_v' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'ten' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 10 float_val: 10 } } } }
node { name: 'add' op: 'AssignAddVariableOp' input: 'v' input: 'ten' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'read_after_add' op: 'ReadVariableOp' input: 'alias' input: '^add' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'destroy' op: 'DestroyResourceOp' input: 'v' }
node { name: 'unnamed_a' op: 'VarHandleOp' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 2 } } } } }
node { name: 'unnamed_a/Assign' op: 'AssignVariableOp' input: 'unnamed_a' input: 'ten' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'unnamed_b' op: 'VarHandleOp' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 2 } } } } }
node { name: 'unnamed_b/read' op: 'ReadVariableOp' input: 'unnamed_b' attr { key: 'dtype' value { type: DT_FLOAT } } }
)";

std::vector<float> floats(const Tensor& t) { return {t.values<float>().begin(), t.values<float>().end()}; }
bool scalar_bool(const Tensor& t) { return t.data<bool>()[0]; }

Tensor F(Shape s, std::vector<float> v) { return Tensor::from_vector<float>(std::move(s), v); }

// A variable `name` initialized to `init`, returning the tensor its readers
// use: a VariableV2 read through Identity, or a VarHandleOp (shared_name its
// name) read through ReadVariableOp, as tf.Variable exports either.
std::string variable(Graph& g, const std::string& name, Tensor init, bool resource) {
  const DType t = init.dtype();
  GraphBuilder root(g);
  root.add(resource ? "VarHandleOp" : "VariableV2", name, {},
           {{"dtype", AttrValue(t)}, {"shape", AttrValue(init.shape())},
            {"shared_name", AttrValue(resource ? name : std::string())}});
  GraphBuilder b(g, name);
  const std::string value = b.constant("Initializer/initial_value", std::move(init));
  if (!resource) {
    b.add("Assign", "Assign", {name, value}, {{"T", AttrValue(t)}});
    return b.add("Identity", "read", {name}, {{"T", AttrValue(t)}});
  }
  b.add("AssignVariableOp", "Assign", {name, value}, {{"dtype", AttrValue(t)}});
  return b.sub("Read").add("ReadVariableOp", "ReadVariableOp", {name}, {{"dtype", AttrValue(t)}});
}

// Linear regression on 8 points; returns (loss, train op).
std::pair<std::string, std::string> regression(Graph& g, bool resource, OptimizerOptions::Kind kind) {
  std::vector<float> xs, ys;
  for (int i = 0; i < 8; ++i) {
    const float a = 0.25f * i - 1, b = std::sin(float(i));
    xs.insert(xs.end(), {a, b});
    ys.push_back(2 * a - 3 * b + 1);
  }
  GraphBuilder b(g);
  const std::string w = variable(g, "weights", F({2, 1}, {0, 0}), resource);
  const std::string bias = variable(g, "bias", F({1}, {0}), resource);
  const std::string pred = b.add("BiasAdd", "pred", {b.binary("MatMul", b.constant("x", F({8, 2}, xs)), w, DType::Float), bias},
                                 {{"T", AttrValue(DType::Float)}});
  const std::string err = b.unary("Square", b.binary("Sub", pred, b.constant("y", F({8, 1}, ys)), DType::Float), DType::Float);
  const std::string loss = b.add("Mean", "loss", {err, b.int32_vector("axes", {0, 1})}, {{"T", AttrValue(DType::Float)}});
  auto grads = add_gradients(g, {loss}, {"weights", "bias"}, OpRegistry::global());
  OptimizerOptions opt;
  opt.kind = kind;
  opt.learning_rate = 0.1f;
  return {loss, add_optimizer(g, {{"weights", grads[0]}, {"bias", grads[1]}}, opt)};
}

}  // namespace

class TestResourceVariables : public QObject {
  Q_OBJECT
 private slots:
  void created_by_assign_and_shared_by_name() {
    Session s(parse_graph_text(kGraph, "resource.pbtxt"));
    QVERIFY(!scalar_bool(s.run({}, {"v/IsInitialized/VarIsInitializedOp"})[0]));
    try {
      s.run({}, {"v/Read/ReadVariableOp"});
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("Could not find variable v.") != std::string::npos, e.what());
    }
    QCOMPARE(variable_initializers(s.graph()), (std::vector<std::string>{"v/Assign", "unnamed_a/Assign"}));
    s.run({}, {}, {"v/Assign"});
    QVERIFY(scalar_bool(s.run({}, {"v/IsInitialized/VarIsInitializedOp"})[0]));
    QCOMPARE(floats(s.run({}, {"alias/read"})[0]), (std::vector<float>{1, 2}));  // same shared_name, same variable
    QVERIFY(!scalar_bool(s.run({}, {"elsewhere/IsInitialized"})[0]));           // another container
    QVERIFY(!scalar_bool(s.run({}, {"ref_v/IsInitialized"})[0]));               // a ref variable's own namespace
    QCOMPARE(floats(s.find_variable("v")->value), (std::vector<float>{1, 2}));
    QCOMPARE(s.find_variable("alias"), s.find_variable("v"));
    QVERIFY(s.find_variable("elsewhere") != s.find_variable("v"));
    // A handle fetched out of a run names its variable; shown, it is its value.
    const Tensor handle = s.run({}, {"v"})[0];
    QCOMPARE(format_tensor(handle), std::string("<resource localhost/v>"));
    QCOMPARE(floats(shown_value(handle)), (std::vector<float>{1, 2}));
  }

  void a_read_ordered_after_an_update_sees_it() {
    Session s(parse_graph_text(kGraph, "resource.pbtxt"));
    s.run({}, {}, {"v/Assign"});
    const Tensor before = s.run({}, {"v/Read/ReadVariableOp"})[0];
    QCOMPARE(floats(s.run({}, {"read_after_add"})[0]), (std::vector<float>{11, 12}));
    QCOMPARE(floats(before), (std::vector<float>{1, 2}));  // copy on write: an earlier read keeps its value
  }

  void destroyed_until_assigned_again() {
    Session s(parse_graph_text(kGraph, "resource.pbtxt"));
    s.run({}, {}, {"v/Assign"});
    s.run({}, {}, {"destroy"});
    QVERIFY(!scalar_bool(s.run({}, {"v/IsInitialized/VarIsInitializedOp"})[0]));
    QVERIFY_THROWS_EXCEPTION(Error, s.run({}, {"alias/read"}));
    s.run({}, {}, {"v/Assign"});
    QCOMPARE(floats(s.run({}, {"alias/read"})[0]), (std::vector<float>{1, 2}));
  }

  void an_empty_shared_name_is_one_variable() {
    // TensorFlow names the variable by shared_name alone (no node-name
    // fallback, unlike ref variables): two handles with "" share it.
    Session s(parse_graph_text(kGraph, "resource.pbtxt"));
    s.run({}, {}, {"unnamed_a/Assign"});
    QCOMPARE(floats(s.run({}, {"unnamed_b/read"})[0]), (std::vector<float>{10, 10}));
  }

  void gradients_arrive_at_the_handle() {
    // y = sum(read1^2) + sum(3 * read2) over two reads of v: dy/dv = 2v + 3.
    for (bool through_handle : {true, false}) {
      Graph g;
      const std::string read1 = variable(g, "v", F({2}, {1, -2}), true);
      GraphBuilder b(g);
      const std::string read2 = b.add("ReadVariableOp", "read2", {"v"}, {{"dtype", AttrValue(DType::Float)}});
      const std::string three = b.constant("three", F({}, {3}));
      const std::string axis = b.int32_vector("axis", {0});
      const std::string y = b.binary("AddV2", b.sum(b.unary("Square", read1, DType::Float), axis, DType::Float),
                                     b.sum(b.binary("Mul", read2, three, DType::Float), axis, DType::Float), DType::Float);
      const std::string x = through_handle ? "v" : read1;
      const std::string grad = add_gradients(g, {y}, {x}, OpRegistry::global())[0];
      QVERIFY(!grad.empty());
      Session s(g);
      s.run({}, {}, variable_initializers(g));
      const std::vector<float> want = through_handle ? std::vector<float>{5, -1} : std::vector<float>{2, -4};
      QCOMPARE(floats(s.run({}, {grad})[0]), want);
    }
  }

  void resource_gather_gradient_is_tensorflows() {
    // TensorFlow's _GatherGrad: IndexedSlices (grad rows, indices, the
    // variable's shape) made dense with UnsortedSegmentSum. UnsortedSegmentSum,
    // ExpandDims and StridedSlice come from other op families: the graph is
    // checked here, not run.
    Graph g;
    variable(g, "table", F({4, 3}, std::vector<float>(12, 1.0f)), true);
    GraphBuilder b(g);
    const std::string rows = b.add("ResourceGather", "rows", {"table", b.int32_vector("ids", {3, 1, 3})},
                                   {{"dtype", AttrValue(DType::Float)}, {"Tindices", AttrValue(DType::Int32)}});
    const std::string y = b.sum(rows, b.int32_vector("axes", {0, 1}), DType::Float);
    const std::string grad = add_gradients(g, {y}, {"table"}, OpRegistry::global())[0];
    const Node* dense = g.find(grad);
    QVERIFY(dense);
    QCOMPARE(dense->op, std::string("UnsortedSegmentSum"));
    QCOMPARE(dense->name, std::string("gradients/rows_grad/UnsortedSegmentSum"));
    const Node* values = g.find(dense->inputs[0]);
    const Node* indices = g.find(dense->inputs[1]);
    const Node* segments = g.find(dense->inputs[2]);
    QVERIFY(values && indices && segments);
    QCOMPARE(values->op, std::string("Reshape"));
    QCOMPARE(indices->op, std::string("Reshape"));
    QCOMPARE(indices->inputs[0], std::string("ids"));
    QCOMPARE(segments->op, std::string("StridedSlice"));
    QCOMPARE(segments->attr_int("shrink_axis_mask", 0), int64_t{1});
    const Node* shape = g.find(segments->inputs[0]);
    QVERIFY(shape && shape->op == "Const");  // the handle's shape is fully known
    QCOMPARE(format_tensor(*shape->attr("value").get_if<Tensor>()), std::string("[4,3]"));
    QVERIFY(g.find("gradients/rows_grad/Size") && g.find("gradients/rows_grad/ExpandDims") &&
            g.find("gradients/rows_grad/concat") && g.find("gradients/rows_grad/strided_slice"));
    QCOMPARE(g.find("gradients/rows_grad/strided_slice")->attr_int("end_mask", 0), int64_t{1});
  }

  void add_optimizer_makes_resource_slots_and_updates() {
    Graph g;
    auto [loss, train] = regression(g, true, OptimizerOptions::Kind::Adam);
    const Node* apply = g.find("train/update_weights/ResourceApplyAdam");
    QVERIFY(apply);
    QCOMPARE(g.find(apply->inputs[1])->op, std::string("VarHandleOp"));  // weights/Adam
    QCOMPARE(g.find("beta1_power")->op, std::string("VarHandleOp"));
    QCOMPARE(g.find("weights/Adam")->attr_string("shared_name", ""), std::string("weights/Adam"));
    const std::vector<std::string> init = variable_initializers(g);
    for (const char* v : {"weights/Assign", "weights/Adam/Assign", "weights/Adam_1/Assign", "beta1_power/Assign",
                          "beta2_power/Assign", "bias/Adam/Assign"})
      QVERIFY2(std::find(init.begin(), init.end(), v) != init.end(), v);
    Graph m;
    regression(m, true, OptimizerOptions::Kind::Momentum);
    QCOMPARE(m.find("train/update_bias/ResourceApplyMomentum")->inputs[1], std::string("bias/Momentum"));
  }

  void training_matches_ref_variables_step_for_step() {
    for (auto kind : {OptimizerOptions::Kind::Adam, OptimizerOptions::Kind::Momentum,
                      OptimizerOptions::Kind::GradientDescent}) {
      Graph ref_graph, res_graph;
      auto [ref_loss, ref_train] = regression(ref_graph, false, kind);
      auto [res_loss, res_train] = regression(res_graph, true, kind);
      Session ref(ref_graph), res(res_graph);
      ref.run({}, {}, variable_initializers(ref_graph));
      res.run({}, {}, variable_initializers(res_graph));
      float first = 0, last = 0;
      for (int step = 0; step < 60; ++step) {
        const float a = ref.run({}, {ref_loss}, {ref_train})[0].data<float>()[0];
        const float b = res.run({}, {res_loss}, {res_train})[0].data<float>()[0];
        QCOMPARE(b, a);  // the same kernels on the same values: bit for bit
        if (step == 0) first = b;
        last = b;
      }
      QVERIFY2(last < 0.05f * first, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
      QCOMPARE(floats(res.find_variable("weights")->value), floats(ref.find_variable("weights")->value));
    }
  }

  void the_debugger_shows_a_resource_variable_by_its_value() {
    Graph g;
    auto [loss, train] = regression(g, true, OptimizerOptions::Kind::GradientDescent);
    Session s(g);
    s.run({}, {}, variable_initializers(g));
    Debugger debugger;
    std::vector<DebugStop> stops;
    debugger.set_on_stop([&](const DebugStop& stop) {
      stops.push_back(stop);
      debugger.continue_run();
    });
    debugger.break_at("weights");
    debugger.break_at("train/update_bias/ResourceApplyGradientDescent");
    debugger.watch("bias");
    s.add_observer(&debugger);
    const std::vector<float> bias_before = floats(s.find_variable("bias")->value);
    s.run({}, {}, {train});
    s.remove_observer(&debugger);
    QCOMPARE(stops.size(), size_t{2});
    for (const DebugStop& stop : stops) {
      if (stop.node == "weights") {
        QCOMPARE(floats(stop.outputs[0]), (std::vector<float>{0, 0}));  // VarHandleOp's output: the value
      } else {
        // An update's stop: its variable as the node found it, like a ref input.
        QCOMPARE(floats(stop.inputs[0]), bias_before);
        QVERIFY(floats(s.find_variable("bias")->value) != bias_before);
      }
    }
    QCOMPARE(floats(debugger.watched(debugger.watched_runs().back(), "bias")), bias_before);
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestResourceVariables)
#include "test_resource_variables.moc"
