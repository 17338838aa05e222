#include "ops/resources/dataset.h"

#include "ops/framework/kernel_checks.h"

namespace flowlens {

namespace {
std::string types_text(const std::vector<DType>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + ops::tf_type_name(types[i]);
  return s + ")";
}
std::string shapes_text(const std::vector<Shape>& shapes) {
  std::string s = "(";
  for (size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].to_string();
  return s + ")";
}
}  // namespace

std::string Dataset::describe() const {
  return op_ + " of " + types_text(types_) + " " + shapes_text(shapes_);
}

DatasetPtr dataset_from_tensor(const Tensor& t, const std::string& who) {
  if (!t.valid()) throw Error(who + ": the dataset input has no value");
  if (t.dtype() != DType::Variant)
    throw Error(who + ": expected a dataset (a variant scalar), got " + dtype_name(t.dtype()));
  if (t.num_elements() != 1 || t.shape().rank() != 0)
    throw Error(who + ": Dataset tensor must be a scalar, got shape " + t.shape().to_string());
  const VariantPtr& v = t.variants()[0];
  auto d = std::dynamic_pointer_cast<const Dataset>(v);
  if (!d) throw Error(who + ": the variant holds " + (v ? v->type_name() : std::string("nothing")) + ", not a dataset");
  return d;
}

Tensor dataset_tensor(DatasetPtr d) { return Tensor::from_variants(Shape{}, {std::move(d)}); }

bool shape_compatible(const Shape& declared, const Shape& actual) {
  if (!declared.rank_known() || !actual.rank_known()) return true;
  if (declared.rank() != actual.rank()) return false;
  for (int i = 0; i < declared.rank(); ++i)
    if (declared.dim(i) >= 0 && actual.dim(i) >= 0 && declared.dim(i) != actual.dim(i)) return false;
  return true;
}

void verify_types_match(const std::vector<DType>& expected, const std::vector<DType>& received) {
  if (expected.size() != received.size())
    throw Error("Number of components does not match: expected " + std::to_string(expected.size()) +
                " types but got " + std::to_string(received.size()) + ".");
  for (size_t i = 0; i < expected.size(); ++i)
    if (dtype_base(expected[i]) != dtype_base(received[i]))
      throw Error("Data type mismatch at component " + std::to_string(i) + ": expected " +
                  ops::tf_type_name(expected[i]) + " but got " + ops::tf_type_name(received[i]) + ".");
}

void verify_shapes_compatible(const std::vector<Shape>& expected, const std::vector<Shape>& received) {
  if (expected.size() != received.size())
    throw Error("Number of components does not match: expected " + std::to_string(expected.size()) +
                " shapes but got " + std::to_string(received.size()) + ".");
  for (size_t i = 0; i < expected.size(); ++i)
    if (!shape_compatible(expected[i], received[i]))
      throw Error("Incompatible shapes at component " + std::to_string(i) + ": expected " +
                  expected[i].to_string() + " but got " + received[i].to_string() + ".");
}

std::string IteratorResource::describe() const {
  std::lock_guard lock(mu_);
  std::string s = "Iterator '" + name_ + "' " + types_text(types_);
  if (!dataset_) return s + " (not initialized)";
  return s + " over " + dataset_->op() + " (" + std::to_string(produced_) + " element(s) produced" +
         (iterator_ ? ")" : ", ended)");
}

void IteratorResource::set_dataset(DatasetPtr dataset) {
  if (!dataset) throw Error("iterator '" + name_ + "': no dataset");
  verify_types_match(types_, dataset->output_types());
  verify_shapes_compatible(shapes_, dataset->output_shapes());
  std::unique_ptr<DatasetIterator> it = dataset->make_iterator();
  std::lock_guard lock(mu_);
  dataset_ = std::move(dataset);
  iterator_ = std::move(it);
  produced_ = 0;
}

bool IteratorResource::initialized() const {
  std::lock_guard lock(mu_);
  return dataset_ != nullptr;
}

DatasetElement IteratorResource::get_next(IteratorContext& ctx) {
  std::lock_guard lock(mu_);
  if (!dataset_)
    throw Error("GetNext() failed because the iterator has not been initialized. Ensure that you have run the "
                "initializer operation for this iterator before getting the next element.");
  DatasetElement out;
  if (!iterator_ || !iterator_->get_next(ctx, out)) {
    iterator_.reset();  // ended: every later call ends too, until MakeIterator restarts it
    throw OutOfRangeError("End of sequence");
  }
  ++produced_;
  return out;
}

}  // namespace flowlens
