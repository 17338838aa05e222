// A graph exported from a function body run step after step: _Arg and
// _Retval nodes found by index, data arguments fed by name or as arg:N,
// resource arguments bound to session-owned variables (zeros, seeded
// glorot-uniform, or a checkpoint by name, heuristic or map) that the body's
// updates change from one run to the next, return values fetched as retval:N,
// and the errors that name the argument or node at fault.
#include "test_main.h"
#include <QtTest>

#include <cmath>
#include <fstream>

#include "engine/op_test_util.h"
#include "exec/function_body.h"
#include "analysis/graph_analysis.h"
#include "exec/session.h"
#include "exec/variable_checkpoint.h"
#include "io/graph_io.h"
#include "io/tensor_bundle.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

const char* kWeights = "dense_matmul_readvariableop_resource";
const char* kBias = "dense_bias_resource";
const char* kCounter = "iter_resource";

Graph step_graph() { return load_graph(FLOWLENS_TEST_DATA "/function_body/linear_step.pbtxt"); }

// y = x . [1, -1, 2] + 0.5 exactly.
Tensor x_value() { return F({4, 3}, {1, 2, 0, 0, 1, 1, 2, 0, 1, 1, 1, 1}); }
Tensor y_value() { return F({4, 1}, {-0.5f, 1.5f, 4.5f, 2.5f}); }
FeedList data_feeds() { return {{"x", x_value()}, {"y", y_value()}}; }

Tensor value_of(Session& s, const std::string& name) {
  Variable* v = s.find_variable(name);
  if (!v) return {};
  std::lock_guard lock(v->mu);
  return v->value;
}

float loss_of(const std::vector<Tensor>& results) { return results.at(0).data<float>()[0]; }

// What `f` throws (empty: nothing).
template <class F>
QString what_throws(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

std::string write_file(const QTemporaryDir& dir, const char* name, const std::string& text) {
  const std::string path = dir.filePath(name).toStdString();
  std::ofstream(path) << text;
  return path;
}

ArgInitOptions filled_with(ArgFill fill, uint64_t seed = 0) {
  ArgInitOptions o;
  o.fill = fill;
  o.seed = seed;
  return o;
}

ArgInitOptions from_checkpoint(const std::string& prefix, std::map<std::string, std::string> map = {},
                               ArgFill fill = ArgFill::None) {
  ArgInitOptions o;
  o.checkpoint = prefix;
  o.name_map = std::move(map);
  o.fill = fill;
  return o;
}

const char* kArgHeader = R"(
node { name: 'a' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 0 } } }
)";

}  // namespace

class TestFunctionBody : public QObject {
  Q_OBJECT
 private slots:
  void finds_arguments_and_return_values_by_index() {
    const Graph g = step_graph();
    QVERIFY(FunctionBody::is_function_body(g));
    const FunctionBody body(g);
    QCOMPARE(body.args().size(), size_t(5));
    QCOMPARE(body.args()[0].node, std::string("x"));
    QCOMPARE(body.args()[0].shape, Shape({4, 3}));
    QVERIFY(!body.args()[0].resource);
    const FunctionArg& w = body.args()[2];
    QCOMPARE(w.node, std::string(kWeights));
    QVERIFY(w.resource);
    QCOMPARE(w.var_dtype, DType::Float);
    QCOMPARE(w.var_shape, Shape({3, 1}));
    QVERIFY(!w.optimizer_slot);  // input 0 of ResourceApplyGradientDescent: the var itself
    QCOMPARE(body.args()[4].var_dtype, DType::Int64);
    QCOMPARE(body.retvals().size(), size_t(2));
    QCOMPARE(body.retvals()[0].tensor, std::string("Identity"));
    QCOMPARE(body.find_arg("arg:3")->node, std::string(kBias));
    QCOMPARE(body.find_arg("y:0")->index, int64_t(1));
    QVERIFY(!body.find_arg("loss"));
    QCOMPARE(body.find_retval("retval:1")->node, std::string("identity_1_retval_RetVal"));
    // Each step runs both _Retvals and the counter's update, which nothing consumes.
    const auto& targets = body.step_targets();
    for (const char* t : {"identity_retval_RetVal", "identity_1_retval_RetVal", "SGD/count"})
      QVERIFY2(std::find(targets.begin(), targets.end(), t) != targets.end(), t);
    QCOMPARE(targets.size(), size_t(3));
    QVERIFY(!FunctionBody::is_function_body(parse_graph_text("node { name: 'c' op: 'NoOp' }", "t")));
  }

  void shapes_come_from_the_output_and_handle_attrs() {
    GraphAnalysis analysis(std::make_shared<const Graph>(step_graph()));
    QVERIFY(!analysis.has_errors());
    const ShapeInferenceResult* shapes = analysis.shapes();
    QVERIFY(shapes);
    QVERIFY(shapes->errors.empty());
    auto out = [&](const char* node) { return shapes->outputs[static_cast<size_t>(analysis.graph().index_of(node))][0]; };
    QCOMPARE(out("x").shape, Shape({4, 3}));
    QCOMPARE(out(kWeights).dtype, DType::Resource);
    QCOMPARE(out(kWeights).shape, Shape{});
    QCOMPARE(out(kWeights).handle_shape, Shape({3, 1}));
    QCOMPARE(out("dense/MatMul/ReadVariableOp").shape, Shape({3, 1}));
    QCOMPARE(out("dense/BiasAdd").shape, Shape({4, 1}));
    QCOMPARE(out("loss").shape, Shape{});
  }

  void runs_step_after_step_and_the_variables_learn() {
    Session session(step_graph());
    const FunctionBody body(session.graph());
    const ArgInitReport report = body.initialize_resource_args(session, filled_with(ArgFill::Zeros));
    QCOMPARE(report.filled.size(), size_t(3));
    QVERIFY(report.restored.empty());
    const auto first = body.run(session, data_feeds(), {});
    QCOMPARE(first.size(), size_t(2));
    QCOMPARE(loss_of(first), 7.25f);  // mean(y^2) with zero weights
    QVERIFY(tensor_near(first[1], DType::Float, {4, 1}, {0, 0, 0, 0}));
    const Tensor w1 = value_of(session, kWeights);
    QVERIFY(w1.valid());
    QVERIFY(std::abs(w1.data<float>()[0]) > 0.1f);  // the update ran
    const auto second = body.run(session, data_feeds(), {"retval:0"});
    QCOMPARE(second.size(), size_t(1));
    QVERIFY2(loss_of(second) < loss_of(first), qPrintable(QString::number(loss_of(second))));
    QVERIFY(value_of(session, kWeights).data<float>()[0] != w1.data<float>()[0]);
    // The counter's update is tied to no return value and still ran each step.
    QCOMPARE(value_of(session, kCounter).data<int64_t>()[0], int64_t(2));
    float loss = 0;
    for (int step = 0; step < 300; ++step) loss = loss_of(body.run(session, data_feeds(), {}));
    QVERIFY2(loss < 1e-3f, qPrintable(QString::number(loss)));
    QVERIFY(tensor_near(value_of(session, kWeights), DType::Float, {3, 1}, {1, -1, 2}, 0.05));
    QCOMPARE(value_of(session, kCounter).data<int64_t>()[0], int64_t(302));
  }

  void feeds_by_name_and_by_index_agree() {
    Session a(step_graph()), b(step_graph());
    const FunctionBody body(a.graph());
    body.initialize_resource_args(a, filled_with(ArgFill::Zeros));
    body.initialize_resource_args(b, filled_with(ArgFill::Zeros));
    for (int step = 0; step < 3; ++step) {
      const auto by_name = body.run(a, {{"x", x_value()}, {"y:0", y_value()}}, {"identity_retval_RetVal", "retval:1"});
      const auto by_index = body.run(b, {{"arg:0", x_value()}, {"arg:1", y_value()}}, {"retval:0", "Identity_1"});
      QCOMPARE(loss_of(by_name), loss_of(by_index));
      QVERIFY(tensor_near(by_name[1], DType::Float, {4, 1}, as_doubles(by_index[1])));
    }
  }

  void random_init_is_seeded_and_glorot_scaled() {
    auto weights_with_seed = [](uint64_t seed, Tensor* bias, Tensor* counter) {
      Session s(step_graph());
      FunctionBody(s.graph()).initialize_resource_args(s, filled_with(ArgFill::Random, seed));
      if (bias) *bias = value_of(s, kBias);
      if (counter) *counter = value_of(s, kCounter);
      return as_doubles(value_of(s, kWeights));
    };
    Tensor bias, counter;
    const auto a = weights_with_seed(7, &bias, &counter);
    QCOMPARE(weights_with_seed(7, nullptr, nullptr), a);
    QVERIFY(weights_with_seed(8, nullptr, nullptr) != a);
    const double limit = std::sqrt(6.0 / (3 + 1));
    bool nonzero = false;
    for (double v : a) {
      QVERIFY(std::abs(v) <= limit);
      nonzero = nonzero || v != 0;
    }
    QVERIFY(nonzero);
    // Biases and integer counters start at zero, as Keras starts them.
    QVERIFY(tensor_near(bias, DType::Float, {1}, {0}));
    QCOMPARE(counter.dtype(), DType::Int64);
    QCOMPARE(counter.data<int64_t>()[0], int64_t(0));
  }

  void optimizer_slots_are_zeros_under_random() {
    // A momentum slot (input 1 of ResourceApplyMomentum) is a slot, not a weight.
    const Graph g = parse_graph_text(R"(
node { name: 'var' op: '_Arg' attr { key: 'T' value { type: DT_RESOURCE } } attr { key: 'index' value { i: 0 } }
  attr { key: '_handle_dtypes' value { list { type: DT_FLOAT } } }
  attr { key: '_handle_shapes' value { list { shape { dim { size: 4 } dim { size: 4 } } } } } }
node { name: 'accum' op: '_Arg' attr { key: 'T' value { type: DT_RESOURCE } } attr { key: 'index' value { i: 1 } }
  attr { key: '_handle_dtypes' value { list { type: DT_FLOAT } } }
  attr { key: '_handle_shapes' value { list { shape { dim { size: 4 } dim { size: 4 } } } } } }
node { name: 'lr' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: 'grad' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 4 } } float_val: 1 } } } }
node { name: 'apply' op: 'ResourceApplyMomentum' input: 'var' input: 'accum' input: 'lr' input: 'grad' input: 'lr'
  attr { key: 'T' value { type: DT_FLOAT } } }
)", "momentum");
    const FunctionBody body(g);
    QVERIFY(!body.args()[0].optimizer_slot);
    QVERIFY(body.args()[1].optimizer_slot);
    Session s(g);
    body.initialize_resource_args(s, filled_with(ArgFill::Random, 1));
    QVERIFY(tensor_near(value_of(s, "accum"), DType::Float, {4, 4}, std::vector<double>(16, 0.0)));
    QVERIFY(as_doubles(value_of(s, "var")) != std::vector<double>(16, 0.0));
    QVERIFY(body.run(s, {}, {}).empty());  // no _Retval: the update, a stateful sink, still runs
    QVERIFY(tensor_near(value_of(s, "accum"), DType::Float, {4, 4}, std::vector<double>(16, 1.0)));
  }

  void random_init_gives_defaults_by_the_role_the_value_plays() {
    // Resource arguments named after nothing they are: what each reaches, through
    // ReadVariableOp and value-preserving ops, says what TensorFlow/Keras starts it at.
    auto var = [](const char* name, int index, const char* shape) {
      return std::string("node { name: '") + name + "' op: '_Arg' attr { key: 'T' value { type: DT_RESOURCE } } " +
             "attr { key: 'index' value { i: " + std::to_string(index) + " } } " +
             "attr { key: '_handle_dtypes' value { list { type: DT_FLOAT } } } " +
             "attr { key: '_handle_shapes' value { list { shape { " + shape + " } } } } }\n";
    };
    auto read = [](const char* name) {
      return std::string("node { name: 'read_") + name + "' op: 'ReadVariableOp' input: '" + name +
             "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n";
    };
    const char* m22 = "dim { size: 2 } dim { size: 2 }";
    const char* v2 = "dim { size: 2 }";
    std::string text = var("a", 0, m22) + var("b", 1, m22) + var("c", 2, m22) + var("d", 3, "") + var("e", 4, "") +
                       var("f", 5, "") + var("g", 6, "") + var("h", 7, "") + var("k", 8, "") + var("p", 9, v2) +
                       var("q", 10, v2) + var("r", 11, v2) + var("s", 12, v2);
    for (const char* n : {"d", "e", "f", "g", "h", "k", "p", "q"}) text += read(n);
    text += R"(
node { name: 'eps' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1e-7 } } } }
node { name: 'two' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: 'grad' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 1 } } } }
node { name: 'grad2' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } } }
node { name: 'x' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 } dim { size: 2 } dim { size: 2 } } float_val: 1 } } } }
node { name: 'beta1_power' op: 'Identity' input: 'read_d' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'lr_and_beta2_power' op: 'IdentityN' input: 'read_f' input: 'read_e'
  attr { key: 'T' value { list { type: DT_FLOAT type: DT_FLOAT } } } }
node { name: 'lr' op: 'Cast' input: 'lr_and_beta2_power:0'
  attr { key: 'SrcT' value { type: DT_FLOAT } } attr { key: 'DstT' value { type: DT_FLOAT } } }
node { name: 'beta1_t' op: 'Pow' input: 'read_g' input: 'two' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'adam' op: 'ResourceApplyAdam' input: 'a' input: 'b' input: 'c' input: 'beta1_power'
  input: 'lr_and_beta2_power:1' input: 'lr' input: 'read_g' input: 'read_h' input: 'eps' input: 'grad'
  attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'sgd' op: 'ResourceApplyGradientDescent' input: 'a' input: 'read_k' input: 'grad'
  attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'also_adam_lr' op: 'ResourceApplyAdam' input: 'a' input: 'b' input: 'c' input: 'beta1_power'
  input: 'lr_and_beta2_power:1' input: 'read_k' input: 'read_g' input: 'read_h' input: 'eps' input: 'grad'
  attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'bn' op: 'FusedBatchNormV3' input: 'x' input: 'read_p' input: 'grad2' input: 'grad2' input: 'read_q'
  attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'U' value { type: DT_FLOAT } } }
node { name: 'adagrad' op: 'ResourceApplyAdagradV2' input: 'r' input: 's' input: 'eps' input: 'eps' input: 'grad2'
  attr { key: 'T' value { type: DT_FLOAT } } }
)";
    const Graph g = parse_graph_text(text, "roles");
    const FunctionBody body(g);
    auto role = [&](const char* arg) {
      const auto& r = body.find_arg(arg)->role;
      return r ? QString("%1=%2").arg(QString::fromStdString(r->kind)).arg(r->value) : QString("none");
    };
    QCOMPARE(role("a"), QString("none"));  // the var of every update: a weight
    QCOMPARE(role("b"), QString("none"));  // Adam's m: a slot, zeros
    QCOMPARE(role("d"), QString("Adam beta1_power=0.9"));  // through Identity (TF1's beta1_power variable)
    QCOMPARE(role("e"), QString("Adam beta2_power=0.999"));  // IdentityN's port 1 only
    QCOMPARE(role("f"), QString("Adam lr=0.001"));  // IdentityN's port 0, then Cast
    QCOMPARE(role("g"), QString("Adam beta1=0.9"));  // also into Pow, which changes the value: not followed
    QCOMPARE(role("h"), QString("Adam beta2=0.999"));
    QCOMPARE(role("k"), QString("none"));  // an SGD alpha (0.01) and an Adam lr (0.001): they disagree
    QCOMPARE(role("p"), QString("FusedBatchNorm scale=1"));
    QCOMPARE(role("q"), QString("FusedBatchNorm variance=1"));
    QCOMPARE(role("r"), QString("none"));
    QCOMPARE(role("s"), QString("AdagradV2 accum=0.1"));  // Keras's initial_accumulator_value

    Session s(g);
    const ArgInitReport report = body.initialize_resource_args(s, filled_with(ArgFill::Random, 1));
    QCOMPARE(report.filled.size(), size_t(13));
    QCOMPARE(report.by_role.size(), size_t(8));
    QCOMPARE(report.by_role[0].first.kind, std::string("Adam beta1_power"));
    QCOMPARE(report.by_role[0].second, std::vector<std::string>{"d"});
    auto scalar_of = [&](const char* n) { return value_of(s, n).data<float>()[0]; };
    QCOMPARE(scalar_of("d"), 0.9f);
    QCOMPARE(scalar_of("e"), 0.999f);
    QCOMPARE(scalar_of("f"), 0.001f);
    QCOMPARE(scalar_of("g"), 0.9f);
    QCOMPARE(scalar_of("h"), 0.999f);
    QCOMPARE(scalar_of("k"), 0.0f);
    QVERIFY(tensor_near(value_of(s, "p"), DType::Float, {2}, {1, 1}));
    QVERIFY(tensor_near(value_of(s, "q"), DType::Float, {2}, {1, 1}));
    QVERIFY(tensor_near(value_of(s, "r"), DType::Float, {2}, {0, 0}));
    QVERIFY(tensor_near(value_of(s, "s"), DType::Float, {2}, {0.1, 0.1}, 1e-7));
    QVERIFY(tensor_near(value_of(s, "b"), DType::Float, {2, 2}, {0, 0, 0, 0}));
    QVERIFY(as_doubles(value_of(s, "a")) != std::vector<double>(4, 0.0));
    // --init-args zeros means zeros.
    Session z(g);
    QVERIFY(body.initialize_resource_args(z, filled_with(ArgFill::Zeros)).by_role.empty());
    QCOMPARE(value_of(z, "f").data<float>()[0], 0.0f);
    QVERIFY(tensor_near(value_of(z, "p"), DType::Float, {2}, {0, 0}));
  }

  void checkpoint_by_map_exact_and_normalized_names() {
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("ckpt").toStdString();
    write_bundle(prefix, {{"dense/kernel", F({3, 1}, {1, -1, 2})},
                          {"dense/bias", F({1}, {0.5f})},
                          {"iter", Tensor::scalar<int64_t>(5)},
                          {"dense/kernel/.OPTIMIZER_SLOT/optimizer/m", F({3, 1}, {0, 0, 0})}});
    const std::string map = write_file(dir, "map.txt", "# Keras names the reader op, not the variable\n\narg:2 dense/kernel\n");
    Session session(step_graph());
    const FunctionBody body(session.graph());
    const ArgInitReport report =
        body.initialize_resource_args(session, from_checkpoint(prefix, read_arg_map(map)));
    QVERIFY(report.unmatched.empty() && report.filled.empty());
    const std::vector<std::pair<std::string, std::string>> restored = {
        {kWeights, "dense/kernel"}, {kBias, "dense/bias"}, {kCounter, "iter"}};
    QCOMPARE(report.restored, restored);
    // The true weights: no loss, nothing to learn.
    QVERIFY(loss_of(body.run(session, data_feeds(), {})) < 1e-10f);
    QCOMPARE(value_of(session, kCounter).data<int64_t>()[0], int64_t(6));

    // Without the map the Keras-named argument is not found, and the error
    // lists it with the keys of its dtype and shape.
    Session unmapped(step_graph());
    const QString e = what_throws([&] { body.initialize_resource_args(unmapped, from_checkpoint(prefix)); });
    QVERIFY2(e.contains("gives no value for 1 resource argument") && e.contains(kWeights) &&
                 e.contains("dense/kernel, dense/kernel/.OPTIMIZER_SLOT/optimizer/m") && e.contains("--arg-map"),
             qPrintable(e));
    QVERIFY(!value_of(unmapped, kBias).valid());  // nothing was half-initialized
    // ... or is filled, and reported as unmatched.
    const ArgInitReport filled =
        body.initialize_resource_args(unmapped, from_checkpoint(prefix, {}, ArgFill::Zeros));
    QCOMPARE(filled.unmatched, std::vector<std::string>{kWeights});
    QCOMPARE(filled.filled, std::vector<std::string>{kWeights});
    QCOMPARE(filled.restored.size(), size_t(2));

    // Object-based keys (.ATTRIBUTES/VARIABLE_VALUE) and a save of the
    // session's own variables (keyed by argument name) both restore.
    const std::string object_based = dir.filePath("object").toStdString();
    write_bundle(object_based, {{"dense/bias/.ATTRIBUTES/VARIABLE_VALUE", F({1}, {0.25f})}});
    Session objects(step_graph());
    const ArgInitReport by_object =
        body.initialize_resource_args(objects, from_checkpoint(object_based, {}, ArgFill::Zeros));
    QCOMPARE(by_object.restored.at(0).second, std::string("dense/bias/.ATTRIBUTES/VARIABLE_VALUE"));
    QVERIFY(tensor_near(value_of(objects, kBias), DType::Float, {1}, {0.25}));
    const std::string saved = dir.filePath("saved").toStdString();
    const SavedVariables written = save_variables(session, saved);
    QCOMPARE(written.saved.size(), size_t(3));
    Session again(step_graph());
    const ArgInitReport round_trip = body.initialize_resource_args(again, from_checkpoint(saved));
    QCOMPARE(round_trip.restored.at(0), std::make_pair(std::string(kWeights), std::string(kWeights)));
    QCOMPARE(value_of(again, kCounter).data<int64_t>()[0], int64_t(6));
  }

  void checkpoint_problems_name_the_argument_and_key() {
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("ckpt").toStdString();
    write_bundle(prefix, {{"dense/kernel", F({1, 3}, {1, -1, 2})}, {"dense/bias", F({1}, {0.5f})}});
    const FunctionBody body(step_graph());
    Session s(step_graph());
    QString e = what_throws([&] {
      body.initialize_resource_args(s, from_checkpoint(prefix, {{"arg:2", "dense/kernel"}}));
    });
    QVERIFY2(e.contains(kWeights) && e.contains("'dense/kernel' holds float32 [1,3]"), qPrintable(e));
    e = what_throws([&] { body.initialize_resource_args(s, from_checkpoint(prefix, {{"arg:2", "nope"}})); });
    QVERIFY2(e.contains("mapped to 'nope'"), qPrintable(e));
    e = what_throws([&] { body.initialize_resource_args(s, from_checkpoint(prefix, {{"x", "dense/bias"}})); });
    QVERIFY2(e.contains("arg:0 'x'") && e.contains("not a resource variable"), qPrintable(e));
    e = what_throws([&] { body.initialize_resource_args(s, from_checkpoint(prefix, {{"w", "dense/bias"}})); });
    QVERIFY2(e.contains("no argument 'w'"), qPrintable(e));
    e = what_throws([&] { body.initialize_resource_args(s, {}); });
    QVERIFY2(e.contains("need values") && e.contains("arg:4 'iter_resource' (resource variable int64 [])"), qPrintable(e));
    QTemporaryDir maps;
    const std::string bad_map = write_file(maps, "bad.txt", "arg:2 dense/kernel\njust_one_word\n");
    e = what_throws([&] { read_arg_map(bad_map); });
    QVERIFY2(e.contains("bad.txt:2") && e.contains("just_one_word"), qPrintable(e));
  }

  void a_partly_known_variable_shape_takes_its_checkpoint_value() {
    const Graph g = parse_graph_text(R"(
node { name: 'table' op: '_Arg' attr { key: 'T' value { type: DT_RESOURCE } } attr { key: 'index' value { i: 0 } }
  attr { key: '_handle_dtypes' value { list { type: DT_FLOAT } } }
  attr { key: '_handle_shapes' value { list { shape { dim { size: -1 } dim { size: 2 } } } } } }
node { name: 'read' op: 'ReadVariableOp' input: 'table' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'out' op: '_Retval' input: 'read' attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 0 } } }
)", "partial");
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("ckpt").toStdString();
    write_bundle(prefix, {{"table", F({3, 2}, {1, 2, 3, 4, 5, 6})}, {"wide", F({3, 3}, std::vector<float>(9, 0))}});
    const FunctionBody body(g);
    Session s(g);
    QCOMPARE(body.initialize_resource_args(s, from_checkpoint(prefix)).restored.size(), size_t(1));
    QVERIFY(tensor_near(body.run(s, {}, {}).at(0), DType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}));
    Session mapped(g);
    QString e = what_throws([&] { body.initialize_resource_args(mapped, from_checkpoint(prefix, {{"table", "wide"}})); });
    QVERIFY2(e.contains("'wide' holds float32 [3,3]"), qPrintable(e));
    e = what_throws([&] { body.initialize_resource_args(mapped, filled_with(ArgFill::Zeros)); });
    QVERIFY2(e.contains("arg:0 'table' (resource variable float32 [?,2])") && e.contains("fully known shape"),
             qPrintable(e));
  }

  void bad_indices_name_the_nodes() {
    auto body_error = [](const std::string& text) { return what_throws([&] { FunctionBody(parse_graph_text(text, "t")); }); };
    QString e = body_error(std::string(kArgHeader) +
                           "node { name: 'b' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } "
                           "attr { key: 'index' value { i: 0 } } }");
    QVERIFY2(e.contains("index 0 is shared by 'a' 'b'"), qPrintable(e));
    e = body_error(std::string(kArgHeader) +
                   "node { name: 'c' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } "
                   "attr { key: 'index' value { i: 2 } } }");
    QVERIFY2(e.contains("no _Arg node has index 1") && e.contains("'c'"), qPrintable(e));
    e = body_error(std::string(kArgHeader) +
                   "node { name: 'r' op: '_Retval' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } "
                   "attr { key: 'index' value { i: 1 } } }");
    QVERIFY2(e.contains("no _Retval node has index 0"), qPrintable(e));
    e = body_error("node { name: 'n' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } }");
    QVERIFY2(e.contains("_Arg 'n'") && e.contains("index"), qPrintable(e));
  }

  void bad_feeds_name_the_argument() {
    Session s(step_graph());
    const FunctionBody body(s.graph());
    body.initialize_resource_args(s, filled_with(ArgFill::Zeros));
    QString e = what_throws([&] { body.run(s, {{"x", x_value()}}, {}); });
    QVERIFY2(e.contains("not fed") && e.contains("arg:1 'y' (float32 [4,1])") && !e.contains("'x'"), qPrintable(e));
    e = what_throws([&] { body.run(s, {{"arg:0", D({4, 3}, std::vector<double>(12, 1.0))}, {"y", y_value()}}, {}); });
    QVERIFY2(e.contains("feed 'arg:0'") && e.contains("'x'") && e.contains("expects float32, got float64"), qPrintable(e));
    e = what_throws([&] { body.run(s, {{"x", F({2, 3}, std::vector<float>(6, 1))}, {"y", y_value()}}, {}); });
    QVERIFY2(e.contains("expects shape [4,3], got [2,3]"), qPrintable(e));
    e = what_throws([&] { body.run(s, {{"arg:9", x_value()}}, {}); });
    QVERIFY2(e.contains("'arg:9'") && e.contains("5 argument(s), arg:0 to arg:4"), qPrintable(e));
    e = what_throws([&] { body.run(s, {{"arg:x", x_value()}}, {}); });
    QVERIFY2(e.contains("expected arg:N"), qPrintable(e));
    e = what_throws([&] { body.run(s, {{"x", x_value()}, {"arg:0", x_value()}, {"y", y_value()}}, {}); });
    QVERIFY2(e.contains("fed twice"), qPrintable(e));
    e = what_throws([&] { body.run(s, {{"arg:2", F({3, 1}, {1, 1, 1})}, {"x", x_value()}, {"y", y_value()}}, {}); });
    QVERIFY2(e.contains("arg:2") && e.contains("variable the session owns"), qPrintable(e));
    e = what_throws([&] { body.run(s, data_feeds(), {"retval:2"}); });
    QVERIFY2(e.contains("2 return value(s)"), qPrintable(e));
    // Run directly, an unfed argument's kernel names it.
    e = what_throws([&] { s.run({}, {"dense/MatMul"}); });
    QVERIFY2(e.contains("no value was fed for argument 0 'x'") && e.contains("'arg:0'"), qPrintable(e));
  }

  void resource_variables_stay_unbound_until_initialized() {
    Session s(step_graph());
    const FunctionBody body(s.graph());
    QVERIFY(!s.find_variable(kWeights));
    const QString e = what_throws([&] { body.run(s, data_feeds(), {}); });
    QVERIFY2(e.contains("Could not find variable"), qPrintable(e));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestFunctionBody)
#include "test_function_body.moc"
