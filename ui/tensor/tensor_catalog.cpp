#include "ui/tensor/tensor_catalog.h"

namespace flowlens::ui {

void TensorCatalog::set_group(const QString& group, QList<NamedTensor> tensors) {
  if (!order_.contains(group)) order_ << group;
  groups_[group] = std::move(tensors);
  emit changed();
}

void TensorCatalog::clear() {
  order_.clear();
  groups_.clear();
  emit changed();
}

QList<NamedTensor> TensorCatalog::all() const {
  QList<NamedTensor> out;
  for (const QString& group : order_) out << groups_.at(group);
  return out;
}

QStringList TensorCatalog::labels() const {
  QStringList out;
  for (const NamedTensor& t : all()) out << t.label;
  return out;
}

Tensor TensorCatalog::find(const QString& label) const {
  for (const QString& group : order_)
    for (const NamedTensor& t : groups_.at(group))
      if (t.label == label) return t.tensor;
  return {};
}

}  // namespace flowlens::ui
