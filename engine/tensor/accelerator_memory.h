#pragma once
// Memory that is not host memory: an accelerator's global memory, owned by a
// backend (engine/cuda). A Tensor whose buffer lives there carries a pointer to
// its AcceleratorMemory; host code reads it only through Tensor::to_host(). Backends
// keep AcceleratorMemory objects alive for the whole process (like TensorFlow's
// GPUProcessState), so a tensor may outlive the Session that made it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/dtype.h"

namespace flowlens {

class AcceleratorMemory {
 public:
  virtual ~AcceleratorMemory() = default;
  // The device this memory belongs to, for messages: "/gpu:0".
  virtual std::string name() const = 0;
  // Throws Error when the device is out of memory. `bytes` may be 0.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* block, std::size_t bytes) = 0;
  // Copies to host memory once all work queued so far on the device is done,
  // so the bytes are those its producer wrote.
  virtual void copy_to_host(const void* device_src, void* host_dst, std::size_t bytes) = 0;
  // `rows` runs of `width` bytes within this memory (cudaMemcpy2D's
  // contract), ordered after queued work.
  virtual void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                       std::size_t width, std::size_t rows) = 0;
  // dst[i] = src[base + sum_d coord_d(i) * in_stride[d]] for the row-major
  // elements i of `dims`, each `element_bytes` (1, 2, 4 or 8) wide, both
  // buffers in this memory; ordered after queued work. Strides may be
  // negative or zero. See gather_mapped in tensor/copy_rows.h.
  virtual void gather_mapped(void* dst, const void* src, std::size_t element_bytes, const std::vector<int64_t>& dims,
                             const std::vector<int64_t>& in_stride, int64_t base) = 0;
};

// TensorFlow's rule for accelerators: only floating-point tensors live in
// device memory; int32 shapes, axes, labels and bools stay on the host even
// for ops placed on a GPU, so shape arithmetic never waits on a device.
inline bool lives_in_device_memory(DType t) {
  return t == DType::Float || t == DType::Double || t == DType::Half || t == DType::BFloat16;
}

}  // namespace flowlens
