#pragma once
// Graph → Replicate…: asks for the in-graph replication parameters (tower
// count, one device per tower, the inputs to split, the outputs to merge and,
// for training, the loss, with node-name completion) and hands back
// ReplicateOptions.
#include <QDialog>
#include <QStringList>

#include "transform/replicate_in_graph.h"

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace flowlens::ui {

class ReplicateDialog : public QDialog {
  Q_OBJECT

 public:
  // `node_names`: the graph's nodes, offered as completions.
  explicit ReplicateDialog(const QStringList& node_names, QWidget* parent = nullptr);

  // Fills the fields; empty split/merge lists leave the guesses in place.
  void set_options(const ReplicateOptions& options);
  ReplicateOptions options() const;

  // What the graph suggests (transform/replication_proposal.h): its batch
  // placeholders split, and its loss, or else its outputs merged. False when
  // it suggests no complete set (then the dialog has to ask).
  static bool guess_endpoints(const Graph& graph, ReplicateOptions* options);
  // "/gpu:0,/gpu:1,..." for `replicas` towers.
  static QString default_devices(int replicas);

  QSpinBox* replicas_box() const { return replicas_; }
  QLineEdit* devices_edit() const { return devices_; }
  QLineEdit* split_edit() const { return split_; }
  QLineEdit* merge_edit() const { return merge_; }
  QLineEdit* loss_edit() const { return loss_; }

 private:
  void validate();

  QStringList names_;
  QSpinBox* replicas_ = nullptr;
  QLineEdit* devices_ = nullptr;
  QLineEdit* split_ = nullptr;
  QLineEdit* merge_ = nullptr;
  QLineEdit* loss_ = nullptr;
  QLabel* problem_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
  bool devices_edited_ = false;  // stop regenerating the default once typed in
};

}  // namespace flowlens::ui
