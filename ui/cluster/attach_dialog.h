#pragma once
// Cluster → Attach…: a cluster file (TF_CONFIG or the bare {"ps": [...],
// "worker": [...]} dict, as flowlens-node reads it) or addresses typed in.
#include <QDialog>

#include "cluster/cluster_spec.h"

class QLineEdit;
class QRadioButton;

namespace flowlens::ui {

// "127.0.0.1:2222, 127.0.0.1:2223" per job (commas or spaces) -> a cluster
// spec, checked like a cluster file; false with `error` naming the bad entry.
bool cluster_from_addresses(const QString& ps, const QString& workers, ClusterSpec* cluster, QString* error);

class AttachDialog : public QDialog {
  Q_OBJECT

 public:
  explicit AttachDialog(QWidget* parent = nullptr);

  // The cluster described; false with `error` when the input is not valid.
  bool cluster(ClusterSpec* cluster, QString* error) const;
  QString file() const;      // when attaching by file
  QString key_file() const;  // the user's key pair, for a secured cluster file

 private:
  void browse();

  QRadioButton* by_file_ = nullptr;
  QLineEdit* file_ = nullptr;
  QLineEdit* key_ = nullptr;
  QLineEdit* ps_ = nullptr;
  QLineEdit* workers_ = nullptr;
};

}  // namespace flowlens::ui
