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
#include "ops/framework/op_registry.h"

namespace flowlens::ui {
namespace {

QString about(const QString& id) {
  if (id == QLatin1String("matmul"))
    return QStringLiteral("input_data (4\u00D73) and b (3\u00D71) as variables, one MatMul `output` on /gpu:0. "
                          "Running it prints output = [[9],[21],[33],[45]].");
  if (id == QLatin1String("mlp"))
    return QStringLiteral("SyntheticClassification data, dense layers with the activation, logits, mean "
                          "cross-entropy `loss`; with training, gradients and an SGD `train` op.");
  if (id == QLatin1String("cnn"))
    return QStringLiteral("SyntheticImages data, conv 3x3 - batch norm - ReLU - max pool blocks (or ResNet bottleneck "
                          "stages: 3, 4, 6, 3 is ResNet-50), global average pooling, logits, mean cross-entropy "
                          "`loss`; with training, gradients, an SGD `train` op and the moving-average updates.");
  return QStringLiteral("The MLP split over two towers (/gpu:0, /gpu:1) by replicate_in_graph: each tower "
                        "computes its loss and gradients, the gradients are averaged, one `train` op applies them.");
}

// "16, 32" -> {16, 32}; false with `error` naming the bad part.
bool parse_sizes(const QString& text, const QString& what, std::vector<int>* sizes, QString* error) {
  sizes->clear();
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    const int size = part.trimmed().toInt(&ok);
    if (!ok) {
      if (error) *error = QStringLiteral("%1: '%2' is not a size; expected a list like 64, 32").arg(what, part.trimmed());
      return false;
    }
    sizes->push_back(size);
  }
  return true;
}

QSpinBox* spin(int min, int max, int value) {
  auto* s = new QSpinBox;
  s->setRange(min, max);
  s->setValue(value);
  return s;
}

}  // namespace

std::optional<Graph> TemplateDialog::build_template(const QString& id, const TemplateChoices& options, QString* error) {
  try {
    if (id == QLatin1String("matmul")) return matmul_example_graph();
    if (id == QLatin1String("mlp")) return mlp_classifier_graph(options.mlp);
    if (id == QLatin1String("two-tower")) {
      TwoTowerTemplateOptions t;
      t.model = options.mlp;
      return two_tower_training_graph(t, OpRegistry::global());
    }
    if (id == QLatin1String("cnn")) return cnn_classifier_graph(options.cnn);
    if (error) *error = QStringLiteral("no template called '%1' (expected matmul, mlp, two-tower or cnn)").arg(id);
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
  template_->addItem(QStringLiteral("CNN classifier"), QStringLiteral("cnn"));
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

  const CnnTemplateOptions cnn;
  cnn_form_ = new QWidget;
  auto* cnn_layout = new QFormLayout(cnn_form_);
  cnn_layout->setContentsMargins(0, 0, 0, 0);
  cnn_batch_ = spin(1, 1 << 16, cnn.batch);
  cnn_image_size_ = spin(1, 1 << 14, cnn.image_size);
  cnn_channels_ = spin(1, 1 << 12, cnn.channels);
  cnn_classes_ = spin(1, 1 << 16, cnn.classes);
  cnn_filters_ = new QLineEdit(QStringLiteral("16, 32"));
  cnn_filters_->setToolTip(QStringLiteral("Filters of each conv-BN-ReLU-pool block, comma-separated"));
  cnn_stages_ = new QLineEdit;
  cnn_stages_->setPlaceholderText(QStringLiteral("empty: plain blocks; 3, 4, 6, 3: ResNet-50"));
  cnn_stages_->setToolTip(QStringLiteral("Bottleneck blocks per ResNet stage; when given, replaces the plain blocks"));
  cnn_batch_norm_ = new QCheckBox(QStringLiteral("FusedBatchNorm after each convolution (else a bias)"));
  cnn_batch_norm_->setChecked(cnn.batch_norm);
  cnn_data_format_ = new QComboBox;
  cnn_data_format_->addItems({QStringLiteral("NHWC"), QStringLiteral("NCHW")});
  cnn_training_ = new QCheckBox(QStringLiteral("add gradients and an SGD train op"));
  cnn_training_->setChecked(true);
  cnn_learning_rate_ = new QDoubleSpinBox;
  cnn_learning_rate_->setDecimals(4);
  cnn_learning_rate_->setRange(0.0001, 10);
  cnn_learning_rate_->setValue(cnn.learning_rate);
  cnn_layout->addRow(QStringLiteral("Batch"), cnn_batch_);
  cnn_layout->addRow(QStringLiteral("Image size"), cnn_image_size_);
  cnn_layout->addRow(QStringLiteral("Channels"), cnn_channels_);
  cnn_layout->addRow(QStringLiteral("Classes"), cnn_classes_);
  cnn_layout->addRow(QStringLiteral("Blocks"), cnn_filters_);
  cnn_layout->addRow(QStringLiteral("ResNet stages"), cnn_stages_);
  cnn_layout->addRow(QStringLiteral("Batch norm"), cnn_batch_norm_);
  cnn_layout->addRow(QStringLiteral("Data format"), cnn_data_format_);
  cnn_layout->addRow(QStringLiteral("Training"), cnn_training_);
  cnn_layout->addRow(QStringLiteral("Learning rate"), cnn_learning_rate_);

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
  layout->addWidget(cnn_form_);
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
  mlp_form_->setVisible(id == QLatin1String("mlp") || id == QLatin1String("two-tower"));
  cnn_form_->setVisible(id == QLatin1String("cnn"));
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
  if (!parse_sizes(hidden_->text(), QStringLiteral("Hidden layers"), &o.hidden, error)) return false;
  *options = o;
  return true;
}

bool TemplateDialog::cnn_options(CnnTemplateOptions* options, QString* error) const {
  CnnTemplateOptions o;
  o.batch = cnn_batch_->value();
  o.image_size = cnn_image_size_->value();
  o.channels = cnn_channels_->value();
  o.classes = cnn_classes_->value();
  if (!parse_sizes(cnn_filters_->text(), QStringLiteral("Blocks"), &o.filters, error)) return false;
  if (!parse_sizes(cnn_stages_->text(), QStringLiteral("ResNet stages"), &o.resnet_stages, error)) return false;
  o.batch_norm = cnn_batch_norm_->isChecked();
  o.data_format = cnn_data_format_->currentText().toStdString();
  o.training = cnn_training_->isChecked();
  o.learning_rate = static_cast<float>(cnn_learning_rate_->value());
  *options = o;
  return true;
}

std::optional<Graph> TemplateDialog::build(QString* error) const {
  TemplateChoices o;
  if (!mlp_options(&o.mlp, error) || !cnn_options(&o.cnn, error)) return std::nullopt;
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
