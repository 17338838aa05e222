#pragma once
// The tensors a run made available to look at, by label: the paused node's
// inputs and outputs, the fetched results, and each watched tensor per run
// ("w @ run 3"). The tensor viewer picks what to show and what to compare
// with from here. Groups are replaced whole, as runs and stops come.
#include <QList>
#include <QObject>
#include <QString>
#include <map>

#include "tensor/tensor.h"

namespace flowlens::ui {

struct NamedTensor {
  QString label;
  Tensor tensor;
};

class TensorCatalog : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

  // Group order is the order they were first set in; labels must be unique across groups.
  void set_group(const QString& group, QList<NamedTensor> tensors);
  void clear();
  QList<NamedTensor> all() const;
  QStringList labels() const;
  Tensor find(const QString& label) const;  // empty handle if unknown

 signals:
  void changed();

 private:
  QStringList order_;
  std::map<QString, QList<NamedTensor>> groups_;
};

}  // namespace flowlens::ui
