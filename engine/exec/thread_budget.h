#pragma once
// One thread budget for a session's CPU work, as TensorFlow's ConfigProto
// inter_op_parallelism_threads / intra_op_parallelism_threads:
//   inter-op: the CPU device's pool, the kernels that run side by side;
//   intra-op: the threads one math kernel (GEMM, a oneDNN primitive) may split
//             over, shared by the math kernels running at once and taken
//             from the same pool (common/parallel_for.h), so towers running
//             side by side do not oversubscribe the cores.
// The math libraries do not start threads of their own: OpenBLAS runs on one
// thread (set once, when the first session is made) and oneDNN's OpenMP team
// is sized per call to the kernel's share (ops/framework/onednn.cpp).
namespace flowlens {

struct ThreadBudget {
  int inter_op = 0;
  int intra_op = 0;
};

// Cores this process may run on: its CPU affinity mask (taskset, cgroups'
// cpusets), else std::thread::hardware_concurrency(); at least 1.
int available_cores();

// The budget from the options: 0 means the default, which fits the machine:
// inter-op the available cores (at least 2, so a kernel waiting on another
// never stalls a one-core pool), intra-op the available cores.
ThreadBudget resolve_thread_budget(int inter_op_threads, int intra_op_threads);

// Once per process: the math libraries' own thread pools off (OpenBLAS to one
// thread), so only the budget's threads compute. Sessions call it.
void limit_library_threads();

}  // namespace flowlens
