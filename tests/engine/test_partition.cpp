// Partitioning a placed graph into per-device subgraphs with Send/Recv pairs.
#include "test_main.h"
#include <QtTest>

#include "analysis/validate.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/partition.h"

using namespace flowlens;

namespace {

const GraphPartition* find_partition(const PartitionResult& r, const std::string& device_part) {
  for (const auto& p : r.partitions)
    if (p.device.find(device_part) != std::string::npos) return &p;
  return nullptr;
}

int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

}  // namespace

class TestPartition : public QObject {
  Q_OBJECT
 private slots:
  void in_graph_sample_splits_into_three_devices() {
    Graph g = load_graph(std::string(FLOWLENS_SAMPLES) + "/matmul_in_graph.pbtxt");
    PartitionResult r = partition_graph(g, OpRegistry::global());
    QCOMPARE(r.partitions.size(), size_t(3));
    const GraphPartition* cpu = find_partition(r, "CPU:0");
    const GraphPartition* gpu0 = find_partition(r, "GPU:0");
    const GraphPartition* gpu1 = find_partition(r, "GPU:1");
    QVERIFY(cpu && gpu0 && gpu1);
    QCOMPARE(cpu->device, std::string("/job:localhost/replica:0/task:0/device:CPU:0"));
    // split:0 and b/read go to GPU:0, split:1 and b/read to GPU:1; each MatMul comes back.
    QCOMPARE(r.transfers, 6);
    QCOMPARE(r.unknown_size_transfers, 0);
    QCOMPARE(count_op(cpu->graph, "_Send"), 4);
    QCOMPARE(count_op(cpu->graph, "_Recv"), 2);
    QCOMPARE(count_op(gpu0->graph, "_Recv"), 2);
    QCOMPARE(count_op(gpu0->graph, "_Send"), 1);
    QCOMPARE(gpu0->bytes_received, int64_t(2 * 3 * 4 + 3 * 1 * 4));
    QCOMPARE(cpu->bytes_received, int64_t(2 * (2 * 1 * 4)));
    // Every node lands exactly once; partitions only add Send/Recv.
    size_t total = 0;
    for (const auto& p : r.partitions) total += p.graph.size() - static_cast<size_t>(p.sends + p.recvs);
    QCOMPARE(total, g.size());

    const Node* matmul = gpu0->graph.find("MatMul");
    QVERIFY(matmul);
    for (const std::string& in : matmul->inputs) QVERIFY2(gpu0->graph.find(in), in.c_str());
    const Node* recv = gpu0->graph.find(matmul->inputs[0]);
    QCOMPARE(recv->op, std::string("_Recv"));
    QCOMPARE(recv->attr_string("tensor_name", ""), std::string("split"));
    QCOMPARE(recv->attr_int("_bytes", 0), int64_t(24));
  }

  void every_partition_is_a_valid_graph() {
    Graph g = load_graph(std::string(FLOWLENS_SAMPLES) + "/matmul_in_graph.pbtxt");
    for (const auto& p : partition_graph(g, OpRegistry::global()).partitions) {
      auto d = validate_graph(p.graph, OpRegistry::global());
      QVERIFY2(!has_errors(d), (p.device + ": " + (d.empty() ? "" : d[0].to_string())).c_str());
    }
  }

  void one_pair_per_tensor_and_destination() {
    Graph g = parse_graph_text(R"(
      node { name: 'a' op: 'Const' device: '/job:ps/task:0' attr { key: 'dtype' value { type: DT_FLOAT } }
        attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
      node { name: 'x' op: 'Identity' input: 'a' device: '/job:worker/task:0' }
      node { name: 'y' op: 'Identity' input: 'a' device: '/job:worker/task:0' }
      node { name: 'z' op: 'NoOp' input: '^x' device: '/job:ps/task:0' }
    )", "p.pbtxt");
    PartitionResult r = partition_graph(g, OpRegistry::global());
    QCOMPARE(r.partitions.size(), size_t(2));
    // a -> worker once (x and y share it), and x's control edge back to ps.
    QCOMPARE(r.transfers, 2);
    const GraphPartition* ps = find_partition(r, "/job:ps");
    const Node* z = ps->graph.find("z");
    QCOMPARE(z->inputs.size(), size_t(1));
    QVERIFY(z->inputs[0].starts_with("^"));
    const Node* recv = ps->graph.find(z->inputs[0].substr(1));
    QVERIFY(recv && recv->op == "_Recv");
  }

  void device_file_stems() {
    QCOMPARE(device_file_stem("/job:ps/replica:0/task:1/device:GPU:0"), std::string("job_ps_replica_0_task_1_device_GPU_0"));
    QCOMPARE(device_file_stem(""), std::string("default"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestPartition)
#include "test_partition.moc"
