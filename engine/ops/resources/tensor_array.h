#pragma once
// The resources behind TensorFlow 1's TensorArrayV3 and StackV2 op families
// (tensorflow/core/kernels/tensor_array.h, stack.cc): per-step state that a
// creating op makes fresh each time it runs and hands on in the
// ResourceHandle::resource of a DT_RESOURCE tensor, so the handle keeps it
// alive and no lookup by name is needed.
//
// Both are mutated from kernels that may run in parallel (iterations of a
// while loop), so every member takes the object's mutex. Errors are
// TensorFlow's messages, naming the array ("TensorArray foo_3: Could not
// read from TensorArray index 1 because it has not yet been written to.").
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tensor/resource_handle.h"
#include "tensor/tensor.h"

namespace flowlens::ops {

class TensorArray : public ResourceBase {
 public:
  struct Options {
    DType dtype = DType::Float;
    Shape element_shape = Shape::unknown_rank();
    bool dynamic_size = false;
    bool clear_after_read = true;
    bool identical_element_shapes = false;
    // A gradient TensorArray: writes to one index add up (backprop sums the
    // gradients of several reads of one forward element).
    bool multiple_writes_aggregate = false;
    bool is_grad = false;
    int64_t marked_size = -1;
  };

  // `size` elements, none written. Throws Error for a negative size or one
  // past int32 (TensorFlow's sizes are int32).
  TensorArray(std::string name, int64_t size, Options options);

  std::string kind() const override { return "TensorArray"; }
  std::string describe() const override;

  const std::string& name() const { return name_; }
  DType dtype() const { return opt_.dtype; }
  bool identical_element_shapes() const { return opt_.identical_element_shapes; }
  Shape element_shape() const;

  // TensorArray::WriteOrAggregate: the dtype and element shape must fit; a
  // read index cannot be written again; a written one only when writes
  // aggregate (then the values add, and shapes must agree).
  void write(int64_t index, const Tensor& value);
  void write_many(const std::vector<int64_t>& indices, const std::vector<Tensor>& values);
  // TensorArray::Read: a written, not cleared index; with clear_after_read
  // the element is released. An index a gradient array knows only by shape
  // (CopyShapesFrom) reads as zeros.
  Tensor read(int64_t index);
  std::vector<Tensor> read_many(const std::vector<int64_t>& indices);

  int64_t size() const;
  // The shape each of the first `count` elements was written with (unknown
  // rank where none was), for shape inference of a constant handle; empty
  // when closed or `count` exceeds the size.
  std::vector<Shape> recorded_shapes(int64_t count) const;
  // What Concat (and a full gather) cover: the marked size for a gradient array.
  int64_t pack_or_concat_size() const;
  // Records the size after a split or scatter (not for gradient arrays).
  void set_marked_size(int64_t size);
  bool has_dynamic_size() const;

  // ClearAndMarkClosed: every later use fails with "... has already been closed."
  void close();

  // TensorArray::GetOrCreateGrad: the gradient array for `source`, made on
  // first use with this array's size and the shapes of its written
  // elements (each prepended with `shape_to_prepend`, TensorArrayGradWithShape),
  // whose unwritten elements read as zeros. Freezes this array's size.
  std::shared_ptr<TensorArray> grad(const std::string& source, const Shape& shape_to_prepend);

 private:
  struct Element {
    Tensor tensor;  // empty with written: zeros of `shape` (a gradient's soft copy)
    Shape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  void check_open_locked() const;
  void write_locked(int64_t index, const Tensor& value);
  Tensor read_locked(int64_t index);
  std::string prefix() const { return "TensorArray " + name_ + ": "; }

  const std::string name_;
  Options opt_;
  mutable std::mutex mu_;
  bool closed_ = false;
  bool gradients_disallowed_ = false;
  std::vector<Element> elements_;
  std::map<std::string, std::shared_ptr<TensorArray>> grads_;
};

class Stack : public ResourceBase {
 public:
  // max_size < 0: unbounded.
  Stack(std::string name, DType elem_type, int64_t max_size);

  std::string kind() const override { return "Stack"; }
  std::string describe() const override;

  const std::string& name() const { return name_; }
  DType elem_type() const { return elem_type_; }
  // "Stack[name] overflowed its max_size (n)" past max_size.
  void push(const Tensor& value);
  // "Stack[name] is empty." on an empty stack.
  Tensor pop();
  // The element Pop would return, without removing it (shape inference of a
  // constant handle); an invalid tensor when empty or closed.
  Tensor peek() const;
  void close();

 private:
  void check_open_locked() const;

  const std::string name_;
  const DType elem_type_;
  const int64_t max_size_;
  mutable std::mutex mu_;
  bool closed_ = false;
  std::vector<Tensor> items_;
};

// TensorFlow's PartialTensorShape::IsCompatibleWith / MergeWith, for element shapes.
bool shape_compatible(const Shape& partial, const Shape& full);
// Throws TensorFlow's "Incompatible shapes during merge: [2] vs. [3]".
Shape merge_partial(const Shape& a, const Shape& b);

}  // namespace flowlens::ops
