// TensorFlow's gradient accumulators in sessions (conditional_accumulator*.h,
// data_flow_ops.cc): mean and sum of applied gradients, stale gradients
// dropped before any check, TensorFlow's shape and signature messages, a take
// that waits until enough gradients arrived (and gives up on cancellation and
// on the session's blocking timeout), NumAccumulated, SetGlobalStep (a
// smaller step set with a warning), the sparse accumulator's per-index mean
// and TensorFlow's merge order, the Ref(string) and resource variants, and the
// graph tf.train.SyncReplicasOptimizer builds for one variable, run as two
// replicas and a chief.
#include "test_main.h"
#include <QtTest>

#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "analysis/infer_shapes.h"
#include "exec/session.h"
#include "io/graph_io.h"
#include "op_test_util.h"
#include "ops/framework/op_registry.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

std::string acc_node(const std::string& name, const std::string& op, const std::string& shape_dims,
                     const std::string& shared_name = "", const std::string& reduction = "MEAN",
                     const std::string& dtype = "DT_FLOAT") {
  return "node { name: '" + name + "' op: '" + op + "' attr { key: 'dtype' value { type: " + dtype +
         " } } attr { key: 'shape' value { shape { " + shape_dims + " } } } attr { key: 'shared_name' value { s: '" +
         shared_name + "' } } attr { key: 'reduction_type' value { s: '" + reduction + "' } } }\n";
}

std::string placeholder(const std::string& name, const std::string& type) {
  return "node { name: '" + name + "' op: 'Placeholder' attr { key: 'dtype' value { type: " + type + " } } }\n";
}

std::string node(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                 const std::string& attrs = "") {
  std::string s = "node { name: '" + name + "' op: '" + op + "'";
  for (const auto& i : inputs) s += " input: '" + i + "'";
  return s + " " + attrs + "}\n";
}

std::string type_attr(const std::string& key, const std::string& type) {
  return "attr { key: '" + key + "' value { type: " + type + " } } ";
}

// Ops of the Ref(string) family or the resource family.
struct Family {
  std::string make, apply, take, num, set_step;
};
Family ref_family() {
  return {"ConditionalAccumulator", "AccumulatorApplyGradient", "AccumulatorTakeGradient", "AccumulatorNumAccumulated",
          "AccumulatorSetGlobalStep"};
}
Family resource_family() {
  return {"ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient", "ResourceAccumulatorTakeGradient",
          "ResourceAccumulatorNumAccumulated", "ResourceAccumulatorSetGlobalStep"};
}
Family family(bool resource) { return resource ? resource_family() : ref_family(); }

// An accumulator 'acc' with feeds 'step' (int64), 'g' (float), 'n' (int32),
// 'new_step' (int64) and ops 'apply', 'take', 'num', 'set_step'.
std::string dense_graph(const Family& f, const std::string& shape_dims, const std::string& reduction = "MEAN") {
  return acc_node("acc", f.make, shape_dims, "", reduction) + placeholder("step", "DT_INT64") +
         placeholder("g", "DT_FLOAT") + placeholder("n", "DT_INT32") + placeholder("new_step", "DT_INT64") +
         node("apply", f.apply, {"acc", "step", "g"}, type_attr("dtype", "DT_FLOAT")) +
         node("take", f.take, {"acc", "n"}, type_attr("dtype", "DT_FLOAT")) + node("num", f.num, {"acc"}) +
         node("set_step", f.set_step, {"acc", "new_step"});
}

Session make_session(const std::string& text, double timeout_s = 10, LogSink sink = {}) {
  SessionOptions o;
  o.inter_op_threads = 2;
  o.use_gpus = false;
  o.blocking_op_timeout_s = timeout_s;
  o.log_sink = std::move(sink);
  return Session(parse_graph_text(text, "accumulators.pbtxt"), o);
}

Tensor step(int64_t s) { return Tensor::scalar<int64_t>(s); }
Tensor vec(std::vector<float> v) { return Tensor::from_vector<float>(Shape{static_cast<int64_t>(v.size())}, v); }
std::vector<float> floats(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.num_elements()}; }
std::vector<int64_t> int64s(const Tensor& t) { return {t.data<int64_t>(), t.data<int64_t>() + t.num_elements()}; }

void apply(Session& s, int64_t local_step, const Tensor& g) { s.run({{"step", step(local_step)}, {"g", g}}, {}, {"apply"}); }
Tensor take(Session& s, int n) { return s.run({{"n", Tensor::scalar<int32_t>(n)}}, {"take"})[0]; }
int num(Session& s) { return s.run({}, {"num"})[0].data<int32_t>()[0]; }

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

#define EXPECT_PHRASE(expr, phrase)                                                                        \
  do {                                                                                                     \
    const std::string msg_ = error_text([&] { expr; });                                                    \
    QVERIFY2(msg_.find(phrase) != std::string::npos, qPrintable(QString::fromStdString(msg_)));            \
  } while (0)

}  // namespace

class TestOpsAccumulators : public QObject {
  Q_OBJECT

  void families() {
    QTest::addColumn<bool>("resource");
    QTest::newRow("ref handle") << false;
    QTest::newRow("resource handle") << true;
  }

 private slots:
  void op_definitions_are_tensorflows() {
    const OpDef& acc = op_def("ConditionalAccumulator");
    QVERIFY(acc.is_ref_output(0));
    QVERIFY(acc.stateful);
    const AttrDef* reduction = acc.find_attr("reduction_type");
    QVERIFY(reduction && reduction->default_value);
    QCOMPARE(reduction->default_value->to_string(), std::string("\"MEAN\""));
    QVERIFY(op_def("AccumulatorApplyGradient").is_ref_input(0));
    QVERIFY(!op_def("ResourceAccumulatorApplyGradient").is_ref_input(0));
    QVERIFY(op_def("SparseConditionalAccumulator").is_ref_output(0));
    QVERIFY(op_def("SparseAccumulatorApplyGradient").find_attr("has_known_shape"));
    QVERIFY(!op_def("SparseAccumulatorApplyGradient").find_attr("has_known_shape")->default_value);
    QCOMPARE(op_def("SparseAccumulatorTakeGradient").outputs.size(), size_t(3));
  }

  void the_ref_handle_is_the_container_and_name() {
    Session s = make_session(acc_node("acc", "ConditionalAccumulator", "dim { size: 2 }") +
                             acc_node("shared", "ConditionalAccumulator", "dim { size: 2 }", "w:0/grad_accum"));
    const Tensor h = s.run({}, {"acc"})[0];
    QCOMPARE(h.dtype(), DType::String);
    QCOMPARE(h.shape(), Shape{2});
    QCOMPARE(h.strings()[0], std::string("localhost"));
    QCOMPARE(h.strings()[1], std::string("_acc"));  // private to the node
    QCOMPARE(s.run({}, {"shared"})[0].strings()[1], std::string("w:0/grad_accum"));
    QVERIFY(s.resources().lookup("localhost", "w:0/grad_accum"));
  }

  void mean_and_sum_data() { families(); }
  void mean_and_sum() {
    QFETCH(bool, resource);
    for (const char* reduction : {"MEAN", "SUM"}) {
      Session s = make_session(dense_graph(family(resource), "dim { size: 2 }", reduction));
      QCOMPARE(num(s), 0);
      apply(s, 0, vec({1, 2}));
      QCOMPARE(num(s), 1);
      apply(s, 0, vec({3, 6}));
      apply(s, 0, vec({2, 1}));
      QCOMPARE(num(s), 3);
      const std::vector<float> want =
          std::string(reduction) == "MEAN" ? std::vector<float>{2, 3} : std::vector<float>{6, 9};
      QCOMPARE(floats(take(s, 3)), want);
      QCOMPARE(num(s), 0);  // reset
      // The next sum starts afresh.
      apply(s, 1, vec({5, 7}));
      QCOMPARE(floats(take(s, 1)), (std::vector<float>{5, 7}));
    }
  }

  void take_may_find_more_than_required_data() { families(); }
  void take_may_find_more_than_required() {
    QFETCH(bool, resource);
    Session s = make_session(dense_graph(family(resource), "dim { size: 1 }"));
    apply(s, 0, vec({1}));
    apply(s, 0, vec({2}));
    apply(s, 0, vec({6}));
    QCOMPARE(floats(take(s, 2)), (std::vector<float>{3}));  // all three, averaged
  }

  void stale_gradients_are_dropped_data() { families(); }
  void stale_gradients_are_dropped() {
    QFETCH(bool, resource);
    Session s = make_session(dense_graph(family(resource), "dim { size: 2 }"));
    apply(s, 0, vec({1, 1}));
    QCOMPARE(floats(take(s, 1)), (std::vector<float>{1, 1}));  // the global step is now 1
    apply(s, 0, vec({100, 100}));                              // stale: dropped silently
    QCOMPARE(num(s), 0);
    apply(s, 0, vec({1, 2, 3}));  // stale, so not even its shape is checked
    QCOMPARE(num(s), 0);
    apply(s, 1, vec({4, 4}));
    apply(s, 7, vec({2, 0}));  // a later step counts
    QCOMPARE(num(s), 2);
    QCOMPARE(floats(take(s, 2)), (std::vector<float>{3, 2}));
    apply(s, 1, vec({9, 9}));  // the global step is 2 now
    QCOMPARE(num(s), 0);
  }

  void set_global_step_data() { families(); }
  void set_global_step() {
    QFETCH(bool, resource);
    std::mutex mu;
    std::string warnings;
    Session s = make_session(dense_graph(family(resource), "dim { size: 1 }"), 10,
                             [&](LogStream stream, std::string_view text) {
                               std::lock_guard lock(mu);
                               if (stream == LogStream::Warning) warnings += text;
                             });
    s.run({{"new_step", step(5)}}, {}, {"set_step"});
    apply(s, 4, vec({1}));
    QCOMPARE(num(s), 0);  // 4 < 5
    QVERIFY(warnings.empty());
    // Smaller: TensorFlow logs a warning and sets it anyway.
    s.run({{"new_step", step(2)}}, {}, {"set_step"});
    QVERIFY2(warnings.find("Attempt to set current_global_step_ to smaller value: current_global_step_ = 5 >= 2 = "
                           "new_global_step.") != std::string::npos,
             warnings.c_str());
    apply(s, 2, vec({1}));
    QCOMPARE(num(s), 1);
    take(s, 1);  // step 3
    apply(s, 2, vec({1}));
    QCOMPARE(num(s), 0);
  }

  void shape_and_dtype_checks_data() { families(); }
  void shape_and_dtype_checks() {
    QFETCH(bool, resource);
    const Family f = family(resource);
    Session s = make_session(dense_graph(f, "dim { size: 2 } dim { size: -1 }") +
                             placeholder("gd", "DT_DOUBLE") +
                             node("apply_double", f.apply, {"acc", "step", "gd"}, type_attr("dtype", "DT_DOUBLE")) +
                             node("take_double", f.take, {"acc", "n"}, type_attr("dtype", "DT_DOUBLE")));
    EXPECT_PHRASE(apply(s, 0, vec({1, 2})), "Shape mismatch: expected [2,?], got [2]");
    apply(s, 0, Tensor::from_vector<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6}));
    EXPECT_PHRASE(apply(s, 0, Tensor::from_vector<float>(Shape{2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})),
                  "Shape mismatch: expected [2,3], got [2,4]");
    EXPECT_PHRASE(apply(s, 0, Tensor::from_vector<float>(Shape{3, 3}, std::vector<float>(9, 1))),
                  "Shape mismatch: expected [2,3], got [3,3]");
    QCOMPARE(num(s), 1);
    const std::string have = resource ? "resource" : "string_ref";
    EXPECT_PHRASE(s.run({{"step", step(0)}, {"gd", Tensor::from_vector<double>(Shape{2, 3}, std::vector<double>(6, 1))}},
                        {}, {"apply_double"}),
                  "Signature mismatch, have: " + have + ", int64, double-> expected: " + have + ", int64, float->");
    EXPECT_PHRASE(s.run({{"n", Tensor::scalar<int32_t>(1)}}, {"take_double"}),
                  "Signature mismatch, have: " + have + ", int32->double expected: " + have + ", int32->float");
    EXPECT_PHRASE(take(s, 0), "Argument num_required must be positive, but was 0");
    EXPECT_PHRASE(take(s, -3), "Argument num_required must be positive, but was -3");
    EXPECT_PHRASE(s.run({{"step", Tensor::from_vector<int64_t>(Shape{1}, {0})},
                         {"g", Tensor::from_vector<float>(Shape{2, 3}, std::vector<float>(6, 1))}},
                        {}, {"apply"}),
                  "Argument local_step must be scalar, but had bad shape [1]");
    QCOMPARE(num(s), 1);
  }

  void unsupported_dtype_has_no_kernel() {
    EXPECT_PHRASE(make_session(acc_node("acc", "ConditionalAccumulator", "dim { size: 2 }", "", "MEAN", "DT_INT32"))
                      .run({}, {"acc"}),
                  "acc");
  }

  void take_waits_until_enough_gradients_data() { families(); }
  void take_waits_until_enough_gradients() {
    QFETCH(bool, resource);
    Session s = make_session(dense_graph(family(resource), "dim { size: 2 }"));
    auto taker = std::async(std::launch::async, [&] { return floats(take(s, 2)); });
    QCOMPARE(taker.wait_for(std::chrono::milliseconds(150)), std::future_status::timeout);
    apply(s, 0, vec({1, 3}));
    QCOMPARE(taker.wait_for(std::chrono::milliseconds(150)), std::future_status::timeout);
    apply(s, 0, vec({3, 5}));
    QCOMPARE(taker.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    QCOMPARE(taker.get(), (std::vector<float>{2, 4}));
    QCOMPARE(num(s), 0);
  }

  void takes_are_served_in_arrival_order() {
    Session s = make_session(dense_graph(resource_family(), "dim { size: 1 }"));
    auto first = std::async(std::launch::async, [&] { return floats(take(s, 2)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto second = std::async(std::launch::async, [&] { return floats(take(s, 1)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    apply(s, 0, vec({2}));
    // The second take would be satisfied, but the first is ahead of it.
    QCOMPARE(second.wait_for(std::chrono::milliseconds(150)), std::future_status::timeout);
    apply(s, 0, vec({4}));
    QCOMPARE(first.get(), (std::vector<float>{3}));
    apply(s, 1, vec({8}));  // the first take moved the global step to 1
    QCOMPARE(second.get(), (std::vector<float>{8}));
  }

  void take_times_out_data() { families(); }
  void take_times_out() {
    QFETCH(bool, resource);
    Session s = make_session(dense_graph(family(resource), "dim { size: 2 }"), 0.3);
    apply(s, 0, vec({1, 1}));
    take(s, 1);
    apply(s, 0, vec({1, 1}));  // stale
    const auto start = std::chrono::steady_clock::now();
    const std::string m = error_text([&] {
      try {
        take(s, 2);
      } catch (const DeadlineExceededError& e) {
        throw Error(std::string("deadline: ") + e.what());
      }
    });
    QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    QVERIFY2(m.find("deadline: ") != std::string::npos, m.c_str());
    QVERIFY2(m.find("waited 0.3 s for 2 gradient(s) on ConditionalAccumulator '_acc' (0 gradient(s) accumulated, "
                    "global step 1)") != std::string::npos,
             m.c_str());
    QVERIFY2(m.find("1 stale gradient(s) were dropped") != std::string::npos, m.c_str());
    // The timed-out take left its place: a later take is served.
    apply(s, 1, vec({2, 2}));
    QCOMPARE(floats(take(s, 1)), (std::vector<float>{2, 2}));
  }

  void a_failing_run_cancels_its_waiting_take() {
    const std::string g = dense_graph(ref_family(), "dim { size: 2 }") +
                          "node { name: 'v' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
                          "'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 1 "
                          "float_val: 2 float_val: 3 } } } }\n"
                          "node { name: 'shape' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: "
                          "'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }\n"
                          "node { name: 'bad' op: 'Reshape' input: 'v' input: 'shape' attr { key: 'T' value { type: "
                          "DT_FLOAT } } }\n";
    Session s = make_session(g, 60);
    const auto start = std::chrono::steady_clock::now();
    QVERIFY_THROWS_EXCEPTION(Error, s.run({{"n", Tensor::scalar<int32_t>(1)}}, {"take", "bad"}));
    QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    // Nothing was taken: the accumulator still takes the next gradient at step 0.
    apply(s, 0, vec({1, 2}));
    QCOMPARE(floats(take(s, 1)), (std::vector<float>{1, 2}));
  }

  void shared_name_shares_one_accumulator() {
    const Family f = resource_family();
    Session s = make_session(acc_node("a", f.make, "dim { size: 1 }", "shared") +
                             acc_node("b", "ConditionalAccumulator", "dim { size: 1 }", "shared") +
                             placeholder("step", "DT_INT64") + placeholder("g", "DT_FLOAT") +
                             node("apply_a", f.apply, {"a", "step", "g"}, type_attr("dtype", "DT_FLOAT")) +
                             node("apply_b", "AccumulatorApplyGradient", {"b", "step", "g"},
                                  type_attr("dtype", "DT_FLOAT")) +
                             node("num_a", f.num, {"a"}));
    s.run({{"step", step(0)}, {"g", vec({1})}}, {}, {"apply_a"});
    s.run({{"step", step(0)}, {"g", vec({1})}}, {}, {"apply_b"});
    QCOMPARE(s.run({}, {"num_a"})[0].data<int32_t>()[0], 2);
  }

  void take_shape_comes_from_the_resource_handle() {
    const Graph g = parse_graph_text(dense_graph(resource_family(), "dim { size: 2 } dim { size: -1 }"), "acc.pbtxt");
    const ShapeInferenceResult r = infer_shapes(g, OpRegistry::global());
    QVERIFY(r.errors.empty());
    const auto& take = r.outputs[static_cast<size_t>(g.index_of("take"))][0];
    QCOMPARE(take.dtype, DType::Float);
    QCOMPARE(take.shape, (Shape{2, -1}));
    // The Ref(string) handle is a [container, name] pair, as in TensorFlow.
    const Graph ref = parse_graph_text(dense_graph(ref_family(), "dim { size: 2 }"), "acc.pbtxt");
    const ShapeInferenceResult rr = infer_shapes(ref, OpRegistry::global());
    QVERIFY(rr.errors.empty());
    QCOMPARE(rr.outputs[static_cast<size_t>(ref.index_of("acc"))][0].shape, Shape{2});
    QVERIFY(!rr.outputs[static_cast<size_t>(ref.index_of("take"))][0].shape.rank_known());
  }

  // ---- sparse --------------------------------------------------------------------

  void sparse_mean_is_per_index() {
    for (const char* reduction : {"MEAN", "SUM"}) {
      for (bool known : {true, false}) {
        const std::string dims = known ? "dim { size: 4 } dim { size: 2 }" : "dim { size: -1 } dim { size: 2 }";
        Session s = make_session(
            acc_node("acc", "SparseConditionalAccumulator", dims, "", reduction) + placeholder("step", "DT_INT64") +
            placeholder("i", "DT_INT64") + placeholder("v", "DT_FLOAT") + placeholder("sh", "DT_INT64") +
            placeholder("n", "DT_INT32") +
            node("apply", "SparseAccumulatorApplyGradient", {"acc", "step", "i", "v", "sh"},
                 type_attr("dtype", "DT_FLOAT") + "attr { key: 'has_known_shape' value { b: true } } ") +
            node("take", "SparseAccumulatorTakeGradient", {"acc", "n"}, type_attr("dtype", "DT_FLOAT")) +
            node("num", "AccumulatorNumAccumulated", {"acc"}));
        auto sparse_apply = [&](std::vector<int64_t> idx, std::vector<float> vals) {
          const auto n = static_cast<int64_t>(idx.size());
          s.run({{"step", step(0)},
                 {"i", Tensor::from_vector<int64_t>(Shape{n}, idx)},
                 {"v", Tensor::from_vector<float>(Shape{n, 2}, vals)},
                 {"sh", Tensor::from_vector<int64_t>(Shape{2}, {4, 2})}},
                {}, {"apply"});
        };
        sparse_apply({0, 2}, {1, 1, 2, 2});
        sparse_apply({2, 3}, {4, 4, 5, 5});
        QCOMPARE(num(s), 2);
        const auto out = s.run({{"n", Tensor::scalar<int32_t>(2)}}, {"take:0", "take:1", "take:2"});
        QCOMPARE(int64s(out[0]), (std::vector<int64_t>{0, 2, 3}));
        const bool mean = std::string(reduction) == "MEAN";
        // Index 2 had two gradients: its slice is halved under MEAN; 0 and 3 had one each.
        QCOMPARE(floats(out[1]), mean ? (std::vector<float>{1, 1, 3, 3, 5, 5}) : (std::vector<float>{1, 1, 6, 6, 5, 5}));
        QCOMPARE(out[1].shape(), (Shape{3, 2}));
        QCOMPARE(int64s(out[2]), (std::vector<int64_t>{known ? 4 : -1, 2}));
      }
    }
  }

  void sparse_merge_follows_tensorflows_order() {
    // TensorFlow merges as if both index lists were sorted and sorts neither:
    // accumulated [2, 0] and a gradient [0] give [0, 2, 0], each counted once.
    Session s = make_session(
        acc_node("acc", "SparseConditionalAccumulator", "dim { size: -1 } dim { size: 1 }") +
        placeholder("step", "DT_INT64") + placeholder("i", "DT_INT64") + placeholder("v", "DT_FLOAT") +
        placeholder("sh", "DT_INT64") + placeholder("n", "DT_INT32") +
        node("apply", "SparseAccumulatorApplyGradient", {"acc", "step", "i", "v", "sh"},
             type_attr("dtype", "DT_FLOAT") + "attr { key: 'has_known_shape' value { b: false } } ") +
        node("take", "SparseAccumulatorTakeGradient", {"acc", "n"}, type_attr("dtype", "DT_FLOAT")));
    auto sparse_apply = [&](std::vector<int64_t> idx, std::vector<float> vals) {
      const auto n = static_cast<int64_t>(idx.size());
      s.run({{"step", step(0)},
             {"i", Tensor::from_vector<int64_t>(Shape{n}, idx)},
             {"v", Tensor::from_vector<float>(Shape{n, 1}, vals)},
             {"sh", Tensor::from_vector<int64_t>(Shape{0}, {})}},
            {}, {"apply"});
    };
    sparse_apply({2, 0}, {4, 6});
    sparse_apply({0}, {10});
    const auto out = s.run({{"n", Tensor::scalar<int32_t>(2)}}, {"take:0", "take:1"});
    QCOMPARE(int64s(out[0]), (std::vector<int64_t>{0, 2, 0}));
    QCOMPARE(floats(out[1]), (std::vector<float>{10, 4, 6}));
  }

  void sparse_checks() {
    Session s = make_session(
        acc_node("acc", "SparseConditionalAccumulator", "dim { size: 4 } dim { size: 2 }") +
        placeholder("step", "DT_INT64") + placeholder("i", "DT_INT64") + placeholder("v", "DT_FLOAT") +
        placeholder("sh", "DT_INT64") +
        node("apply", "SparseAccumulatorApplyGradient", {"acc", "step", "i", "v", "sh"},
             type_attr("dtype", "DT_FLOAT") + "attr { key: 'has_known_shape' value { b: true } } ") +
        node("num", "AccumulatorNumAccumulated", {"acc"}));
    auto run_apply = [&](Tensor i, Tensor v, Tensor sh) {
      s.run({{"step", step(0)}, {"i", std::move(i)}, {"v", std::move(v)}, {"sh", std::move(sh)}}, {}, {"apply"});
    };
    const Tensor shape42 = Tensor::from_vector<int64_t>(Shape{2}, {4, 2});
    EXPECT_PHRASE(run_apply(Tensor::from_vector<int64_t>(Shape{1}, {4}), Tensor::from_vector<float>(Shape{1, 2}, {1, 1}),
                            shape42),
                  "Shape mismatch: index of slice 0 exceeded limits of shape; index is 4 exceeded 4");
    EXPECT_PHRASE(run_apply(Tensor::from_vector<int64_t>(Shape{1}, {1}), Tensor::from_vector<float>(Shape{1, 2}, {1, 1}),
                            Tensor::from_vector<int64_t>(Shape{2}, {5, 2})),
                  "Shape mismatch: expected shape dim 0 to be 4, got 5");
    EXPECT_PHRASE(run_apply(Tensor::from_vector<int64_t>(Shape{1}, {1}), Tensor::from_vector<float>(Shape{1, 3}, {1, 1, 1}),
                            shape42),
                  "Shape mismatch: expected values dim 1 to be 2, got 3");
    EXPECT_PHRASE(run_apply(Tensor::from_vector<int64_t>(Shape{2}, {1, 2}), Tensor::from_vector<float>(Shape{1, 2}, {1, 1}),
                            shape42),
                  "Expected 2 non-empty input values, got 1");
    EXPECT_PHRASE(run_apply(Tensor::from_vector<int64_t>(Shape{1, 1}, {1}), Tensor::from_vector<float>(Shape{1, 2}, {1, 1}),
                            shape42),
                  "Input indices should be vector but received shape: [1,1]");
    EXPECT_PHRASE(run_apply(Tensor::from_vector<int64_t>(Shape{1}, {1}), Tensor::scalar<float>(1), shape42),
                  "Values cannot be 0-dimensional.");
    QCOMPARE(s.run({}, {"num"})[0].data<int32_t>()[0], 0);
  }

  // ---- tf.train.SyncReplicasOptimizer ---------------------------------------------

  void sync_replicas_optimizer_graph_data() {
    QTest::addColumn<bool>("resource_variables");
    QTest::addColumn<bool>("resource_accumulator");
    QTest::newRow("resource variables, ResourceConditionalAccumulator (TF 2 compat.v1)") << true << true;
    QTest::newRow("ref variables, ResourceConditionalAccumulator (TF 1.13+)") << false << true;
    QTest::newRow("ref variables, ConditionalAccumulator (TF 1.12 and before)") << false << false;
  }
  void sync_replicas_optimizer_graph() {
    // SyncReplicasOptimizer(GradientDescentOptimizer(0.25), replicas_to_aggregate=2,
    // total_num_replicas=2).apply_gradients([(grad, w)], global_step) as
    // sync_replicas_optimizer.py builds it, the two workers' graphs side by
    // side (r0 is the chief), each worker's accumulator and token queue naming
    // the shared ones by shared_name; then what _SyncReplicasOptimizerHook and
    // the chief's queue runner run.
    QFETCH(bool, resource_variables);
    QFETCH(bool, resource_accumulator);
    Session s = make_session(sync_replicas_graph(resource_variables, family(resource_accumulator)), 10);
    s.run({}, {}, {"w/Assign", "global_step/Assign", "r0/sync_rep_local_step/Assign", "r1/sync_rep_local_step/Assign"});
    s.run({}, {}, {"sync_replicas/init", "r1/local_step_init"});  // chief_init_op; the worker's local_step_init_op
    s.run({}, {}, {"sync_token_q_EnqueueMany_1"});                 // get_init_tokens_op(): two tokens of step 0
    auto worker = [&](const std::string& r, std::vector<float> grad) {
      s.run({{r + "/grad", vec(std::move(grad))}}, {}, {r + "/train_op"});
    };
    auto w = [&] { return floats(s.run({}, {"check/w"})[0]); };
    auto int64_of = [&](const std::string& n) { return s.run({}, {n})[0].data<int64_t>()[0]; };

    // Step 1: both workers apply at local step 0 and take the initial tokens;
    // the chief's sync op averages the two gradients and applies them once.
    worker("r0", {1, 2});
    worker("r1", {3, 2});
    s.run({}, {}, {"sync_token_q_EnqueueMany"});
    QCOMPARE(w(), (std::vector<float>{0.5f, 1.5f}));  // [1,2] - 0.25 * mean([1,2],[3,2])
    QCOMPARE(int64_of("check/global_step"), int64_t(1));
    QCOMPARE(int64_of("check/r0_local_step"), int64_t(0));  // the initial tokens were 0s
    QCOMPARE(int64_of("check/r1_local_step"), int64_t(0));

    // Step 2: computed at local step 0, below the accumulator's step 1: both
    // gradients are dropped (TensorFlow's one wasted step after a start), and
    // the workers take the chief's tokens, which carry the new global step.
    worker("r0", {100, 100});
    worker("r1", {100, 100});
    QCOMPARE(s.run({}, {"num_accumulated"})[0].data<int32_t>()[0], 0);
    QCOMPARE(w(), (std::vector<float>{0.5f, 1.5f}));
    if (!resource_variables)
      QEXPECT_FAIL("", "the chief's tokens are Fill(global_step/read) behind the AssignAdd: TensorFlow's read aliases "
                       "the ref variable's buffer, which AssignAdd updates in place, so it sees the new step; "
                       "FlowLens's copy-on-write AssignAdd leaves the read with the old one", Abort);
    QCOMPARE(int64_of("check/r0_local_step"), int64_t(1));
    QCOMPARE(int64_of("check/r1_local_step"), int64_t(1));

    // Step 3: the token queue is empty, so the workers wait for the chief.
    auto w0 = std::async(std::launch::async, [&] { worker("r0", {2, 4}); });
    auto w1 = std::async(std::launch::async, [&] { worker("r1", {2, 0}); });
    s.run({}, {}, {"sync_token_q_EnqueueMany"});
    QCOMPARE(w0.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    QCOMPARE(w1.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    w0.get();
    w1.get();
    QCOMPARE(w(), (std::vector<float>{0.0f, 1.0f}));  // [0.5,1.5] - 0.25 * mean([2,4],[2,0])
    QCOMPARE(int64_of("check/global_step"), int64_t(2));
    QCOMPARE(int64_of("check/r0_local_step"), int64_t(2));
    QCOMPARE(int64_of("check/r1_local_step"), int64_t(2));
  }

 private:
  // The graph of the test above. Ref variables read through their snapshot
  // ('v/read', an Identity); resource variables through a ReadVariableOp made
  // where the value is used, under that place's control dependencies.
  static std::string sync_replicas_graph(bool resource_variables, const Family& f) {
    auto int64_const = [](const std::string& name, int64_t v) {
      return "node { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } attr { key: "
             "'value' value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: " + std::to_string(v) + " } } } }\n";
    };
    const std::string scalar = "attr { key: 'shape' value { shape {} } } ";
    const std::string vector2 = "attr { key: 'shape' value { shape { dim { size: 2 } } } } ";
    std::string g;
    // A variable `name` with its initializer `name/Assign`.
    auto variable = [&](const std::string& name, const std::string& dtype, const std::string& shape,
                        const std::string& init) {
      if (resource_variables) {
        g += node(name, "VarHandleOp", {}, type_attr("dtype", dtype) + shape + "attr { key: 'shared_name' value { s: '" +
                                               name + "' } } ");
        g += node(name + "/Assign", "AssignVariableOp", {name, init}, type_attr("dtype", dtype));
      } else {
        g += node(name, "VariableV2", {}, type_attr("dtype", dtype) + shape);
        g += node(name + "/Assign", "Assign", {name, init}, type_attr("T", dtype));
        g += node(name + "/read", "Identity", {name}, type_attr("T", dtype));
      }
    };
    // The value of variable `var` as a tensor where it is used: its snapshot,
    // or a new read `name` under `control` (a "^node" or "").
    auto value_of = [&](const std::string& var, const std::string& dtype, const std::string& name,
                        const std::string& control = "") {
      if (!resource_variables) return var + "/read";
      std::vector<std::string> inputs{var};
      if (!control.empty()) inputs.push_back(control);
      g += node(name, "ReadVariableOp", inputs, type_attr("dtype", dtype));
      return name;
    };
    auto assign = [&](const std::string& name, const std::string& var, const std::string& value) {
      if (resource_variables)
        g += node(name, "AssignVariableOp", {var, value}, type_attr("dtype", "DT_INT64"));
      else
        g += node(name, "Assign", {var, value}, type_attr("T", "DT_INT64"));
    };

    // w = tf.Variable([1., 2.]); global_step = tf.train.get_or_create_global_step()
    g += "node { name: 'w/initial_value' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
         "'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }\n";
    variable("w", "DT_FLOAT", vector2, "w/initial_value");
    g += int64_const("global_step/Initializer/zeros", 0);
    variable("global_step", "DT_INT64", scalar, "global_step/Initializer/zeros");
    g += "node { name: 'learning_rate' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
         "value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.25 } } } }\n";
    for (const std::string r : {"r0", "r1"}) {
      const std::string local = r + "/sync_rep_local_step";
      g += int64_const(local + "/initial_value", 0);
      variable(local, "DT_INT64", scalar, local + "/initial_value");
      // local_step_init_op = state_ops.assign(self._local_step, global_step)
      assign(r + "/local_step_init", local, value_of("global_step", "DT_INT64", r + "/ReadVariableOp"));
      g += placeholder(r + "/grad", "DT_FLOAT");
      g += acc_node(r + "/sync_replicas/conditional_accumulator", f.make, "dim { size: 2 }", "w:0/grad_accum");
      g += node(r + "/sync_replicas/AccumulatorApplyGradient", f.apply,
                {r + "/sync_replicas/conditional_accumulator",
                 value_of(local, "DT_INT64", r + "/sync_replicas/ReadVariableOp"), r + "/grad"},
                type_attr("dtype", "DT_FLOAT"));
      g += "node { name: '" + r + "/sync_token_q' op: 'FIFOQueueV2' attr { key: 'component_types' value { list { type: "
           "DT_INT64 } } } attr { key: 'shapes' value { list { shape {} } } } attr { key: 'capacity' value { i: -1 } } "
           "attr { key: 'shared_name' value { s: 'sync_token_q' } } }\n";
      // with ops.control_dependencies(train_ops): token = sync_token_queue.dequeue()
      g += node(r + "/sync_token_q_Dequeue", "QueueDequeueV2",
                {r + "/sync_token_q", "^" + r + "/sync_replicas/AccumulatorApplyGradient"},
                "attr { key: 'component_types' value { list { type: DT_INT64 } } } ");
      assign(r + "/train_op", local, r + "/sync_token_q_Dequeue");
      g += node("check/" + r + "_local_step", resource_variables ? "ReadVariableOp" : "Identity", {local},
                type_attr(resource_variables ? "dtype" : "T", "DT_INT64"));
    }
    // The chief: take_grad(2), then the real optimizer's apply_gradients.
    g += "node { name: 'sync_replicas/num_required' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { "
         "key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 2 } } } }\n";
    g += node("sync_replicas/AccumulatorTakeGradient", f.take,
              {"r0/sync_replicas/conditional_accumulator", "sync_replicas/num_required"}, type_attr("dtype", "DT_FLOAT"));
    g += node("GradientDescent/update_w/ApplyGradientDescent",
              resource_variables ? "ResourceApplyGradientDescent" : "ApplyGradientDescent",
              {"w", "learning_rate", "sync_replicas/AccumulatorTakeGradient"}, type_attr("T", "DT_FLOAT"));
    g += node("GradientDescent/update", "NoOp", {"^GradientDescent/update_w/ApplyGradientDescent"});
    g += int64_const("GradientDescent/value", 1);
    if (resource_variables)
      g += node("GradientDescent", "AssignAddVariableOp", {"global_step", "GradientDescent/value", "^GradientDescent/update"},
                type_attr("dtype", "DT_INT64"));
    else
      g += node("GradientDescent", "AssignAdd", {"global_step", "GradientDescent/value", "^GradientDescent/update"},
                type_attr("T", "DT_INT64"));
    // with ops.control_dependencies([update_op]): tokens = fill([2], global_step); sync_op = enqueue_many
    g += "node { name: 'Fill/dims' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' value "
         "{ tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }\n";
    const std::string token_value = value_of("global_step", "DT_INT64", "ReadVariableOp_1", "^GradientDescent");
    g += node("Fill", "Fill", {"Fill/dims", token_value, "^GradientDescent"},
              type_attr("T", "DT_INT64") + type_attr("index_type", "DT_INT32"));
    g += node("sync_token_q_EnqueueMany", "QueueEnqueueManyV2", {"r0/sync_token_q", "Fill", "^GradientDescent"},
              "attr { key: 'Tcomponents' value { list { type: DT_INT64 } } } ");
    // chief_init_op: local_step_init_op and each accumulator's SetGlobalStep.
    g += node("SetGlobalStep", f.set_step,
              {"r0/sync_replicas/conditional_accumulator", value_of("global_step", "DT_INT64", "ReadVariableOp_2")});
    g += node("sync_replicas/init", "NoOp", {"^r0/local_step_init", "^SetGlobalStep"});
    // get_init_tokens_op(): fill([replicas_to_aggregate], global_step)
    g += node("Fill_1", "Fill", {"Fill/dims", value_of("global_step", "DT_INT64", "ReadVariableOp_3")},
              type_attr("T", "DT_INT64") + type_attr("index_type", "DT_INT32"));
    g += node("sync_token_q_EnqueueMany_1", "QueueEnqueueManyV2", {"r0/sync_token_q", "Fill_1"},
              "attr { key: 'Tcomponents' value { list { type: DT_INT64 } } } ");
    // What the test reads.
    g += node("num_accumulated", f.num, {"r0/sync_replicas/conditional_accumulator"});
    g += node("check/w", resource_variables ? "ReadVariableOp" : "Identity", {"w"},
              type_attr(resource_variables ? "dtype" : "T", "DT_FLOAT"));
    g += node("check/global_step", resource_variables ? "ReadVariableOp" : "Identity", {"global_step"},
              type_attr(resource_variables ? "dtype" : "T", "DT_INT64"));
    return g;
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpsAccumulators)
#include "test_ops_accumulators.moc"
