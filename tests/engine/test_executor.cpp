// Executor: pruning, feeds and fetches, dataflow ordering, parallelism across
// a device's threads, up-front refusal of unrunnable nodes, error reporting.
#include "test_main.h"
#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "exec/session.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "tensor/tensor_format.h"

using namespace flowlens;

// QVERIFY2 wants a C string; the temporary lives until the end of the macro.
#define std_text(s) std::string(s).c_str()

namespace {

// Test-only ops, registered into a private registry next to the standard ones.
std::mutex g_barrier_mu;
std::condition_variable g_barrier_cv;
int g_barrier_arrived = 0;
std::atomic<int> g_fail_runs{0};

// Blocks until two TestBarrier kernels are inside at once (or 10 s pass):
// only a parallel executor can finish a graph with two of them side by side.
void barrier_kernel(KernelContext& ctx) {
  std::unique_lock lock(g_barrier_mu);
  ++g_barrier_arrived;
  g_barrier_cv.notify_all();
  if (!g_barrier_cv.wait_for(lock, std::chrono::seconds(10), [] { return g_barrier_arrived >= 2; }))
    throw Error("barrier timed out: the other branch never ran concurrently");
  ctx.set_output(0, Tensor::scalar<float>(1.0f));
}

void fail_kernel(KernelContext&) {
  ++g_fail_runs;
  throw Error("this kernel always fails");
}

OpRegistry& test_registry() {
  static OpRegistry* r = [] {
    auto* reg = new OpRegistry;
    register_standard_ops(*reg);
    reg->add(OpBuilder("TestBarrier").output("y: float").cpu(barrier_kernel));
    reg->add(OpBuilder("TestFail").output("y: float").cpu(fail_kernel));
    KernelDef gpu;
    gpu.device = "GPU";
    gpu.fn = fail_kernel;
    reg->add(OpBuilder("TestGpuOnly").output("y: float").kernel(gpu));
    return reg;
  }();
  return *r;
}

std::string scalar_const(const std::string& name, float v) {
  return "node { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } " +
         "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: " + std::to_string(v) +
         " } } } }\n";
}

std::string binary(const std::string& name, const std::string& op, const std::string& a, const std::string& b) {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + a + "' input: '" + b +
         "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
}

Session make_session(const std::string& text, int threads = 2) {
  SessionOptions o;
  o.registry = &test_registry();
  o.inter_op_threads = threads;
  return Session(parse_graph_text(text, "test.pbtxt"), o);
}

float scalar_of(const Tensor& t) { return t.data<float>()[0]; }

// Records a global sequence number at every start and end.
class OrderObserver : public ExecutionObserver {
 public:
  void on_node_start(int64_t, const NodeEvent& e) override {
    std::lock_guard lock(mu);
    start[e.node.name] = seq++;
  }
  void on_node_end(int64_t, const NodeEvent& e, std::span<const Tensor>) override {
    std::lock_guard lock(mu);
    end[e.node.name] = seq++;
  }
  std::mutex mu;
  int seq = 0;
  std::map<std::string, int> start, end;
};

}  // namespace

class TestExecutor : public QObject {
  Q_OBJECT
 private slots:
  void fetches_values() {
    Session s = make_session(scalar_const("a", 2) + scalar_const("b", 3) + binary("sum", "Add", "a", "b") +
                             binary("prod", "Mul", "sum", "b"));
    auto out = s.run({}, {"prod", "sum", "a"});
    QCOMPARE(out.size(), size_t(3));
    QCOMPARE(scalar_of(out[0]), 15.0f);
    QCOMPARE(scalar_of(out[1]), 5.0f);
    QCOMPARE(scalar_of(out[2]), 2.0f);
    // Same request again comes from the cached plan and gives the same answer.
    QCOMPARE(scalar_of(s.run({}, {"prod"})[0]), 15.0f);
  }

  void dataflow_order_respects_every_edge() {
    std::string g = scalar_const("a", 1) + scalar_const("b", 2);
    // A diamond of depth 6 with a control edge: every node must start after
    // all of its inputs ended.
    std::string prev_l = "a", prev_r = "b";
    for (int i = 0; i < 6; ++i) {
      std::string l = "l" + std::to_string(i), r = "r" + std::to_string(i);
      g += binary(l, "Add", prev_l, prev_r) + binary(r, "Mul", prev_r, prev_l);
      prev_l = l;
      prev_r = r;
    }
    g += "node { name: 'last' op: 'AddV2' input: 'l5' input: 'r5' input: '^a' attr { key: 'T' value { type: DT_FLOAT } } }\n";
    Session s = make_session(g, 2);
    OrderObserver obs;
    s.add_observer(&obs);
    for (int run = 0; run < 20; ++run) s.run({}, {"last"});
    s.remove_observer(&obs);
    for (const Node& n : s.graph().nodes())
      for (const std::string& in : n.inputs) {
        std::string src = TensorId::parse(in)->node;
        QVERIFY2(obs.end[src] < obs.start[n.name], std_text(n.name + " started before " + src + " ended"));
      }
    QCOMPARE(obs.start.size(), s.graph().size());
  }

  void independent_nodes_run_in_parallel() {
    g_barrier_arrived = 0;
    Session s = make_session(
        "node { name: 'left' op: 'TestBarrier' } node { name: 'right' op: 'TestBarrier' }"
        "node { name: 'both' op: 'NoOp' input: '^left' input: '^right' }",
        2);
    s.run({}, {}, {"both"});  // throws (barrier timeout) if run one after the other
    QCOMPARE(g_barrier_arrived, 2);
  }

  void prunes_to_what_fetches_need() {
    g_fail_runs = 0;
    Session s = make_session(scalar_const("a", 4) + "node { name: 'boom' op: 'TestFail' }" +
                             binary("twice", "Add", "a", "a"));
    QCOMPARE(scalar_of(s.run({}, {"twice"})[0]), 8.0f);
    QCOMPARE(g_fail_runs.load(), 0);
  }

  void feeds_replace_tensors_and_cut_their_producers() {
    g_fail_runs = 0;
    Session s = make_session(
        "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }"
        "node { name: 'boom' op: 'TestFail' }" +
        binary("y", "Mul", "x", "x") + binary("z", "Add", "y", "boom"));
    auto out = s.run({{"x", Tensor::scalar<float>(3)}}, {"y"});
    QCOMPARE(scalar_of(out[0]), 9.0f);
    // Feeding boom:0 means its failing kernel never runs.
    out = s.run({{"x", Tensor::scalar<float>(3)}, {"boom:0", Tensor::scalar<float>(1)}}, {"z", "boom"});
    QCOMPARE(scalar_of(out[0]), 10.0f);
    QCOMPARE(scalar_of(out[1]), 1.0f);  // a fed tensor can be fetched
    QCOMPARE(g_fail_runs.load(), 0);
  }

  void feeds_must_match_the_placeholder() {
    Session s = make_session(
        "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
        "attr { key: 'shape' value { shape { dim { size: -1 } dim { size: 2 } } } } }" +
        binary("y", "Mul", "x", "x"));
    QCOMPARE(s.run({{"x", Tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6})}}, {"y"})[0].shape(), Shape({3, 2}));
    for (auto [value, phrase] : std::vector<std::pair<Tensor, std::string>>{
             {Tensor::scalar<int32_t>(1), "expects float32, got int32"},
             {Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}), "expects shape [?,2], got [2,3]"}}) {
      try {
        s.run({{"x", value}}, {"y"});
        QFAIL("expected an error");
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(phrase) != std::string::npos, e.what());
      }
    }
  }

  void unfed_placeholder_names_itself() {
    Session s = make_session("node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }" +
                             binary("y", "Mul", "x", "x"));
    try {
      s.run({}, {"y"});
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("must feed a value for placeholder tensor 'x'") != std::string::npos, e.what());
    }
  }

  void refuses_up_front_naming_every_unrunnable_node() {
    g_fail_runs = 0;
    Session s = make_session(scalar_const("a", 1) + "node { name: 'mystery1' op: 'FancyOp' input: 'a' }" +
                             "node { name: 'mystery2' op: 'OtherOp' input: 'a' }" +
                             "node { name: 'gpu' op: 'TestGpuOnly' }" +
                             "node { name: 'f' op: 'TestFail' input: '^mystery1' input: '^mystery2' input: '^gpu' }");
    OrderObserver obs;
    s.add_observer(&obs);
    try {
      s.run({}, {}, {"f"});
      QFAIL("expected an error");
    } catch (const Error& e) {
      std::string m = e.what();
      QVERIFY2(m.find("'mystery1' (FancyOp): unknown op") != std::string::npos, e.what());
      QVERIFY2(m.find("'mystery2' (OtherOp): unknown op") != std::string::npos, e.what());
      QVERIFY2(m.find("'gpu' (TestGpuOnly)") != std::string::npos, e.what());
    }
    QCOMPARE(obs.start.size(), size_t(0));  // nothing ran
    QCOMPARE(g_fail_runs.load(), 0);
  }

  void kernel_errors_name_the_node() {
    Session s = make_session("node { name: 'boom' op: 'TestFail' }");
    try {
      s.run({}, {}, {"boom"});
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("node 'boom' (TestFail) on /cpu:0: this kernel always fails") !=
                   std::string::npos, e.what());
    }
  }

  void bad_fetch_names() {
    Session s = make_session(scalar_const("a", 1) + "node { name: 'n' op: 'NoOp' }");
    for (auto [fetch, phrase] : std::vector<std::pair<std::string, std::string>>{
             {"nope", "no node named 'nope'"}, {"a:3", "has 1 output"}, {"n", "run it as a target"}, {"a:x", "not a tensor name"}}) {
      try {
        s.run({}, {fetch});
        QFAIL(std_text("expected an error for " + fetch));
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(phrase) != std::string::npos, e.what());
      }
    }
  }

  void soft_placement_moves_gpu_nodes_to_cpu() {
    Session s = make_session(scalar_const("a", 2) +
                             "node { name: 'sq' op: 'Mul' input: 'a' input: 'a' device: '/gpu:0' "
                             "attr { key: 'T' value { type: DT_FLOAT } } }");
    QCOMPARE(s.device_of("sq"), std::string("/cpu:0"));
    QCOMPARE(s.placement().soft_placed.size(), size_t(1));
    QVERIFY(s.placement().soft_placed[0].reason.find("no GPU device") != std::string::npos);
    QCOMPARE(scalar_of(s.run({}, {"sq"})[0]), 4.0f);

    SessionOptions strict;
    strict.allow_soft_placement = false;
    strict.registry = &test_registry();
    QVERIFY_THROWS_EXCEPTION(Error, Session(s.graph(), strict));
  }

  void concurrent_runs_share_a_session() {
    Session s = make_session(scalar_const("a", 2) + scalar_const("b", 5) + binary("c", "Mul", "a", "b"));
    std::atomic<int> good{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 200; ++i)
          if (s.run({}, {"c"})[0].data<float>()[0] == 10.0f) ++good;
      });
    for (auto& t : threads) t.join();
    QCOMPARE(good.load(), 800);
  }

  void long_chains_do_not_recurse() {
    std::string g = scalar_const("x0", 1);
    for (int i = 1; i <= 20000; ++i)
      g += "node { name: 'x" + std::to_string(i) + "' op: 'Identity' input: 'x" + std::to_string(i - 1) +
           "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
    Session s = make_session(g);
    QCOMPARE(scalar_of(s.run({}, {"x20000"})[0]), 1.0f);
  }

  void random_ops_draw_fresh_values_each_run() {
    const std::string g =
        "node { name: 'shape' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
        "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 4 } } } }"
        "node { name: 'r' op: 'RandomUniform' input: 'shape' attr { key: 'dtype' value { type: DT_FLOAT } } "
        "attr { key: 'seed' value { i: 7 } } attr { key: 'seed2' value { i: 3 } } }";
    Session a = make_session(g), b = make_session(g);
    Tensor a1 = a.run({}, {"r"})[0], a2 = a.run({}, {"r"})[0];
    QVERIFY(!a1.equals(a2));                   // the op keeps a draw counter per session
    QVERIFY(b.run({}, {"r"})[0].equals(a1));  // a fresh session repeats the sequence
  }

  void samples_print_the_article_result() {
    for (const char* sample : {"matmul_baseline.pbtxt", "matmul_in_graph.pbtxt"}) {
      Session s(load_graph(std::string(FLOWLENS_SAMPLES) + "/" + sample));
      s.run({}, {}, {"init"});
      QCOMPARE(format_tensor(s.run({}, {"output"})[0]), std::string("[[9],[21],[33],[45]]"));
      QVERIFY(!s.placement().soft_placed.empty());  // the MatMuls asked for GPUs
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestExecutor)
#include "test_executor.moc"
