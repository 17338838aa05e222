#include "ui/model/model_panel.h"
#include "ui/util/std_text.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <exception>

#include "common/error.h"
#include "io/example_json.h"
#include "tensor/npy.h"
#include "tensor/tensor_format.h"
#include "tensor/tensor_parse.h"
#include "ui/model/model_source.h"
#include "ui/model/signature_runner.h"

namespace flowlens::ui {
namespace {

QString dtype_text(DType dtype) { return dtype == DType::Invalid ? QStringLiteral("?") : qs(dtype_name(dtype)); }

QString describe_input(const SignatureTensor& t) {
  return QStringLiteral("%1 %2").arg(dtype_text(t.dtype), qs(t.shape.to_string()));
}

// The value's shape made the input's, when its element count allows.
Tensor fit_to_shape(const Tensor& value, const Shape& shape) {
  if (!shape.rank_known() || value.shape().rank() == shape.rank()) return value;
  int unknown = -1;
  int64_t known = 1;
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape.dim(i) < 0) {
      if (unknown >= 0) return value;  // two unknown dimensions: ambiguous
      unknown = i;
    } else {
      known *= shape.dim(i);
    }
  }
  const int64_t n = value.num_elements();
  if (known == 0 || n % known != 0 || (unknown < 0 && n != known)) return value;
  std::vector<int64_t> dims = shape.dims();
  if (unknown >= 0) dims[static_cast<std::size_t>(unknown)] = n / known;
  return value.reshaped(Shape(std::move(dims)));
}

}  // namespace

Tensor parse_signature_input(const QString& text, const SignatureTensor& input, const QString& base_dir) {
  const std::string name = "input '" + input.key + "'";
  const QString value = text.trimmed();
  if (value.isEmpty())
    throw Error(name + " (" + describe_input(input).toStdString() + ") has no value: type one, e.g. [1, 2, 3], or a .npy file");
  Tensor tensor;
  if (value.endsWith(QStringLiteral(".npy"), Qt::CaseInsensitive)) {
    const QString path = QDir::isAbsolutePath(value) || base_dir.isEmpty() ? value : QDir(base_dir).filePath(value);
    try {
      tensor = read_npy(path.toStdString());
    } catch (const std::exception& e) {
      throw Error(name + ": " + e.what());
    }
    if (input.dtype != DType::Invalid && tensor.dtype() != input.dtype)
      throw Error(name + " expects " + dtype_name(input.dtype) + ", but '" + path.toStdString() + "' holds " +
                  dtype_name(tensor.dtype()));
  } else if (input.dtype == DType::String && (value.startsWith(QLatin1Char('{')) || value.startsWith(QLatin1String("[{")))) {
    // Serialized tf.Examples (regress/classify signatures), typed as JSON like
    // saved_model_cli's --input_examples: [{"x": [1.0]}, {"x": [2.0]}].
    try {
      std::vector<std::string> examples = examples_from_json(value.toStdString());
      const auto count = static_cast<int64_t>(examples.size());
      tensor = Tensor::from_strings(Shape{count}, std::move(examples));
    } catch (const std::exception& e) {
      throw Error(name + ": " + e.what());
    }
  } else {
    if (input.dtype == DType::Invalid)
      throw Error(name + ": the signature gives no dtype to read the value as; use a .npy file");
    std::string typed = value.toStdString();
    // "1, 2, 3" as typed in a form means the list.
    if (!typed.starts_with('[') && typed.find(',') != std::string::npos && typed.find_first_of("\"'") == std::string::npos)
      typed = "[" + typed + "]";
    try {
      tensor = parse_tensor_text(typed, input.dtype);
    } catch (const std::exception& e) {
      throw Error(name + " (" + dtype_name(input.dtype) + "): " + e.what());
    }
  }
  return fit_to_shape(tensor, input.shape);
}

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent) {
  runner_ = new SignatureRunner(this);
  connect(runner_, &SignatureRunner::finished, this, &ModelPanel::on_finished);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  info_ = new QLabel;
  info_->setObjectName(QStringLiteral("modelInfo"));
  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(info_);

  auto* split = new QSplitter(Qt::Vertical);
  layout->addWidget(split, 1);

  tree_ = new QTreeWidget;
  tree_->setObjectName(QStringLiteral("signatureTree"));
  tree_->setHeaderLabels({QStringLiteral("Signature / key"), QStringLiteral("DType"), QStringLiteral("Shape"),
                          QStringLiteral("Tensor")});
  tree_->setRootIsDecorated(true);
  tree_->setUniformRowHeights(true);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  split->addWidget(tree_);
  connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    while (item && item->parent()) item = item->parent();
    if (item) select_signature(item->text(0));
  });

  auto* run_box = new QGroupBox(QStringLiteral("Run Signature"));
  auto* run_layout = new QVBoxLayout(run_box);
  signature_combo_ = new QComboBox;
  signature_combo_->setObjectName(QStringLiteral("signatureCombo"));
  run_layout->addWidget(signature_combo_);
  inputs_box_ = new QWidget;
  inputs_form_ = new QFormLayout(inputs_box_);
  inputs_form_->setContentsMargins(0, 0, 0, 0);
  run_layout->addWidget(inputs_box_);
  auto* buttons = new QHBoxLayout;
  run_button_ = new QPushButton(QStringLiteral("Run"));
  run_button_->setObjectName(QStringLiteral("runSignatureButton"));
  buttons->addWidget(run_button_);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("signatureStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  buttons->addWidget(status_, 1);
  run_layout->addLayout(buttons);
  output_table_ = new QTableWidget(0, 4);
  output_table_->setObjectName(QStringLiteral("signatureOutputs"));
  output_table_->setHorizontalHeaderLabels(
      {QStringLiteral("Output"), QStringLiteral("DType"), QStringLiteral("Shape"), QStringLiteral("Value")});
  output_table_->horizontalHeader()->setStretchLastSection(true);
  output_table_->verticalHeader()->hide();
  output_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  output_table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  output_table_->setToolTip(QStringLiteral("Double-click an output to open it in the Tensor dock"));
  run_layout->addWidget(output_table_, 1);
  split->addWidget(run_box);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 2);

  connect(signature_combo_, &QComboBox::currentIndexChanged, this, [this] { rebuild_inputs(); });
  connect(run_button_, &QPushButton::clicked, this, [this] { run(); });
  connect(output_table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    const QTableWidgetItem* item = output_table_->item(row, 0);
    if (!item) return;
    const auto it = outputs_.find(item->text().toStdString());
    if (it != outputs_.end()) emit tensor_activated(outputs_signature_ + QLatin1Char(':') + item->text(), it->second);
  });
  set_model(nullptr);
}

ModelPanel::~ModelPanel() = default;

void ModelPanel::set_model(std::shared_ptr<const ModelSource> model) {
  runner_->set_model(model);
  model_ = std::move(model);
  outputs_.clear();
  output_table_->setRowCount(0);
  set_status(QString(), false);
  fill_tree();
  {
    const QSignalBlocker block(signature_combo_);
    signature_combo_->clear();
    if (model_)
      for (const Signature* s : model_->runnable_signatures()) signature_combo_->addItem(qs(s->key));
    // TensorFlow Serving's default, when the model has it.
    if (const int serving = signature_combo_->findText(QStringLiteral("serving_default")); serving >= 0)
      signature_combo_->setCurrentIndex(serving);
  }
  rebuild_inputs();
  setEnabled(true);
  run_button_->setEnabled(model_ && signature_combo_->count() > 0);
  signature_combo_->setEnabled(model_ && signature_combo_->count() > 0);
}

void ModelPanel::fill_tree() {
  tree_->clear();
  if (!model_) {
    info_->setText(QStringLiteral("No model open. Open a SavedModel directory (File \u2192 Open Folder\u2026) or a "
                                  ".meta file to see its signatures and run them."));
    return;
  }
  const MetaGraph& meta = model_->meta;
  const auto runnable = model_->runnable_signatures();
  QStringList facts;
  facts << (model_->format == FileFormat::SavedModel ? QStringLiteral("<b>SavedModel</b>")
                                                      : QStringLiteral("<b>MetaGraph</b>"));
  facts << QStringLiteral("tags: %1").arg(qs(meta.tags_text()).toHtmlEscaped());
  if (!meta.tensorflow_version.empty())
    facts << QStringLiteral("TensorFlow %1").arg(qs(meta.tensorflow_version).toHtmlEscaped());
  facts << QStringLiteral("%1 signature%2").arg(runnable.size()).arg(runnable.size() == 1 ? QString() : QStringLiteral("s"));
  if (meta.has_object_graph) facts << QStringLiteral("TF2 object graph");
  QString html = facts.join(QStringLiteral(" \u00B7 "));
  // Relative to where FlowLens was started when that is shorter; the full path is in the title bar.
  const QString relative = QDir::current().relativeFilePath(qs(model_->path));
  const QString shown = relative.size() < static_cast<qsizetype>(model_->path.size()) ? relative : qs(model_->path);
  html += QStringLiteral("<br><small>%1</small>").arg(QDir::toNativeSeparators(shown).toHtmlEscaped());
  if (model_->tag_sets.size() > 1)
    html += QStringLiteral("<br><small>meta graphs: %1</small>")
                .arg(qs([&] {
                       std::string all;
                       for (const auto& t : model_->tag_sets) all += (all.empty() ? "" : "; ") + t;
                       return all;
                     }())
                         .toHtmlEscaped());
  if (!model_->checkpoint_problem.empty()) {
    // One line; the full search (every path tried) is the tooltip.
    const std::string& line = model_->checkpoint_notice.empty() ? model_->checkpoint_problem : model_->checkpoint_notice;
    html += QStringLiteral("<br><span style=\"color:#b26a00\">%1</span>").arg(qs(line).toHtmlEscaped());
    info_->setToolTip(qs(model_->checkpoint_problem));
  }
  info_->setText(html);

  for (const Signature* sig : runnable) {
    auto* top = new QTreeWidgetItem(tree_, {qs(sig->key)});
    top->setToolTip(0, qs(sig->method_name));
    top->setText(3, qs(sig->method_name));
    QFont bold = top->font(0);
    bold.setBold(true);
    top->setFont(0, bold);
    for (const auto& [label, tensors] : {std::pair{"inputs", &sig->inputs}, std::pair{"outputs", &sig->outputs}}) {
      auto* group = new QTreeWidgetItem(top, {QLatin1String(label)});
      for (const SignatureTensor& t : *tensors) {
        auto* item = new QTreeWidgetItem(group, {qs(t.key), dtype_text(t.dtype), qs(t.shape.to_string()),
                                                 t.tensor_name.empty() ? qs(t.encoding) : qs(t.tensor_name)});
        item->setToolTip(3, qs(t.encoding));
      }
    }
  }
  tree_->expandAll();
}

const Signature* ModelPanel::signature(const QString& key) const {
  return model_ ? model_->meta.find_signature(key.toStdString()) : nullptr;
}

void ModelPanel::rebuild_inputs() {
  while (inputs_form_->rowCount() > 0) inputs_form_->removeRow(0);
  input_edits_.clear();
  const Signature* sig = signature(current_signature());
  if (!sig) return;
  for (const SignatureTensor& in : sig->inputs) {
    auto* row = new QWidget;
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    auto* edit = new QLineEdit;
    edit->setObjectName(QStringLiteral("input_") + qs(in.key));
    edit->setPlaceholderText(in.dtype == DType::String
                                 ? QStringLiteral("%1: text, or tf.Examples as [{\"x\": [1.0]}]").arg(describe_input(in))
                                 : QStringLiteral("%1, e.g. [1, 2, 3], or a .npy file").arg(describe_input(in)));
    edit->setToolTip(QStringLiteral("%1 (%2): a value read as %3 and fitted to the shape, or a .npy path")
                         .arg(qs(in.key), qs(in.tensor_name), describe_input(in)));
    connect(edit, &QLineEdit::returnPressed, this, [this] { run(); });
    auto* browse = new QToolButton;
    browse->setText(QStringLiteral("\u2026"));
    browse->setToolTip(QStringLiteral("Choose a .npy file"));
    connect(browse, &QToolButton::clicked, this, [this, edit] { choose_npy(edit); });
    h->addWidget(edit, 1);
    h->addWidget(browse);
    inputs_form_->addRow(QStringLiteral("%1 <small>%2</small>").arg(qs(in.key).toHtmlEscaped(), describe_input(in).toHtmlEscaped()),
                         row);
    input_edits_[qs(in.key)] = edit;
  }
  if (sig->inputs.empty()) inputs_form_->addRow(new QLabel(QStringLiteral("(no inputs)")));
}

void ModelPanel::choose_npy(QLineEdit* edit) {
  const QString dir = model_ ? QFileInfo(qs(model_->path)).absolutePath() : QString();
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Input from .npy"), dir,
                                                    QStringLiteral("NumPy arrays (*.npy);;All files (*)"));
  if (!path.isEmpty()) edit->setText(path);
}

QStringList ModelPanel::signature_keys() const {
  QStringList keys;
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) keys << tree_->topLevelItem(i)->text(0);
  return keys;
}

bool ModelPanel::select_signature(const QString& key) {
  const int index = signature_combo_->findText(key);
  if (index < 0) return false;
  signature_combo_->setCurrentIndex(index);
  return true;
}

QString ModelPanel::current_signature() const { return signature_combo_->currentText(); }

QLineEdit* ModelPanel::input_edit(const QString& key) const {
  const auto it = input_edits_.find(key);
  return it == input_edits_.end() ? nullptr : it->second;
}

bool ModelPanel::run(QString* error) {
  auto fail = [&](const QString& text) {
    set_status(text, true);
    if (error) *error = text;
    return false;
  };
  const Signature* sig = signature(current_signature());
  if (!sig) return fail(QStringLiteral("No signature to run"));
  if (runner_->busy()) return fail(QStringLiteral("A signature is already running"));
  const QString base_dir = QFileInfo(qs(model_->path)).isDir() ? qs(model_->path) : QFileInfo(qs(model_->path)).absolutePath();
  std::map<std::string, Tensor> inputs;
  try {
    for (const SignatureTensor& in : sig->inputs) {
      QLineEdit* edit = input_edit(qs(in.key));
      inputs[in.key] = parse_signature_input(edit ? edit->text() : QString(), in, base_dir);
    }
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  QString why;
  if (!runner_->start(qs(sig->key), std::move(inputs), &why)) return fail(why);
  run_button_->setEnabled(false);
  set_status(QStringLiteral("Running %1\u2026").arg(qs(sig->key)), false);
  return true;
}

bool ModelPanel::wait_for_run(int timeout_ms) { return runner_->wait(timeout_ms); }

QString ModelPanel::status_text() const { return status_->toolTip(); }

void ModelPanel::set_status(const QString& text, bool error) {
  status_->setText(text.size() > 300 ? text.left(300) + QStringLiteral("\u2026") : text);
  status_->setToolTip(text);
  status_->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

void ModelPanel::on_finished(const SignatureOutcome& outcome) {
  run_button_->setEnabled(model_ && signature_combo_->count() > 0);
  const QString loaded = outcome.notes.isEmpty() ? QString() : QStringLiteral(" (loaded: %1)").arg(outcome.notes.join(QStringLiteral("; ")));
  if (!outcome.ok) {
    set_status(QStringLiteral("%1 failed: %2%3").arg(outcome.signature, outcome.error, loaded), true);
    return;
  }
  outputs_ = outcome.outputs;
  outputs_signature_ = outcome.signature;
  output_table_->setRowCount(static_cast<int>(outputs_.size()));
  QList<QPair<QString, Tensor>> labelled;
  int row = 0;
  TensorFormatOptions format;
  format.edge_items = 4;
  for (const auto& [key, value] : outputs_) {
    QString text;
    try {
      text = qs(format_tensor(value, format));
    } catch (const std::exception& e) {
      text = QString::fromStdString(e.what());
    }
    const QStringList cells = {qs(key), qs(dtype_name(value.dtype())), qs(value.shape().to_string()),
                               text.simplified()};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == 3) item->setToolTip(text.left(4000));
      output_table_->setItem(row, c, item);
    }
    labelled.append({outcome.signature + QLatin1Char(':') + qs(key), value});
    ++row;
  }
  output_table_->resizeColumnsToContents();
  set_status(QStringLiteral("%1: %2 output%3 in %4 ms (run %5)%6")
                 .arg(outcome.signature)
                 .arg(outputs_.size())
                 .arg(outputs_.size() == 1 ? QString() : QStringLiteral("s"))
                 .arg(outcome.wall_ms, 0, 'f', 2)
                 .arg(outcome.run_number)
                 .arg(loaded),
             false);
  emit outputs_ready(labelled);
}

}  // namespace flowlens::ui
