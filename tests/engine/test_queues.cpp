// TensorFlow's queues in sessions: FIFO order, RandomShuffleQueue's seeded
// order and min_after_dequeue, PaddingFIFOQueue's padded batches,
// DequeueMany/UpTo on a closed queue, the OutOfRange of a closed empty queue,
// the timeout that names an unfed queue and who should fill it, cancellation,
// dequeues blocking more threads than the device pool has, queue runners
// (derived from a graph and read from a meta graph's collection) feeding a
// training loop, and the thread pool's lent threads.
#include "test_main.h"
#include <QtTest>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "common/blocking_region.h"
#include "analysis/infer_shapes.h"
#include "exec/queue_runner.h"
#include "exec/session.h"
#include "exec/thread_pool.h"
#include "io/graph_io.h"
#include "io/meta_graph.h"
#include "ops/framework/op_registry.h"
#include "ops/resources/queue.h"
#include "transform/gradients.h"
#include "transform/optimizers.h"

using namespace flowlens;

#define std_text(s) std::string(s).c_str()

namespace {

std::string type_list(const std::vector<std::string>& types) {
  std::string s = "list {";
  for (const auto& t : types) s += " type: " + t;
  return s + " }";
}

// shapes: "dim { size: 2 }" per shape.
std::string shape_list(const std::vector<std::string>& shapes) {
  std::string s = "list {";
  for (const auto& d : shapes) s += " shape { " + d + " }";
  return s + " }";
}

std::string queue_node(const std::string& name, const std::string& op, const std::vector<std::string>& types,
                       const std::vector<std::string>& shapes, int capacity, const std::string& extra = "") {
  return "node { name: '" + name + "' op: '" + op + "' attr { key: 'component_types' value { " + type_list(types) +
         " } } attr { key: 'shapes' value { " + shape_list(shapes) + " } } attr { key: 'capacity' value { i: " +
         std::to_string(capacity) + " } } " + extra + "}\n";
}

std::string inputs_text(const std::vector<std::string>& inputs) {
  std::string s;
  for (const auto& i : inputs) s += " input: '" + i + "'";
  return s;
}

std::string enqueue(const std::string& name, const std::string& op, const std::string& queue,
                    const std::vector<std::string>& values, const std::vector<std::string>& types) {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + queue + "'" + inputs_text(values) +
         " attr { key: 'Tcomponents' value { " + type_list(types) + " } } }\n";
}

std::string dequeue(const std::string& name, const std::string& op, const std::string& queue,
                    const std::vector<std::string>& types, const std::string& n = "") {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + queue + "'" + (n.empty() ? "" : " input: '" + n + "'") +
         " attr { key: 'component_types' value { " + type_list(types) + " } } }\n";
}

std::string placeholder(const std::string& name, const std::string& type = "DT_FLOAT") {
  return "node { name: '" + name + "' op: 'Placeholder' attr { key: 'dtype' value { type: " + type + " } } }\n";
}

std::string int_const(const std::string& name, int v) {
  return "node { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } " +
         "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: " + std::to_string(v) +
         " } } } }\n";
}

// A float constant of the given dims ("dim { size: 4 } dim { size: 2 }") and values.
std::string float_const(const std::string& name, const std::string& dims, const std::vector<float>& values) {
  std::string vals;
  for (float v : values) vals += " float_val: " + std::to_string(v);
  return "node { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } " +
         "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { " + dims + " }" + vals + " } } } }\n";
}

std::string close_node(const std::string& name, const std::string& queue, bool cancel = false) {
  return "node { name: '" + name + "' op: 'QueueCloseV2' input: '" + queue + "' attr { key: 'cancel_pending_enqueues' value { b: " +
         (cancel ? "true" : "false") + " } } }\n";
}

Session make_session(const std::string& text, double timeout_s = 10, int threads = 2) {
  SessionOptions o;
  o.inter_op_threads = threads;
  o.use_gpus = false;
  o.blocking_op_timeout_s = timeout_s;
  return Session(parse_graph_text(text, "queues.pbtxt"), o);
}

std::vector<float> floats(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.num_elements()}; }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A FIFO queue 'q' of float [2] (or scalars) fed by placeholder 'x', with
// enqueue 'enq', enqueue-many 'enq_many' (from 'xs'), dequeues and a close.
std::string fifo_graph(int capacity = 10) {
  return queue_node("q", "FIFOQueueV2", {"DT_FLOAT"}, {""}, capacity) + placeholder("x") + placeholder("xs") +
         enqueue("enq", "QueueEnqueueV2", "q", {"x"}, {"DT_FLOAT"}) +
         enqueue("enq_many", "QueueEnqueueManyV2", "q", {"xs"}, {"DT_FLOAT"}) +
         dequeue("deq", "QueueDequeueV2", "q", {"DT_FLOAT"}) + int_const("three", 3) +
         dequeue("deq3", "QueueDequeueManyV2", "q", {"DT_FLOAT"}, "three") +
         dequeue("upto3", "QueueDequeueUpToV2", "q", {"DT_FLOAT"}, "three") + close_node("close", "q") +
         "node { name: 'size' op: 'QueueSizeV2' input: 'q' }\nnode { name: 'closed' op: 'QueueIsClosedV2' input: 'q' }\n";
}

Tensor scalar(float v) { return Tensor::scalar<float>(v); }
Tensor vec(std::vector<float> v) { return Tensor::from_vector<float>(Shape{static_cast<int64_t>(v.size())}, v); }

}  // namespace

class TestQueues : public QObject {
  Q_OBJECT
 private slots:
  void fifo_keeps_order_across_runs() {
    Session s = make_session(fifo_graph());
    for (float v : {1.f, 2.f, 3.f}) s.run({{"x", scalar(v)}}, {}, {"enq"});
    s.run({{"xs", vec({4, 5})}}, {}, {"enq_many"});
    QCOMPARE(s.run({}, {"size"})[0].data<int32_t>()[0], 5);
    for (float want : {1.f, 2.f, 3.f, 4.f, 5.f}) QCOMPARE(s.run({}, {"deq"})[0].data<float>()[0], want);
    QCOMPARE(s.run({}, {"closed"})[0].data<bool>()[0], false);
    s.run({}, {}, {"close"});
    QCOMPARE(s.run({}, {"closed"})[0].data<bool>()[0], true);
  }

  void enqueue_checks_types_and_shapes() {
    Session s = make_session(queue_node("q", "FIFOQueueV2", {"DT_FLOAT"}, {"dim { size: 2 }"}, 4) + placeholder("x") +
                             placeholder("i", "DT_INT32") + enqueue("enq", "QueueEnqueueV2", "q", {"x"}, {"DT_FLOAT"}) +
                             enqueue("enq_i", "QueueEnqueueV2", "q", {"i"}, {"DT_INT32"}));
    try {
      s.run({{"x", vec({1, 2, 3})}}, {}, {"enq"});
      QFAIL("a [3] element went into a queue of [2]");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("Shape mismatch in tuple component 0. Expected [2], got [3]") != std::string::npos,
               e.what());
    }
    try {
      s.run({{"i", Tensor::from_vector<int32_t>(Shape{2}, {1, 2})}}, {}, {"enq_i"});
      QFAIL("an int32 element went into a float queue");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("Type mismatch in tuple component 0. Expected float32, got int32") !=
                   std::string::npos,
               e.what());
    }
  }

  void closed_empty_queue_is_out_of_range_at_once() {
    Session s = make_session(queue_node("fifo_queue", "FIFOQueueV2", {"DT_FLOAT"}, {""}, 10) +
                                 dequeue("deq", "QueueDequeueV2", "fifo_queue", {"DT_FLOAT"}) +
                                 close_node("close", "fifo_queue"),
                             60);
    s.run({}, {}, {"close"});
    const auto start = std::chrono::steady_clock::now();
    try {
      s.run({}, {"deq"});
      QFAIL("a closed empty queue gave an element");
    } catch (const OutOfRangeError& e) {
      QVERIFY2(std::string(e.what()).find("FIFOQueue 'fifo_queue' is closed and has insufficient elements (requested 1, "
                                          "current size 0)") != std::string::npos,
               e.what());
    }
    QVERIFY(seconds_since(start) < 5);
  }

  void dequeue_many_and_up_to_on_a_closed_queue() {
    Session s = make_session(fifo_graph());
    s.run({{"xs", vec({1, 2, 3, 4, 5})}}, {}, {"enq_many"});
    s.run({}, {}, {"close"});
    QCOMPARE(floats(s.run({}, {"deq3"})[0]), (std::vector<float>{1, 2, 3}));
    try {
      s.run({}, {"deq3"});
      QFAIL("DequeueMany(3) took 2 from a closed queue");
    } catch (const OutOfRangeError& e) {
      QVERIFY2(std::string(e.what()).find("is closed and has insufficient elements (requested 3, current size 2)") !=
                   std::string::npos,
               e.what());
    }
    // The failed DequeueMany left both elements; UpTo takes what is left.
    const Tensor rest = s.run({}, {"upto3"})[0];
    QCOMPARE(rest.shape(), (Shape{2}));
    QCOMPARE(floats(rest), (std::vector<float>{4, 5}));
    QVERIFY_THROWS_EXCEPTION(OutOfRangeError, s.run({}, {"upto3"}));
  }

  void enqueue_on_a_closed_queue_is_cancelled() {
    Session s = make_session(fifo_graph());
    s.run({}, {}, {"close"});
    try {
      s.run({{"x", scalar(1)}}, {}, {"enq"});
      QFAIL("enqueued into a closed queue");
    } catch (const CancelledError& e) {
      QVERIFY2(std::string(e.what()).find("FIFOQueue 'q' is closed.") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(CancelledError, s.run({}, {}, {"close"}));  // "Queue 'q' is already closed."
  }

  void dequeue_many_larger_than_capacity_completes() {
    // DequeueMany(3) from a queue of capacity 2: it takes elements as they
    // come, so the enqueue of 4 finishes.
    Session s = make_session(fifo_graph(2));
    auto consumer = std::async(std::launch::async, [&] { return floats(s.run({}, {"deq3"})[0]); });
    s.run({{"xs", vec({1, 2, 3, 4})}}, {}, {"enq_many"});
    QCOMPARE(consumer.get(), (std::vector<float>{1, 2, 3}));
    QCOMPARE(s.run({}, {"size"})[0].data<int32_t>()[0], 1);
  }

  void random_shuffle_queue_is_seeded() {
    auto order = [](int seed) {
      const std::string extra = "attr { key: 'seed' value { i: " + std::to_string(seed) +
                                " } } attr { key: 'seed2' value { i: 7 } } ";
      Session s = make_session(queue_node("q", "RandomShuffleQueueV2", {"DT_FLOAT"}, {""}, 20, extra) +
                               placeholder("xs") + enqueue("enq", "QueueEnqueueManyV2", "q", {"xs"}, {"DT_FLOAT"}) +
                               int_const("n", 10) + dequeue("deq", "QueueDequeueManyV2", "q", {"DT_FLOAT"}, "n"));
      s.run({{"xs", vec({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}}, {}, {"enq"});
      return floats(s.run({}, {"deq"})[0]);
    };
    const std::vector<float> a = order(5), b = order(5), c = order(6);
    QCOMPARE(a, b);
    QVERIFY(a != c);
    std::vector<float> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(sorted, (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    QVERIFY(a != sorted);
  }

  void random_shuffle_queue_keeps_min_after_dequeue() {
    const std::string extra = "attr { key: 'min_after_dequeue' value { i: 3 } } attr { key: 'seed' value { i: 1 } } ";
    Session s = make_session(queue_node("q", "RandomShuffleQueueV2", {"DT_FLOAT"}, {""}, 10, extra) +
                                 placeholder("xs") + enqueue("enq", "QueueEnqueueManyV2", "q", {"xs"}, {"DT_FLOAT"}) +
                                 dequeue("deq", "QueueDequeueV2", "q", {"DT_FLOAT"}) + close_node("close", "q"),
                             0.3);
    s.run({{"xs", vec({1, 2, 3, 4})}}, {}, {"enq"});
    s.run({}, {"deq"});  // 4 > 3: one may go
    try {
      s.run({}, {"deq"});  // 3 left = min_after_dequeue: waits, then times out
      QFAIL("dequeued below min_after_dequeue");
    } catch (const DeadlineExceededError& e) {
      QVERIFY2(std::string(e.what()).find("RandomShuffleQueue 'q' (3 of 10 elements, open)") != std::string::npos,
               e.what());
    }
    s.run({}, {}, {"close"});  // closed: the rest drains
    for (int i = 0; i < 3; ++i) s.run({}, {"deq"});
    try {
      s.run({}, {"deq"});
      QFAIL("dequeued from an empty closed queue");
    } catch (const OutOfRangeError& e) {
      QVERIFY2(std::string(e.what()).find("RandomShuffleQueue 'q' is closed and has insufficient elements") !=
                   std::string::npos,
               e.what());
    }
  }

  void random_shuffle_queue_refuses_min_after_dequeue_at_capacity() {
    Session s = make_session(queue_node("q", "RandomShuffleQueueV2", {"DT_FLOAT"}, {""}, 3,
                                        "attr { key: 'min_after_dequeue' value { i: 3 } } "));
    try {
      s.run({}, {"q"});
      QFAIL("min_after_dequeue == capacity was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("min_after_dequeue 3 must be < capacity 3") != std::string::npos, e.what());
    }
  }

  void padding_queue_pads_dequeue_many() {
    Session s = make_session(queue_node("q", "PaddingFIFOQueueV2", {"DT_FLOAT"}, {"dim { size: -1 }"}, 10) +
                             placeholder("x") + enqueue("enq", "QueueEnqueueV2", "q", {"x"}, {"DT_FLOAT"}) +
                             int_const("n", 3) + dequeue("deq", "QueueDequeueManyV2", "q", {"DT_FLOAT"}, "n"));
    s.run({{"x", vec({1})}}, {}, {"enq"});
    s.run({{"x", vec({1, 2, 3})}}, {}, {"enq"});
    s.run({{"x", vec({4, 5})}}, {}, {"enq"});
    const Tensor batch = s.run({}, {"deq"})[0];
    QCOMPARE(batch.shape(), (Shape{3, 3}));
    QCOMPARE(floats(batch), (std::vector<float>{1, 0, 0, 1, 2, 3, 4, 5, 0}));
    // A [2,2] element does not fit [?].
    QVERIFY_THROWS_EXCEPTION(Error, s.run({{"x", Tensor::from_vector<float>(Shape{2, 2}, {1, 2, 3, 4})}}, {}, {"enq"}));
  }

  void padding_queue_pads_two_dimensions() {
    Session s = make_session(queue_node("q", "PaddingFIFOQueueV2", {"DT_INT32"}, {"dim { size: -1 } dim { size: -1 }"}, 10) +
                             placeholder("x", "DT_INT32") + enqueue("enq", "QueueEnqueueV2", "q", {"x"}, {"DT_INT32"}) +
                             int_const("n", 2) + dequeue("deq", "QueueDequeueManyV2", "q", {"DT_INT32"}, "n"));
    s.run({{"x", Tensor::from_vector<int32_t>(Shape{1, 3}, {1, 2, 3})}}, {}, {"enq"});
    s.run({{"x", Tensor::from_vector<int32_t>(Shape{2, 1}, {4, 5})}}, {}, {"enq"});
    const Tensor batch = s.run({}, {"deq"})[0];
    QCOMPARE(batch.shape(), (Shape{2, 2, 3}));
    const std::vector<int32_t> got(batch.data<int32_t>(), batch.data<int32_t>() + batch.num_elements());
    QCOMPARE(got, (std::vector<int32_t>{1, 2, 3, 0, 0, 0, 4, 0, 0, 5, 0, 0}));
  }

  void unfed_queue_times_out_naming_its_filler() {
    const std::string g = queue_node("input_producer", "FIFOQueueV2", {"DT_FLOAT"}, {""}, 32) +
                          float_const("input_producer/Const", "dim { size: 3 }", {1, 2, 3}) +
                          enqueue("input_producer/input_producer_EnqueueMany", "QueueEnqueueManyV2", "input_producer",
                                  {"input_producer/Const"}, {"DT_FLOAT"}) +
                          dequeue("batch", "QueueDequeueV2", "input_producer", {"DT_FLOAT"});
    Session s = make_session(g, 0.3);
    const auto start = std::chrono::steady_clock::now();
    try {
      s.run({}, {"batch"});
      QFAIL("a dequeue on an unfed queue returned");
    } catch (const DeadlineExceededError& e) {
      const std::string m = e.what();
      for (const char* part :
           {"QueueDequeueV2 'batch' waited 0.3 s on FIFOQueue 'input_producer' (0 of 32 elements, open): nothing enqueued",
            "its enqueue op 'input_producer/input_producer_EnqueueMany' runs only from a queue runner: start queue "
            "runners (flowlens-run does by default)",
            "feed 'batch:0' directly"})
        QVERIFY2(m.find(part) != std::string::npos, std_text(m + "\nlacks: " + part));
    }
    QVERIFY(seconds_since(start) < 5);
    // Running the enqueue op once fills it.
    s.run({}, {}, {"input_producer/input_producer_EnqueueMany"});
    QCOMPARE(s.run({}, {"batch"})[0].data<float>()[0], 1.0f);
  }

  void queue_nothing_enqueues_to_says_so() {
    Session s = make_session(queue_node("lonely", "FIFOQueueV2", {"DT_FLOAT"}, {""}, 4) +
                                 dequeue("deq", "QueueDequeueV2", "lonely", {"DT_FLOAT"}),
                             0.2);
    try {
      s.run({}, {"deq"});
      QFAIL("returned");
    } catch (const DeadlineExceededError& e) {
      QVERIFY2(std::string(e.what()).find("nothing in the graph enqueues to it") != std::string::npos, e.what());
    }
  }

  void a_failing_run_cancels_its_waiting_dequeue() {
    // 'bad' fails (Reshape of 3 values to [2]); the dequeue in the same run
    // gives up at once instead of waiting out its 60 s.
    const std::string g = fifo_graph() + float_const("v", "dim { size: 3 }", {1, 2, 3}) +
                          "node { name: 'shape' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: "
                          "'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }\n"
                          "node { name: 'bad' op: 'Reshape' input: 'v' input: 'shape' attr { key: 'T' value { type: "
                          "DT_FLOAT } } }\n";
    Session s = make_session(g, 60);
    const auto start = std::chrono::steady_clock::now();
    QVERIFY_THROWS_EXCEPTION(Error, s.run({}, {"deq", "bad"}));
    QVERIFY(seconds_since(start) < 10);
  }

  void more_blocked_dequeues_than_pool_threads() {
    // Two CPU threads, five dequeues waiting: the pool lends threads, so the
    // enqueues (runs of their own) still get to run.
    Session s = make_session(fifo_graph(), 20, 2);
    std::vector<std::future<float>> waiting;
    for (int i = 0; i < 5; ++i)
      waiting.push_back(std::async(std::launch::async, [&] { return s.run({}, {"deq"})[0].data<float>()[0]; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let them block
    for (int i = 0; i < 5; ++i) s.run({{"x", scalar(static_cast<float>(i))}}, {}, {"enq"});
    std::vector<float> got;
    for (auto& f : waiting) {
      QVERIFY(f.wait_for(std::chrono::seconds(15)) == std::future_status::ready);
      got.push_back(f.get());
    }
    std::sort(got.begin(), got.end());
    QCOMPARE(got, (std::vector<float>{0, 1, 2, 3, 4}));
  }

  void thread_pool_lends_threads_while_tasks_block() {
    ThreadPool pool("test", 1);
    std::atomic<bool> release{false};
    std::atomic<int> blocked{0};
    for (int i = 0; i < 3; ++i)
      pool.schedule([&] {
        BlockingRegion region;
        ++blocked;
        while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      });
    // With one thread and no lending, the second task would never start.
    std::promise<void> ran;
    pool.schedule([&] { ran.set_value(); });
    QVERIFY(ran.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    for (int i = 0; i < 1000 && blocked.load() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    QCOMPARE(blocked.load(), 3);
    QVERIFY(pool.live_threads() >= 4);
    release = true;
    // The spares retire once idle.
    for (int i = 0; i < 1000 && pool.live_threads() > 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    QCOMPARE(pool.live_threads(), 1);
  }

  void queue_runner_feeds_a_training_loop() {
    // y = 2 x0 - x1 learned from 8 examples that a queue runner cycles
    // through a FIFO queue, 4 per step.
    std::vector<float> xs, ys;
    for (int i = 0; i < 8; ++i) {
      const float a = static_cast<float>(i % 4) - 1.5f, b = static_cast<float>(i / 4) - 0.5f;
      xs.push_back(a);
      xs.push_back(b);
      ys.push_back(2 * a - b);
    }
    std::string g = float_const("data/x", "dim { size: 8 } dim { size: 2 }", xs) +
                    float_const("data/y", "dim { size: 8 } dim { size: 1 }", ys) +
                    queue_node("input", "FIFOQueueV2", {"DT_FLOAT", "DT_FLOAT"}, {"dim { size: 2 }", "dim { size: 1 }"}, 16) +
                    enqueue("input/enqueue", "QueueEnqueueManyV2", "input", {"data/x", "data/y"}, {"DT_FLOAT", "DT_FLOAT"}) +
                    close_node("input/close", "input") + close_node("input/cancel", "input", true) + int_const("n", 4) +
                    dequeue("batch", "QueueDequeueManyV2", "input", {"DT_FLOAT", "DT_FLOAT"}, "n") +
                    "node { name: 'w' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
                    "'shape' value { shape { dim { size: 2 } dim { size: 1 } } } } }\n" +
                    float_const("w/init", "dim { size: 2 } dim { size: 1 }", {0, 0}) +
                    "node { name: 'w/Assign' op: 'Assign' input: 'w' input: 'w/init' attr { key: 'T' value { type: "
                    "DT_FLOAT } } }\n"
                    "node { name: 'pred' op: 'MatMul' input: 'batch' input: 'w' attr { key: 'T' value { type: DT_FLOAT "
                    "} } }\n"
                    "node { name: 'diff' op: 'Sub' input: 'pred' input: 'batch:1' attr { key: 'T' value { type: "
                    "DT_FLOAT } } }\n"
                    "node { name: 'sq' op: 'Square' input: 'diff' attr { key: 'T' value { type: DT_FLOAT } } }\n" +
                    "node { name: 'axes' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' "
                    "value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }\n"
                    "node { name: 'loss' op: 'Mean' input: 'sq' input: 'axes' attr { key: 'T' value { type: DT_FLOAT } "
                    "} }\n";
    Graph graph = parse_graph_text(g, "train.pbtxt");
    const std::vector<std::string> grads = add_gradients(graph, {"loss"}, {"w"}, OpRegistry::global());
    OptimizerOptions opt;
    opt.learning_rate = 0.2f;
    const std::string train = add_optimizer(graph, {{"w", grads[0]}}, opt, "train");

    const std::vector<QueueRunnerDef> derived = derive_queue_runners(graph);
    QCOMPARE(derived.size(), size_t(1));
    QCOMPARE(derived[0].queue_name, std::string("input"));
    QCOMPARE(derived[0].enqueue_op_names, (std::vector<std::string>{"input/enqueue"}));
    QCOMPARE(derived[0].close_op_name, std::string("input/close"));
    QCOMPARE(derived[0].cancel_op_name, std::string("input/cancel"));
    QCOMPARE(queue_runners_needed(graph, derived, {"loss"}).size(), size_t(1));
    QCOMPARE(queue_runners_needed(graph, derived, {"w/init"}).size(), size_t(0));

    SessionOptions o;
    o.use_gpus = false;
    o.inter_op_threads = 2;
    o.blocking_op_timeout_s = 10;
    Session s(std::move(graph), o);
    s.initialize_variables();
    float first = 0, last = 0;
    {
      QueueRunners runners(s, derived);
      runners.start();
      QCOMPARE(runners.num_threads(), 1);
      for (int step = 0; step < 40; ++step) {
        const float loss = s.run({}, {"loss"}, {train})[0].data<float>()[0];
        if (step == 0) first = loss;
        last = loss;
      }
      runners.stop();
      const std::vector<std::string> errors = runners.errors();
      QVERIFY2(errors.empty(), std_text(errors.empty() ? "" : errors.front()));
    }  // joined
    QVERIFY2(last < first * 0.05f, std_text(std::to_string(first) + " -> " + std::to_string(last)));
  }

  void queue_runner_closes_its_queue_when_its_input_runs_out() {
    // 'files' holds 3 names and is closed; the runner moves them into 'names'
    // until its dequeue is OutOfRange, then closes 'names' (no close op in
    // the graph: the queue itself), so the consumer ends with OutOfRange too.
    const std::string g = queue_node("files", "FIFOQueueV2", {"DT_FLOAT"}, {""}, 10) + placeholder("xs") +
                          enqueue("files/enqueue", "QueueEnqueueManyV2", "files", {"xs"}, {"DT_FLOAT"}) +
                          close_node("files/close", "files") +
                          dequeue("files/dequeue", "QueueDequeueV2", "files", {"DT_FLOAT"}) +
                          queue_node("names", "FIFOQueueV2", {"DT_FLOAT"}, {""}, 1) +
                          enqueue("names/enqueue", "QueueEnqueueV2", "names", {"files/dequeue"}, {"DT_FLOAT"}) +
                          dequeue("next", "QueueDequeueV2", "names", {"DT_FLOAT"});
    Session s = make_session(g, 10);
    s.run({{"xs", vec({7, 8, 9})}}, {}, {"files/enqueue"});
    s.run({}, {}, {"files/close"});
    const std::vector<QueueRunnerDef> derived = derive_queue_runners(s.graph());
    QCOMPARE(derived.size(), size_t(1));  // files/enqueue needs a feed
    QCOMPARE(derived[0].queue_name, std::string("names"));
    QueueRunners runners(s, derived);
    runners.start();
    for (float want : {7.f, 8.f, 9.f}) QCOMPARE(s.run({}, {"next"})[0].data<float>()[0], want);
    QVERIFY_THROWS_EXCEPTION(OutOfRangeError, s.run({}, {"next"}));
    runners.stop();
    QVERIFY(runners.errors().empty());
  }

  void meta_graph_queue_runners_collection() {
    // A QueueRunnerDef, serialized by hand: queue_name (1), enqueue_op_name (2),
    // close_op_name (3), cancel_op_name (4), queue_closed_exception_types (5).
    auto field = [](int number, const std::string& value) {
      return std::string(1, static_cast<char>(number << 3 | 2)) + static_cast<char>(value.size()) + value;
    };
    const std::string bytes = field(1, "input_producer") + field(2, "input_producer/input_producer_EnqueueMany") +
                              field(3, "input_producer/input_producer_Close") +
                              field(4, "input_producer/input_producer_Close_1") + std::string("\x28\x0b", 2);
    std::string escaped;
    for (unsigned char c : bytes) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      escaped += buf;
    }
    const std::string text = "graph_def { node { name: 'input_producer' op: 'NoOp' } }\n"
                             "collection_def { key: 'queue_runners' value { bytes_list { value: \"" + escaped + "\" } } }\n";
    const MetaGraph m = parse_meta_graph(text, true, "test.meta");
    QCOMPARE(m.queue_runners.size(), size_t(1));
    const QueueRunnerDef& q = m.queue_runners[0];
    QCOMPARE(q.queue_name, std::string("input_producer"));
    QCOMPARE(q.enqueue_op_names, (std::vector<std::string>{"input_producer/input_producer_EnqueueMany"}));
    QCOMPARE(q.close_op_name, std::string("input_producer/input_producer_Close"));
    QCOMPARE(q.cancel_op_name, std::string("input_producer/input_producer_Close_1"));
    QCOMPARE(q.queue_closed_exception_types, (std::vector<int>{11}));
  }

  void shared_name_shares_one_queue_and_checks_it() {
    const std::string shared = "attr { key: 'shared_name' value { s: 'common' } } ";
    Session s = make_session(queue_node("a", "FIFOQueueV2", {"DT_FLOAT"}, {""}, 5, shared) +
                             queue_node("b", "FIFOQueueV2", {"DT_FLOAT"}, {""}, 5, shared) +
                             queue_node("c", "FIFOQueueV2", {"DT_FLOAT"}, {""}, 6, shared) + placeholder("x") +
                             enqueue("enq", "QueueEnqueueV2", "a", {"x"}, {"DT_FLOAT"}) +
                             dequeue("deq", "QueueDequeueV2", "b", {"DT_FLOAT"}));
    s.run({{"x", scalar(42)}}, {}, {"enq"});
    QCOMPARE(s.run({}, {"deq"})[0].data<float>()[0], 42.0f);
    try {
      s.run({}, {"c"});
      QFAIL("a queue of another capacity shared the name");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("Shared queue 'common' has capacity 5 but requested capacity was 6") !=
                   std::string::npos,
               e.what());
    }
  }

  void dequeue_shape_comes_from_the_queue() {
    // A single-component queue's dtype and shape ride on its handle.
    const Graph g = parse_graph_text(queue_node("q", "FIFOQueueV2", {"DT_FLOAT"}, {"dim { size: 2 }"}, 4) +
                                         int_const("n", 3) + dequeue("deq", "QueueDequeueV2", "q", {"DT_FLOAT"}) +
                                         dequeue("deq3", "QueueDequeueManyV2", "q", {"DT_FLOAT"}, "n"),
                                     "q.pbtxt");
    const ShapeInferenceResult r = infer_shapes(g, OpRegistry::global());
    QVERIFY(r.errors.empty());
    const auto& deq = r.outputs[static_cast<size_t>(g.index_of("deq"))][0];
    QCOMPARE(deq.dtype, DType::Float);
    QCOMPARE(deq.shape, (Shape{2}));
    const auto& deq3 = r.outputs[static_cast<size_t>(g.index_of("deq3"))][0];
    QCOMPARE(deq3.shape, (Shape{3, 2}));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestQueues)
#include "test_queues.moc"
