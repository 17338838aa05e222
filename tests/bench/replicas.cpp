// Examples per second of training with 2 in-graph CPU replicas versus 1, in
// one run, on the session's thread budget (exec/thread_budget.h):
//   replicas_2_vs_1: intra_op_threads = 1, so each GEMM uses one core and the
//     ratio measures what replication adds: two towers running side by side
//     on the CPU device's threads (target >= 1.6x on 2 cores);
//   replicas_2_vs_1_default: the default budget for both (a lone tower's
//     GEMMs split over every core), so the ratio shows whether two towers
//     sharing the cores lose to oversubscription (must not fall below ~1.0).
// The engine sets OpenBLAS to one thread when the first session is made
// (openblas_set_num_threads works at run time), so no environment is needed.
#include <cstdio>

#include "bench_util.h"
#include "mlp_trainer.h"

using namespace flowlens;

namespace {

void compare(const char* label, const Graph& model, int batch, bool smoke, const SessionOptions& options) {
  bench::Trainer one = bench::make_trainer(model, {"/cpu:0"}, options),
                 two = bench::make_trainer(model, {"/cpu:0", "/cpu:0"}, options);
  const int steps = smoke ? 1 : 5;
  // Both steps process `batch` examples (two towers split it), so examples/s
  // scale with the speed ratio.
  const bench::Comparison c = bench::compare(smoke ? 1 : 9, [&] { for (int i = 0; i < steps; ++i) one.step(); },
                                             [&] { for (int i = 0; i < steps; ++i) two.step(); });
  const double eps1 = batch * steps / c.baseline_median(), eps2 = batch * steps / c.candidate_median();
  std::printf("%s: %s   (1 replica %.0f examples/s, 2 replicas %.0f examples/s, %d pairs)\n", label,
              bench::speed_text(c).c_str(), eps1, eps2, c.pairs());
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = bench::smoke_mode(argc, argv);
  const int batch = smoke ? 64 : 4096;
  Graph model = smoke ? bench::scaled_mlp_model(batch, 16, 32, 4) : bench::scaled_mlp_model(batch, 256, 2048, 32);
  SessionOptions one_core_per_tower;
  one_core_per_tower.intra_op_threads = 1;
  compare("replicas_2_vs_1", model, batch, smoke, one_core_per_tower);
  compare("replicas_2_vs_1_default", model, batch, smoke, SessionOptions{});
  return 0;
}
