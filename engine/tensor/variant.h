#pragma once
// One element of a DT_VARIANT tensor: a value no fixed layout describes, as
// TensorFlow's Variant holds a dataset (tf.data), a TensorList or an
// optional. Values are immutable once made and shared between tensors, so a
// copy of a variant tensor is cheap and never aliases a value someone
// changes.
#include <memory>
#include <string>

namespace flowlens {

class VariantValue {
 public:
  virtual ~VariantValue() = default;
  // TensorFlow's type name: "tensorflow::data::(anonymous)::RangeDatasetOp::Dataset".
  // Shorter names are fine; messages quote it.
  virtual std::string type_name() const = 0;
  // One line for printing ("RangeDataset(0, 10, 1)").
  virtual std::string describe() const { return type_name(); }
};

using VariantPtr = std::shared_ptr<const VariantValue>;

}  // namespace flowlens
