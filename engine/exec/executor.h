#pragma once
// Runs an ExecutionPlan as dataflow: a node becomes ready when its last input
// arrives and goes to its device's queue. A worker that finishes a node keeps
// one newly ready successor on the same device for itself (no queue hop), so
// chains run at the cost of a few atomics per node; the rest are queued and
// run in parallel on the device's threads.
#include <atomic>
#include <span>
#include <vector>

#include "exec/execution_plan.h"
#include "exec/observer.h"
#include "ops/framework/run_context.h"

namespace flowlens {

// Returns the fetched tensors in plan order. Throws Error for the first
// failing node ("node 'x' (MatMul) on /cpu:0: ..."); nodes not yet started
// when a failure happens are skipped. Kernels see `run` (its resources and
// function library) with `cancelled` pointing at this run's failure flag.
// A _Recv is not run as a kernel: the executor asks run.rendezvous for its
// value without blocking a thread; a failing run aborts step run.step_id in
// that rendezvous, so every partition of the step ends.
std::vector<Tensor> execute_plan(const ExecutionPlan& plan, std::span<const Tensor> feed_values,
                                 std::span<ExecutionObserver* const> observers, int64_t run_id,
                                 const RunContext& run = {});

}  // namespace flowlens
