// --virtual-gpus, --gpu-math and --cpu-only, for every subcommand that runs
// or places a graph.
#include "commands.h"

namespace flowlens::cli {

void add_device_flags(CLI::App* cmd, DeviceFlags& flags) {
  cmd->add_option("--virtual-gpus", flags.virtual_gpus,
                  "Split each GPU into N logical GPUs with their own stream and memory (in-graph towers on one card)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--gpu-math", flags.gpu_math, "cuBLAS math for float32 MatMul: fp32 (exact), tf32 or bf16")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16"}));
  cmd->add_flag("--cpu-only", flags.cpu_only, "Do not use GPUs even where they exist");
}

void apply_device_flags(const DeviceFlags& flags, SessionOptions& options) {
  options.use_gpus = !flags.cpu_only;
  options.virtual_gpus = flags.virtual_gpus;
  options.gpu_math = flags.gpu_math;
}

LocalDeviceOptions local_device_options(const DeviceFlags& flags) {
  LocalDeviceOptions o;
  o.use_gpus = !flags.cpu_only;
  o.virtual_gpus = flags.virtual_gpus;
  o.gpu_math = flags.gpu_math;
  return o;
}

}  // namespace flowlens::cli
