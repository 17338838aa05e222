// Partitions of one step run concurrently, each in its own Session on its own
// thread, and meet in a LocalRendezvous through their _Send/_Recv nodes; the
// fetched results match the unpartitioned graph's.
#include "test_main.h"
#include <QtTest>

#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <span>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "exec/local_rendezvous.h"
#include "exec/observer.h"
#include "exec/session.h"
#include "io/graph_io.h"
#include "loop_graphs.h"
#include "ops/framework/op_registry.h"
#include "transform/partition.h"

using namespace flowlens;

namespace {

const std::string kPs = "/job:ps/replica:0/task:0/device:CPU:0";
const std::string kWorker = "/job:worker/replica:0/task:0/device:CPU:0";

std::string rv_float_const(const std::string& name, float value, const std::string& device,
                           const std::string& control = "") {
  return "node { name: \"" + name + "\" op: \"Const\"" + (control.empty() ? "" : " input: \"^" + control + "\"") +
         " device: \"" + device +
         "\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
         "tensor_shape {} float_val: " +
         std::to_string(value) + " } } } }\n";
}

std::string rv_op(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                  const std::string& device, const std::string& extra = " attr { key: \"T\" value { type: DT_FLOAT } }") {
  std::string s = "node { name: \"" + name + "\" op: \"" + op + "\"";
  for (const std::string& in : inputs) s += " input: \"" + in + "\"";
  return s + " device: \"" + device + "\"" + extra + " }\n";
}

std::string rv_scalar_variable(const std::string& name, const std::string& device) {
  return "node { name: \"" + name + "\" op: \"VariableV2\" device: \"" + device +
         "\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { shape {} } } }\n";
}

struct RvSplit {
  Graph ps, worker;
};

RvSplit rv_split(const std::string& text) {
  PartitionOptions options;
  options.default_device = kWorker;
  PartitionResult r = partition_graph(parse_graph_text(text, "rendezvous_test"), OpRegistry::global(), options);
  RvSplit out;
  bool ps = false, worker = false;
  for (GraphPartition& p : r.partitions) {
    if (p.device == kPs) {
      out.ps = std::move(p.graph);
      ps = true;
    } else if (p.device == kWorker) {
      out.worker = std::move(p.graph);
      worker = true;
    }
  }
  if (!ps || !worker) throw Error("the test graph did not split into a ps and a worker partition");
  return out;
}

std::vector<std::string> rv_sends(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes())
    if (n.op == "_Send") names.push_back(n.name);
  return names;
}

int rv_count(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

// One partition's run: its results or its error.
struct RvOutcome {
  std::vector<Tensor> results;
  std::optional<std::string> error;
};

struct RvRequest {
  FeedList feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;  // the partition's _Send nodes are added
};

RvOutcome rv_run(Session& s, const RvRequest& request, const StepRendezvous& step) {
  RvOutcome out;
  std::vector<std::string> targets = request.targets;
  for (const std::string& send : rv_sends(s.graph())) targets.push_back(send);
  try {
    out.results = s.run(request.feeds, request.fetches, targets, step);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

// Runs both partitions of step `step_id` at once, each on its own thread.
// A step that does not end in 30 s is a hang: the test process stops.
std::pair<RvOutcome, RvOutcome> rv_step(Session& ps, const RvRequest& ps_request, Session& worker,
                                        const RvRequest& worker_request, LocalRendezvous& rendezvous,
                                        int64_t step_id) {
  const StepRendezvous step{&rendezvous, step_id};
  auto ps_done = std::async(std::launch::async, [&] { return rv_run(ps, ps_request, step); });
  auto worker_done = std::async(std::launch::async, [&] { return rv_run(worker, worker_request, step); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  if (ps_done.wait_until(deadline) != std::future_status::ready ||
      worker_done.wait_until(deadline) != std::future_status::ready) {
    std::string waiting;
    for (const std::string& k : rendezvous.pending(step_id)) waiting += " '" + k + "'";
    qFatal("step %lld hangs; receives waiting:%s", static_cast<long long>(step_id), waiting.c_str());
  }
  auto result = std::make_pair(ps_done.get(), worker_done.get());
  rendezvous.forget(step_id);
  return result;
}

// The start and end a node's observers saw, by node name.
class RvTimeline : public ExecutionObserver {
 public:
  void on_node_start(int64_t, const NodeEvent& event) override {
    std::lock_guard lock(mu_);
    started_[event.node.name] = event.start_ns;
  }
  void on_node_end(int64_t, const NodeEvent& event, std::span<const Tensor> outputs) override {
    std::lock_guard lock(mu_);
    ended_[event.node.name] = {event.start_ns, event.end_ns};
    ended_valid_[event.node.name] = !outputs.empty() && outputs[0].valid();
  }
  std::optional<int64_t> started(const std::string& node) {
    std::lock_guard lock(mu_);
    auto it = started_.find(node);
    return it == started_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  std::optional<std::pair<int64_t, int64_t>> ended(const std::string& node) {
    std::lock_guard lock(mu_);
    auto it = ended_.find(node);
    return it == ended_.end() ? std::nullopt : std::optional<std::pair<int64_t, int64_t>>(it->second);
  }
  bool ended_with_value(const std::string& node) {
    std::lock_guard lock(mu_);
    return ended_valid_[node];
  }

 private:
  std::mutex mu_;
  std::map<std::string, int64_t> started_;
  std::map<std::string, std::pair<int64_t, int64_t>> ended_;
  std::map<std::string, bool> ended_valid_;
};

float rv_scalar(const Tensor& t) { return t.values<float>()[0]; }

bool rv_contains(const std::optional<std::string>& text, const std::string& part) {
  return text && text->find(part) != std::string::npos;
}

}  // namespace

class TestRendezvous : public QObject {
  Q_OBJECT

 private slots:
  // ---- LocalRendezvous on its own --------------------------------------------
  void local_rendezvous_send_before_recv() {
    LocalRendezvous r;
    r.send("a;b;t", 1, Tensor::scalar<float>(2.5f));
    std::optional<float> got;
    r.recv_async("a;b;t", 1, [&](Tensor v, std::exception_ptr e) {
      QVERIFY(!e);
      got = rv_scalar(v);
    });
    QCOMPARE(got, std::optional<float>(2.5f));  // called before recv_async returned
    QVERIFY(r.pending(1).empty());
  }

  void local_rendezvous_recv_before_send() {
    LocalRendezvous r;
    std::optional<float> got;
    r.recv_async("a;b;t", 7, [&](Tensor v, std::exception_ptr e) {
      QVERIFY(!e);
      got = rv_scalar(v);
    });
    QVERIFY(!got);
    QCOMPARE(r.pending(7), std::vector<std::string>{"a;b;t"});
    QVERIFY(r.pending(8).empty());
    // Another step's value under the same key is not this step's.
    r.send("a;b;t", 8, Tensor::scalar<float>(1.0f));
    QVERIFY(!got);
    r.send("a;b;t", 7, Tensor::scalar<float>(4.0f));
    QCOMPARE(got, std::optional<float>(4.0f));
    QVERIFY(r.pending(7).empty());
  }

  void local_rendezvous_abort_ends_waits_and_is_remembered() {
    LocalRendezvous r;
    std::string first, later;
    r.recv_async("k", 3, [&](Tensor v, std::exception_ptr e) {
      QVERIFY(!v.valid());
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        first = x.what();
      }
    });
    r.abort(3, "ps died");
    r.abort(3, "second error");  // the first stays
    QCOMPARE(first, std::string("ps died"));
    r.recv_async("other", 3, [&](Tensor, std::exception_ptr e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        later = x.what();
      }
    });
    QCOMPARE(later, std::string("ps died"));
    QVERIFY_THROWS_EXCEPTION(Error, r.send("k", 3, Tensor::scalar<float>(1.0f)));
    // Other steps go on.
    r.send("k", 4, Tensor::scalar<float>(1.0f));
    // forget drops the abort mark: the step id can be used again.
    r.forget(3);
    r.send("k", 3, Tensor::scalar<float>(2.0f));
  }

  void local_rendezvous_refuses_a_second_send() {
    LocalRendezvous r;
    r.send("k", 1, Tensor::scalar<float>(1.0f));
    try {
      r.send("k", 1, Tensor::scalar<float>(2.0f));
      QFAIL("a key was sent twice in one step");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("sent twice") != std::string::npos, e.what());
    }
    // Also once the first value was received.
    r.recv_async("j", 1, [](Tensor, std::exception_ptr) {});
    r.send("j", 1, Tensor::scalar<float>(1.0f));
    QVERIFY_THROWS_EXCEPTION(Error, r.send("j", 1, Tensor::scalar<float>(1.0f)));
  }

  void local_rendezvous_forget_drops_unreceived_values() {
    LocalRendezvous r;
    r.send("k", 5, Tensor::scalar<float>(1.0f));
    r.forget(5);
    bool called = false;
    r.recv_async("k", 5, [&](Tensor, std::exception_ptr) { called = true; });
    QVERIFY(!called);  // the old value is gone: the new recv waits
    QCOMPARE(r.pending(5), std::vector<std::string>{"k"});
    std::string error;
    r.recv_async("q", 6, [&](Tensor, std::exception_ptr e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        error = x.what();
      }
    });
    r.forget(6);  // a DoneFn is always called
    QVERIFY2(error.find("forgotten") != std::string::npos, error.c_str());
    r.forget(5);
    QVERIFY(called);
  }

  // ---- partitions run through Sessions --------------------------------------
  void round_trip_worker_ps_worker() {
    // x on the worker -> y = x * 3 on the ps -> z = y + 1 back on the worker.
    const std::string text = rv_float_const("x", 2, kWorker) + rv_float_const("three", 3, kPs) +
                             rv_op("y", "Mul", {"x", "three"}, kPs) + rv_float_const("one", 1, kWorker) +
                             rv_op("z", "Add", {"y", "one"}, kWorker);
    Session whole(parse_graph_text(text, "whole"));
    const float expected = rv_scalar(whole.run({}, {"z"})[0]);
    QCOMPARE(expected, 7.0f);

    RvSplit split = rv_split(text);
    QCOMPARE(rv_count(split.ps, "_Recv"), 1);
    QCOMPARE(rv_count(split.worker, "_Recv"), 1);
    Session ps(split.ps), worker(split.worker);
    LocalRendezvous rendezvous;
    for (int64_t step = 1; step <= 3; ++step) {  // plans are reused; each step meets afresh
      auto [p, w] = rv_step(ps, {}, worker, {{}, {"z"}, {}}, rendezvous, step);
      QVERIFY2(!p.error, p.error ? p.error->c_str() : "");
      QVERIFY2(!w.error, w.error ? w.error->c_str() : "");
      QCOMPARE(rv_scalar(w.results[0]), expected);
    }
  }

  void control_edges_cross_tasks_both_ways() {
    // The ps's assign waits for the worker's gate; the worker's "after" waits
    // for the ps's assign.
    const std::string text =
        rv_scalar_variable("v", kPs) + rv_op("gate", "NoOp", {}, kWorker, "") + rv_float_const("value", 42, kPs) +
        rv_op("assign", "Assign", {"v", "value", "^gate"}, kPs) + rv_float_const("after", 1, kWorker, "assign");
    RvSplit split = rv_split(text);
    Session ps(split.ps), worker(split.worker);
    LocalRendezvous rendezvous;
    auto [p, w] = rv_step(ps, {{}, {}, {"assign"}}, worker, {{}, {"after"}, {}}, rendezvous, 11);
    QVERIFY2(!p.error, p.error ? p.error->c_str() : "");
    QVERIFY2(!w.error, w.error ? w.error->c_str() : "");
    QCOMPARE(rv_scalar(w.results[0]), 1.0f);
    Variable* v = ps.find_variable("v");
    QVERIFY(v && v->value.valid());
    QCOMPARE(rv_scalar(v->value), 42.0f);
  }

  void ps_variable_updated_by_the_worker_is_read_back_in_the_step() {
    // v (10) on the ps; the worker's delta goes to the ps's AssignAdd; the
    // read after the update comes back to the worker, doubled there.
    const std::string text =
        rv_scalar_variable("v", kPs) + rv_float_const("v/init_value", 10, kPs) +
        rv_op("v/Assign", "Assign", {"v", "v/init_value"}, kPs) + rv_float_const("delta", 5, kWorker) +
        rv_op("update", "AssignAdd", {"v", "delta"}, kPs) + rv_op("read", "Identity", {"v", "^update"}, kPs) +
        rv_float_const("two", 2, kWorker) + rv_op("out", "Mul", {"read", "two"}, kWorker);
    Session whole(parse_graph_text(text, "whole"));
    whole.run({}, {}, {"v/Assign"});
    const float expected_first = rv_scalar(whole.run({}, {"out"})[0]);
    const float expected_second = rv_scalar(whole.run({}, {"out"})[0]);
    QCOMPARE(expected_first, 30.0f);
    QCOMPARE(expected_second, 40.0f);

    RvSplit split = rv_split(text);
    Session ps(split.ps), worker(split.worker);
    ps.run({}, {}, {"v/Assign"});  // a normal run: no rendezvous, no transfer in its plan
    LocalRendezvous rendezvous;
    auto [p1, w1] = rv_step(ps, {}, worker, {{}, {"out"}, {}}, rendezvous, 100);
    QVERIFY2(!p1.error && !w1.error, (p1.error ? *p1.error : w1.error ? *w1.error : "").c_str());
    QCOMPARE(rv_scalar(w1.results[0]), expected_first);
    auto [p2, w2] = rv_step(ps, {}, worker, {{}, {"out"}, {}}, rendezvous, 101);
    QVERIFY2(!p2.error && !w2.error, (p2.error ? *p2.error : w2.error ? *w2.error : "").c_str());
    QCOMPARE(rv_scalar(w2.results[0]), expected_second);
    QCOMPARE(rv_scalar(ps.find_variable("v")->value), 20.0f);
  }

  void more_receives_than_threads_do_not_deadlock() {
    // One inter-op thread per partition. The ps waits on twelve _Recvs (the
    // worker's x_i) queued before the one its own _Send needs (the worker's
    // seed: base = seed * 0.75 goes back to make every x_i). A _Recv that
    // held the ps's only thread would deadlock the step. "total" comes first
    // so that partitioning makes its _Recvs first.
    std::string addn = "node { name: \"total\" op: \"AddN\"";
    std::string rest = rv_float_const("seed", 2, kWorker) + rv_float_const("scale", 0.75f, kPs) +
                       rv_op("base", "Mul", {"seed", "scale"}, kPs);
    float expected = 0;
    for (int i = 0; i < 12; ++i) {
      const std::string c = "c" + std::to_string(i), x = "x" + std::to_string(i);
      rest += rv_float_const(c, static_cast<float>(i + 1), kWorker) + rv_op(x, "Mul", {"base", c}, kWorker);
      addn += " input: \"" + x + "\"";
      expected += 1.5f * static_cast<float>(i + 1);
    }
    addn += " device: \"" + kPs + "\" attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"N\" value { i: 12 } } }\n";
    const std::string text = addn + rest + rv_op("out", "Identity", {"total"}, kWorker);
    Session whole(parse_graph_text(text, "whole"));
    QCOMPARE(rv_scalar(whole.run({}, {"out"})[0]), expected);

    RvSplit split = rv_split(text);
    QCOMPARE(rv_count(split.ps, "_Recv"), 13);
    // The seed's _Recv is the ps's last: a blocking one would never reach it.
    const Node* last_recv = nullptr;
    for (const Node& n : split.ps.nodes())
      if (n.op == "_Recv") last_recv = &n;
    QVERIFY(last_recv && last_recv->attr_string("tensor_name", "").find("seed") != std::string::npos);
    SessionOptions one_thread;
    one_thread.inter_op_threads = 1;
    one_thread.intra_op_threads = 1;
    Session ps(split.ps, one_thread), worker(split.worker, one_thread);
    LocalRendezvous rendezvous;
    for (int64_t step = 1; step <= 5; ++step) {
      auto [p, w] = rv_step(ps, {}, worker, {{}, {"out"}, {}}, rendezvous, step);
      QVERIFY2(!p.error && !w.error, (p.error ? *p.error : w.error ? *w.error : "").c_str());
      QCOMPARE(rv_scalar(w.results[0]), expected);
    }
  }

  void a_failing_partition_aborts_the_step() {
    // x is fed on the worker, checked on the ps; the worker waits for y.
    const std::string text =
        "node { name: \"x\" op: \"Placeholder\" device: \"" + kWorker +
        "\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { shape {} } } }\n" +
        rv_op("check", "CheckNumerics", {"x"}, kPs,
              " attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"message\" value { s: \"x is bad\" } }") +
        rv_float_const("two", 2, kPs) + rv_op("y", "Mul", {"check", "two"}, kPs) +
        rv_op("out", "Identity", {"y"}, kWorker);
    RvSplit split = rv_split(text);
    Session ps(split.ps), worker(split.worker);
    LocalRendezvous rendezvous;
    {
      // A NaN: the ps's CheckNumerics fails; the worker's _Recv of y ends with it.
      const RvRequest w_request{{{"x", Tensor::scalar<float>(std::numeric_limits<float>::quiet_NaN())}}, {"out"}, {}};
      auto [p, w] = rv_step(ps, {}, worker, w_request, rendezvous, 1);
      QVERIFY2(rv_contains(p.error, "x is bad"), p.error ? p.error->c_str() : "the ps partition succeeded");
      QVERIFY2(rv_contains(w.error, "(_Recv): ") && rv_contains(w.error, "x is bad"),
               w.error ? w.error->c_str() : "the worker partition succeeded");
    }
    {
      // A bad feed: the worker fails before it runs; the ps's _Recv of x ends.
      const RvRequest w_request{{{"x", Tensor::scalar<int32_t>(1)}}, {"out"}, {}};
      auto [p, w] = rv_step(ps, {}, worker, w_request, rendezvous, 2);
      QVERIFY2(rv_contains(w.error, "placeholder expects float"), w.error ? w.error->c_str() : "no worker error");
      QVERIFY2(rv_contains(p.error, "(_Recv): ") && rv_contains(p.error, "placeholder expects float"),
               p.error ? p.error->c_str() : "the ps partition succeeded");
    }
    {
      // The same partitions run a good step afterwards.
      const RvRequest w_request{{{"x", Tensor::scalar<float>(4.0f)}}, {"out"}, {}};
      auto [p, w] = rv_step(ps, {}, worker, w_request, rendezvous, 3);
      QVERIFY2(!p.error && !w.error, (p.error ? *p.error : w.error ? *w.error : "").c_str());
      QCOMPARE(rv_scalar(w.results[0]), 8.0f);
    }
  }

  void receive_checks_the_dtype_and_needs_a_rendezvous() {
    const std::string text =
        "node { name: \"r\" op: \"_Recv\" device: \"" + kWorker +
        "\" attr { key: \"tensor_type\" value { type: DT_FLOAT } } attr { key: \"tensor_name\" value { s: \"t\" } }"
        " attr { key: \"send_device\" value { s: \"a\" } } attr { key: \"recv_device\" value { s: \"b\" } }"
        " attr { key: \"send_device_incarnation\" value { i: 1 } } }\n" +
        rv_op("out", "Identity", {"r"}, kWorker);
    Session s(parse_graph_text(text, "recv"));
    try {
      s.run({}, {"out"});
      QFAIL("a _Recv ran without a rendezvous");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("node 'r' (_Recv): runs only as part of a distributed step") !=
                   std::string::npos,
               e.what());
    }
    LocalRendezvous rendezvous;
    rendezvous.send("a;b;t", 9, Tensor::scalar<int32_t>(3));
    try {
      s.run({}, {"out"}, {}, StepRendezvous{&rendezvous, 9});
      QFAIL("a _Recv took an int32 for a float");
    } catch (const Error& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("node 'r' (_Recv)") != std::string::npos && m.find("int32") != std::string::npos &&
                   m.find("float") != std::string::npos,
               e.what());
    }
    rendezvous.send("a;b;t", 10, Tensor::scalar<float>(3.5f));
    QCOMPARE(rv_scalar(s.run({}, {"out"}, {}, StepRendezvous{&rendezvous, 10})[0]), 3.5f);

    // Observers see the wait: the _Recv starts when it asks and ends when
    // the value, sent 100 ms later from another thread, came.
    RvTimeline timeline;
    s.add_observer(&timeline);
    std::thread sender([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      rendezvous.send("a;b;t", 11, Tensor::scalar<float>(5.0f));
    });
    const auto asked = std::chrono::steady_clock::now();
    QCOMPARE(rv_scalar(s.run({}, {"out"}, {}, StepRendezvous{&rendezvous, 11})[0]), 5.0f);
    sender.join();
    s.remove_observer(&timeline);
    QVERIFY(std::chrono::steady_clock::now() - asked >= std::chrono::milliseconds(100));
    QVERIFY(timeline.started("r"));
    const auto span = timeline.ended("r");
    QVERIFY(span);
    QCOMPARE(span->first, *timeline.started("r"));
    QVERIFY2(span->second - span->first >= 90'000'000, std::to_string(span->second - span->first).c_str());
    QVERIFY(timeline.ended_with_value("r"));
    const auto out = timeline.ended("out");
    QVERIFY(out && out->first >= span->second);
  }

  void send_needs_a_rendezvous() {
    const std::string text =
        rv_float_const("x", 1, kWorker) +
        rv_op("s", "_Send", {"x"}, kWorker,
              " attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"tensor_name\" value { s: \"t\" } }"
              " attr { key: \"send_device\" value { s: \"a\" } } attr { key: \"recv_device\" value { s: \"b\" } }"
              " attr { key: \"send_device_incarnation\" value { i: 1 } }");
    Session s(parse_graph_text(text, "send"));
    try {
      s.run({}, {}, {"s"});
      QFAIL("a _Send ran without a rendezvous");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("'s' runs only as part of a distributed step") != std::string::npos, e.what());
    }
    LocalRendezvous rendezvous;
    s.run({}, {}, {"s"}, StepRendezvous{&rendezvous, 4});
    std::optional<float> got;
    rendezvous.recv_async("a;b;t", 4, [&](Tensor v, std::exception_ptr) { got = rv_scalar(v); });
    QCOMPARE(got, std::optional<float>(1.0f));
  }

  void a_loop_partition_receives_through_the_frame_executor() {
    // The loop's start comes from the ps: i = start; while i < 10: i += 1.
    std::string loop = test::kWhileLoop;
    const std::string enter_input = "input: \"Const\"";
    loop.replace(loop.find(enter_input), enter_input.size(), "input: \"start\"");
    const std::string text = "node { name: \"start\" op: \"Placeholder\" device: \"" + kPs +
                             "\" attr { key: \"dtype\" value { type: DT_INT32 } } }\n" + loop;
    RvSplit split = rv_split(text);
    QCOMPARE(rv_count(split.worker, "_Recv"), 1);
    Session ps(split.ps), worker(split.worker);
    LocalRendezvous rendezvous;
    auto [p1, w1] = rv_step(ps, {{{"start", Tensor::scalar<int32_t>(3)}}, {}, {}}, worker, {{}, {"result"}, {}},
                            rendezvous, 1);
    QVERIFY2(!p1.error && !w1.error, (p1.error ? *p1.error : w1.error ? *w1.error : "").c_str());
    QCOMPARE(w1.results[0].values<int32_t>()[0], 10);
    auto [p2, w2] = rv_step(ps, {{{"start", Tensor::scalar<int32_t>(12)}}, {}, {}}, worker, {{}, {"result"}, {}},
                            rendezvous, 2);
    QVERIFY2(!p2.error && !w2.error, (p2.error ? *p2.error : w2.error ? *w2.error : "").c_str());
    QCOMPARE(w2.results[0].values<int32_t>()[0], 12);
    // The ps failing ends the loop partition's wait.
    auto [p3, w3] = rv_step(ps, {{{"start", Tensor::scalar<float>(1.0f)}}, {}, {}}, worker, {{}, {"result"}, {}},
                            rendezvous, 3);
    QVERIFY(p3.error);
    QVERIFY2(rv_contains(w3.error, "(_Recv): "), w3.error ? w3.error->c_str() : "the loop partition succeeded");
  }

  void a_transfer_inside_a_loop_is_refused_at_plan_time() {
    // A _Recv pinned into the loop by a control edge, as add/y is.
    std::string loop = test::kWhileLoop;
    const std::string add_y = "node { name: \"while/add/y\" op: \"Const\" input: \"^while/Identity\" attr { key: "
                              "\"dtype\" value { type: DT_INT32 } }";
    const auto at = loop.find(add_y);
    QVERIFY(at != std::string::npos);
    const auto end = loop.find("}\n", loop.find("int_val: 1", at)) + 2;
    loop.replace(at, end - at,
                 "node { name: \"while/add/y\" op: \"_Recv\" input: \"^while/Identity\""
                 " attr { key: \"tensor_type\" value { type: DT_INT32 } } attr { key: \"tensor_name\" value { s: "
                 "\"t\" } } attr { key: \"send_device\" value { s: \"a\" } } attr { key: \"recv_device\" value { s: "
                 "\"b\" } } attr { key: \"send_device_incarnation\" value { i: 1 } } }\n");
    Session s(parse_graph_text(loop, "loop"));
    LocalRendezvous rendezvous;
    try {
      s.run({}, {"result"}, {}, StepRendezvous{&rendezvous, 1});
      QFAIL("a _Recv inside a loop frame ran");
    } catch (const Error& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("'while/add/y' (_Recv)") != std::string::npos &&
                   m.find("inside the while loop frame 'while/while_context'") != std::string::npos,
               e.what());
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestRendezvous)
#include "test_rendezvous.moc"
