#include "exec/queue_runner.h"

#include <algorithm>
#include <set>

#include "common/error.h"
#include "exec/feed_values.h"
#include "exec/session.h"
#include "graph/run_subgraph.h"
#include "ops/resources/queue.h"

namespace flowlens {
namespace {

constexpr int kOutOfRangeCode = 11;  // TensorFlow's error::OUT_OF_RANGE

bool needs_feed(const Graph& graph, const std::string& node) {
  const Graph needed = run_subgraph(graph, {node});
  return std::any_of(needed.nodes().begin(), needed.nodes().end(), [](const Node& n) {
    return is_placeholder_op(n.op);
  });
}

}  // namespace

std::vector<QueueRunnerDef> derive_queue_runners(const Graph& graph) {
  std::vector<QueueRunnerDef> out;
  for (size_t i = 0; i < graph.size(); ++i) {
    const Node& q = graph.nodes()[i];
    if (!is_queue_op(q.op)) continue;
    const QueueUsers users = queue_users(graph, static_cast<int>(i));
    QueueRunnerDef r;
    r.queue_name = q.name;
    for (int e : users.enqueue_ops) {
      const std::string& name = graph.nodes()[static_cast<size_t>(e)].name;
      if (!needs_feed(graph, name)) r.enqueue_op_names.push_back(name);
    }
    if (r.enqueue_op_names.empty()) continue;
    if (!users.close_ops.empty()) r.close_op_name = graph.nodes()[static_cast<size_t>(users.close_ops[0])].name;
    if (!users.cancel_ops.empty()) r.cancel_op_name = graph.nodes()[static_cast<size_t>(users.cancel_ops[0])].name;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<QueueRunnerDef> queue_runners_needed(const Graph& graph, const std::vector<QueueRunnerDef>& runners,
                                                 const std::vector<std::string>& roots) {
  // Most graphs have no queue: no walk (a million-node graph would copy its
  // whole subgraph here just to find none).
  if (runners.empty()) return {};
  std::set<std::string> needed;
  auto add = [&](const std::vector<std::string>& from) {
    const Graph sub = run_subgraph(graph, from);
    for (const Node& n : sub.nodes()) needed.insert(n.name);
  };
  add(roots);
  std::vector<char> taken(runners.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < runners.size(); ++i) {
      if (taken[i] || !needed.count(runners[i].queue_name)) continue;
      taken[i] = 1;
      changed = true;
      add(runners[i].enqueue_op_names);
    }
  }
  std::vector<QueueRunnerDef> out;
  for (size_t i = 0; i < runners.size(); ++i)
    if (taken[i]) out.push_back(runners[i]);
  return out;
}

struct QueueRunners::Runner {
  QueueRunnerDef def;
  std::shared_ptr<Queue> queue;
  std::mutex mu;
  int running = 0;  // threads still looping (TF's runs_per_session)
};

QueueRunners::QueueRunners(Session& session, std::vector<QueueRunnerDef> runners)
    : session_(session), defs_(std::move(runners)) {
  for (const QueueRunnerDef& d : defs_) {
    auto check = [&](const std::string& node, const char* what) {
      if (!node.empty() && !session_.graph().find(node))
        throw Error("queue runner '" + d.queue_name + "': its " + what + " '" + node + "' is not in the graph");
    };
    check(d.queue_name, "queue");
    if (d.queue_name.empty()) throw Error("a queue runner names no queue");
    for (const std::string& e : d.enqueue_op_names) check(e, "enqueue op");
    check(d.close_op_name, "close op");
    check(d.cancel_op_name, "cancel op");
    for (int code : d.queue_closed_exception_types)
      if (code != kOutOfRangeCode)
        throw Error("queue runner '" + d.queue_name + "': queue_closed_exception_types has error code " +
                    std::to_string(code) + "; only OUT_OF_RANGE (11) is supported");
  }
}

QueueRunners::~QueueRunners() { stop(); }

int QueueRunners::num_threads() const {
  int n = 0;
  for (const QueueRunnerDef& d : defs_) n += static_cast<int>(d.enqueue_op_names.size());
  return n;
}

std::string QueueRunners::summary() const {
  std::string s;
  for (const QueueRunnerDef& d : defs_) {
    const size_t n = d.enqueue_op_names.size();
    s += (s.empty() ? "'" : ", '") + d.queue_name + "' (" + std::to_string(n) + (n == 1 ? " thread)" : " threads)");
  }
  return s;
}

std::vector<std::string> QueueRunners::errors() const {
  std::lock_guard lock(mu_);
  return errors_;
}

void QueueRunners::start() {
  if (started_) return;
  started_ = true;
  for (const QueueRunnerDef& d : defs_) {
    auto r = std::make_unique<Runner>();
    r->def = d;
    // The queue node's handle carries the queue itself (made now if no run has).
    const std::vector<Tensor> handle = session_.run({}, {d.queue_name});
    if (handle.empty() || handle[0].dtype() != DType::Resource || handle[0].num_elements() != 1 ||
        !handle[0].handles()[0].get<Queue>())
      throw Error("queue runner '" + d.queue_name + "': '" + d.queue_name + "' does not output a queue handle");
    r->queue = std::static_pointer_cast<Queue>(handle[0].handles()[0].resource);
    r->running = static_cast<int>(d.enqueue_op_names.size());
    std::string ops;
    for (const std::string& e : d.enqueue_op_names) ops += (ops.empty() ? "'" : ", '") + e + "'";
    r->queue->set_runner_status("a queue runner runs its enqueue op" +
                                std::string(d.enqueue_op_names.size() == 1 ? " " : "s ") + ops +
                                " (still running: what it reads may be waiting in turn)");
    runners_.push_back(std::move(r));
  }
  for (auto& r : runners_)
    for (const std::string& e : r->def.enqueue_op_names)
      threads_.emplace_back([this, runner = r.get(), e] { run_thread(*runner, e); });
}

void QueueRunners::close_queue(Runner& r, bool cancel) {
  const std::string& op = cancel ? r.def.cancel_op_name : r.def.close_op_name;
  try {
    if (!op.empty())
      session_.run({}, {}, {op});
    else
      r.queue->close(cancel);
  } catch (const std::exception&) {
    // Like TensorFlow's QueueRunner: errors from the close op are ignored
    // (the queue may be closed already).
  }
}

void QueueRunners::run_thread(Runner& r, const std::string& enqueue_op) {
  bool counted = false;  // whether this thread already left r.running
  try {
    while (!stopping_.load()) {
      try {
        session_.run({}, {}, {enqueue_op});
      } catch (const OutOfRangeError&) {
        // Its input is exhausted: the last thread to finish closes the queue.
        std::lock_guard lock(r.mu);
        counted = true;
        if (--r.running == 0) {
          r.queue->set_runner_status("its queue runner finished: the input of '" + enqueue_op +
                                     "' is exhausted (OutOfRange), and the queue was closed");
          close_queue(r, false);
        }
        return;
      } catch (const DeadlineExceededError&) {
        // The queue stayed full for the blocking timeout: nobody is
        // dequeuing yet; wait again (stop() ends the wait by closing it).
        continue;
      }
    }
  } catch (const std::exception& e) {
    if (!stopping_.load()) {
      const std::string message = "queue runner '" + r.def.queue_name + "': enqueue op '" + enqueue_op +
                                  "' failed: " + e.what();
      {
        std::lock_guard lock(mu_);
        errors_.push_back(message);
      }
      r.queue->set_runner_status("its queue runner stopped: enqueue op '" + enqueue_op + "' failed: " + e.what());
      // Coordinator.request_stop: the consumers must not wait for more.
      close_queue(r, true);
    }
  }
  if (!counted) {
    std::lock_guard lock(r.mu);
    --r.running;
  }
}

void QueueRunners::stop() {
  if (stopping_.exchange(true)) return;
  for (auto& r : runners_) close_queue(*r, true);
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

}  // namespace flowlens
