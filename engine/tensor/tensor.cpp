#include "tensor/tensor.h"

#include <algorithm>

#include "tensor/allocator.h"

namespace flowlens {

Tensor::Buffer::~Buffer() {
  if (memory)
    memory->deallocate(data, capacity);
  else
    HostAllocator::deallocate(data, capacity);
}

Tensor::Tensor(DType dtype, Shape shape) : Tensor(dtype, std::move(shape), nullptr) {}

Tensor::Tensor(DType dtype, Shape shape, AcceleratorMemory* memory) : dtype_(dtype), shape_(std::move(shape)) {
  if (!shape_.fully_defined())
    throw Error("cannot allocate a tensor of shape " + shape_.to_string() + ": shape not fully defined");
  if (dtype_is_ref(dtype) || dtype == DType::Invalid)
    throw Error("cannot allocate a tensor of dtype " + dtype_name(dtype));
  if (std::string problem = size_problem(dtype_, shape_); !problem.empty()) throw Error(problem);
  num_elements_ = shape_.num_elements();
  buffer_ = std::make_shared<Buffer>();
  if (dtype == DType::String) {
    buffer_->strings.resize(static_cast<size_t>(num_elements_));
    return;
  }
  if (dtype == DType::Resource) {
    buffer_->handles.resize(static_cast<size_t>(num_elements_));
    return;
  }
  if (dtype == DType::Variant) {
    buffer_->variants.resize(static_cast<size_t>(num_elements_));
    return;
  }
  std::size_t bytes = static_cast<std::size_t>(num_elements_) * dtype_size(dtype);
  if (memory && lives_in_device_memory(dtype)) {
    buffer_->data = memory->allocate(bytes);
    buffer_->capacity = bytes;
    buffer_->memory = memory;
  } else {
    buffer_->data = HostAllocator::allocate(bytes, &buffer_->capacity);
  }
  buffer_->bytes = bytes;
}

namespace {
std::size_t element_bytes(DType dtype) {
  return dtype == DType::String     ? sizeof(std::string)
         : dtype == DType::Resource ? sizeof(ResourceHandle)
         : dtype == DType::Variant  ? sizeof(VariantPtr)
                                    : dtype_size(dtype);
}
}  // namespace

std::string Tensor::size_problem(DType dtype, const Shape& shape) {
  const int64_t elements = shape.num_elements();
  const std::size_t element_size = element_bytes(dtype);
  if (elements < 0 || static_cast<uint64_t>(elements) > SIZE_MAX / (element_size ? element_size : 1))
    return "cannot allocate a tensor of shape " + shape.to_string() + " (" + dtype_name(dtype) + "): its size overflows";
  const std::size_t bytes = static_cast<std::size_t>(elements) * element_size;
  if (bytes > HostAllocator::max_tensor_bytes())
    return "cannot allocate a tensor of shape " + shape.to_string() + " (" + dtype_name(dtype) + ", " +
           std::to_string(bytes) + " bytes): more than the limit of " +
           std::to_string(HostAllocator::max_tensor_bytes()) +
           " bytes for one tensor (the machine's memory unless set by --max-tensor-mb or FLOWLENS_MAX_TENSOR_MB)";
  return {};
}

Tensor Tensor::to_host() const {
  if (on_host()) return *this;
  Tensor t(dtype_, shape_);
  if (buffer_->bytes) buffer_->memory->copy_to_host(buffer_->data, t.buffer_->data, buffer_->bytes);
  return t;
}

Tensor Tensor::from_strings(Shape shape, std::vector<std::string> values) {
  Tensor t(DType::String, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.num_elements())
    throw Error("Tensor::from_strings: " + std::to_string(values.size()) + " values for shape " +
                t.shape().to_string());
  t.buffer_->strings = std::move(values);
  return t;
}

Tensor Tensor::from_handles(Shape shape, std::vector<ResourceHandle> handles) {
  Tensor t(DType::Resource, std::move(shape));
  if (static_cast<int64_t>(handles.size()) != t.num_elements())
    throw Error("Tensor::from_handles: " + std::to_string(handles.size()) + " handles for shape " +
                t.shape().to_string());
  t.buffer_->handles = std::move(handles);
  return t;
}

std::size_t Tensor::byte_size() const { return buffer_ ? buffer_->bytes : 0; }

std::vector<std::string>& Tensor::strings() {
  check_type(DType::String);
  return buffer_->strings;
}

const std::vector<std::string>& Tensor::strings() const {
  check_type(DType::String);
  return buffer_->strings;
}

Tensor Tensor::from_variants(Shape shape, std::vector<VariantPtr> values) {
  Tensor t(DType::Variant, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.num_elements())
    throw Error("Tensor::from_variants: " + std::to_string(values.size()) + " values for shape " +
                t.shape().to_string());
  t.buffer_->variants = std::move(values);
  return t;
}

std::vector<VariantPtr>& Tensor::variants() {
  check_type(DType::Variant);
  return buffer_->variants;
}

const std::vector<VariantPtr>& Tensor::variants() const {
  check_type(DType::Variant);
  return buffer_->variants;
}

std::vector<ResourceHandle>& Tensor::handles() {
  check_type(DType::Resource);
  return buffer_->handles;
}

const std::vector<ResourceHandle>& Tensor::handles() const {
  check_type(DType::Resource);
  return buffer_->handles;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape.num_elements() != num_elements_)
    throw Error("cannot reshape a tensor of " + std::to_string(num_elements_) + " elements (shape " +
                shape_.to_string() + ") into shape " + shape.to_string());
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::clone() const {
  if (!valid()) return {};
  Tensor t(dtype_, shape_, memory());
  if (!on_host()) {
    if (buffer_->bytes) buffer_->memory->copy_2d(t.buffer_->data, buffer_->bytes, buffer_->data, buffer_->bytes, buffer_->bytes, 1);
  } else if (dtype_ == DType::String)
    t.buffer_->strings = buffer_->strings;
  else if (dtype_ == DType::Resource)
    t.buffer_->handles = buffer_->handles;  // the copies name the same variables
  else if (dtype_ == DType::Variant)
    t.buffer_->variants = buffer_->variants;  // values are immutable: sharing is copying
  else if (buffer_->bytes)
    std::memcpy(t.buffer_->data, buffer_->data, buffer_->bytes);
  return t;
}

bool Tensor::equals(const Tensor& o) const {
  if (valid() != o.valid()) return false;
  if (!valid()) return true;
  if (dtype_ != o.dtype_ || !(shape_ == o.shape_)) return false;
  if (!on_host() || !o.on_host()) return to_host().equals(o.to_host());
  if (dtype_ == DType::String) return buffer_->strings == o.buffer_->strings;
  if (dtype_ == DType::Resource)
    return std::equal(buffer_->handles.begin(), buffer_->handles.end(), o.buffer_->handles.begin(),
                      o.buffer_->handles.end(),
                      [](const ResourceHandle& a, const ResourceHandle& b) { return a.same_variable(b); });
  if (dtype_ == DType::Variant) return buffer_->variants == o.buffer_->variants;
  return buffer_->bytes == 0 || std::memcmp(buffer_->data, o.buffer_->data, buffer_->bytes) == 0;
}

void Tensor::check_host() const {
  if (buffer_ && buffer_->memory)
    throw Error("tensor lives in " + buffer_->memory->name() + " memory; host code must read it through to_host()");
}

void Tensor::check_type(DType expected, bool need_host) const {
  if (!buffer_) throw Error("access to an empty tensor");
  if (need_host) check_host();
  if (dtype_ != expected)
    throw Error("tensor has dtype " + dtype_name(dtype_) + ", accessed as " + dtype_name(expected));
}

}  // namespace flowlens
