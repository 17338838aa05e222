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
  one.step();
  two.step();
  const int steps = smoke ? 1 : 5;
  auto [t1, t2] = bench::interleaved(smoke ? 1 : 5, [&] { for (int i = 0; i < steps; ++i) one.step(); },
                                     [&] { for (int i = 0; i < steps; ++i) two.step(); });
  double eps1 = batch * steps / t1, eps2 = batch * steps / t2;
  std::printf("%s: %.3f   (1 replica %.0f examples/s, 2 replicas %.0f examples/s)\n", label, eps2 / eps1, eps1,
              eps2);
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
