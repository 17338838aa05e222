// Planning between-graph training without processes: what each task's
// partition holds, the rendezvous keys, the canonical ps partition, what
// is refused; and a ps partition run by PsGraph's read and update phases.
#include "test_main.h"
#include <QtTest>

#include "cluster/cluster_spec.h"
#include "dist/ps/ps_graph.h"
#include "dist/training_graphs.h"
#include "dist/worker/worker_plan.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"

using namespace flowlens;
using namespace flowlens::dist;

namespace {

ClusterSpec cluster(int ps, int workers) {
  ClusterSpec c;
  for (int i = 0; i < ps; ++i) c.set_task("ps", i, "127.0.0.1:" + std::to_string(3000 + i));
  for (int i = 0; i < workers; ++i) c.set_task("worker", i, "127.0.0.1:" + std::to_string(4000 + i));
  return c;
}

Graph sample_graph(const char* name) { return load_graph(std::string(FLOWLENS_SAMPLES "/") + name); }

int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

}  // namespace

class TestWorkerPlan : public QObject {
  Q_OBJECT
 private slots:
  void mlp_variables_and_updates_go_to_the_ps() {
    const TrainingPlan plan = plan_training(sample_graph("mlp_train.pbtxt"), cluster(1, 2), 1, OpRegistry::global(), {},
                                            {"loss", "features", "labels"});
    QCOMPARE(plan.targets, std::vector<std::string>{"train"});
    QCOMPARE(plan.ps.size(), std::size_t{1});
    const PsLink& link = plan.ps[0];
    QCOMPARE(link.variables.size(), std::size_t{4});
    QCOMPARE(link.pull_keys.size(), std::size_t{4});   // each variable's value
    QCOMPARE(link.push_keys.size(), std::size_t{8});   // a gradient and a learning rate per variable
    for (int v : link.variable_reads) QVERIFY(v >= 0);  // the chief can give a ps that lost them the last values
    QCOMPARE(count_op(plan.worker_partition, "ApplyGradientDescent"), 0);
    QCOMPARE(count_op(plan.worker_partition, "VariableV2"), 0);
    QCOMPARE(count_op(plan.worker_graph, "_Recv") + count_op(plan.worker_graph, "_Send"), 0);
    const Graph ps = parse_graph_binary(link.partition, "ps");
    QCOMPARE(count_op(ps, "ApplyGradientDescent"), 4);
    // Keys: TensorFlow's send_device;recv_device;tensor, worker named canonically.
    QVERIFY2(QString::fromStdString(link.pull_keys[0]).startsWith("/job:ps/replica:0/task:0/device:CPU:0;/job:worker/replica:0/task:0/"),
             link.pull_keys[0].c_str());
    for (const std::string& f : link.pull_feeds) QVERIFY(plan.worker_graph.find(f.substr(0, f.find(':'))));
  }

  void every_worker_registers_the_same_partition() {
    const Graph g = sample_graph("adam_ftrl_train.pbtxt");
    const TrainingPlan a = plan_training(g, cluster(2, 3), 0, OpRegistry::global(), {}, {"loss"});
    const TrainingPlan b = plan_training(g, cluster(2, 3), 2, OpRegistry::global(), {}, {"loss"});
    QCOMPARE(a.ps.size(), b.ps.size());
    for (std::size_t i = 0; i < a.ps.size(); ++i) {
      QVERIFY(a.ps[i].partition == b.ps[i].partition);
      QCOMPARE(a.ps[i].pull_keys, b.ps[i].pull_keys);
      QCOMPARE(a.ps[i].push_keys, b.ps[i].push_keys);
    }
    // ... while each worker's own partition names its own device.
    QVERIFY(b.worker_partition.nodes()[0].device.find("/job:worker/replica:0/task:2/") == 0);
  }

  // TensorFlow's placer puts an op reading a resource where the resource
  // lives; replica_device_setter alone would leave these reads on the worker.
  void resource_reads_join_their_variable() {
    const TrainingPlan plan =
        plan_training(sample_graph("resource_momentum_train.pbtxt"), cluster(1, 2), 0, OpRegistry::global(), {}, {"loss"});
    QCOMPARE(count_op(plan.worker_partition, "ReadVariableOp"), 0);
    QCOMPARE(count_op(plan.worker_partition, "VarHandleOp"), 0);
    const Graph ps = parse_graph_binary(plan.ps[0].partition, "ps");
    QCOMPARE(count_op(ps, "ResourceApplyKerasMomentum"), 4);
    QCOMPARE(plan.ps[0].variables.size(), std::size_t{8});  // 4 variables, 4 momentum slots
  }

  void a_second_round_trip_needs_a_distributed_step() {
    // The loss reads v after the step's AssignAdd on the ps: that needs the
    // update's result within the same step, which the phases cannot give.
    Graph g = parse_graph_text(R"(
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "add" op: "AssignAdd" input: "v" input: "one" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "loss" op: "Square" input: "add" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "train" op: "NoOp" input: "^add" }
)", "two_rounds");
    const TrainingPlan plan = plan_training(g, cluster(1, 1), 0, OpRegistry::global(), {}, {"loss"});
    QVERIFY2(QString::fromStdString(plan.needs_distributed_step).contains("worker op 'loss' (Square) uses a value a ps computes"),
             plan.needs_distributed_step.c_str());
    // A distributed step runs the worker's partition whole: its sinks are
    // the loss and the _Send of the constant the ps adds.
    QVERIFY(std::find(plan.step_targets.begin(), plan.step_targets.end(), "loss") != plan.step_targets.end());
    QVERIFY(std::any_of(plan.step_targets.begin(), plan.step_targets.end(),
                        [](const std::string& t) { return t.find("/_send_to_") != std::string::npos; }));
    // A graph the phases run needs no distributed step.
    const TrainingPlan plain =
        plan_training(sample_graph("mlp_train.pbtxt"), cluster(1, 1), 0, OpRegistry::global(), {}, {"loss"});
    QVERIFY2(plain.needs_distributed_step.empty(), plain.needs_distributed_step.c_str());
  }

  // A tensor inside a tf.cond branch that crosses tasks may be dead; the
  // plan names it (distributed steps refuse such a graph).
  void a_cond_branch_crossing_tasks_is_named() {
    Graph g = parse_graph_text(R"(
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "pred" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
       attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: true } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "sw" op: "Switch" input: "one" input: "pred" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "twice" op: "Add" input: "sw:1" input: "sw:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "add" op: "AssignAdd" input: "v" input: "twice" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "loss" op: "Identity" input: "one" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "train" op: "NoOp" input: "^add" }
)", "cond_branch");
    const TrainingPlan plan = plan_training(g, cluster(1, 1), 0, OpRegistry::global(), {}, {"loss"});
    QVERIFY2(QString::fromStdString(plan.dead_tensor_crossing).contains("'twice' from /job:worker/replica:0/task:0 to "
                                                                        "/job:ps/replica:0/task:0 (inside the branch of "
                                                                        "Switch 'sw')"),
             plan.dead_tensor_crossing.c_str());
    const TrainingPlan plain =
        plan_training(sample_graph("mlp_train.pbtxt"), cluster(1, 1), 0, OpRegistry::global(), {}, {"loss"});
    QVERIFY2(plain.dead_tensor_crossing.empty(), plain.dead_tensor_crossing.c_str());
  }

  // TF1's Adam keeps beta1_power/beta2_power beside the first variable;
  // with two ps tasks the other ps reads them and orders their update after
  // its ApplyAdam by control edges. The worker carries both.
  void edges_between_ps_tasks_go_through_the_worker() {
    const TrainingPlan plan =
        plan_training(sample_graph("adam_ftrl_train.pbtxt"), cluster(2, 1), 0, OpRegistry::global(), {}, {"loss"});
    QCOMPARE(plan.ps.size(), std::size_t{2});
    int data = 0, control = 0;
    for (const PsLink& link : plan.ps)
      for (const PsLink::Relay& r : link.relays) {
        if (r.from_link < 0) {
          ++control;
          continue;
        }
        ++data;
        const PsLink& from = plan.ps[static_cast<std::size_t>(r.from_link)];
        QCOMPARE(from.pull_keys[static_cast<std::size_t>(r.pull_index)], r.key);
        QVERIFY(from.pull_feeds[static_cast<std::size_t>(r.pull_index)].empty());  // not fed to the worker
      }
    QCOMPARE(data, 2);  // beta1_power and beta2_power
    QVERIFY(control >= 1);
  }

  void no_train_op_is_named() {
    Graph g = parse_graph_text(R"(node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } })", "none");
    try {
      plan_training(g, cluster(1, 1), 0, OpRegistry::global());
      QFAIL("planned");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("--train-op"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(Error, plan_training(sample_graph("mlp_train.pbtxt"), cluster(1, 1), 0, OpRegistry::global(),
                                                  {"no_such_op"}));
  }

  // The ps side of mlp_train: the read phase returns the variables, the
  // update phase runs ApplyGradientDescent with what was pushed, and a value
  // read before an update keeps what it was (the update works in place).
  void ps_graph_reads_and_updates() {
    const TrainingPlan plan =
        plan_training(sample_graph("mlp_train.pbtxt"), cluster(1, 1), 0, OpRegistry::global(), {}, {"loss"});
    const PsLink& link = plan.ps[0];
    PsGraph ps(link.partition, "ps 0");
    QCOMPARE(ps.uninitialized().size(), std::size_t{4});
    for (const std::string& v : link.variables) {
      const Tensor now = ps.value(v);
      QVERIFY(!now.valid());
    }
    Session init(sample_graph("mlp_train.pbtxt"));
    init.initialize_variables();
    for (const std::string& v : link.variables) QVERIFY(ps.initialize(v, init.variable_of_node(v)->value));
    QVERIFY(!ps.initialize(link.variables[0], init.variable_of_node(link.variables[0])->value));  // only once
    QVERIFY(ps.uninitialized().empty());

    QCOMPARE(ps.check_pull(link.pull_keys), std::string());
    QVERIFY(ps.check_pull({"nope"}).find("is not a tensor") != std::string::npos);
    std::vector<NamedTensor> before = ps.read(link.pull_keys);
    std::vector<Tensor> kept;
    for (const NamedTensor& t : before) kept.push_back(t.value.clone());

    // The worker's partition computes what it pushes from what it pulled.
    Session worker(plan.worker_graph);
    FeedList feeds;
    for (std::size_t i = 0; i < before.size(); ++i) feeds.emplace_back(link.pull_feeds[i], before[i].value);
    std::vector<Tensor> sent = worker.run(feeds, link.push_tensors);
    std::vector<NamedTensor> pushed;
    std::vector<DType> dtypes;
    for (std::size_t i = 0; i < sent.size(); ++i) {
      pushed.push_back({link.push_keys[i], sent[i]});
      dtypes.push_back(sent[i].dtype());
    }
    QCOMPARE(ps.check_push(link.push_keys, dtypes), std::string());
    QVERIFY(ps.check_push({link.push_keys[0]}, {dtypes[0]}).find("carries 1 tensor") != std::string::npos);
    std::vector<DType> wrong = dtypes;
    wrong[0] = DType::Double;
    QVERIFY(ps.check_push(link.push_keys, wrong).find("is float64") != std::string::npos);
    ps.update(pushed);
    for (std::size_t i = 0; i < before.size(); ++i) QVERIFY2(before[i].value.equals(kept[i]), before[i].name.c_str());

    // One step through the partitions equals one step of the whole graph in
    // one process (same data op, seed and kernels), bit for bit.
    init.run({}, {}, {"train"});
    for (const std::string& v : link.variables) {
      QVERIFY2(ps.value(v).equals(init.variable_of_node(v)->value), v.c_str());
      QVERIFY2(!ps.value(v).equals(kept[0]) || v != link.variables[0], v.c_str());
    }
  }

  void ps_graph_refuses_what_it_cannot_run() {
    QVERIFY_THROWS_EXCEPTION(Error, PsGraph("not a graph", "ps 0"));
    Graph no_vars = parse_graph_text(R"(node { name: "x" op: "NoOp" })", "x");
    try {
      PsGraph(graph_to_binary(no_vars), "ps 0");
      QFAIL("accepted");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("holds no variable"), e.what());
    }
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestWorkerPlan)
#include "test_worker_plan.moc"
