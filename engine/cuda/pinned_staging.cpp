#include "cuda/pinned_staging.h"

#include <cstring>

#include "cuda/cuda_check.h"

namespace flowlens::cuda {

void PinnedStaging::copy_to_device(const void* host_src, void* device_dst, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  if (bytes > kMaxStagedBytes) {
    check_cuda(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync (host to device)");
    // The source may be freed as soon as we return.
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize after a host-to-device copy");
    return;
  }
  std::lock_guard lock(mu_);
  Block* free_block = nullptr;
  for (Block& b : blocks_)
    if (b.bytes >= bytes && cudaEventQuery(b.done) == cudaSuccess) {
      free_block = &b;
      break;
    }
  cudaGetLastError();  // cudaEventQuery's cudaErrorNotReady is not an error
  if (!free_block) {
    Block b;
    b.bytes = bytes < 4096 ? 4096 : bytes;
    check_cuda(cudaMallocHost(&b.host, b.bytes), "cudaMallocHost (pinned staging buffer)");
    check_cuda(cudaEventCreateWithFlags(&b.done, cudaEventDisableTiming), "cudaEventCreate");
    blocks_.push_back(b);
    free_block = &blocks_.back();
  }
  std::memcpy(free_block->host, host_src, bytes);
  check_cuda(cudaMemcpyAsync(device_dst, free_block->host, bytes, cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync (host to device)");
  check_cuda(cudaEventRecord(free_block->done, stream), "cudaEventRecord");
}

}  // namespace flowlens::cuda
