// In-graph replication (inference): the article's baseline turned into its
// two-GPU listing, more towers, uneven batches, the replica map and errors.
#include "test_main.h"
#include <QtTest>

#include <functional>
#include <map>
#include <set>

#include "exec/session.h"
#include "graph/device_spec.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "tensor/tensor_format.h"
#include "transform/replicate_in_graph.h"

using namespace flowlens;

namespace {

Graph sample(const std::string& name) { return load_graph(std::string(FLOWLENS_SAMPLES "/") + name); }

// Runs the variables' initializers first, as flowlens-run does.
std::vector<Tensor> run(const Graph& graph, const std::vector<std::string>& fetches, const FeedList& feeds = {}) {
  Session session(graph);
  std::vector<std::string> init = variable_initializers(session.graph());
  if (!init.empty()) session.run({}, {}, init);
  return session.run(feeds, fetches);
}

std::string run_one(const Graph& graph, const std::string& fetch, const FeedList& feeds = {}) {
  return format_tensor(run(graph, {fetch}, feeds)[0]);
}

ReplicationResult replicate(const Graph& graph, int replicas, std::vector<std::string> split,
                            std::vector<std::string> merge, bool uneven = false) {
  ReplicateOptions o;
  o.replicas = replicas;
  o.split_inputs = std::move(split);
  o.merge_outputs = std::move(merge);
  o.allow_uneven = uneven;
  return replicate_in_graph(graph, o, OpRegistry::global());
}

// A name-free form of a graph: each node as op@device(inputs...), where each
// input is the producer's own form plus the port, unfolded down to the
// sources. Equal multisets mean the graphs are the same up to node names.
std::multiset<std::string> canonical_form(const Graph& g) {
  std::map<std::string, std::string> memo;
  std::function<std::string(const Node&)> form = [&](const Node& n) -> std::string {
    if (auto it = memo.find(n.name); it != memo.end()) return it->second;
    std::vector<std::string> data, control;
    for (const std::string& text : n.inputs) {
      TensorId id = *TensorId::parse(text);
      std::string in = form(*g.find(id.node));
      if (id.is_control()) control.push_back("^" + in);
      else data.push_back(in + ":" + std::to_string(id.index));
    }
    std::sort(control.begin(), control.end());  // control order carries no meaning
    std::string s = n.op + "@" + DeviceSpec::parse(n.device).to_string() + "(";
    for (const auto& d : data) s += d + ",";
    for (const auto& c : control) s += c + ",";
    return memo[n.name] = s + ")";
  };
  std::multiset<std::string> out;
  for (const Node& n : g.nodes()) out.insert(form(n));
  return out;
}

std::multiset<std::string> devices_of(const Graph& g, const std::string& op) {
  std::multiset<std::string> d;
  for (const Node& n : g.nodes())
    if (n.op == op) d.insert(n.device);
  return d;
}

int count_op(const Graph& g, const std::string& op) {
  return static_cast<int>(std::count_if(g.nodes().begin(), g.nodes().end(), [&](const Node& n) { return n.op == op; }));
}

// Relu(x * w - 10) with w = [1,1,2]; `side` reads the intermediate `hidden` off the merge path.
std::string rows_graph(const std::string& x_node) {
  return x_node + R"(
node { name: 'w/initial_value' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 1 } } float_val: 1 float_val: 1 float_val: 2 } } } }
node { name: 'w' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 3 } dim { size: 1 } } } } }
node { name: 'w/Assign' op: 'Assign' input: 'w' input: 'w/initial_value' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'w/read' op: 'Identity' input: 'w' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'bias' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: -10 } } } }
node { name: 'mm' op: 'MatMul' input: 'x' input: 'w/read' device: '/gpu:0' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'hidden' op: 'Add' input: 'mm' input: 'bias' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'output' op: 'Relu' input: 'hidden' input: '^w/read' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'side' op: 'Identity' input: 'hidden' attr { key: 'T' value { type: DT_FLOAT } } }
)";
}

std::string const_x(int rows) {
  std::string values;
  for (int i = 1; i <= rows * 3; ++i) values += " float_val: " + std::to_string(i);
  return "node { name: 'x' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }\n"
         "  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: " +
         std::to_string(rows) + " } dim { size: 3 } }" + values + " } } } }\n";
}

const char* kPlaceholderX =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }\n"
    "  attr { key: 'shape' value { shape { dim { size: -1 } dim { size: 3 } } } } }\n";

Tensor rows_tensor(int rows) {
  std::vector<float> v;
  for (int i = 1; i <= rows * 3; ++i) v.push_back(static_cast<float>(i));
  return Tensor::from_vector<float>(Shape{rows, 3}, v);
}

void expect_error(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    QFAIL(("expected an error containing: " + text).c_str());
  } catch (const Error& e) {
    QVERIFY2(std::string(e.what()).find(text) != std::string::npos, e.what());
  }
}

}  // namespace

class TestReplicateInGraph : public QObject {
  Q_OBJECT
 private slots:
  void baseline_becomes_the_article_listing() {
    Graph baseline = sample("matmul_baseline.pbtxt");
    ReplicationResult r = replicate(baseline, 2, {"input_data"}, {"output"});
    QCOMPARE(run_one(r.graph, "output"), std::string("[[9],[21],[33],[45]]"));
    QCOMPARE(run_one(r.graph, "output"), run_one(baseline, "output"));

    Graph expected = sample("matmul_in_graph.pbtxt");
    QCOMPARE(devices_of(r.graph, "MatMul"), (std::multiset<std::string>{"/gpu:0", "/gpu:1"}));
    QCOMPARE(devices_of(r.graph, "Split"), std::multiset<std::string>{"/cpu:0"});
    QCOMPARE(devices_of(r.graph, "ConcatV2"), std::multiset<std::string>{"/cpu:0"});
    QCOMPARE(r.graph.size(), expected.size());
    QCOMPARE(canonical_form(r.graph), canonical_form(expected));
    QCOMPARE(r.graph.find("output")->op, std::string("ConcatV2"));
    QVERIFY(r.graph.find("input_data/split") && r.graph.find("input_data/split/split_dim"));
    QCOMPARE(r.splits.size(), size_t{1});
    QCOMPARE(r.splits[0].tensor, std::string("input_data/read"));
    QCOMPARE(r.merges, std::vector<std::string>{"output"});
  }

  void the_output_survives_a_text_round_trip() {
    ReplicationResult r = replicate(sample("matmul_baseline.pbtxt"), 2, {"input_data"}, {"output"});
    Graph reparsed = parse_graph_text(graph_to_text(r.graph), "replicated.pbtxt");
    QCOMPARE(run_one(reparsed, "output"), std::string("[[9],[21],[33],[45]]"));
  }

  void three_and_four_towers_on_twelve_rows() {
    Graph g = parse_graph_text(rows_graph(const_x(12)), "rows.pbtxt");
    const std::string want = run_one(g, "output"), want_side = run_one(g, "side");
    for (int n : {3, 4}) {
      ReplicationResult r = replicate(g, n, {"x"}, {"output"});
      QCOMPARE(run_one(r.graph, "output"), want);
      QCOMPARE(run_one(r.graph, "side"), want_side);  // the off-path reader keeps the full batch
      QCOMPARE(count_op(r.graph, "MatMul"), n + 1);   // n towers + the original `mm` that `side` still needs
      QCOMPARE(r.graph.find("x/split")->attr_int("num_split", 0), int64_t{n});
      QCOMPARE(r.map.copies_of("hidden").size(), size_t(n));
      const Node* last = r.graph.find("tower_" + std::to_string(n - 1) + "/output");
      QVERIFY(last);
      QCOMPARE(last->inputs[0], "tower_" + std::to_string(n - 1) + "/hidden");
      QCOMPARE(last->inputs[1], std::string("^w/read"));  // control input to a shared node stays shared
      QCOMPARE(r.graph.find("tower_1/mm")->inputs[0], std::string("x/split:1"));
    }
  }

  void unknown_batch_uses_split_and_runs_when_fed() {
    Graph g = parse_graph_text(rows_graph(kPlaceholderX), "fed.pbtxt");
    ReplicationResult r = replicate(g, 4, {"x"}, {"output"});
    QCOMPARE(count_op(r.graph, "Split"), 1);
    QCOMPARE(r.splits[0].batch, int64_t{-1});
    const FeedList feeds{{"x", rows_tensor(12)}};
    QCOMPARE(run_one(r.graph, "output", feeds), run_one(g, "output", feeds));
    // A batch that does not divide is the runtime's to report.
    QVERIFY_THROWS_EXCEPTION(Error, run(r.graph, {"output"}, {{"x", rows_tensor(6)}}));
  }

  void uneven_batch_is_an_error_unless_allowed() {
    Graph g = parse_graph_text(rows_graph(const_x(5)), "five.pbtxt");
    expect_error([&] { replicate(g, 2, {"x"}, {"output"}); },
                 "cannot split 'x' (batch 5) into 2 replicas evenly; pass allow_uneven to use SplitV sizes [3,2]");
    ReplicationResult r = replicate(g, 2, {"x"}, {"output"}, true);
    QCOMPARE(count_op(r.graph, "SplitV"), 1);
    QCOMPARE(count_op(r.graph, "Split"), 0);
    QCOMPARE(r.splits[0].sizes, (std::vector<int64_t>{3, 2}));
    QCOMPARE(run_one(r.graph, "output"), run_one(g, "output"));
    // An even batch keeps the plain Split even when uneven ones are allowed.
    QCOMPARE(count_op(replicate(g, 5, {"x"}, {"output"}, true).graph, "Split"), 1);
    expect_error([&] { replicate(g, 6, {"x"}, {"output"}, true); }, "fewer rows than replicas");
  }

  void uneven_with_unknown_batch_needs_batch_size() {
    Graph g = parse_graph_text(rows_graph(kPlaceholderX), "fed.pbtxt");
    expect_error([&] { replicate(g, 2, {"x"}, {"output"}, true); }, "allow_uneven needs batch_size");
    ReplicateOptions o;
    o.split_inputs = {"x"};
    o.merge_outputs = {"output"};
    o.allow_uneven = true;
    o.batch_size = 5;
    ReplicationResult r = replicate_in_graph(g, o, OpRegistry::global());
    const FeedList feeds{{"x", rows_tensor(5)}};
    QCOMPARE(run_one(r.graph, "output", feeds), run_one(g, "output", feeds));
  }

  void replica_map_both_ways_and_shared_variables() {
    ReplicationResult r = replicate(sample("matmul_baseline.pbtxt"), 2, {"input_data"}, {"output"});
    QCOMPARE(r.map.copies_of("output"), (std::vector<std::string>{"tower_0/output", "tower_1/output"}));
    QCOMPARE(r.map.original_of("tower_1/output"), std::string("output"));
    QCOMPARE(r.map.original_of("output"), std::string());
    QCOMPARE(r.map.original_of("b/read"), std::string());
    QVERIFY(r.map.copies_of("b").empty());
    QVERIFY(r.map.copies_of("b/read").empty());
    QCOMPARE(r.map.originals(), std::vector<std::string>{"output"});
    QCOMPARE(count_op(r.graph, "VariableV2"), 2);  // input_data and b, once each
    for (const Node& n : r.graph.nodes()) QVERIFY2(n.name.find("tower_0/b") != 0, n.name.c_str());
  }

  void tower_devices_override_field_by_field() {
    Graph g = sample("matmul_baseline.pbtxt");
    g.find("output")->device = "/job:localhost/replica:0/task:0/device:GPU:0";
    ReplicateOptions o;
    o.replicas = 2;
    o.devices = {"/cpu:0", "/gpu:1"};
    o.split_inputs = {"input_data"};
    o.merge_outputs = {"output"};
    ReplicationResult r = replicate_in_graph(g, o, OpRegistry::global());
    QCOMPARE(r.graph.find("tower_0/output")->device, std::string("/job:localhost/replica:0/task:0/device:CPU:0"));
    QCOMPARE(r.graph.find("tower_1/output")->device, std::string("/job:localhost/replica:0/task:0/device:GPU:1"));
    g.find("output")->device = "";
    r = replicate_in_graph(g, o, OpRegistry::global());
    QCOMPARE(r.graph.find("tower_1/output")->device, std::string("/gpu:1"));  // the user's spelling
  }

  void bad_requests_are_errors() {
    Graph g = sample("matmul_baseline.pbtxt");
    expect_error([&] { replicate(g, 2, {"nope"}, {"output"}); }, "unknown split input 'nope'");
    expect_error([&] { replicate(g, 2, {"input_data"}, {"nope"}); }, "unknown merge output 'nope'");
    expect_error([&] { replicate(g, 2, {"input_data"}, {"b/read"}); }, "'b/read' does not depend on any split input");
    expect_error([&] { replicate(g, 2, {"input_data"}, {}); }, "merge output or a loss");
    expect_error([&] { replicate(g, 0, {"input_data"}, {"output"}); }, "at least 1");
    ReplicateOptions o;
    o.replicas = 2;
    o.devices = {"/gpu:0"};
    o.split_inputs = {"input_data"};
    o.merge_outputs = {"output"};
    expect_error([&] { replicate_in_graph(g, o, OpRegistry::global()); }, "1 device(s) given for 2 replicas");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestReplicateInGraph)
#include "test_replicate_in_graph.moc"
