#include "ui/editor/template_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include "common/error.h"
#include "ops/op_registry.h"

namespace flowlens::ui {
namespace {

QString about(const QString& id) {
  if (id == QLatin1String("matmul"))
    return QStringLiteral("input_data (4\u00D73) and b (3\u00D71) as variables, one MatMul `output` on /gpu:0. "
                          "Running it prints output = [[9],[21],[33],[45]].");
  if (id == QLatin1String("mlp"))
    return QStringLiteral("SyntheticClassification data, dense layers with the activation, logits, mean "
                          "cross-entropy `loss`; with training, gradients and an SGD `train` op.");
  return QStringLiteral("The MLP split over two towers (/gpu:0, /gpu:1) by replicate_in_graph: each tower "
                        "computes its loss and gradients, the gradients are averaged, one `train` op applies them.");
}

QSpinBox* spin(int min, int max, int value) {
  auto* s = new QSpinBox;
  s->setRange(min, max);
  s->setValue(value);
  return s;
}

}  // namespace

std::optional<Graph> TemplateDialog::build_template(const QString& id, const MlpTemplateOptions& options, QString* error) {
  try {
    if (id == QLatin1String("matmul")) return matmul_example_graph();
    if (id == QLatin1String("mlp")) return mlp_classifier_graph(options);
    if (id == QLatin1String("two-tower")) {
      TwoTowerTemplateOptions t;
      t.model = options;
      return two_tower_training_graph(t, OpRegistry::global());
    }
    if (error) *error = QStringLiteral("no template called '%1' (expected matmul, mlp or two-tower)").arg(id);
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
  }
  return std::nullopt;
}

TemplateDialog::TemplateDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(QStringLiteral("New Graph from Template"));
  setObjectName(QStringLiteral("templateDialog"));
  template_ = new QComboBox;
  template_->addItem(QStringLiteral("Matmul example"), QStringLiteral("matmul"));
  template_->addItem(QStringLiteral("MLP classifier"), QStringLiteral("mlp"));
  template_->addItem(QStringLiteral("2-tower in-graph training"), QStringLiteral("two-tower"));
  about_ = new QLabel;
  about_->setWordWrap(true);

  const MlpTemplateOptions defaults;
  mlp_form_ = new QWidget;
  auto* form = new QFormLayout(mlp_form_);
  form->setContentsMargins(0, 0, 0, 0);
  batch_ = spin(1, 1 << 20, defaults.batch);
  features_ = spin(1, 1 << 16, defaults.features);
  hidden_ = new QLineEdit(QStringLiteral("16"));
  hidden_->setToolTip(QStringLiteral("Hidden layer sizes, comma-separated (\"64, 32\"); empty for none"));
  classes_ = spin(1, 1 << 16, defaults.classes);
  activation_ = new QComboBox;
  for (const std::string& a : mlp_template_activations()) activation_->addItem(QString::fromStdString(a));
  training_ = new QCheckBox(QStringLiteral("add gradients and an SGD train op"));
  training_->setChecked(true);
  learning_rate_ = new QDoubleSpinBox;
  learning_rate_->setDecimals(4);
  learning_rate_->setRange(0.0001, 10);
  learning_rate_->setValue(defaults.learning_rate);
  form->addRow(QStringLiteral("Batch"), batch_);
  form->addRow(QStringLiteral("Features"), features_);
  form->addRow(QStringLiteral("Hidden layers"), hidden_);
  form->addRow(QStringLiteral("Classes"), classes_);
  form->addRow(QStringLiteral("Activation"), activation_);
  form->addRow(QStringLiteral("Training"), training_);
  form->addRow(QStringLiteral("Learning rate"), learning_rate_);

  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c62828;"));
  error_->hide();
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &TemplateDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  auto* top = new QFormLayout;
  top->addRow(QStringLiteral("Template"), template_);
  layout->addLayout(top);
  layout->addWidget(about_);
  layout->addWidget(mlp_form_);
  layout->addWidget(error_);
  layout->addWidget(buttons);
  connect(template_, &QComboBox::currentIndexChanged, this, &TemplateDialog::update_form);
  update_form();
  resize(440, sizeHint().height());
}

void TemplateDialog::set_template(const QString& id) {
  const int i = template_->findData(id);
  if (i >= 0) template_->setCurrentIndex(i);
}

QString TemplateDialog::template_id() const { return template_->currentData().toString(); }

void TemplateDialog::update_form() {
  const QString id = template_id();
  about_->setText(about(id));
  mlp_form_->setVisible(id != QLatin1String("matmul"));
  training_->setEnabled(id == QLatin1String("mlp"));  // the towers always train
  error_->hide();
}

bool TemplateDialog::mlp_options(MlpTemplateOptions* options, QString* error) const {
  MlpTemplateOptions o;
  o.batch = batch_->value();
  o.features = features_->value();
  o.classes = classes_->value();
  o.activation = activation_->currentText().toStdString();
  o.training = training_->isChecked();
  o.learning_rate = static_cast<float>(learning_rate_->value());
  o.hidden.clear();
  for (const QString& part : hidden_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    const int size = part.trimmed().toInt(&ok);
    if (!ok) {
      if (error) *error = QStringLiteral("Hidden layers: '%1' is not a layer size; expected a list like 64, 32").arg(part.trimmed());
      return false;
    }
    o.hidden.push_back(size);
  }
  *options = o;
  return true;
}

std::optional<Graph> TemplateDialog::build(QString* error) const {
  MlpTemplateOptions o;
  if (!mlp_options(&o, error)) return std::nullopt;
  return build_template(template_id(), o, error);
}

void TemplateDialog::accept() {
  QString error;
  if (!build(&error)) {
    error_->setText(error);
    error_->show();
    return;
  }
  QDialog::accept();
}

}  // namespace flowlens::ui
