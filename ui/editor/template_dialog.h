#pragma once
// File → New from Template: pick the matmul example, an MLP classifier, the
// 2-tower in-graph training graph or a CNN classifier, and their sizes
// (layers, activation, blocks, batch norm, layout, batch, learning rate). The graphs come from
// engine/transform/graph_templates, the builders the tests and CLI use.
#include <QDialog>
#include <optional>

#include "graph/graph.h"
#include "transform/graph_templates.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QWidget;

namespace flowlens::ui {

// What the dialog's forms hold: the MLP options (mlp, two-tower) and the CNN's.
struct TemplateChoices {
  MlpTemplateOptions mlp;
  CnnTemplateOptions cnn;
};

class TemplateDialog : public QDialog {
  Q_OBJECT

 public:
  // Builds template `id` ("matmul", "mlp", "two-tower", "cnn"); nullopt with
  // `error` naming the bad option or the unknown template.
  static std::optional<flowlens::Graph> build_template(const QString& id, const TemplateChoices& options,
                                                       QString* error);

  explicit TemplateDialog(QWidget* parent = nullptr);

  void set_template(const QString& id);
  QString template_id() const;
  // The options as the form shows them; false with `error` for a bad layer list.
  bool mlp_options(MlpTemplateOptions* options, QString* error) const;
  bool cnn_options(CnnTemplateOptions* options, QString* error) const;
  std::optional<flowlens::Graph> build(QString* error) const;

  QComboBox* template_combo() const { return template_; }
  QLineEdit* hidden_edit() const { return hidden_; }
  QSpinBox* batch_spin() const { return batch_; }
  QComboBox* activation_combo() const { return activation_; }
  QLineEdit* cnn_filters_edit() const { return cnn_filters_; }
  QLineEdit* cnn_stages_edit() const { return cnn_stages_; }
  QSpinBox* cnn_batch_spin() const { return cnn_batch_; }
  QWidget* cnn_form() const { return cnn_form_; }
  QWidget* mlp_form() const { return mlp_form_; }

  void accept() override;  // refuses (with the reason shown) options that do not build

 private:
  void update_form();

  QComboBox* template_ = nullptr;
  QLabel* about_ = nullptr;
  QWidget* mlp_form_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QSpinBox* features_ = nullptr;
  QLineEdit* hidden_ = nullptr;
  QSpinBox* classes_ = nullptr;
  QComboBox* activation_ = nullptr;
  QCheckBox* training_ = nullptr;
  QDoubleSpinBox* learning_rate_ = nullptr;
  QWidget* cnn_form_ = nullptr;
  QSpinBox* cnn_batch_ = nullptr;
  QSpinBox* cnn_image_size_ = nullptr;
  QSpinBox* cnn_channels_ = nullptr;
  QSpinBox* cnn_classes_ = nullptr;
  QLineEdit* cnn_filters_ = nullptr;
  QLineEdit* cnn_stages_ = nullptr;
  QCheckBox* cnn_batch_norm_ = nullptr;
  QComboBox* cnn_data_format_ = nullptr;
  QCheckBox* cnn_training_ = nullptr;
  QDoubleSpinBox* cnn_learning_rate_ = nullptr;
  QLabel* error_ = nullptr;
};

}  // namespace flowlens::ui
