#include "ui/compare/replicate_dialog.h"

#include <QCompleter>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStringListModel>
#include <QVBoxLayout>

#include "transform/replication_proposal.h"

namespace flowlens::ui {
namespace {

QStringList split_list(const QString& text) {
  QStringList out;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
    if (const QString t = part.trimmed(); !t.isEmpty()) out << t;
  return out;
}

std::vector<std::string> to_std(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list) out.push_back(s.toStdString());
  return out;
}

QString join(const std::vector<std::string>& list) {
  QStringList out;
  for (const auto& s : list) out << QString::fromStdString(s);
  return out.join(QStringLiteral(", "));
}

// Completes the last comma-separated name only, so "a, b" lists work.
class ListCompleter : public QCompleter {
 public:
  ListCompleter(const QStringList& words, QObject* parent) : QCompleter(words, parent) {
    setCaseSensitivity(Qt::CaseInsensitive);
    setFilterMode(Qt::MatchContains);
  }
  QStringList splitPath(const QString& path) const override {
    return {path.section(QLatin1Char(','), -1).trimmed()};
  }
  QString pathFromIndex(const QModelIndex& index) const override {
    const QString text = static_cast<QLineEdit*>(widget())->text();
    const int comma = text.lastIndexOf(QLatin1Char(','));
    const QString head = comma < 0 ? QString() : text.left(comma + 1) + QLatin1Char(' ');
    return head + QCompleter::pathFromIndex(index);
  }
};

}  // namespace

ReplicateDialog::ReplicateDialog(const QStringList& node_names, QWidget* parent)
    : QDialog(parent), names_(node_names) {
  setObjectName(QStringLiteral("replicateDialog"));
  setWindowTitle(QStringLiteral("Replicate In-Graph"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      QStringLiteral("Copy the model once per device: each split input is divided along its first axis, "
                     "each tower runs under <i>tower_i/</i>, and the merged outputs are concatenated "
                     "on the host under their original names."),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  auto* form = new QFormLayout;
  replicas_ = new QSpinBox(this);
  replicas_->setObjectName(QStringLiteral("replicasSpin"));
  replicas_->setRange(1, 64);
  replicas_->setValue(2);
  devices_ = new QLineEdit(default_devices(2), this);
  devices_->setObjectName(QStringLiteral("devicesEdit"));
  devices_->setToolTip(QStringLiteral("One device per tower, comma-separated"));
  split_ = new QLineEdit(this);
  split_->setObjectName(QStringLiteral("splitEdit"));
  split_->setPlaceholderText(QStringLiteral("e.g. input_data"));
  split_->setCompleter(new ListCompleter(names_, split_));
  merge_ = new QLineEdit(this);
  merge_->setObjectName(QStringLiteral("mergeEdit"));
  merge_->setPlaceholderText(QStringLiteral("e.g. output"));
  merge_->setCompleter(new ListCompleter(names_, merge_));
  form->addRow(QStringLiteral("&Replicas:"), replicas_);
  form->addRow(QStringLiteral("&Devices:"), devices_);
  form->addRow(QStringLiteral("&Split inputs:"), split_);
  loss_ = new QLineEdit(this);
  loss_->setObjectName(QStringLiteral("lossEdit"));
  loss_->setPlaceholderText(QStringLiteral("training: e.g. loss"));
  loss_->setToolTip(QStringLiteral("A scalar loss: each tower computes it and its gradients, the gradients are averaged "
                                   "and one train op applies them"));
  loss_->setCompleter(new ListCompleter(names_, loss_));
  form->addRow(QStringLiteral("&Merge outputs:"), merge_);
  form->addRow(QStringLiteral("&Loss:"), loss_);
  layout->addLayout(form);

  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("replicateProblem"));
  problem_->setStyleSheet(QStringLiteral("color: #c62828;"));
  // Messages come and go as the user types: they wrap in a fixed room
  // instead of resizing the dialog under the cursor.
  problem_->setWordWrap(true);
  problem_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  problem_->setMinimumHeight(2 * problem_->fontMetrics().lineSpacing());
  setMinimumWidth(520);
  layout->addWidget(problem_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons_->button(QDialogButtonBox::Ok)->setText(QStringLiteral("Replicate"));
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

  connect(replicas_, &QSpinBox::valueChanged, this, [this](int n) {
    if (!devices_edited_) devices_->setText(default_devices(n));
    validate();
  });
  connect(devices_, &QLineEdit::textEdited, this, [this] {
    devices_edited_ = true;
    validate();
  });
  for (QLineEdit* e : {split_, merge_, loss_}) connect(e, &QLineEdit::textChanged, this, &ReplicateDialog::validate);

  validate();
}

QString ReplicateDialog::default_devices(int replicas) {
  QStringList out;
  for (int i = 0; i < replicas; ++i) out << QStringLiteral("/gpu:%1").arg(i);
  return out.join(QStringLiteral(","));
}

bool ReplicateDialog::guess_endpoints(const Graph& graph, ReplicateOptions* options) {
  const ReplicateOptions proposal = propose_replication(graph);
  const bool found = !proposal.split_inputs.empty() && (!proposal.loss.empty() || !proposal.merge_outputs.empty());
  if (found && options) {
    options->split_inputs = proposal.split_inputs;
    options->merge_outputs = proposal.merge_outputs;
    options->loss = proposal.loss;
  }
  return found;
}

void ReplicateDialog::set_options(const ReplicateOptions& options) {
  replicas_->setValue(options.replicas);
  if (!options.devices.empty()) {
    devices_->setText(join(options.devices).remove(QLatin1Char(' ')));
    devices_edited_ = true;
  }
  if (!options.split_inputs.empty()) split_->setText(join(options.split_inputs));
  if (!options.merge_outputs.empty()) merge_->setText(join(options.merge_outputs));
  if (!options.loss.empty()) loss_->setText(QString::fromStdString(options.loss));
  validate();
}

ReplicateOptions ReplicateDialog::options() const {
  ReplicateOptions o;
  o.replicas = replicas_->value();
  o.devices = to_std(split_list(devices_->text()));
  o.split_inputs = to_std(split_list(split_->text()));
  o.merge_outputs = to_std(split_list(merge_->text()));
  o.loss = loss_->text().trimmed().toStdString();
  return o;
}

// Catches what replicate_in_graph would reject before the user presses OK.
void ReplicateDialog::validate() {
  QString problem;
  const QStringList devices = split_list(devices_->text());
  if (devices.size() != replicas_->value())
    problem = QStringLiteral("Give one device per replica (%1 given, %2 needed).").arg(devices.size()).arg(replicas_->value());
  const bool training = !loss_->text().trimmed().isEmpty();
  for (QLineEdit* e : {split_, merge_, loss_}) {
    const QStringList list = split_list(e->text());
    if (problem.isEmpty() && list.isEmpty() && e == split_) problem = QStringLiteral("Name at least one input to split.");
    if (problem.isEmpty() && list.isEmpty() && e == merge_ && !training)
      problem = QStringLiteral("Name at least one output to merge, or a loss to train on.");
    for (const QString& n : list)
      if (problem.isEmpty() && !names_.contains(n)) problem = QStringLiteral("No node named '%1'.").arg(n);
  }
  problem_->setText(problem);
  problem_->setVisible(!problem.isEmpty());
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

}  // namespace flowlens::ui
