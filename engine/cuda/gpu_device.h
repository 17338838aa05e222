#pragma once
// A GPU as the executor sees it: a Device whose kernels queue work on one
// stream and return, whose outputs live in device memory, and which moves
// inputs made elsewhere into that memory.
#include <memory>
#include <mutex>

#include "cuda/logical_gpu.h"
#include "exec/device.h"

namespace flowlens::cuda {

// How cuBLAS may compute float32 matrix products.
enum class MatmulMath { Fp32, Tf32, Bf16 };
MatmulMath parse_matmul_math(const std::string& name);  // "fp32", "tf32", "bf16"; throws Error otherwise

class GpuDevice final : public Device {
 public:
  GpuDevice(LogicalGpu& gpu, MatmulMath math);
  std::string description() const override { return gpu_.description(); }
  AcceleratorMemory* memory() override { return &gpu_.memory(); }
  Tensor accept_input(const Tensor& t) override;
  void synchronize() override { gpu_.synchronize(); }
  // CUDA events on the stream; the anchor ties their times to the host clock.
  void begin_marks() override;
  std::shared_ptr<const DeviceMark> mark() override;

  LogicalGpu& gpu() { return gpu_; }
  MatmulMath matmul_math() const { return math_; }

 private:
  Tensor copy_from_host(const Tensor& t);
  Tensor copy_from_gpu(const Tensor& t, LogicalGpu& source);

  LogicalGpu& gpu_;
  MatmulMath math_;
  std::mutex anchor_mu_;
  std::shared_ptr<cudaEvent_t> anchor_;  // passed by the GPU at anchor_host_ns_
  int64_t anchor_host_ns_ = 0;
};

}  // namespace flowlens::cuda
