#pragma once
// TensorFlow's tf.train.QueueRunner (python/training/queue_runner_impl.py)
// for a Session: one thread per enqueue op, each running the op again and
// again; when one hits OutOfRange (its input is exhausted) it ends, and the
// last one to end runs the close op. Other errors are kept (errors()), and
// the queue is closed with cancel_pending_enqueues so its consumers stop
// waiting, as a Coordinator's request_stop does. stop() closes the queues
// with cancellation (the cancel op, or the queue itself) and joins every
// thread; the destructor stops, so runners never outlive their session's
// scope (declare them after the Session).
//
// The runners come from a meta graph's "queue_runners" collection
// (io/meta_graph.h's QueueRunnerDef) or, for a plain GraphDef, are derived
// from the graph: one per queue with enqueue ops that need no feed.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/meta_graph.h"

namespace flowlens {

class Graph;
class Queue;
class Session;

// One runner per queue node with enqueue ops: those enqueue ops that need no
// fed placeholder, its QueueCloseV2 ops (cancel_pending_enqueues false, then
// true) if the graph has them.
std::vector<QueueRunnerDef> derive_queue_runners(const Graph& graph);

// The runners whose queues the fetches and targets (`roots`) need: directly,
// or through another needed runner's enqueue ops (chained queues).
std::vector<QueueRunnerDef> queue_runners_needed(const Graph& graph, const std::vector<QueueRunnerDef>& runners,
                                                 const std::vector<std::string>& roots);

class QueueRunners {
 public:
  // Checks that every named node exists (Error naming the runner otherwise).
  QueueRunners(Session& session, std::vector<QueueRunnerDef> runners);
  ~QueueRunners();
  QueueRunners(const QueueRunners&) = delete;
  QueueRunners& operator=(const QueueRunners&) = delete;

  // Makes each queue (runs its node) and starts the threads. Throws Error
  // when a queue cannot be made.
  void start();
  // Closes the queues with cancellation and joins the threads; idempotent.
  void stop();

  const std::vector<QueueRunnerDef>& runners() const { return defs_; }
  int num_threads() const;
  // "'input_producer' (1 thread), 'batch/fifo_queue' (2 threads)".
  std::string summary() const;
  // "queue runner 'q': enqueue op 'e' failed: ..." for each thread that
  // failed other than by OutOfRange or by being stopped.
  std::vector<std::string> errors() const;

 private:
  struct Runner;
  void run_thread(Runner& runner, const std::string& enqueue_op);
  void close_queue(Runner& runner, bool cancel);

  Session& session_;
  std::vector<QueueRunnerDef> defs_;
  std::vector<std::unique_ptr<Runner>> runners_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::vector<std::string> errors_;
  bool started_ = false;
};

}  // namespace flowlens
