#include "cuda/gpu_device.h"

#include <chrono>

#include "common/error.h"
#include "cuda/cuda_check.h"

namespace flowlens::cuda {

MatmulMath parse_matmul_math(const std::string& name) {
  if (name.empty() || name == "fp32") return MatmulMath::Fp32;
  if (name == "tf32") return MatmulMath::Tf32;
  if (name == "bf16") return MatmulMath::Bf16;
  throw Error("GPU matmul math must be fp32, tf32 or bf16, got '" + name + "'");
}

// One thread per GPU: kernels are queued in order on one stream anyway, and
// a single thread keeps the cuBLAS handle to one caller at a time.
GpuDevice::GpuDevice(LogicalGpu& gpu, MatmulMath math) : Device("GPU", gpu.id(), 1), gpu_(gpu), math_(math) {}

namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<cudaEvent_t> timing_event() {
  auto* e = new cudaEvent_t(nullptr);
  if (cudaEventCreate(e) != cudaSuccess) {
    delete e;
    throw Error("cudaEventCreate failed (timing a GPU node)");
  }
  return std::shared_ptr<cudaEvent_t>(e, [](cudaEvent_t* p) {
    cudaEventDestroy(*p);
    delete p;
  });
}

// A recorded event and the anchor it is measured from.
class GpuMark final : public DeviceMark {
 public:
  GpuMark(std::shared_ptr<cudaEvent_t> event, std::shared_ptr<cudaEvent_t> anchor, int64_t anchor_host_ns)
      : event_(std::move(event)), anchor_(std::move(anchor)), anchor_host_ns_(anchor_host_ns) {}
  int64_t host_ns() const override {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, *anchor_, *event_) != cudaSuccess) return anchor_host_ns_;
    return anchor_host_ns_ + static_cast<int64_t>(static_cast<double>(ms) * 1e6);
  }

 private:
  std::shared_ptr<cudaEvent_t> event_, anchor_;
  int64_t anchor_host_ns_;
};

}  // namespace

// The queue is idle at a run's start, so the anchor completes at once and
// the host time read right after its synchronization is when the GPU passed it.
void GpuDevice::begin_marks() {
  gpu_.make_current();
  std::shared_ptr<cudaEvent_t> anchor = timing_event();
  check_cuda(cudaEventRecord(*anchor, gpu_.stream()), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(*anchor), "cudaEventSynchronize");
  std::lock_guard lock(anchor_mu_);
  anchor_ = std::move(anchor);
  anchor_host_ns_ = steady_ns();
}

std::shared_ptr<const DeviceMark> GpuDevice::mark() {
  std::shared_ptr<cudaEvent_t> anchor;
  int64_t anchor_host = 0;
  {
    std::lock_guard lock(anchor_mu_);
    anchor = anchor_;
    anchor_host = anchor_host_ns_;
  }
  if (!anchor) return nullptr;  // no begin_marks(): the executor waits instead
  gpu_.make_current();
  std::shared_ptr<cudaEvent_t> event = timing_event();
  check_cuda(cudaEventRecord(*event, gpu_.stream()), "cudaEventRecord");
  return std::make_shared<GpuMark>(std::move(event), std::move(anchor), anchor_host);
}

Tensor GpuDevice::accept_input(const Tensor& t) {
  if (!lives_in_device_memory(t.dtype())) return t.on_host() ? t : t.to_host();
  if (t.memory() == &gpu_.memory()) return t;
  if (t.on_host()) return copy_from_host(t);
  if (auto* other = dynamic_cast<CachingDeviceAllocator*>(t.memory())) return copy_from_gpu(t, other->gpu());
  return copy_from_host(t.to_host());  // memory of another backend
}

Tensor GpuDevice::copy_from_host(const Tensor& t) {
  Tensor out(t.dtype(), t.shape(), &gpu_.memory());
  gpu_.make_current();
  gpu_.staging().copy_to_device(t.device_data(), out.device_data(), t.byte_size(), gpu_.stream());
  return out;
}

// The copy runs on the source's stream, after the work that produced the
// value and before anything that may reuse the source block; the
// destination's stream first finishes what it queued on the destination
// block, and then waits for the copy.
Tensor GpuDevice::copy_from_gpu(const Tensor& t, LogicalGpu& source) {
  Tensor out(t.dtype(), t.shape(), &gpu_.memory());
  if (t.byte_size() == 0) return out;
  cudaEvent_t dst_ready = nullptr, copied = nullptr;
  gpu_.make_current();
  check_cuda(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming), "cudaEventCreate");
  check_cuda(cudaEventRecord(dst_ready, gpu_.stream()), "cudaEventRecord");
  source.make_current();
  check_cuda(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), "cudaEventCreate");
  check_cuda(cudaStreamWaitEvent(source.stream(), dst_ready, 0), "cudaStreamWaitEvent");
  if (source.physical() == gpu_.physical())
    check_cuda(cudaMemcpyAsync(out.device_data(), t.device_data(), t.byte_size(), cudaMemcpyDeviceToDevice,
                               source.stream()),
               "cudaMemcpyAsync (between logical GPUs)");
  else
    check_cuda(cudaMemcpyPeerAsync(out.device_data(), gpu_.physical(), t.device_data(), source.physical(),
                                   t.byte_size(), source.stream()),
               "cudaMemcpyPeerAsync");
  check_cuda(cudaEventRecord(copied, source.stream()), "cudaEventRecord");
  gpu_.make_current();
  check_cuda(cudaStreamWaitEvent(gpu_.stream(), copied, 0), "cudaStreamWaitEvent");
  // Destroying a pending event is allowed: its resources go when it completes.
  cudaEventDestroy(dst_ready);
  cudaEventDestroy(copied);
  return out;
}

}  // namespace flowlens::cuda
