#include "cuda/logical_gpu.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "cuda/cublas_library.h"
#include "cuda/cuda_check.h"

namespace flowlens::cuda {

LogicalGpu::LogicalGpu(int id, int physical, int share, int shares)
    : id_(id), physical_(physical), memory_(std::make_unique<CachingDeviceAllocator>(*this)) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, physical), "cudaGetDeviceProperties");
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s (%.1f GiB, sm_%d%d)", prop.name,
                static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), prop.major, prop.minor);
  description_ = buf;
  if (shares > 1) description_ += ", logical " + std::to_string(share + 1) + " of " + std::to_string(shares);
  make_current();
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

cublasHandle_t LogicalGpu::cublas() {
  // A throw leaves the flag unset, so a later call tries again and reports
  // the same failure; the loader itself tries only once.
  std::call_once(cublas_once_, [this] {
    const CublasLibrary& library = cublas_library();
    make_current();  // a handle belongs to the device current when it is made
    cublasHandle_t handle = nullptr;
    check_cublas(library.create(&handle), "cublasCreate");
    check_cublas(library.set_stream(handle, stream_), "cublasSetStream");
    cublas_ = handle;
  });
  return cublas_;
}

void LogicalGpu::make_current() const {
  // The runtime keeps the current device per thread; setting it is cheap.
  check_cuda(cudaSetDevice(physical_), "cudaSetDevice");
}

void LogicalGpu::synchronize() const {
  make_current();
  check_cuda(cudaStreamSynchronize(stream_), ("a kernel queued on " + short_name() + " failed").c_str());
}

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::tuple<int, int, int>, std::unique_ptr<LogicalGpu>> gpus;  // (physical, share, shares)
};

Registry& registry() {
  static auto* r = new Registry;  // leaked on purpose: tensors may be freed during static destruction
  return *r;
}

}  // namespace

LogicalGpu& logical_gpu(int physical, int share, int shares) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto& slot = r.gpus[{physical, share, shares}];
  if (!slot) slot = std::make_unique<LogicalGpu>(physical * shares + share, physical, share, shares);
  return *slot;
}

void release_caches_on_physical(int physical) {
  std::vector<LogicalGpu*> on_card;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    for (auto& [key, gpu] : r.gpus)
      if (gpu->physical() == physical) on_card.push_back(gpu.get());
  }
  for (LogicalGpu* gpu : on_card) gpu->memory().release_cache();
}

}  // namespace flowlens::cuda
