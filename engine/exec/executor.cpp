#include "exec/executor.h"

#include "common/error.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

namespace flowlens {
namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct RunState {
  const ExecutionPlan& plan;
  std::span<ExecutionObserver* const> observers;
  int64_t run_id;
  std::vector<Tensor> values;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::atomic<int> remaining;
  std::atomic<bool> failed{false};
  RunContext run;  // what kernels see; run.cancelled points at `failed`
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  std::string error;
  // The kernel's exception behind `error`, so its class (OutOfRangeError ...) survives.
  std::exception_ptr cause;

  RunState(const ExecutionPlan& p, std::span<ExecutionObserver* const> obs, int64_t id, const RunContext& context)
      : plan(p), observers(obs), run_id(id), values(static_cast<size_t>(p.num_slots)),
        pending(new std::atomic<int>[p.nodes.size()]), remaining(static_cast<int>(p.nodes.size())), run(context) {
    run.cancelled = &failed;
    for (size_t i = 0; i < p.nodes.size(); ++i) pending[i].store(p.nodes[i].initial_pending, std::memory_order_relaxed);
  }

  void fail(std::string message, std::exception_ptr why = nullptr) {
    std::lock_guard lock(mu);
    if (!failed.exchange(true)) {
      error = std::move(message);
      cause = std::move(why);
    }
  }
};

void process(RunState* st, int index);

// Only on the error path: finds the producer of a slot to name it.
std::string missing_value_message(const ExecutionPlan& plan, int slot) {
  for (const PlanNode& p : plan.nodes)
    if (slot >= p.first_slot && slot < p.first_slot + p.num_outputs) {
      if (p.own_variable) return "Attempting to use uninitialized value " + p.node->name;
      return p.node->op + " '" + p.node->name + "' produced no value for output " +
             std::to_string(slot - p.first_slot);
    }
  return "no value";
}

void run_node(RunState* st, const PlanNode& pn) {
  if (st->failed.load(std::memory_order_relaxed)) return;
  // Scratch space reused per worker thread: no allocation per node.
  thread_local std::vector<Tensor> inputs;
  const size_t n_in = pn.input_slots.size();
  inputs.resize(n_in);
  Device& device = *pn.device;
  for (size_t i = 0; i < n_in; ++i) {
    Tensor value;
    if (Variable* v = pn.input_derefs[i] ? pn.input_derefs[i] : pn.input_refs[i]) {
      // A value read through a ref edge: the variable as it is now, after any
      // update this node was ordered behind (TensorFlow dereferences here too).
      // A ref input may be uninitialized (Assign initializes it).
      std::lock_guard<std::mutex> lock(v->mu);
      value = v->value;
      if (!value.valid() && pn.input_derefs[i]) {
        st->fail("node '" + pn.node->name + "' (" + pn.node->op + "): input " + std::to_string(i) +
                 ": Attempting to use uninitialized value " + v->name);
        inputs.clear();
        return;
      }
    } else {
      value = st->values[static_cast<size_t>(pn.input_slots[i])];
    }
    if (!value.valid() && !pn.input_refs[i]) {
      st->fail("node '" + pn.node->name + "' (" + pn.node->op + "): " +
               "input " + std::to_string(i) + ": " + missing_value_message(st->plan, pn.input_slots[i]));
      inputs.clear();
      return;
    }
    // A value made on another device (or the host) crosses here: the device
    // copies it into its memory, or to the host for host-memory dtypes.
    try {
      inputs[i] = value.valid() ? device.accept_input(value) : value;
    } catch (const std::exception& e) {
      st->fail("node '" + pn.node->name + "' (" + pn.node->op + ") on " + device.short_name() + ": input " +
               std::to_string(i) + ": " + e.what());
      inputs.clear();
      return;
    }
  }
  std::span<Tensor> outputs(st->values.data() + pn.first_slot, static_cast<size_t>(pn.num_outputs));
  KernelContext ctx(*pn.node, std::span<const Tensor>(inputs.data(), n_in), pn.input_refs, outputs, pn.own_variable,
                    &device, device.memory(), pn.def, &device.log_sink(), &st->run);

  const bool observed = !st->observers.empty();
  int64_t start = observed ? now_ns() : 0;
  const std::span<const Tensor> observed_inputs(inputs.data(), n_in);
  try {
    // Inside the try so an observer (the debugger's stop) can abort the run.
    if (observed) {
      NodeEvent ev{*pn.node, pn.graph_index, *pn.device, start, 0, observed_inputs};
      for (auto* o : st->observers) o->on_node_start(st->run_id, ev);
      // The node's time starts when its kernel does, so on_node_end's
      // start_ns is after every on_node_start returned: a worker an observer
      // held (the debugger's pause, its gate while another node is stopped)
      // was waiting, not computing, and profilers must not charge the node.
      start = now_ns();
    }
    pn.kernel(ctx);
    // Memory-agnostic kernels shared with the CPU (Const, a Variable restored
    // on the host) may leave a float output on the host; on a device, outputs
    // live in its memory like TensorFlow's, so consumers never re-copy them.
    if (device.memory())
      for (Tensor& t : outputs)
        if (t.valid() && t.on_host() && lives_in_device_memory(t.dtype())) t = device.accept_input(t);
    // Observers see finished work: an asynchronous device's kernel has only
    // been queued, so wait for it (a debugged or profiled run is synchronous,
    // like tfdbg's).
    if (observed && device.memory()) device.synchronize();
  } catch (const std::exception& e) {
    st->fail("node '" + pn.node->name + "' (" + pn.node->op + ") on " + pn.device->short_name() + ": " + e.what(),
             std::current_exception());
  }
  if (observed) {
    NodeEvent ev{*pn.node, pn.graph_index, *pn.device, start, now_ns(), observed_inputs};
    try {
      for (auto* o : st->observers) o->on_node_end(st->run_id, ev, outputs);
    } catch (const std::exception& e) {
      st->fail("node '" + pn.node->name + "' (" + pn.node->op + ") on " + pn.device->short_name() + ": " + e.what());
    }
  }
  for (size_t i = 0; i < n_in; ++i) inputs[i] = Tensor();  // drop references promptly
}

void schedule(RunState* st, int index) {
  st->plan.nodes[static_cast<size_t>(index)].device->pool().schedule([st, index] { process(st, index); });
}

void process(RunState* st, int index) {
  while (index >= 0) {
    const PlanNode& pn = st->plan.nodes[static_cast<size_t>(index)];
    run_node(st, pn);
    int next = -1;
    for (int c : pn.consumers) {
      if (st->pending[static_cast<size_t>(c)].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
      if (next < 0 && st->plan.nodes[static_cast<size_t>(c)].device == pn.device)
        next = c;
      else
        schedule(st, c);
    }
    if (st->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // Notify under the lock: the waiter destroys *st as soon as it sees done.
      std::lock_guard lock(st->mu);
      st->done = true;
      st->done_cv.notify_all();
      return;
    }
    index = next;
  }
}

}  // namespace

std::vector<Tensor> execute_plan(const ExecutionPlan& plan, std::span<const Tensor> feed_values,
                                 std::span<ExecutionObserver* const> observers, int64_t run_id,
                                 const RunContext& run) {
  RunState st(plan, observers, run_id, run);
  for (size_t i = 0; i < plan.feed_slots.size(); ++i) st.values[static_cast<size_t>(plan.feed_slots[i])] = feed_values[i];
  for (auto* o : observers) o->on_run_start(run_id, static_cast<int>(plan.nodes.size()));

  if (!plan.nodes.empty()) {
    if (plan.roots.empty()) throw Error("cannot run: every needed node waits on another (a cycle)");
    for (int r : plan.roots) schedule(&st, r);
    std::unique_lock lock(st.mu);
    st.done_cv.wait(lock, [&] { return st.done; });
  }
  // A run ends when its device work has finished, not when it was queued
  // (and an asynchronous kernel failure belongs to this run).
  for (Device* d : plan.async_devices) {
    try {
      d->synchronize();
    } catch (const std::exception& e) {
      st.fail(d->short_name() + ": " + e.what());
    }
  }
  for (auto* o : observers) o->on_run_end(run_id, !st.failed.load());
  if (st.failed.load()) {
    if (st.cause) {
      try {
        std::rethrow_exception(st.cause);
      } catch (const std::exception& e) {
        rethrow_as(e, st.error);  // OutOfRangeError stays one
      }
    }
    throw Error(st.error);
  }

  std::vector<Tensor> results;
  results.reserve(plan.fetch_slots.size());
  for (size_t i = 0; i < plan.fetch_slots.size(); ++i) {
    const Tensor& t = st.values[static_cast<size_t>(plan.fetch_slots[i])];
    if (!t.valid()) throw Error("fetch '" + plan.fetch_names[i] + "': " + missing_value_message(plan, plan.fetch_slots[i]));
    results.push_back(t.to_host());  // fetches are host tensors, wherever they were made
  }
  return results;
}

}  // namespace flowlens
