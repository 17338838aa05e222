#pragma once
// A dense, immutable-by-convention n-d array with shared storage. Copying a
// Tensor shares the buffer (like tensorflow::Tensor); kernels allocate fresh
// outputs. Fixed-size dtypes live in one 64-byte aligned block from
// HostAllocator, or in a device's memory (AcceleratorMemory) when a GPU kernel made
// them; DT_STRING tensors hold one std::string per element and DT_RESOURCE
// tensors one ResourceHandle (tensor/resource_handle.h), DT_VARIANT tensors
// one shared VariantValue (tensor/variant.h), always on the host.
// Host code reads a device tensor only through to_host(): data<T>() refuses
// it by name.
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "tensor/accelerator_memory.h"
#include "tensor/dtype.h"
#include "tensor/resource_handle.h"
#include "tensor/shape.h"
#include "tensor/variant.h"

namespace flowlens {

class Tensor {
 public:
  Tensor() = default;  // an empty handle: valid() == false
  // Allocates uninitialized storage (strings are empty, handles name nothing). Throws Error for a
  // shape that is not fully defined or a dtype without a layout.
  Tensor(DType dtype, Shape shape);
  // Storage in `memory` (a device's), or on the host when it is nullptr or the
  // dtype stays in host memory (see lives_in_device_memory).
  Tensor(DType dtype, Shape shape, AcceleratorMemory* memory);
  // Why a fully defined `shape` of `dtype` cannot be allocated (its byte size
  // overflows, or exceeds HostAllocator::max_tensor_bytes), or "" when it
  // can. The constructor throws with this text; shape inference reports it
  // before anything runs.
  static std::string size_problem(DType dtype, const Shape& shape);

  template <class T>
  static Tensor from_vector(Shape shape, const std::vector<T>& values);
  template <class T>
  static Tensor scalar(T value) { return from_vector<T>(Shape{}, {value}); }
  static Tensor from_strings(Shape shape, std::vector<std::string> values);
  static Tensor from_handles(Shape shape, std::vector<ResourceHandle> handles);
  static Tensor from_variants(Shape shape, std::vector<VariantPtr> values);

  bool valid() const { return buffer_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return num_elements_; }
  std::size_t byte_size() const;  // fixed-size dtypes: elements * dtype_size

  // Where the bytes are: nullptr for host memory.
  AcceleratorMemory* memory() const { return buffer_ ? buffer_->memory : nullptr; }
  bool on_host() const { return memory() == nullptr; }
  // This tensor if it is on the host, else a host copy (waits for the device).
  Tensor to_host() const;

  // Host bytes; throws for a device tensor.
  void* raw_data() { check_host(); return buffer_ ? buffer_->data : nullptr; }
  const void* raw_data() const { check_host(); return buffer_ ? buffer_->data : nullptr; }
  // The bytes wherever they live, for kernels of the owning device.
  void* device_data() { return buffer_ ? buffer_->data : nullptr; }
  const void* device_data() const { return buffer_ ? buffer_->data : nullptr; }
  template <class T> T* device_data() { check_type(DTypeOf<T>::value, false); return static_cast<T*>(buffer_->data); }
  template <class T> const T* device_data() const {
    check_type(DTypeOf<T>::value, false);
    return static_cast<const T*>(buffer_->data);
  }

  // Typed access; checks the dtype in debug and release (cheap, prevents UB).
  template <class T> T* data() { check_type(DTypeOf<T>::value); return static_cast<T*>(buffer_->data); }
  template <class T> const T* data() const { check_type(DTypeOf<T>::value); return static_cast<const T*>(buffer_->data); }
  template <class T> std::span<T> values() { return {data<T>(), static_cast<size_t>(num_elements_)}; }
  template <class T> std::span<const T> values() const { return {data<T>(), static_cast<size_t>(num_elements_)}; }
  std::vector<std::string>& strings();
  const std::vector<std::string>& strings() const;
  std::vector<ResourceHandle>& handles();
  const std::vector<ResourceHandle>& handles() const;
  std::vector<VariantPtr>& variants();
  const std::vector<VariantPtr>& variants() const;

  // Same buffer, new shape with the same element count (Reshape, Identity).
  Tensor reshaped(Shape shape) const;
  // A deep copy with its own storage, in the same memory.
  Tensor clone() const;
  // Element-wise equality of dtype, shape and bytes (device tensors are
  // compared through host copies).
  bool equals(const Tensor& other) const;
  // True if both handles share storage.
  bool shares_buffer_with(const Tensor& other) const { return buffer_ == other.buffer_; }

 private:
  struct Buffer {
    void* data = nullptr;
    std::size_t bytes = 0;
    std::size_t capacity = 0;  // as returned by HostAllocator::allocate
    AcceleratorMemory* memory = nullptr;  // nullptr: host memory
    std::vector<std::string> strings;
    std::vector<ResourceHandle> handles;
    std::vector<VariantPtr> variants;
    ~Buffer();
  };
  void check_type(DType expected, bool need_host = true) const;
  void check_host() const;

  DType dtype_ = DType::Invalid;
  Shape shape_;
  int64_t num_elements_ = 0;
  std::shared_ptr<Buffer> buffer_;
};

template <class T>
Tensor Tensor::from_vector(Shape shape, const std::vector<T>& values) {
  Tensor t(DTypeOf<T>::value, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.num_elements())
    throw Error("Tensor::from_vector: " + std::to_string(values.size()) + " values for shape " +
                t.shape().to_string());
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

}  // namespace flowlens
