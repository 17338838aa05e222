// Examples per second of the benchmark MLP trained with 4 in-graph towers on
// 4 logical GPUs of one card (--virtual-gpus 4) versus 1 tower on 1 GPU, in
// one run. Each logical GPU has its own stream, so towers overlap their
// kernels; on a card that one tower already fills, the ratio shows what the
// overlap buys (and what the split and gradient averaging cost). Without a
// GPU it says so and exits 0.
#include <cuda_runtime_api.h>

#include <cstdio>

#include "bench_util.h"
#include "mlp_trainer.h"

using namespace flowlens;

int main(int argc, char** argv) {
  const bool smoke = bench::smoke_mode(argc, argv);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("gpu_replicas: skipped (%s)\n", DeviceSet::local()->gpu_status().c_str());
    return 0;
  }
  try {
    const int batch = smoke ? 64 : 8192;
    Graph model = smoke ? bench::scaled_mlp_model(batch, 16, 32, 4) : bench::scaled_mlp_model(batch, 1024, 4096, 64);
    SessionOptions one_gpu, four_gpus;
    four_gpus.virtual_gpus = 4;
    bench::Trainer one = bench::make_trainer(model, {"/gpu:0"}, one_gpu);
    bench::Trainer four = bench::make_trainer(model, {"/gpu:0", "/gpu:1", "/gpu:2", "/gpu:3"}, four_gpus);
    const int steps = smoke ? 1 : 20;
    const bench::Comparison c = bench::compare(smoke ? 1 : 7, [&] { for (int i = 0; i < steps; ++i) one.step(); },
                                               [&] { for (int i = 0; i < steps; ++i) four.step(); });
    const double eps1 = batch * steps / c.baseline_median(), eps4 = batch * steps / c.candidate_median();
    std::printf("gpu_replicas_4_vs_1: %s   (1 GPU %.0f examples/s, 4 logical GPUs %.0f examples/s, %d pairs)\n",
                bench::speed_text(c).c_str(), eps1, eps4, c.pairs());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_replicas: %s\n", e.what());
    return 1;
  }
  return 0;
}
