#pragma once
// tf.data in the engine: a dataset is a DT_VARIANT scalar whose value is a
// Dataset (TensorFlow's DatasetBase), an immutable description of a sequence
// of elements (each a tuple of tensors with the dataset's output_types and
// output_shapes). Iterating makes a DatasetIterator; the iterator ops keep
// one in an IteratorResource, a ResourceBase the session's ResourceManager
// holds under the Iterator op's (container, shared_name), so it advances
// across runs. dataset_ops.cpp and iterator_ops.cpp hold the kernels.
//
// A dataset keeps what it needs to produce its elements: its input datasets,
// captured tensors, and for MapDataset the function's name and attrs. The
// function library is not part of the value: it comes from the run that asks
// for the next element (IteratorContext), as TensorFlow's iterator context
// carries the FunctionLibraryRuntime.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.h"
#include "ops/framework/run_context.h"
#include "tensor/tensor.h"
#include "tensor/variant.h"

namespace flowlens {

// One element of a dataset: one tensor per component.
using DatasetElement = std::vector<Tensor>;

// What producing an element may need from the run that asks for it.
struct IteratorContext {
  FunctionCaller* functions = nullptr;  // nullptr: no function library in this run
  const RunContext* run = nullptr;      // cancellation; may be nullptr
};

class DatasetIterator {
 public:
  virtual ~DatasetIterator() = default;
  // The next element into `out`; false at the end of the sequence (and on
  // every later call). Throws Error for bad elements or failing functions.
  virtual bool get_next(IteratorContext& ctx, DatasetElement& out) = 0;
};

class Dataset : public VariantValue {
 public:
  Dataset(std::string op, std::vector<DType> types, std::vector<Shape> shapes)
      : op_(std::move(op)), types_(std::move(types)), shapes_(std::move(shapes)) {}
  // "RangeDataset": the op that made it.
  const std::string& op() const { return op_; }
  std::string type_name() const override { return op_ + "::Dataset"; }
  std::string describe() const override;
  const std::vector<DType>& output_types() const { return types_; }
  const std::vector<Shape>& output_shapes() const { return shapes_; }
  // A fresh iterator at the first element. It points into the dataset: the
  // caller keeps the dataset alive while iterating (IteratorResource holds
  // it; a dataset holds its inputs).
  virtual std::unique_ptr<DatasetIterator> make_iterator() const = 0;

 private:
  std::string op_;
  std::vector<DType> types_;
  std::vector<Shape> shapes_;
};

using DatasetPtr = std::shared_ptr<const Dataset>;

// The dataset a DT_VARIANT scalar holds; throws Error naming `who` otherwise.
DatasetPtr dataset_from_tensor(const Tensor& t, const std::string& who);
// A DT_VARIANT scalar holding `d`.
Tensor dataset_tensor(DatasetPtr d);

// Whether `actual` fits the partial shape `declared` (unknown rank or dims match anything).
bool shape_compatible(const Shape& declared, const Shape& actual);

// TensorFlow's VerifyTypesMatch / VerifyShapesCompatible, with their messages:
// "Data type mismatch at component 0: expected int64 but got int32.",
// "Incompatible shapes at component 0: expected [?] but got [3].".
void verify_types_match(const std::vector<DType>& expected, const std::vector<DType>& received);
void verify_shapes_compatible(const std::vector<Shape>& expected, const std::vector<Shape>& received);

// An iterator resource (TensorFlow's IteratorResource): the output
// signature its handle op declares, and the iterator over the dataset
// MakeIterator last gave it.
class IteratorResource : public ResourceBase {
 public:
  IteratorResource(std::vector<DType> types, std::vector<Shape> shapes, std::string name)
      : types_(std::move(types)), shapes_(std::move(shapes)), name_(std::move(name)) {}
  std::string kind() const override { return "Iterator"; }
  std::string describe() const override;
  const std::vector<DType>& output_types() const { return types_; }
  const std::vector<Shape>& output_shapes() const { return shapes_; }

  // (Re)starts iteration over `dataset` (MakeIterator), after checking its
  // types and shapes against the iterator's.
  void set_dataset(DatasetPtr dataset);
  bool initialized() const;
  // The next element. Throws OutOfRangeError("End of sequence") past the
  // last one, Error when never initialized.
  DatasetElement get_next(IteratorContext& ctx);

 private:
  std::vector<DType> types_;
  std::vector<Shape> shapes_;
  std::string name_;
  mutable std::mutex mu_;
  DatasetPtr dataset_;
  std::unique_ptr<DatasetIterator> iterator_;
  int64_t produced_ = 0;
};

}  // namespace flowlens
