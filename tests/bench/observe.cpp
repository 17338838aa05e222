// Cost of observing runs. (1) A training step of the sample MLP (scaled up)
// with an idle Debugger attached versus nothing attached: the executor then
// takes its observed path (two clock reads and virtual calls per node) and the
// debugger one atomic load per hook. Prints `observe_idle_overhead: ratio`
// (attached / detached time, 1.0 = free) and the same for a recording
// Profiler; both are overheads, so a ratio below 1 prints as noise or
// "invalid", never as a speed-up (bench_util.h). (2) Profiler::write_chrome_trace of 1,000,000 recorded nodes:
// `trace_export_1m_s: seconds`. `--smoke` runs a tiny version of both.
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "bench_util.h"
#include "mlp_bench_model.h"
#include "exec/device.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "observe/debugger.h"
#include "observe/profiler.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/optimizers.h"

using namespace flowlens;

namespace {

// The sample MLP scaled up, with gradients and an SGD step as `train` builds them.
Graph training_graph(int batch, int features, int hidden, int classes, std::string* train_op) {
  Graph g = bench::scaled_mlp_model(batch, features, hidden, classes);
  const std::vector<std::string>& vars = bench::mlp_variables();
  std::vector<std::string> grads = add_gradients(g, {"loss"}, vars, OpRegistry::global());
  std::vector<std::pair<std::string, std::string>> var_grads;
  for (size_t i = 0; i < vars.size(); ++i) var_grads.emplace_back(vars[i], grads[i]);
  *train_op = add_optimizer(g, var_grads, OptimizerOptions{}, "train");
  return g;
}

// `steps` training steps without and with `observer`, in alternating pairs
// after the same warm-up (bench_util.h).
bench::Comparison observed_steps(Session& session, const std::string& train_op, ExecutionObserver& observer, int reps,
                                 int steps) {
  auto run_steps = [&] {
    for (int i = 0; i < steps; ++i) session.run({}, {"loss"}, {train_op});
  };
  auto attached = [&] {
    session.add_observer(&observer);
    run_steps();
    session.remove_observer(&observer);
  };
  run_steps();  // plans compiled and buffers allocated before either is timed
  return bench::compare(reps, run_steps, attached);
}

// Records `n` synthetic node executions (1000 distinct nodes, 2 outputs each)
// on two devices, then times the export alone.
double trace_export_seconds(int n, double* mib) {
  std::vector<Node> nodes(1000);
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].name = "tower_" + std::to_string(i % 2) + "/layer" + std::to_string(i) + "/MatMul";
    nodes[i].op = i % 3 ? "MatMul" : "BiasAdd";
    nodes[i].inputs = {"tower_0/layer" + std::to_string(i ? i - 1 : 0) + "/MatMul", "weights:1"};
  }
  Device cpu0("CPU", 0, 1), cpu1("CPU", 1, 1);
  Tensor outputs[2] = {Tensor(DType::Float, Shape{256, 128}), Tensor(DType::Float, Shape{128})};
  Profiler profiler;
  for (int i = 0; i < n; ++i) {
    const Node& node = nodes[static_cast<size_t>(i) % nodes.size()];
    NodeEvent ev{node, i % 1000, i % 2 ? cpu1 : cpu0, int64_t{i} * 1500, int64_t{i} * 1500 + 1234};
    profiler.on_node_end(i / 1000 + 1, ev, outputs);
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / ("flowlens_bench_trace_" + std::to_string(getpid()) + ".json")).string();
  const double seconds = bench::seconds_of([&] { profiler.write_chrome_trace(path); });
  const auto bytes = std::filesystem::file_size(path);
  std::filesystem::remove(path);
  *mib = static_cast<double>(bytes) / (1 << 20);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = bench::smoke_mode(argc, argv);
  std::string train_op;
  Graph g = smoke ? training_graph(64, 8, 16, 4, &train_op) : training_graph(256, 64, 256, 10, &train_op);
  Session session(std::move(g));
  session.run({}, {}, variable_initializers(session.graph()));

  Debugger idle;  // attached, but nothing armed
  Profiler profiler;
  const int reps = smoke ? 1 : 21, steps = smoke ? 2 : 20;
  const bench::Comparison debugger = observed_steps(session, train_op, idle, reps, steps);
  const bench::Comparison recording = observed_steps(session, train_op, profiler, reps, steps);
  std::printf("observe_idle_overhead: %s   (attached idle Debugger / detached step time, %d pairs; target <= 1.03)\n",
              bench::overhead_text(debugger).c_str(), debugger.pairs());
  std::printf("observe_profiler_overhead: %s   (recording Profiler / detached step time, %d pairs)\n",
              bench::overhead_text(recording).c_str(), recording.pairs());
  const int events = smoke ? 10000 : 1000000;
  double mib = 0;
  const double export_s = trace_export_seconds(events, &mib);
  std::printf("trace_export_1m_s: %.3f   (%d events, %.1f MiB)\n", export_s, events, mib);
  return 0;
}
