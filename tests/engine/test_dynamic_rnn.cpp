// A TF 1.15 tf.nn.dynamic_rnn LSTM training graph (tests/data/dynamic_rnn,
// written by make_dynamic_rnn.py): the forward while frame with TensorArrays,
// the gradient while frame with stacks, TensorArrayGradV3 and the
// accumulators of the loop invariants, then ApplyGradientDescent. The loss,
// the gradients and three SGD steps are compared with the plain-Python
// reference (forward LSTM + BPTT) in lstm_train.expected.json.
#include "test_main.h"
#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <string>
#include <vector>

#include "exec/session.h"
#include "graph/control_flow_frames.h"
#include "io/graph_io.h"

using namespace flowlens;

namespace {

const std::string kDir = std::string(FLOWLENS_TEST_DATA) + "/dynamic_rnn/";
const char* kForwardFrame = "rnn/while/while_context";
const char* kGradFrame = "gradients/rnn/while/while_context";

QJsonObject expected() {
  QFile f(QString::fromStdString(kDir + "lstm_train.expected.json"));
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open lstm_train.expected.json");
  return QJsonDocument::fromJson(f.readAll()).object();
}

Shape shape_of(const QJsonArray& dims) {
  std::vector<int64_t> d;
  for (const QJsonValue& v : dims) d.push_back(v.toInteger());
  return Shape(d);
}

FeedList feeds(const QJsonObject& exp) {
  const QJsonObject feed = exp["feed"].toObject();
  const QJsonObject in = feed["inputs"].toObject(), lab = feed["labels"].toObject();
  std::vector<float> x;
  for (const QJsonValue& v : in["values"].toArray()) x.push_back(static_cast<float>(v.toDouble()));
  std::vector<int32_t> y;
  for (const QJsonValue& v : lab["values"].toArray()) y.push_back(static_cast<int32_t>(v.toInteger()));
  return {{"inputs", Tensor::from_vector<float>(shape_of(in["shape"].toArray()), x)},
          {"labels", Tensor::from_vector<int32_t>(shape_of(lab["shape"].toArray()), y)}};
}

// |actual - expected| <= 1e-4 * |expected| + 1e-6, element by element.
bool close(const Tensor& actual, const QJsonArray& want, const std::string& what, std::string* why) {
  if (actual.dtype() != DType::Float || actual.num_elements() != want.size()) {
    *why = what + ": got " + std::to_string(actual.num_elements()) + " elements (dtype " +
           std::to_string(static_cast<int>(actual.dtype())) + "), expected " + std::to_string(want.size()) + " floats";
    return false;
  }
  const auto got = actual.values<float>();
  for (qsizetype i = 0; i < want.size(); ++i) {
    const double e = want[i].toDouble(), a = got[static_cast<size_t>(i)];
    if (!(std::fabs(a - e) <= 1e-4 * std::fabs(e) + 1e-6)) {
      *why = what + "[" + std::to_string(i) + "] = " + std::to_string(a) + ", reference " + std::to_string(e);
      return false;
    }
  }
  return true;
}

int frame_of(const Graph& g, const ControlFlowFrames& f, const char* node) {
  const int i = g.index_of(node);
  if (i < 0) qFatal("no node %s", node);
  return f.frame_of[static_cast<size_t>(i)];
}

Session make_session() {
  SessionOptions o;
  o.inter_op_threads = 4;
  o.use_gpus = false;
  return Session(load_graph(kDir + "lstm_train.pbtxt"), o);
}

}  // namespace

class DynamicRnnTest : public QObject {
  Q_OBJECT
 private slots:
  void frames_are_consistent() {
    Graph g = load_graph(kDir + "lstm_train.pbtxt");
    ControlFlowFrames f = compute_frames(g);
    QVERIFY2(f.problems.empty(), f.problems.empty() ? "" : f.problems[0].c_str());
    QVERIFY(f.has_control_flow);
    QCOMPARE(f.frames.size(), size_t(3));
    const int fwd = f.find(kForwardFrame), grad = f.find(kGradFrame);
    QVERIFY(fwd > 0 && grad > 0);
    QCOMPARE(f.frames[static_cast<size_t>(fwd)].parent, 0);
    QCOMPARE(f.frames[static_cast<size_t>(grad)].parent, 0);
    QCOMPARE(f.frames[static_cast<size_t>(fwd)].parallel_iterations, 32);
    QCOMPARE(f.frames[static_cast<size_t>(grad)].parallel_iterations, 32);
    // The forward body, its counter and the stack pushes run in the forward frame ...
    for (const char* n : {"rnn/while/lstm_cell/mul_2", "rnn/while/TensorArrayReadV3",
                          "rnn/while/TensorArrayWrite/TensorArrayWriteV3", "gradients/Add",
                          "gradients/rnn/while/lstm_cell/MatMul_grad/MatMul_1/StackPushV2"})
      QVERIFY2(frame_of(g, f, n) == fwd, n);
    // ... the pops, the in-loop TensorArray gradient and the accumulators in the gradient frame ...
    for (const char* n : {"gradients/Sub", "gradients/rnn/while/lstm_cell/MatMul_grad/MatMul_1/StackPopV2",
                          "gradients/rnn/while/TensorArrayWrite/TensorArrayWriteV3_grad/TensorArrayGrad/TensorArrayGradV3",
                          "gradients/rnn/while/TensorArrayWrite/TensorArrayWriteV3_grad/TensorArrayReadV3/b_sync",
                          "gradients/rnn/while/lstm_cell/MatMul/Enter_grad/Add", "gradients/AddN"})
      QVERIFY2(frame_of(g, f, n) == grad, n);
    QVERIFY(frame_of(g, f, "gradients/rnn/while/lstm_cell/MatMul/Enter_grad/b_acc_3") == grad);  // an Exit
    // ... and the stacks, the gather's gradient and the updates (the Exits' consumers) outside both.
    for (const char* n : {"gradients/rnn/while/lstm_cell/MatMul_grad/MatMul_1/f_acc",
                          "gradients/rnn/TensorArrayStack/TensorArrayGatherV3_grad/TensorArrayScatter/TensorArrayScatterV3",
                          "GradientDescent/update_rnn/lstm_cell/kernel/ApplyGradientDescent",
                          "GradientDescent/update_rnn/lstm_cell/bias/ApplyGradientDescent", "GradientDescent"})
      QVERIFY2(frame_of(g, f, n) == 0, n);
  }

  // Every op of the graph is registered and the graph validates: no
  // "unknown op" warnings, no errors.
  void every_op_is_known() {
    Session s = make_session();  // throws only on validation errors
    std::string unknown;
    for (const Diagnostic& d : s.diagnostics())
      if (d.is_error() || d.kind == Diagnostic::Kind::UnknownOp) unknown += d.to_string() + "\n";
    QVERIFY2(unknown.empty(), unknown.c_str());
  }

  void loss_and_gradients_match_the_reference() {
    try {
      check_loss_and_gradients();
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
  }

  void three_sgd_steps_match_the_reference() {
    try {
      check_three_sgd_steps();
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
  }

 private:
  // QVERIFY/QCOMPARE return from these on failure; the slots above turn an
  // engine Error (an op that cannot run yet) into a failure, not an abort.
  void check_loss_and_gradients() {
    const QJsonObject exp = expected();
    Session s = make_session();
    QCOMPARE(s.initialize_variables(), size_t(4));
    const QJsonObject grads = exp["gradients_before_training"].toObject();
    std::vector<std::string> fetches{"Mean"};
    for (const QString& k : grads.keys()) fetches.push_back(k.toStdString());
    std::vector<Tensor> out = s.run(feeds(exp), fetches);
    QCOMPARE(out.size(), fetches.size());
    std::string why;
    QVERIFY2(close(out[0], QJsonArray{exp["loss"].toArray()[0]}, "loss", &why), why.c_str());
    for (size_t i = 1; i < fetches.size(); ++i)
      QVERIFY2(close(out[i], grads[QString::fromStdString(fetches[i])].toArray(), fetches[i], &why), why.c_str());
  }

  void check_three_sgd_steps() {
    const QJsonObject exp = expected();
    const QJsonArray losses = exp["loss"].toArray();
    const int steps = exp["steps"].toInt();
    QCOMPARE(losses.size(), qsizetype(steps + 1));
    Session s = make_session();
    QCOMPARE(s.initialize_variables(), size_t(4));
    const FeedList feed = feeds(exp);
    std::string why;
    for (int step = 0; step <= steps; ++step) {
      std::vector<Tensor> loss = s.run(feed, {"Mean"});
      QVERIFY2(close(loss.at(0), QJsonArray{losses[step]}, "loss before step " + std::to_string(step), &why),
               why.c_str());
      if (step < steps) s.run(feed, {}, {"GradientDescent"});
    }
    const QJsonObject vars = exp["variables_after"].toObject();
    for (const QString& name : vars.keys()) {
      const std::string var = name.toStdString();
      std::vector<Tensor> v = s.run({}, {var + "/read"});
      const Shape want = shape_of(vars[name].toObject()["shape"].toArray());
      QVERIFY2(v.at(0).shape() == want, (var + ": shape " + v.at(0).shape().to_string()).c_str());
      QVERIFY2(close(v.at(0), vars[name].toObject()["values"].toArray(), var + " after the steps", &why), why.c_str());
    }
  }
};

FLOWLENS_TEST_GUILESS_MAIN(DynamicRnnTest)
#include "test_dynamic_rnn.moc"
