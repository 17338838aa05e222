#include "ui/cluster/attach_dialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QVBoxLayout>

#include "common/error.h"

namespace flowlens::ui {

bool cluster_from_addresses(const QString& ps, const QString& workers, ClusterSpec* cluster, QString* error) {
  auto list = [](const QString& text) {
    QStringList quoted;
    for (const QString& a : text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
      quoted << QStringLiteral("\"%1\"").arg(QString(a).replace(QLatin1Char('"'), QString()));
    return quoted.join(QStringLiteral(", "));
  };
  if (ps.trimmed().isEmpty() && workers.trimmed().isEmpty()) {
    if (error) *error = QObject::tr("no addresses: give at least one ps or worker as host:port");
    return false;
  }
  const QString json = QStringLiteral("{\"ps\": [%1], \"worker\": [%2]}").arg(list(ps), list(workers));
  try {
    *cluster = parse_cluster_spec(json.toStdString(), "addresses");
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

AttachDialog::AttachDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Attach to Cluster"));
  auto* layout = new QVBoxLayout(this);
  by_file_ = new QRadioButton(tr("Cluster file (TF_CONFIG or {\"ps\": [...], \"worker\": [...]})"));
  by_file_->setChecked(true);
  auto* file_row = new QHBoxLayout;
  file_ = new QLineEdit(qEnvironmentVariable("FLOWLENS_CLUSTER"));
  file_->setPlaceholderText(tr("cluster.json"));
  auto* browse = new QPushButton(tr("Browse…"));
  file_row->addWidget(file_, 1);
  file_row->addWidget(browse);
  auto* key_row = new QHBoxLayout;
  key_ = new QLineEdit;
  key_->setPlaceholderText(tr("your key pair (.key), for a cluster file with a security section"));
  auto* browse_key = new QPushButton(tr("Browse…"));
  key_row->addWidget(key_, 1);
  key_row->addWidget(browse_key);
  connect(browse_key, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Key Pair"), key_->text(), tr("Key pairs (*.key);;All files (*)"));
    if (!path.isEmpty()) key_->setText(path);
  });
  auto* by_address = new QRadioButton(tr("Addresses (host:port, separated by commas)"));
  auto* form = new QFormLayout;
  ps_ = new QLineEdit;
  ps_->setPlaceholderText(QStringLiteral("127.0.0.1:2222"));
  workers_ = new QLineEdit;
  workers_->setPlaceholderText(QStringLiteral("127.0.0.1:2223, 127.0.0.1:2224"));
  form->addRow(tr("ps:"), ps_);
  form->addRow(tr("worker:"), workers_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Attach"));
  layout->addWidget(by_file_);
  layout->addLayout(file_row);
  layout->addLayout(key_row);
  layout->addWidget(by_address);
  layout->addLayout(form);
  layout->addWidget(buttons);
  auto sync = [this] {
    file_->setEnabled(by_file_->isChecked());
    key_->setEnabled(by_file_->isChecked());
    ps_->setEnabled(!by_file_->isChecked());
    workers_->setEnabled(!by_file_->isChecked());
  };
  connect(by_file_, &QRadioButton::toggled, this, sync);
  sync();
  connect(browse, &QPushButton::clicked, this, &AttachDialog::browse);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    ClusterSpec spec;
    QString error;
    if (cluster(&spec, &error)) accept();
    else QMessageBox::warning(this, tr("Attach to Cluster"), error);
  });
}

void AttachDialog::browse() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Cluster File"), file_->text(), tr("JSON (*.json);;All files (*)"));
  if (!path.isEmpty()) file_->setText(path);
}

QString AttachDialog::file() const { return by_file_->isChecked() ? file_->text().trimmed() : QString(); }
QString AttachDialog::key_file() const { return by_file_->isChecked() ? key_->text().trimmed() : QString(); }

bool AttachDialog::cluster(ClusterSpec* spec, QString* error) const {
  if (!by_file_->isChecked()) return cluster_from_addresses(ps_->text(), workers_->text(), spec, error);
  if (file().isEmpty()) {
    if (error) *error = tr("choose a cluster file");
    return false;
  }
  try {
    *spec = load_cluster_spec(file().toStdString());
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

}  // namespace flowlens::ui
