// Per-node overhead of the executor on a chain of 10,000 tiny ops (scalar
// AddV2). The baseline calls the same kernel directly 10,000 times, so
// the difference is what the executor adds per node: scheduling, dependency
// counting, input gathering. Prints `dispatch_overhead_us: X ± spread` (target <= 0.2)
// and `dispatch: ratio` (direct time / engine time).
#include <cstdio>
#include <string>

#include "bench_util.h"
#include "exec/session.h"
#include "ops/framework/op_registry.h"

using namespace flowlens;

int main(int argc, char** argv) {
  const bool smoke = bench::smoke_mode(argc, argv);
  const int n = smoke ? 1000 : 10000;
  Graph g;
  Node one;
  one.name = "one";
  one.op = "Const";
  one.attrs["dtype"] = DType::Float;
  one.attrs["value"] = Tensor::scalar<float>(1.0f);
  g.add_node(one);
  std::string prev = "one";
  for (int i = 0; i < n; ++i) {
    Node add;
    add.name = "add_" + std::to_string(i);
    add.op = "AddV2";
    add.inputs = {prev, "one"};
    add.attrs["T"] = DType::Float;
    prev = add.name;
    g.add_node(std::move(add));
  }
  Session session(g);
  const std::string last = prev;

  // Baseline: the same kernel, called directly on the same kind of inputs.
  KernelFn add_kernel = OpRegistry::global().find("AddV2")->kernel("CPU");
  const Node& add_node = session.graph().nodes()[1];
  Tensor inputs[2] = {Tensor::scalar<float>(1.0f), Tensor::scalar<float>(1.0f)};
  Tensor outputs[1];
  Variable* refs[2] = {nullptr, nullptr};
  auto direct = [&] {
    for (int i = 0; i < n; ++i) {
      KernelContext ctx(add_node, inputs, refs, outputs, nullptr);
      add_kernel(ctx);
      inputs[0] = outputs[0];
    }
  };
  float result = 0;
  auto engine = [&] { result = session.run({}, {last})[0].data<float>()[0]; };
  const bench::Comparison c = bench::compare(smoke ? 1 : 21, direct, engine);
  const double t_direct = c.baseline_median(), t_engine = c.candidate_median();
  if (result != static_cast<float>(n + 1)) {
    std::fprintf(stderr, "dispatch: chain computed %g, expected %d\n", result, n + 1);
    return 1;
  }
  // The overhead within each pair, per node: both halves saw the same machine.
  std::vector<double> per_node_us;
  for (int i = 0; i < c.pairs(); ++i) per_node_us.push_back((c.candidate[i] - c.baseline[i]) / n * 1e6);
  std::printf("dispatch_overhead_us: %.3f ± %.3f   (per node: engine %.3f us, kernel alone %.3f us; target <= 0.2)\n",
              bench::median(per_node_us), bench::spread(per_node_us), t_engine / n * 1e6, t_direct / n * 1e6);
  std::printf("dispatch: %s   (kernel alone / engine, %d pairs)\n", bench::speed_text(c).c_str(), c.pairs());
  return 0;
}
