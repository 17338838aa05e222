#include "exec/executor.h"

#include "exec/device_outputs.h"

#include "common/error.h"
#include "ops/framework/rendezvous.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <exception>
#include <memory>
#include <mutex>
#include <string_view>
#include <tuple>

namespace flowlens {
namespace {

// What both executors share: the plan, observers, failure and the waiter.
struct RunShared {
  const ExecutionPlan& plan;
  std::span<ExecutionObserver* const> observers;
  int64_t run_id;
  std::atomic<bool> failed{false};
  RunContext run;  // what kernels see; run.cancelled points at `failed`
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  std::string error;
  // The kernel's exception behind `error`, so its class (OutOfRangeError ...) survives.
  std::exception_ptr cause;

  // Set when every observer takes queue-time marks (needs_finished_work()
  // false): device nodes are then not waited for one by one.
  bool marks_only = false;
  // A device node's on_node_end, held until its device has finished.
  struct DeferredEnd {
    const Node* node;
    int graph_index;
    const Device* device;
    std::string frame;
    int64_t iteration;
    std::vector<Tensor> outputs;
    std::shared_ptr<const DeviceMark> begin, end;
  };
  std::mutex deferred_mu;
  std::vector<DeferredEnd> deferred;

  RunShared(const ExecutionPlan& p, std::span<ExecutionObserver* const> obs, int64_t id, const RunContext& context)
      : plan(p), observers(obs), run_id(id), run(context) {
    run.cancelled = &failed;
    marks_only = !observers.empty();
    for (auto* o : observers) marks_only = marks_only && !o->needs_finished_work();
    if (marks_only)
      for (Device* d : plan.async_devices) d->begin_marks();
  }

  // A run ends when its device work has finished, not when it was queued
  // (and an asynchronous kernel failure belongs to this run); then the
  // deferred on_node_end calls go out, with the devices' times.
  void finish_device_work() {
    for (Device* d : plan.async_devices) {
      try {
        d->synchronize();
      } catch (const std::exception& e) {
        fail(d->short_name() + ": " + e.what());
      }
    }
    std::vector<DeferredEnd> ends;
    {
      std::lock_guard lock(deferred_mu);
      ends.swap(deferred);
    }
    for (const DeferredEnd& d : ends) {
      NodeEvent ev{*d.node, d.graph_index, *d.device, d.begin->host_ns(), d.end->host_ns()};
      ev.frame = d.frame;
      ev.iteration = d.iteration;
      try {
        for (auto* o : observers) o->on_node_end(run_id, ev, d.outputs);
      } catch (const std::exception& e) {
        fail(d.node->name + ": " + e.what());
      }
    }
  }

  void fail(std::string message, std::exception_ptr why = nullptr) {
    std::string first;
    {
      std::lock_guard lock(mu);
      if (failed.exchange(true)) return;
      error = message;
      cause = std::move(why);
      first = std::move(message);
    }
    // The step's other partitions stop waiting for what this one will not
    // send, and this run's own pending _Recvs complete (with the error), so
    // the run can end. Outside the lock: the aborted receivers call back
    // into this run.
    if (run.rendezvous) run.rendezvous->abort(run.step_id, first);
  }
  // Notify under the lock: the waiter destroys the state as soon as it sees done.
  void finish() {
    std::lock_guard lock(mu);
    done = true;
    done_cv.notify_all();
  }
};

// Ends a failed run: the first failure's message, thrown as the class the
// kernel threw (OutOfRangeError stays one, so a training loop ends cleanly).
[[noreturn]] void throw_failure(const RunShared& st) {
  if (st.cause) {
    try {
      std::rethrow_exception(st.cause);
    } catch (const std::exception& e) {
      rethrow_as(e, st.error);
    }
  }
  throw Error(st.error);
}

struct RunState : RunShared {
  std::vector<Tensor> values;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::atomic<int> remaining;

  RunState(const ExecutionPlan& p, std::span<ExecutionObserver* const> obs, int64_t id, const RunContext& context)
      : RunShared(p, obs, id, context), values(static_cast<size_t>(p.num_slots)),
        pending(new std::atomic<int>[p.nodes.size()]), remaining(static_cast<int>(p.nodes.size())) {
    for (size_t i = 0; i < p.nodes.size(); ++i) pending[i].store(p.nodes[i].initial_pending, std::memory_order_relaxed);
  }
};

// Where a node runs inside TensorFlow 1 control flow; frame is "" at the top.
struct Where {
  std::string_view frame;
  int64_t iteration = 0;
};

// "node 'x' (MatMul)", with " on /gpu:0" and " in frame 'f' iteration 3"
// when given: every node error starts with it.
std::string node_label(const PlanNode& pn, const Where& where, bool with_device) {
  std::string s = "node '" + pn.node->name + "' (" + pn.node->op + ")";
  if (with_device) s += " on " + pn.device->short_name();
  if (!where.frame.empty())
    s += " in frame '" + std::string(where.frame) + "' iteration " + std::to_string(where.iteration);
  return s;
}

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

// Runs one node's kernel: inputs gathered from `source` (values, and which
// are dead: only a Merge runs with dead inputs, which it sees as empty
// tensors), outputs written to `outputs`, observers told. Shared by the flat
// and the frame executor; `Source` is a small struct the compiler inlines.
template <class Source>
void run_node(RunShared* st, const PlanNode& pn, const Source& source, std::span<Tensor> outputs, const Where& where) {
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
        st->fail(node_label(pn, where, false) + ": input " + std::to_string(i) +
                 ": Attempting to use uninitialized value " + v->name);
        inputs.clear();
        return;
      }
    } else {
      value = source.value(i);
    }
    if (!value.valid() && !pn.input_refs[i] && !source.dead(i)) {
      st->fail(node_label(pn, where, false) + ": input " + std::to_string(i) + ": " + source.missing(i));
      inputs.clear();
      return;
    }
    // A value made on another device (or the host) crosses here: the device
    // copies it into its memory, or to the host for host-memory dtypes.
    try {
      inputs[i] = value.valid() ? device.accept_input(value) : value;
    } catch (const std::exception& e) {
      st->fail(node_label(pn, where, true) + ": input " + std::to_string(i) + ": " + e.what());
      inputs.clear();
      return;
    }
  }
  KernelContext ctx(*pn.node, std::span<const Tensor>(inputs.data(), n_in), pn.input_refs, outputs, pn.own_variable,
                    &device, device.memory(), pn.def, &device.log_sink(), &st->run);

  const bool observed = !st->observers.empty();
  int64_t start = observed ? node_event_clock_ns() : 0;
  std::shared_ptr<const DeviceMark> begin_mark;  // set when this node's end is deferred
  const std::span<const Tensor> observed_inputs(inputs.data(), n_in);
  try {
    // Inside the try so an observer (the debugger's stop) can abort the run.
    if (observed) {
      NodeEvent ev{*pn.node, pn.graph_index, *pn.device, start, 0, observed_inputs};
      ev.frame = where.frame;
      ev.iteration = where.iteration;
      for (auto* o : st->observers) o->on_node_start(st->run_id, ev);
      // The node's time starts when its kernel does, so on_node_end's
      // start_ns is after every on_node_start returned: a worker an observer
      // held (the debugger's pause, its gate while another node is stopped)
      // was waiting, not computing, and profilers must not charge the node.
      start = node_event_clock_ns();
      if (st->marks_only && device.memory()) begin_mark = device.mark();
    }
    if (!reuse_device_constant(pn, outputs)) {
      pn.kernel(ctx);
      if (device.memory()) adopt_outputs(pn, device, outputs);
    }
    // Observers see finished work: an asynchronous device's kernel has only
    // been queued, so wait for it (a debugged run is synchronous, like
    // tfdbg's), unless they take queue-time marks (a profiled run).
    if (observed && device.memory() && !begin_mark) device.synchronize();
  } catch (const std::exception& e) {
    st->fail(node_label(pn, where, true) + ": " + e.what(), std::current_exception());
  }
  if (begin_mark) {
    std::shared_ptr<const DeviceMark> end_mark = device.mark();
    RunShared::DeferredEnd d{pn.node, pn.graph_index, pn.device, std::string(where.frame), where.iteration,
                             std::vector<Tensor>(outputs.begin(), outputs.end()), begin_mark,
                             end_mark ? end_mark : begin_mark};
    std::lock_guard lock(st->deferred_mu);
    st->deferred.push_back(std::move(d));
  } else if (observed) {
    NodeEvent ev{*pn.node, pn.graph_index, *pn.device, start, node_event_clock_ns(), observed_inputs};
    ev.frame = where.frame;
    ev.iteration = where.iteration;
    try {
      for (auto* o : st->observers) o->on_node_end(st->run_id, ev, outputs);
    } catch (const std::exception& e) {
      st->fail(node_label(pn, where, true) + ": " + e.what());
    }
  }
  for (size_t i = 0; i < n_in; ++i) inputs[i] = Tensor();  // drop references promptly
}

// A _Recv (PlanNode::receives): asks the run's rendezvous for its value and
// returns at once; `complete` gets the value, or an invalid tensor when the
// wait failed (the run has failed then), exactly once, on a thread of the
// node's device pool, maybe before this returns. Observers see the
// node start when the wait begins and end when the value came, so a
// timeline shows the wait.
template <class Complete>
void receive(RunShared* st, const PlanNode& pn, const Where& where, Complete complete) {
  Rendezvous* rendezvous = st->run.rendezvous;
  if (!rendezvous) {
    st->fail(node_label(pn, where, false) +
             ": runs only as part of a distributed step: this run has no rendezvous to receive from");
    complete(Tensor());
    return;
  }
  const bool observed = !st->observers.empty();
  const int64_t start = observed ? node_event_clock_ns() : 0;
  if (observed) {
    NodeEvent ev{*pn.node, pn.graph_index, *pn.device, start, 0};
    ev.frame = where.frame;
    ev.iteration = where.iteration;
    try {
      for (auto* o : st->observers) o->on_node_start(st->run_id, ev);
    } catch (const std::exception& e) {
      st->fail(node_label(pn, where, true) + ": " + e.what(), std::current_exception());
      complete(Tensor());
      return;
    }
  }
  auto arrived = [st, &pn, observed, start, frame = std::string(where.frame), iteration = where.iteration,
                  complete = std::move(complete)](Tensor value, std::exception_ptr error) mutable {
    const Where at{frame, iteration};
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        st->fail(node_label(pn, at, false) + ": " + e.what(), error);
      } catch (...) {
        st->fail(node_label(pn, at, false) + ": the receive failed");
      }
      value = Tensor();
    } else if (value.dtype() != pn.receive_dtype) {
      st->fail(node_label(pn, at, false) + ": received a " + dtype_name(value.dtype()) + " tensor for key '" +
               pn.receive_key + "', but its tensor_type is " + dtype_name(pn.receive_dtype));
      value = Tensor();
    } else {
      try {
        value = pn.device->accept_input(value);
      } catch (const std::exception& e) {
        st->fail(node_label(pn, at, true) + ": " + e.what(), std::current_exception());
        value = Tensor();
      }
    }
    if (observed) {
      NodeEvent ev{*pn.node, pn.graph_index, *pn.device, start, node_event_clock_ns()};
      ev.frame = at.frame;
      ev.iteration = at.iteration;
      try {
        for (auto* o : st->observers) o->on_node_end(st->run_id, ev, std::span<const Tensor>(&value, 1));
      } catch (const std::exception& e) {
        st->fail(node_label(pn, at, true) + ": " + e.what());
      }
    }
    complete(std::move(value));
  };
  // The value arrives on whatever thread completed the wait: a socket's
  // serving thread, a sender's kernel, an aborter holding its own locks.
  // The node's observers (a debugger may stop there) and its consumers run
  // on the node's device pool instead, as TensorFlow's executor does.
  auto done = [&pn, arrived = std::move(arrived)](Tensor value, std::exception_ptr error) {
    pn.device->pool().schedule([arrived, value = std::move(value), error]() mutable { arrived(std::move(value), error); });
  };
  // Nothing of `st` is touched after this: the completion may end the run.
  rendezvous->recv_async(pn.receive_key, st->run.step_id, std::move(done));
}

// The flat executor's inputs: the producers' output slots.
struct SlotSource {
  const RunState* st;
  const PlanNode& pn;
  const Tensor& value(size_t i) const { return st->values[static_cast<size_t>(pn.input_slots[i])]; }
  static bool dead(size_t) { return false; }
  std::string missing(size_t i) const { return missing_value_message(st->plan, pn.input_slots[i]); }
};

void run_node(RunState* st, const PlanNode& pn) {
  std::span<Tensor> outputs(st->values.data() + pn.first_slot, static_cast<size_t>(pn.num_outputs));
  run_node(st, pn, SlotSource{st, pn}, outputs, Where{});
}

void process(RunState* st, int index);

void schedule(RunState* st, int index) {
  st->plan.nodes[static_cast<size_t>(index)].device->pool().schedule([st, index] { process(st, index); });
}

// Node `index` is done: its consumers that became ready go to their
// devices' queues, except one on `keep_on`, returned for the calling worker
// to run next (-1: none). Ends the run after its last node (st may be gone
// when this returns -1).
int complete_node(RunState* st, int index, const Device* keep_on) {
  const PlanNode& pn = st->plan.nodes[static_cast<size_t>(index)];
  int next = -1;
  for (int c : pn.consumers) {
    if (st->pending[static_cast<size_t>(c)].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
    if (next < 0 && keep_on && st->plan.nodes[static_cast<size_t>(c)].device == keep_on)
      next = c;
    else
      schedule(st, c);
  }
  if (st->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    st->finish();
    return -1;
  }
  return next;
}

void process(RunState* st, int index) {
  while (index >= 0) {
    const PlanNode& pn = st->plan.nodes[static_cast<size_t>(index)];
    if (pn.receives && !st->failed.load(std::memory_order_relaxed)) {
      // The worker goes on with other nodes; the value's arrival stores it
      // and queues the consumers (from a thread of the device's pool).
      receive(st, pn, Where{}, [st, index](Tensor value) {
        st->values[static_cast<size_t>(st->plan.nodes[static_cast<size_t>(index)].first_slot)] = std::move(value);
        complete_node(st, index, nullptr);
      });
      return;
    }
    run_node(st, pn);
    index = complete_node(st, index, pn.device);
  }
}

// ---- The frame executor ------------------------------------------------------
// TensorFlow 1 control flow, as TensorFlow's PropagatorState runs it: every
// frame instance (the root, or one loop entered from one iteration of its
// parent) keeps per-iteration state: pending and dead counts per node and the
// nodes' input tensors. A node whose input is dead does not run and makes
// its outputs dead; a Merge runs on its first live data input, and is dead
// only when all are. Enter leads into a child frame, NextIteration on to the
// next iteration (at most parallel_iterations at once), Exit out to the
// parent. An iteration's state is freed once it and every iteration before
// it has finished, so a long loop holds only the iterations in flight.
// Propagation is under one mutex; kernels run outside it.

using CF = ControlFlowPlan;

struct Entry {
  Tensor value;
  bool live = false;
};

struct CfIteration {
  int64_t num = 0;
  std::vector<int> pending, dead;
  std::vector<Entry> inputs;
  int outstanding_ops = 0;     // nodes of this iteration ready or running
  int outstanding_frames = 0;  // child frames entered from this iteration, not yet finished
};

struct CfFrame {
  int frame = 0;  // index into ControlFlowPlan::frames
  CfFrame* parent = nullptr;
  CfIteration* parent_iter = nullptr;
  int64_t iteration_count = 0;  // the newest iteration
  int num_outstanding_iterations = 1;
  int num_pending_inputs = 0;  // Enter nodes not yet run
  std::map<int64_t, std::unique_ptr<CfIteration>> iterations;
  std::vector<std::pair<int, Entry>> next_iter_roots;  // NextIteration values waiting for a free iteration
  std::vector<std::pair<int, Entry>> inv_values;       // is_constant Enter values, for every iteration
  std::vector<int> dead_exits;
};

struct Tagged {
  CfFrame* frame = nullptr;
  CfIteration* iter = nullptr;
  int node = -1;
  bool dead = false;
};

struct CfState : RunShared {
  const CF& cf;
  std::span<const Tensor> feeds;
  std::mutex prop_mu;  // guards everything below
  std::map<std::tuple<const CfFrame*, int64_t, int>, std::unique_ptr<CfFrame>> frames;  // child frames
  CfFrame root;
  int64_t outstanding = 0;        // tagged nodes ready or running, in all frames
  std::vector<char> root_ran;     // per plan node: processed in the root frame
  std::vector<Tensor> fetch_values;
  std::vector<uint8_t> fetch_state;  // 0 not produced, 1 live, 2 dead

  CfState(const ExecutionPlan& p, std::span<ExecutionObserver* const> obs, int64_t id, const RunContext& context,
          std::span<const Tensor> feed_values)
      : RunShared(p, obs, id, context), cf(*p.control_flow), feeds(feed_values), root_ran(p.nodes.size(), 0),
        fetch_values(p.fetch_slots.size()), fetch_state(p.fetch_slots.size(), 0) {
    root.iterations.emplace(0, new_iteration(0, 0));
  }

  std::unique_ptr<CfIteration> new_iteration(int frame, int64_t num) const {
    const CF::Frame& f = cf.frames[static_cast<size_t>(frame)];
    auto it = std::make_unique<CfIteration>();
    it->num = num;
    it->pending.resize(static_cast<size_t>(f.num_nodes));
    it->dead.assign(static_cast<size_t>(f.num_nodes), 0);
    it->inputs.resize(static_cast<size_t>(f.num_inputs));
    for (size_t p = 0; p < cf.nodes.size(); ++p)
      if (cf.nodes[p].frame == frame) it->pending[static_cast<size_t>(cf.nodes[p].local)] = cf.nodes[p].initial_pending;
    return it;
  }

  std::string_view frame_name(const CfFrame* f) const { return cf.frames[static_cast<size_t>(f->frame)].name; }

  // ---- activation (TensorFlow's ActivateNodesSlowPath) ----------------------
  // Delivers node `src`'s outputs (all dead when `dead`) to its consumers in
  // (frame, iter); appends the ones that became ready. Returns how many.
  int activate(CfFrame* frame, CfIteration* iter, int src, bool dead, std::span<const Entry> outs,
               std::vector<Tagged>& ready) {
    const CF::NodeInfo& s = cf.nodes[static_cast<size_t>(src)];
    if (frame == &root)
      for (auto [k, port] : s.fetches) {
        const Entry& o = outs[static_cast<size_t>(port)];
        const bool live = !dead && o.live;
        fetch_state[static_cast<size_t>(k)] = live ? 1 : 2;
        if (live) fetch_values[static_cast<size_t>(k)] = o.value;
      }
    int activated = 0;
    for (const CF::Edge& e : s.out) {
      const CF::NodeInfo& d = cf.nodes[static_cast<size_t>(e.dst)];
      const auto id = static_cast<size_t>(d.local);
      int& pending = iter->pending[id];
      int& dead_count = iter->dead[id];
      bool dst_ready = false, dst_dead = false;
      if (e.src_port >= 0) {
        const Entry& o = outs[static_cast<size_t>(e.src_port)];
        const bool live = !dead && o.live;
        Entry& slot = iter->inputs[static_cast<size_t>(d.input_base + e.dst_input)];
        if (d.kind == CF::Kind::Merge) {
          if (live) {
            slot = o;
            const int before = pending;
            if (before & 1) pending = before - 1;  // bit 0: still waiting for a live input
            dst_ready = before == 1;
          } else {
            // A dead Enter makes a loop's Merge dead at once: a loop on the
            // untaken branch of a cond ends dead (TensorFlow does the same).
            ++dead_count;
            dst_dead = dead_count == d.num_data_inputs || s.kind == CF::Kind::Enter;
            dst_ready = pending == 1 && dst_dead;
          }
        } else {
          slot = live ? o : Entry{};
          if (!live) ++dead_count;
          dst_ready = --pending == 0;
          dst_dead = dead_count > 0;
        }
      } else if (d.kind == CF::Kind::Merge) {
        pending -= 2;
        dst_dead = dead_count == d.num_data_inputs;
        dst_ready = pending == 0 || (pending == 1 && dst_dead);
      } else {
        if (dead) ++dead_count;
        dst_ready = --pending == 0;
        dst_dead = dead_count > 0;
      }
      if (!dst_ready) continue;
      if (d.kind == CF::Kind::ControlTrigger) dst_dead = false;
      ready.push_back({frame, iter, e.dst, dst_dead});
      ++activated;
    }
    return activated;
  }

  // ---- frames and iterations (TensorFlow's FrameState) --------------------
  CfFrame* find_or_create_child(CfFrame* frame, CfIteration* iter, int child_frame) {
    auto key = std::make_tuple(static_cast<const CfFrame*>(frame), iter->num, child_frame);
    auto found = frames.find(key);
    if (found != frames.end()) return found->second.get();
    auto child = std::make_unique<CfFrame>();
    child->frame = child_frame;
    child->parent = frame;
    child->parent_iter = iter;
    child->num_pending_inputs = cf.frames[static_cast<size_t>(child_frame)].num_enters;
    child->iterations.emplace(0, new_iteration(child_frame, 0));
    ++iter->outstanding_frames;
    CfFrame* raw = child.get();
    frames.emplace(key, std::move(child));
    return raw;
  }

  CfIteration* iteration(CfFrame* frame, int64_t num) {
    auto it = frame->iterations.find(num);
    return it == frame->iterations.end() ? nullptr : it->second.get();
  }

  bool iteration_done(CfFrame* frame, CfIteration* iter) {
    if (iter->outstanding_ops != 0 || iter->outstanding_frames != 0) return false;
    if (iter->num == 0) return frame->num_pending_inputs == 0;
    return iteration(frame, iter->num - 1) == nullptr;  // the one before it finished
  }

  static bool frame_done(const CfFrame* frame) {
    return frame->num_pending_inputs == 0 && frame->num_outstanding_iterations == 0;
  }

  // A new newest iteration, fed the deferred NextIteration values and the
  // loop invariants.
  CfIteration* increment_iteration(CfFrame* frame, std::vector<Tagged>& ready) {
    const int64_t num = ++frame->iteration_count;
    CfIteration* next = frame->iterations.emplace(num, new_iteration(frame->frame, num)).first->second.get();
    ++frame->num_outstanding_iterations;
    frame->dead_exits.clear();
    int activated = 0;
    for (auto& [node, entry] : frame->next_iter_roots)
      activated += activate(frame, next, node, !entry.live, std::span<const Entry>(&entry, 1), ready);
    frame->next_iter_roots.clear();
    for (auto& [node, entry] : frame->inv_values)
      activated += activate(frame, next, node, !entry.live, std::span<const Entry>(&entry, 1), ready);
    next->outstanding_ops += activated;
    return next;
  }

  // Frees finished iterations from `iter` on; true when the frame finished.
  bool cleanup_iterations(CfFrame* frame, CfIteration* iter, std::vector<Tagged>& ready) {
    if (frame == &root) return false;  // the root's state lives until the run ends
    int64_t cur = iter->num;
    while (cur <= frame->iteration_count && iter && iteration_done(frame, iter)) {
      frame->iterations.erase(cur);
      --frame->num_outstanding_iterations;
      ++cur;
      if (!frame->next_iter_roots.empty()) increment_iteration(frame, ready);
      iter = iteration(frame, cur);
    }
    return frame_done(frame);
  }

  bool adjust_outstanding(CfFrame* frame, CfIteration* iter, int delta, std::vector<Tagged>& ready) {
    iter->outstanding_ops += delta;
    if (iter->outstanding_ops != 0) return false;
    return cleanup_iterations(frame, iter, ready);
  }

  // A finished frame: its dead Exits reach the parent as dead inputs, then
  // the parent iteration may finish in turn.
  void delete_frame(CfFrame* frame, std::vector<Tagged>& ready) {
    CfFrame* parent = frame->parent;
    CfIteration* piter = frame->parent_iter;
    for (int exit : frame->dead_exits) {
      const size_t before = ready.size();
      activate(parent, piter, exit, true, {}, ready);
      piter->outstanding_ops += static_cast<int>(ready.size() - before);
    }
    frames.erase(std::make_tuple(static_cast<const CfFrame*>(parent), piter->num, frame->frame));
    --piter->outstanding_frames;
    if (cleanup_iterations(parent, piter, ready)) finish_frame(parent, ready);
  }

  void finish_frame(CfFrame* frame, std::vector<Tagged>& ready) {
    if (frame != &root) delete_frame(frame, ready);
  }

  // ---- after a node ran (TensorFlow's PropagateOutputs) ---------------------
  void propagate(const Tagged& t, std::span<const Entry> outs, std::vector<Tagged>& ready) {
    const CF::NodeInfo& info = cf.nodes[static_cast<size_t>(t.node)];
    if (t.frame == &root) root_ran[static_cast<size_t>(t.node)] = 1;
    CfFrame* frame = t.frame;
    CfIteration* iter = t.iter;
    bool done = false;
    switch (info.kind) {
      case CF::Kind::Enter: {
        CfFrame* child = find_or_create_child(frame, iter, info.enter_frame);
        if (info.is_constant) {
          // A loop invariant: every iteration, those to come included, sees it.
          const Entry value = t.dead ? Entry{} : outs[0];
          child->inv_values.emplace_back(t.node, value);
          for (auto& [num, it] : child->iterations) {
            const int activated = activate(child, it.get(), t.node, t.dead, std::span<const Entry>(&value, 1), ready);
            it->outstanding_ops += activated;
          }
        } else {
          CfIteration* first = iteration(child, 0);
          if (first) first->outstanding_ops += activate(child, first, t.node, t.dead, outs, ready);
        }
        --child->num_pending_inputs;
        // The last Enter may leave nothing to run (every consumer waits on
        // a dead value): the child frame is then already finished.
        if (child->num_pending_inputs == 0 && !child->iterations.empty()) {
          CfIteration* first = child->iterations.begin()->second.get();
          if (first->outstanding_ops == 0 && cleanup_iterations(child, first, ready)) delete_frame(child, ready);
        }
        done = adjust_outstanding(frame, iter, -1, ready);
        break;
      }
      case CF::Kind::Exit:
        if (t.dead) {
          if (iter->num == frame->iteration_count) frame->dead_exits.push_back(t.node);
        } else if (frame->parent) {
          frame->parent_iter->outstanding_ops += activate(frame->parent, frame->parent_iter, t.node, false, outs, ready);
        }
        done = adjust_outstanding(frame, iter, -1, ready);
        break;
      case CF::Kind::NextIteration:
        if (!t.dead) {
          const int max_parallel = cf.frames[static_cast<size_t>(frame->frame)].parallel_iterations;
          if (iter->num == frame->iteration_count) {
            if (frame->num_outstanding_iterations >= max_parallel) {
              frame->next_iter_roots.emplace_back(t.node, outs[0]);  // released when an iteration finishes
            } else {
              CfIteration* next = increment_iteration(frame, ready);
              adjust_outstanding(frame, next, activate(frame, next, t.node, false, outs, ready), ready);
            }
          } else if (CfIteration* next = iteration(frame, iter->num + 1)) {
            adjust_outstanding(frame, next, activate(frame, next, t.node, false, outs, ready), ready);
          }
        }
        done = adjust_outstanding(frame, iter, -1, ready);
        break;
      default:
        done = adjust_outstanding(frame, iter, activate(frame, iter, t.node, t.dead, outs, ready) - 1, ready);
        break;
    }
    if (done) finish_frame(frame, ready);
  }

  // Only on the error path: names the producer of input i of plan node p.
  std::string missing(int p, size_t i) const {
    for (size_t src = 0; src < cf.nodes.size(); ++src)
      for (const CF::Edge& e : cf.nodes[src].out)
        if (e.dst == p && e.dst_input == static_cast<int>(i)) {
          const PlanNode& pn = plan.nodes[src];
          if (pn.own_variable) return "Attempting to use uninitialized value " + pn.node->name;
          return pn.node->op + " '" + pn.node->name + "' produced no value for output " + std::to_string(e.src_port);
        }
    return "no value";
  }

  // The run stalled (nothing ready, nothing running): what never ran.
  std::string stall_message() const {
    std::string names;
    int count = 0;
    for (size_t p = 0; p < plan.nodes.size(); ++p)
      if (cf.nodes[p].frame == 0 && !root_ran[p]) {
        if (count++ < 5) names += std::string(count > 1 ? ", " : "") + "'" + plan.nodes[p].node->name + "'";
      }
    std::string msg = "cannot run: nothing is ready, but ";
    if (count > 0)
      msg += std::to_string(count) + " node(s) have not run (" + names + (count > 5 ? ", ..." : "") +
             "): they wait on each other or on a loop that never finishes";
    else
      msg += "the loop frame(s) never finished";
    if (!frames.empty()) {
      msg += "; unfinished frame(s):";
      int listed = 0;
      for (const auto& [key, f] : frames)
        if (listed++ < 5)
          msg += " '" + std::string(frame_name(f.get())) + "' at iteration " + std::to_string(f->iteration_count);
    }
    return msg;
  }
};

struct EntrySource {
  const CfState* st;
  int node;
  std::span<const Entry> entries;
  const Tensor& value(size_t i) const { return entries[i].value; }
  bool dead(size_t i) const { return !entries[i].live; }
  std::string missing(size_t i) const { return st->missing(node, i); }
};

void cf_schedule(CfState* st, const Tagged& t);

// A live _Recv in the frame executor (only in the root frame: the plan
// refuses transfers inside loops): its arrival propagates like any node's
// completion, every newly ready node queued on its device.
void cf_receive(CfState* st, const Tagged& t) {
  const PlanNode& pn = st->plan.nodes[static_cast<size_t>(t.node)];
  receive(st, pn, Where{st->frame_name(t.frame), t.iter->num}, [st, t](Tensor value) {
    std::vector<Entry> outs(1);
    outs[0] = Entry{std::move(value), true};
    std::vector<Tagged> ready;
    bool finished = false;
    {
      std::lock_guard lock(st->prop_mu);
      if (!st->failed.load(std::memory_order_relaxed)) st->propagate(t, outs, ready);
      st->outstanding += static_cast<int64_t>(ready.size()) - 1;
      finished = st->outstanding == 0;
    }
    if (finished) {
      st->finish();
      return;
    }
    for (const Tagged& r : ready) cf_schedule(st, r);
  });
}

void cf_process(CfState* st, Tagged t) {
  thread_local std::vector<Entry> inputs;
  thread_local std::vector<Tensor> out_values;
  std::vector<Entry> outs;
  std::vector<Tagged> ready;
  while (true) {
    const PlanNode& pn = st->plan.nodes[static_cast<size_t>(t.node)];
    const CF::NodeInfo& info = st->cf.nodes[static_cast<size_t>(t.node)];
    if (pn.receives && !t.dead && !st->failed.load(std::memory_order_relaxed)) {
      cf_receive(st, t);  // st may be gone when it returns
      return;
    }
    const auto n_in = static_cast<size_t>(info.num_data_inputs);
    {
      // Take this node's inputs out of its iteration (freeing them early).
      std::lock_guard lock(st->prop_mu);
      inputs.resize(n_in);
      for (size_t i = 0; i < n_in; ++i)
        inputs[i] = std::move(t.iter->inputs[static_cast<size_t>(info.input_base) + i]);
    }
    outs.assign(static_cast<size_t>(pn.num_outputs), Entry{});
    if (!t.dead && !st->failed.load(std::memory_order_relaxed)) {
      out_values.assign(static_cast<size_t>(pn.num_outputs), Tensor());
      const Where where{st->frame_name(t.frame), t.iter->num};
      run_node(st, pn, EntrySource{st, t.node, inputs}, out_values, where);
      // Only a Switch may leave an output empty: that output is dead.
      const bool empty_is_dead = info.kind == CF::Kind::Switch;
      for (size_t k = 0; k < outs.size(); ++k) {
        outs[k].live = !empty_is_dead || out_values[k].valid();
        outs[k].value = std::move(out_values[k]);
      }
    }
    for (Entry& e : inputs) e = Entry{};
    ready.clear();
    bool finished = false;
    {
      std::lock_guard lock(st->prop_mu);
      if (!st->failed.load(std::memory_order_relaxed)) st->propagate(t, outs, ready);
      st->outstanding += static_cast<int64_t>(ready.size()) - 1;
      finished = st->outstanding == 0;
    }
    outs.clear();
    if (finished) {
      st->finish();
      return;
    }
    if (ready.empty()) return;
    // Keep one ready node on this device for this worker (no queue hop).
    size_t keep = ready.size();
    for (size_t i = 0; i < ready.size(); ++i)
      if (st->plan.nodes[static_cast<size_t>(ready[i].node)].device == pn.device) {
        keep = i;
        break;
      }
    for (size_t i = 0; i < ready.size(); ++i)
      if (i != keep) cf_schedule(st, ready[i]);
    if (keep == ready.size()) return;
    t = ready[keep];
  }
}

void cf_schedule(CfState* st, const Tagged& t) {
  st->plan.nodes[static_cast<size_t>(t.node)].device->pool().schedule([st, t] { cf_process(st, t); });
}

std::vector<Tensor> execute_frames(const ExecutionPlan& plan, std::span<const Tensor> feed_values,
                                   std::span<ExecutionObserver* const> observers, int64_t run_id,
                                   const RunContext& run) {
  CfState st(plan, observers, run_id, run, feed_values);
  const CF& cf = *plan.control_flow;
  for (auto* o : observers) o->on_run_start(run_id, static_cast<int>(plan.nodes.size()));
  std::vector<Tagged> ready;
  {
    std::lock_guard lock(st.prop_mu);
    CfIteration* root_iter = st.root.iterations.at(0).get();
    // Fed values arrive like outputs of a node outside the plan.
    for (const CF::FedInput& f : cf.fed_inputs) {
      const CF::NodeInfo& d = cf.nodes[static_cast<size_t>(f.dst)];
      const auto id = static_cast<size_t>(d.local);
      root_iter->inputs[static_cast<size_t>(d.input_base + f.dst_input)] = {feed_values[static_cast<size_t>(f.feed)], true};
      int& pending = root_iter->pending[id];
      bool now_ready;
      if (d.kind == CF::Kind::Merge) {
        now_ready = pending == 1;
        if (pending & 1) --pending;
      } else {
        now_ready = --pending == 0;
      }
      if (now_ready) ready.push_back({&st.root, root_iter, f.dst, false});
    }
    for (size_t p = 0; p < plan.nodes.size(); ++p)
      if (cf.nodes[p].frame == 0 && cf.nodes[p].initial_pending == 0 && cf.nodes[p].kind != CF::Kind::Merge)
        ready.push_back({&st.root, root_iter, static_cast<int>(p), false});
    root_iter->outstanding_ops = static_cast<int>(ready.size());
    st.outstanding = static_cast<int64_t>(ready.size());
  }
  if (!ready.empty()) {
    for (const Tagged& t : ready) cf_schedule(&st, t);
    std::unique_lock lock(st.mu);
    st.done_cv.wait(lock, [&] { return st.done; });
  }
  st.finish_device_work();
  bool stalled = false;
  if (!st.failed.load()) {
    for (size_t p = 0; p < plan.nodes.size() && !stalled; ++p) stalled = cf.nodes[p].frame == 0 && !st.root_ran[p];
    stalled = stalled || !st.frames.empty();
    if (stalled) st.fail(st.stall_message());
  }
  for (auto* o : observers) o->on_run_end(run_id, !st.failed.load());
  if (st.failed.load()) throw_failure(st);

  std::vector<Tensor> results;
  results.reserve(plan.fetch_slots.size());
  for (size_t k = 0; k < plan.fetch_slots.size(); ++k) {
    if (cf.fetch_feeds[k] >= 0) {
      results.push_back(feed_values[static_cast<size_t>(cf.fetch_feeds[k])].to_host());
      continue;
    }
    if (st.fetch_state[k] == 2)
      throw Error("fetch '" + plan.fetch_names[k] +
                  "' has no value: the tensor is dead (it is on the untaken branch of a Switch, a tf.cond)");
    const Tensor& t = st.fetch_values[k];
    if (!t.valid()) throw Error("fetch '" + plan.fetch_names[k] + "': " + missing_value_message(plan, plan.fetch_slots[k]));
    results.push_back(t.to_host());
  }
  return results;
}

}  // namespace

std::vector<Tensor> execute_plan(const ExecutionPlan& plan, std::span<const Tensor> feed_values,
                                 std::span<ExecutionObserver* const> observers, int64_t run_id,
                                 const RunContext& run) {
  if (plan.control_flow) return execute_frames(plan, feed_values, observers, run_id, run);
  RunState st(plan, observers, run_id, run);
  for (size_t i = 0; i < plan.feed_slots.size(); ++i) st.values[static_cast<size_t>(plan.feed_slots[i])] = feed_values[i];
  for (auto* o : observers) o->on_run_start(run_id, static_cast<int>(plan.nodes.size()));

  if (!plan.nodes.empty()) {
    if (plan.roots.empty()) throw Error("cannot run: every needed node waits on another (a cycle)");
    for (int r : plan.roots) schedule(&st, r);
    std::unique_lock lock(st.mu);
    st.done_cv.wait(lock, [&] { return st.done; });
  }
  st.finish_device_work();
  for (auto* o : observers) o->on_run_end(run_id, !st.failed.load());
  if (st.failed.load()) throw_failure(st);

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
