#pragma once
// The Variables dock: the tensors of the checkpoint an opened SavedModel
// (variables/variables) or .meta file (its checkpoint) restores from, read
// from the checkpoint's index (V2 or V1, io/checkpoint_reader.h): name, dtype, shape and bytes.
// Double-clicking one reads it (its CRC checked) and hands it to the tensor
// viewer. A missing or corrupt checkpoint shows its error here; nothing
// throws out of the panel.
#include <QString>
#include <QWidget>
#include <memory>

#include "tensor/tensor.h"

class QLabel;
class QLineEdit;
class QTreeWidget;

namespace flowlens {
class CheckpointReader;
}

namespace flowlens::ui {

struct ModelSource;

class VariablesPanel : public QWidget {
  Q_OBJECT

 public:
  explicit VariablesPanel(QWidget* parent = nullptr);
  ~VariablesPanel() override;

  // Null or a model without a checkpoint: an empty list and why.
  void set_model(const std::shared_ptr<const ModelSource>& model);
  // Reads the checkpoint at `prefix` (for a checkpoint opened on its own).
  void set_checkpoint(const QString& prefix);

  QStringList names() const;  // as listed
  // Reads `name` and emits tensor_activated; false with `error` (also shown).
  bool open_tensor(const QString& name, QString* error = nullptr);
  QString status_text() const;
  bool has_error() const { return has_error_; }
  QTreeWidget* table() const { return table_; }

 signals:
  void tensor_activated(const QString& label, const flowlens::Tensor& tensor);

 private:
  void set_status(const QString& text, bool error);
  void apply_filter(const QString& text);

  std::unique_ptr<CheckpointReader> reader_;
  QLabel* status_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QTreeWidget* table_ = nullptr;
  bool has_error_ = false;
};

}  // namespace flowlens::ui
