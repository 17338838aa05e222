// GPU kernels of array ops that are not plain strided gathers (those share
// the CPU kernels through AcceleratorMemory::gather_mapped): Pad and PadV2,
// through layout.cu's index map (PadV2's constant is read where it lies, in
// device memory). Arguments are checked by ops/kernels/array/pad_args.h, the CPU kernels'
// words. MirrorPad is an indexed gather (gpu_index_kernels.cpp).
#include "cuda/gpu_kernel_util.h"
#include "cuda/gpu_kernels.h"
#include "cuda/gpu_layout.h"
#include "ops/kernels/array/pad_args.h"

namespace flowlens::cuda {
namespace {

void pad_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;  // integer tensors stay in host memory
  const ops::PadArgs args = ops::pad_args(ctx);
  const Tensor& x = ctx.input(0);
  if (args.adds_nothing) {
    ctx.set_output(0, x.reshaped(Shape(args.dims)));
    return;
  }
  const int bytes = word_bytes(ctx, x);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(args.dims));
  const std::vector<int64_t>& in_dims = x.shape().dims();
  std::vector<int64_t> after(in_dims.size());
  for (std::size_t d = 0; d < in_dims.size(); ++d) after[d] = args.dims[d] - in_dims[d] - args.before[d];
  // Pad: zero is all-zero bits in every float type.
  const void* constant = args.constant ? args.constant->device_data() : nullptr;
  pad(gpu.stream, bytes, x.device_data(), in_dims, args.before, after, out.device_data(), 0,
      constant);
  check_launch(ctx);
}

}  // namespace

void register_gpu_array_kernels(OpRegistry& r) {
  add_gpu_kernel(r, "Pad", pad_kernel, is_device_or_host_memory_node);
  add_gpu_kernel(r, "PadV2", pad_kernel, is_device_or_host_memory_node);
}

}  // namespace flowlens::cuda
