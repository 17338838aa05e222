// apply_replica_device_setter against TensorFlow's own expectations: the cases
// of python/training/device_setter_test.py (same devices, canonical spelling),
// plus colocation, the greedy strategy and the placement report.
#include "test_main.h"
#include <QtTest>

#include "cluster/cluster_spec.h"
#include "common/error.h"
#include "transform/replica_device_setter.h"

using namespace flowlens;
using Strategy = ReplicaDeviceSetterOptions::Strategy;

namespace {

AttrValue colocate(const std::string& target) {
  AttrList list;
  list.s = {"loc:@" + target};
  return list;
}

// Builds graphs the way tf.Variable exports them: VariableV2, an initial
// value, and Assign + read colocated with the variable.
struct GraphBuilder {
  Graph graph;

  void variable(const std::string& name, const std::string& device = "", Shape shape = Shape{2},
                const std::string& op = "VariableV2") {
    graph.add_node(Node{name + "/initial_value", "Const", {}, device, {{"dtype", DType::Float}}});
    graph.add_node(Node{name, op, {}, device, {{"dtype", DType::Float}, {"shape", std::move(shape)}}});
    graph.add_node(Node{name + "/Assign", "Assign", {name, name + "/initial_value"}, device,
                        {{"_class", colocate(name)}}});
    graph.add_node(Node{name + "/read", "Identity", {name}, device, {{"_class", colocate(name)}}});
  }
  void op(const std::string& name, const std::string& type, std::vector<std::string> inputs,
          const std::string& device = "") {
    graph.add_node(Node{name, type, std::move(inputs), device, {}});
  }
  std::string device(const std::string& name) const {
    const Node* n = graph.find(name);
    return n ? n->device : "<no node " + name + ">";
  }
};

// The cluster of DeviceSetterTest: 2 ps tasks, 3 workers.
ClusterSpec tf_test_cluster() {
  return parse_cluster_spec(R"({"ps": ["ps0:2222", "ps1:2222"],
                                "worker": ["worker0:2222", "worker1:2222", "worker2:2222"]})",
                            "test cluster");
}

ClusterSpec sun_moon_cluster() {
  return parse_cluster_spec(R"({"sun": ["sun0:2222", "sun1:2222", "sun2:2222"], "moon": ["moon0:2222", "moon1:2222"]})",
                            "sun/moon");
}

ReplicaDeviceSetterOptions with_cluster(const ClusterSpec& cluster) {
  ReplicaDeviceSetterOptions options;
  options.cluster = &cluster;
  return options;
}

// v = Variable; w = Variable; a = v + w, each optionally under a device scope.
GraphBuilder v_w_a(const std::string& v_device = "", const std::string& w_device = "",
                   const std::string& a_device = "") {
  GraphBuilder b;
  b.variable("v", v_device);
  b.variable("w", w_device);
  b.op("a", "Add", {"v/read", "w/read"}, a_device);
  return b;
}

}  // namespace

class TestReplicaDeviceSetter : public QObject {
  Q_OBJECT

 private slots:
  void cpu_override() {  // testCPUOverride
    ClusterSpec cluster = tf_test_cluster();
    GraphBuilder b = v_w_a("/cpu:0", "", "/cpu:0");
    apply_replica_device_setter(b.graph, with_cluster(cluster));
    QCOMPARE(b.device("v"), std::string("/job:ps/task:0/device:CPU:0"));
    QCOMPARE(b.device("v/Assign"), std::string("/job:ps/task:0/device:CPU:0"));
    QCOMPARE(b.device("w"), std::string("/job:ps/task:1"));
    QCOMPARE(b.device("w/Assign"), std::string("/job:ps/task:1"));
    QCOMPARE(b.device("a"), std::string("/job:worker/device:CPU:0"));
  }

  void resource_variable() {  // testResource
    ClusterSpec cluster = tf_test_cluster();
    GraphBuilder b;
    b.variable("v", "", Shape{2}, "VarHandleOp");
    apply_replica_device_setter(b.graph, with_cluster(cluster));
    QCOMPARE(b.device("v"), std::string("/job:ps/task:0"));
  }

  void cluster_as_dict_round_robin() {  // testPS2TasksWithClusterSpecDict, plus a third variable
    ClusterSpec cluster = tf_test_cluster();
    GraphBuilder b = v_w_a();
    b.variable("v3");
    PlacementReport report = apply_replica_device_setter(b.graph, with_cluster(cluster));
    QVERIFY(report.applied);
    QCOMPARE(b.device("v"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("w"), std::string("/job:ps/task:1"));
    QCOMPARE(b.device("v3"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("a"), std::string("/job:worker"));
    QCOMPARE(b.device("v/initial_value"), std::string("/job:worker"));  // not colocated in TF either
  }

  void cluster_as_tf_config() {
    ClusterSpec cluster = parse_cluster_spec(
        R"({"cluster": {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222"]}, "task": {"type": "worker", "index": 0}})",
        "TF_CONFIG");
    GraphBuilder b = v_w_a();
    apply_replica_device_setter(b.graph, with_cluster(cluster));
    QCOMPARE(b.device("v"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("w"), std::string("/job:ps/task:1"));
    QCOMPARE(b.device("a"), std::string("/job:worker"));
  }

  void ps_tasks_without_cluster() {
    GraphBuilder b = v_w_a();
    ReplicaDeviceSetterOptions options;
    options.ps_tasks = 2;
    apply_replica_device_setter(b.graph, options);
    QCOMPARE(b.device("v"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("w"), std::string("/job:ps/task:1"));
  }

  void pin_variable_to_job() {  // testPS2TasksPinVariableToJob
    ClusterSpec cluster = tf_test_cluster();
    GraphBuilder b;
    b.variable("v");
    b.variable("w", "/job:moon");
    b.variable("x", "/job:ps");  // explicit ps job still gets a task
    b.variable("y", "/job:foo");
    b.op("a", "AddN", {"v/read", "w/read", "x/read"});
    PlacementReport report = apply_replica_device_setter(b.graph, with_cluster(cluster));
    QCOMPARE(b.device("v"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("w"), std::string("/job:moon"));
    QCOMPARE(b.device("w/Assign"), std::string("/job:moon"));
    QCOMPARE(b.device("x"), std::string("/job:ps/task:1"));
    QCOMPARE(b.device("x/Assign"), std::string("/job:ps/task:1"));
    QCOMPARE(b.device("y"), std::string("/job:foo"));
    QCOMPARE(b.device("a"), std::string("/job:worker"));
    QCOMPARE(report.elsewhere.size(), std::size_t(2));
    QCOMPARE(report.elsewhere[0].name, std::string("w"));
  }

  void ps_as_device_without_job() {  // testPS2TasksUseCpuForPS
    GraphBuilder b;
    b.variable("v");
    b.variable("w", "/job:moon");
    b.op("a", "Add", {"v/read", "w/read"});
    ReplicaDeviceSetterOptions options;
    options.ps_tasks = 1;
    options.ps_device = "/cpu:0";
    apply_replica_device_setter(b.graph, options);
    // TF sets a task only when ps_device names a job.
    QCOMPARE(b.device("v"), std::string("/device:CPU:0"));
    QCOMPARE(b.device("v/Assign"), std::string("/device:CPU:0"));
    QCOMPARE(b.device("w"), std::string("/job:moon/device:CPU:0"));
    QCOMPARE(b.device("w/Assign"), std::string("/job:moon/device:CPU:0"));
    QCOMPARE(b.device("a"), std::string("/job:worker"));

    // With a cluster, a jobless ps_device names no ps job: TF's setter is then a no-op.
    ClusterSpec cluster = tf_test_cluster();
    GraphBuilder c = v_w_a();
    options.cluster = &cluster;
    QVERIFY(!apply_replica_device_setter(c.graph, options).applied);
    QCOMPARE(c.device("v"), std::string(""));
  }

  void no_merging() {  // testPS2TasksNoMerging
    ClusterSpec cluster = tf_test_cluster();
    GraphBuilder b = v_w_a("", "/job:ps", "");
    b.op("on_cpu", "Neg", {"a"}, "/cpu:0");
    ReplicaDeviceSetterOptions options = with_cluster(cluster);
    options.merge_devices = false;
    apply_replica_device_setter(b.graph, options);
    QCOMPARE(b.device("v"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("v/Assign"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("w"), std::string("/job:ps"));
    QCOMPARE(b.device("w/Assign"), std::string("/job:ps"));
    QCOMPARE(b.device("a"), std::string("/job:worker"));
    QCOMPARE(b.device("on_cpu"), std::string("/cpu:0"));  // left exactly as written
  }

  void ps_and_worker_jobs_from_options() {  // testPS2TasksWithDevice
    ClusterSpec cluster = sun_moon_cluster();
    GraphBuilder b = v_w_a();
    ReplicaDeviceSetterOptions options = with_cluster(cluster);
    options.ps_device = "/job:moon";
    options.worker_device = "/job:sun";
    apply_replica_device_setter(b.graph, options);
    QCOMPARE(b.device("v"), std::string("/job:moon/task:0"));
    QCOMPARE(b.device("w"), std::string("/job:moon/task:1"));
    QCOMPARE(b.device("a"), std::string("/job:sun"));
  }

  void ps_cpu_constraint() {  // testPS2TasksWithCPUConstraint
    ClusterSpec cluster = sun_moon_cluster();
    GraphBuilder b = v_w_a();
    ReplicaDeviceSetterOptions options = with_cluster(cluster);
    options.ps_device = "/job:moon/cpu:0";
    options.worker_device = "/job:sun";
    apply_replica_device_setter(b.graph, options);
    QCOMPARE(b.device("v"), std::string("/job:moon/task:0/device:CPU:0"));
    QCOMPARE(b.device("v/Assign"), std::string("/job:moon/task:0/device:CPU:0"));
    QCOMPARE(b.device("w"), std::string("/job:moon/task:1/device:CPU:0"));
    QCOMPARE(b.device("a"), std::string("/job:sun"));
  }

  void explicit_task_wins_but_counter_advances() {
    GraphBuilder b;
    b.variable("v", "/job:ps/task:1");
    b.variable("w");
    ReplicaDeviceSetterOptions options;
    options.ps_tasks = 2;
    apply_replica_device_setter(b.graph, options);
    QCOMPARE(b.device("v"), std::string("/job:ps/task:1"));
    QCOMPARE(b.device("w"), std::string("/job:ps/task:1"));  // TF called the strategy for v too
  }

  void ops_follow_their_variables_colocation() {
    ClusterSpec cluster = tf_test_cluster();
    GraphBuilder b = v_w_a();
    // An optimizer slot: a variable TF creates inside colocate_with(v), so it
    // lands next to v and does not take a round-robin turn.
    b.graph.add_node(Node{"v/Momentum", "VariableV2", {}, "",
                          {{"dtype", DType::Float}, {"shape", Shape{2}}, {"_class", colocate("v")}}});
    b.graph.add_node(Node{"chained", "Identity", {"v/Momentum"}, "/gpu:0", {{"_class", colocate("v/Momentum")}}});
    b.variable("u");
    PlacementReport report = apply_replica_device_setter(b.graph, with_cluster(cluster));
    QCOMPARE(b.device("v/read"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("w/read"), std::string("/job:ps/task:1"));
    QCOMPARE(b.device("v/Momentum"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("chained"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("u"), std::string("/job:ps/task:0"));
    QCOMPARE(report.nodes_colocated, 8);  // 3 variables x (Assign, read), the slot, the chain
    QCOMPARE(report.ps_tasks[0].variables.size(), std::size_t(3));  // v, v/Momentum, u
  }

  void no_ps_tasks_is_a_no_op() {
    GraphBuilder b = v_w_a("/cpu:0");
    Graph before = b.graph;
    PlacementReport report = apply_replica_device_setter(b.graph, ReplicaDeviceSetterOptions{});
    QVERIFY(!report.applied);
    QCOMPARE(report.nodes_changed, 0);
    for (std::size_t i = 0; i < before.size(); ++i) QCOMPARE(b.graph.nodes()[i].device, before.nodes()[i].device);

    for (const char* text : {R"({"worker": ["w:1"]})", R"({"ps": [], "worker": ["w:1"]})"}) {
      ClusterSpec cluster = parse_cluster_spec(text, "c.json");
      QVERIFY(!apply_replica_device_setter(b.graph, with_cluster(cluster)).applied);
      QCOMPARE(b.device("v"), std::string("/cpu:0"));
      QCOMPARE(b.device("a"), std::string(""));
    }
  }

  void sparse_ps_job_uses_its_indices() {
    ClusterSpec cluster = parse_cluster_spec(R"({"ps": {"0": "p0:1", "2": "p2:1"}, "worker": ["w:1"]})", "c.json");
    GraphBuilder b;
    for (const char* v : {"v1", "v2", "v3"}) b.variable(v);
    apply_replica_device_setter(b.graph, with_cluster(cluster));
    QCOMPARE(b.device("v1"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("v2"), std::string("/job:ps/task:2"));
    QCOMPARE(b.device("v3"), std::string("/job:ps/task:0"));
  }

  void greedy_balances_bytes() {
    auto build = [] {
      GraphBuilder b;
      b.variable("big", "", Shape{100});
      for (const char* v : {"s1", "s2", "s3"}) b.variable(v, "", Shape{10});
      return b;
    };
    ClusterSpec cluster = tf_test_cluster();
    ReplicaDeviceSetterOptions options = with_cluster(cluster);

    GraphBuilder rr = build();
    PlacementReport round_robin = apply_replica_device_setter(rr.graph, options);
    QCOMPARE(round_robin.ps_tasks[0].bytes, int64_t(440));  // 100 + 10 floats
    QCOMPARE(round_robin.ps_tasks[1].bytes, int64_t(80));

    GraphBuilder gr = build();
    options.strategy = Strategy::GreedyLoadBalancing;
    PlacementReport greedy = apply_replica_device_setter(gr.graph, options);
    QCOMPARE(greedy.ps_tasks[0].bytes, int64_t(400));
    QCOMPARE(greedy.ps_tasks[1].bytes, int64_t(120));
    QCOMPARE(gr.device("big"), std::string("/job:ps/task:0"));
    for (const char* v : {"s1", "s2", "s3"}) QCOMPARE(gr.device(v), std::string("/job:ps/task:1"));
    QCOMPARE(greedy.total_ps_bytes(), int64_t(520));
  }

  void greedy_ties_go_to_the_lowest_task() {
    GraphBuilder b;
    b.variable("table", "", Shape::unknown_rank(), "MutableHashTableV2");  // 0 bytes
    b.variable("v", "", Shape{4});
    ReplicaDeviceSetterOptions options;
    options.ps_tasks = 2;
    options.strategy = Strategy::GreedyLoadBalancing;
    apply_replica_device_setter(b.graph, options);
    QCOMPARE(b.device("table"), std::string("/job:ps/task:0"));
    QCOMPARE(b.device("v"), std::string("/job:ps/task:0"));  // loads still 0, 0
  }

  void report_lists_variables_per_task() {
    ClusterSpec cluster = tf_test_cluster();
    GraphBuilder b;
    b.variable("v", "", Shape{4, 3});
    b.variable("w", "", Shape{3, 1});
    b.variable("partial", "", Shape{Shape::kUnknownDim, 3});
    PlacementReport report = apply_replica_device_setter(b.graph, with_cluster(cluster));
    QCOMPARE(report.ps_job, std::string("ps"));
    QCOMPARE(report.ps_tasks.size(), std::size_t(2));
    QCOMPARE(report.ps_tasks[0].device, std::string("/job:ps/task:0"));
    QCOMPARE(report.ps_tasks[0].variables.size(), std::size_t(2));
    QCOMPARE(report.ps_tasks[0].variables[0].name, std::string("v"));
    QCOMPARE(report.ps_tasks[0].variables[0].bytes, int64_t(48));
    QCOMPARE(report.ps_tasks[0].variables[1].bytes, int64_t(0));  // unknown shape counts 0
    QCOMPARE(report.ps_tasks[1].bytes, int64_t(12));
    QVERIFY(report.elsewhere.empty());
  }

  void bad_devices_throw() {
    GraphBuilder b = v_w_a();
    b.op("odd", "NoOp", {}, "gpu0");
    ReplicaDeviceSetterOptions options;
    options.ps_tasks = 1;
    try {
      apply_replica_device_setter(b.graph, options);
      QFAIL("expected Error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("node 'odd'") != std::string::npos, e.what());
    }
    GraphBuilder c = v_w_a();
    options.worker_device = "/job:worker/task:x";
    QVERIFY_THROWS_EXCEPTION(Error, apply_replica_device_setter(c.graph, options));
    options.worker_device = "/job:worker";
    options.ps_tasks = -1;
    QVERIFY_THROWS_EXCEPTION(Error, apply_replica_device_setter(c.graph, options));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestReplicaDeviceSetter)
#include "test_replica_device_setter.moc"
