// TensorArray and Stack, after tensorflow/core/kernels/tensor_array.{h,cc}
// and stack.cc (TensorFlow 1.x semantics and messages).
#include "ops/resources/tensor_array.h"

#include <cstring>
#include <limits>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/kernel_checks.h"
#include "ops/framework/op_helpers.h"
#include "tensor/allocator.h"

namespace flowlens::ops {

bool shape_compatible(const Shape& partial, const Shape& full) {
  if (!partial.rank_known() || !full.rank_known()) return true;
  if (partial.rank() != full.rank()) return false;
  for (int d = 0; d < partial.rank(); ++d)
    if (partial.dim(d) >= 0 && full.dim(d) >= 0 && partial.dim(d) != full.dim(d)) return false;
  return true;
}

Shape merge_partial(const Shape& a, const Shape& b) {
  if (!a.rank_known()) return b;
  if (!b.rank_known()) return a;
  if (!shape_compatible(a, b))
    fail("Incompatible shapes during merge: " + shape_str(a) + " vs. " + shape_str(b));
  std::vector<int64_t> dims(static_cast<size_t>(a.rank()));
  for (int d = 0; d < a.rank(); ++d) dims[static_cast<size_t>(d)] = a.dim(d) >= 0 ? a.dim(d) : b.dim(d);
  return Shape(std::move(dims));
}

namespace {

constexpr int64_t kMaxSize = std::numeric_limits<int32_t>::max();

// An array's bookkeeping is held to the per-tensor size limit, so a size or
// index from input (int32 max) is refused instead of paged in.
template <class Element>
void check_elements(const std::string& name, int64_t count) {
  if (count > kMaxSize || static_cast<uint64_t>(count) * sizeof(Element) > HostAllocator::max_tensor_bytes())
    fail("TensorArray " + name + ": " + std::to_string(count) +
         " elements exceed the size limit of one tensor (HostAllocator::max_tensor_bytes)");
}

Tensor zeros(DType dtype, const Shape& shape) {
  Tensor t(dtype, shape);
  if (dtype_size(dtype) > 0 && t.num_elements() > 0) std::memset(t.raw_data(), 0, t.byte_size());
  return t;
}

// a + b into a fresh tensor (tensor_array::AddToTensor).
Tensor add(const Tensor& a, const Tensor& b) {
  Tensor out(a.dtype(), a.shape());
  dispatch<RealTypes>(a.dtype(), "TensorArray aggregation", [&](auto tag) {
    using T = decltype(tag);
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = T(x[i] + y[i]);
  });
  return out;
}

}  // namespace

// ---- TensorArray -------------------------------------------------------------------

TensorArray::TensorArray(std::string name, int64_t size, Options options) : name_(std::move(name)), opt_(std::move(options)) {
  if (size < 0) fail("Size should be >= 0.");
  check_elements<Element>(name_, size);
  if (opt_.element_shape.rank_known())
    for (int64_t d : opt_.element_shape.dims())
      if (d < -1) fail("TensorArray " + name_ + ": element_shape " + shape_str(opt_.element_shape) + " has a dimension below -1");
  elements_.resize(static_cast<size_t>(size));
}

std::string TensorArray::describe() const {
  std::lock_guard lock(mu_);
  return "TensorArray '" + name_ + "' (" + std::to_string(elements_.size()) + " " + dtype_name(opt_.dtype) +
         " elements" + (closed_ ? ", closed)" : ")");
}

void TensorArray::check_open_locked() const {
  if (closed_) fail("TensorArray " + name_ + " has already been closed.");
}

Shape TensorArray::element_shape() const {
  std::lock_guard lock(mu_);
  return opt_.element_shape;
}

void TensorArray::write(int64_t index, const Tensor& value) {
  std::lock_guard lock(mu_);
  write_locked(index, value);
}

void TensorArray::write_many(const std::vector<int64_t>& indices, const std::vector<Tensor>& values) {
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < indices.size(); ++i) write_locked(indices[i], values[i]);
}

void TensorArray::write_locked(int64_t index, const Tensor& value) {
  check_open_locked();
  if (index < 0 || (!opt_.dynamic_size && static_cast<uint64_t>(index) >= elements_.size()))
    fail(prefix() + "Tried to write to index " + std::to_string(index) +
         " but array is not resizeable and size is: " + std::to_string(elements_.size()));
  if (static_cast<uint64_t>(index) >= elements_.size()) {
    check_elements<Element>(name_, index + 1);
    elements_.resize(static_cast<size_t>(index) + 1);
  }
  Element& e = elements_[static_cast<size_t>(index)];
  const std::string at = prefix() + "Could not write to TensorArray index " + std::to_string(index);
  if (value.dtype() != opt_.dtype)
    fail(at + " because the value dtype is " + tf_type_name(value.dtype()) + " but TensorArray dtype is " +
         tf_type_name(opt_.dtype) + ".");
  if (!shape_compatible(opt_.element_shape, value.shape()))
    fail(at + " because the value shape is " + shape_str(value.shape()) +
         " which is incompatible with the TensorArray's element shape: " + shape_str(opt_.element_shape) + ".");
  if (e.read) fail(at + " because it has already been read.");
  if (!opt_.multiple_writes_aggregate && e.written) fail(at + " because it has already been written to.");
  if (!e.written) {
    e.tensor = value;
    e.shape = value.shape();
    e.written = true;
    return;
  }
  if (!(value.shape() == e.shape))
    fail(prefix() + "Could not aggregate to TensorArray index " + std::to_string(index) + " because the existing shape is " +
         shape_str(e.shape) + " but the new input shape is " + shape_str(value.shape()) + ".");
  // A stored shape without a value is zeros: the sum is the value.
  if (!e.tensor.valid() || e.tensor.num_elements() == 0) {
    e.tensor = value;
    return;
  }
  e.tensor = add(e.tensor.to_host(), value.to_host());
  gradients_disallowed_ = true;  // aggregated: no gradient of this array any more
}

Tensor TensorArray::read(int64_t index) {
  std::lock_guard lock(mu_);
  return read_locked(index);
}

std::vector<Tensor> TensorArray::read_many(const std::vector<int64_t>& indices) {
  std::lock_guard lock(mu_);
  std::vector<Tensor> out;
  out.reserve(indices.size());
  for (int64_t i : indices) out.push_back(read_locked(i));
  return out;
}

Tensor TensorArray::read_locked(int64_t index) {
  check_open_locked();
  if (index < 0 || static_cast<uint64_t>(index) >= elements_.size())
    fail("Tried to read from index " + std::to_string(index) + " but array size is: " + std::to_string(elements_.size()));
  Element& e = elements_[static_cast<size_t>(index)];
  if (!e.written)
    fail(prefix() + "Could not read from TensorArray index " + std::to_string(index) +
         " because it has not yet been written to.");
  if (e.cleared)
    fail(prefix() + "Could not read index " + std::to_string(index) +
         " twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?).");
  if (!e.tensor.valid()) e.tensor = zeros(opt_.dtype, e.shape);  // a soft copy: zeros of the recorded shape
  Tensor value = e.tensor;
  if (opt_.clear_after_read) {
    e.tensor = Tensor();
    e.cleared = true;
  }
  e.read = true;
  return value;
}

int64_t TensorArray::size() const {
  std::lock_guard lock(mu_);
  check_open_locked();
  return static_cast<int64_t>(elements_.size());
}

std::vector<Shape> TensorArray::recorded_shapes(int64_t count) const {
  std::lock_guard lock(mu_);
  std::vector<Shape> out;
  if (closed_ || count < 0 || static_cast<uint64_t>(count) > elements_.size()) return out;
  for (int64_t i = 0; i < count; ++i) {
    const Element& e = elements_[static_cast<size_t>(i)];
    out.push_back(e.written ? e.shape : Shape::unknown_rank());
  }
  return out;
}

int64_t TensorArray::pack_or_concat_size() const {
  std::lock_guard lock(mu_);
  check_open_locked();
  return opt_.is_grad ? opt_.marked_size : static_cast<int64_t>(elements_.size());
}

void TensorArray::set_marked_size(int64_t size) {
  std::lock_guard lock(mu_);
  check_open_locked();
  if (!opt_.is_grad) opt_.marked_size = size;
}

bool TensorArray::has_dynamic_size() const {
  std::lock_guard lock(mu_);
  return opt_.dynamic_size;
}

void TensorArray::close() {
  std::lock_guard lock(mu_);
  elements_.clear();
  closed_ = true;
}

std::shared_ptr<TensorArray> TensorArray::grad(const std::string& source, const Shape& shape_to_prepend) {
  std::lock_guard lock(mu_);
  check_open_locked();
  if (auto it = grads_.find(source); it != grads_.end()) return it->second;
  if (gradients_disallowed_)
    fail("Unable to create a gradients TensorArray for " + name_ +
         ".  Perhaps you used the multiple_writes_aggregate flag on a previous write?  Gradient calculation is "
         "impossible when multiple writes are performed to the same index.");
  auto prepend = [&](const Shape& s) {
    if (!s.rank_known()) return s;
    std::vector<int64_t> dims = shape_to_prepend.dims();
    dims.insert(dims.end(), s.dims().begin(), s.dims().end());
    return Shape(std::move(dims));
  };
  Options o;
  o.dtype = opt_.dtype;
  o.element_shape = opt_.identical_element_shapes ? prepend(opt_.element_shape) : Shape::unknown_rank();
  o.identical_element_shapes = opt_.identical_element_shapes;
  o.dynamic_size = false;
  o.multiple_writes_aggregate = true;
  o.is_grad = true;
  o.marked_size = opt_.marked_size < 0 ? static_cast<int64_t>(elements_.size()) : opt_.marked_size;
  o.clear_after_read = true;
  auto g = std::make_shared<TensorArray>(name_ + "@" + source, static_cast<int64_t>(elements_.size()), o);
  // CopyShapesFrom: the written elements' shapes, as zeros until written.
  for (size_t i = 0; i < elements_.size(); ++i) {
    if (!elements_[i].written) continue;
    g->elements_[i].shape = prepend(elements_[i].shape);
    g->elements_[i].written = true;
  }
  opt_.dynamic_size = false;  // DisableDynamicSize: the gradient fixed the size
  grads_[source] = g;
  return g;
}

// ---- Stack ---------------------------------------------------------------------------

Stack::Stack(std::string name, DType elem_type, int64_t max_size)
    : name_(std::move(name)), elem_type_(elem_type), max_size_(max_size) {}

std::string Stack::describe() const {
  std::lock_guard lock(mu_);
  return "Stack '" + name_ + "' (" + std::to_string(items_.size()) + " " + dtype_name(elem_type_) + " elements" +
         (max_size_ >= 0 ? " of at most " + std::to_string(max_size_) : std::string()) + (closed_ ? ", closed)" : ")");
}

void Stack::check_open_locked() const {
  if (closed_) fail("Stack[" + name_ + "] has already been closed.");
}

void Stack::push(const Tensor& value) {
  std::lock_guard lock(mu_);
  check_open_locked();
  if (max_size_ >= 0 && static_cast<int64_t>(items_.size()) >= max_size_)
    fail("Stack[" + name_ + "] overflowed its max_size (" + std::to_string(max_size_) + ")");
  items_.push_back(value);
}

Tensor Stack::pop() {
  std::lock_guard lock(mu_);
  check_open_locked();
  if (items_.empty()) fail("Stack[" + name_ + "] is empty.");
  Tensor value = std::move(items_.back());
  items_.pop_back();
  return value;
}

Tensor Stack::peek() const {
  std::lock_guard lock(mu_);
  return closed_ || items_.empty() ? Tensor() : items_.back();
}

void Stack::close() {
  std::lock_guard lock(mu_);
  items_.clear();
  closed_ = true;
}

}  // namespace flowlens::ops
