#pragma once
// The Watches dock: tensors the debugger copies every time their producer
// runs (Debugger::watch), listed with the summary of the latest copy; the
// selected watch's history shows one summary per run, so a value can be
// followed across training steps. A tensor inside a loop is copied once per
// iteration: the table shows the latest with its iteration, the history one
// entry per iteration to pick from. Double-clicking opens a copy in the
// tensor viewer.
#include <QList>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <memory>

#include "ui/tensor/tensor_catalog.h"

class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QPushButton;
class QTableWidget;

namespace flowlens {
class Debugger;
class Graph;
}  // namespace flowlens

namespace flowlens::ui {

class WatchesPanel : public QWidget {
  Q_OBJECT

 public:
  explicit WatchesPanel(Debugger* debugger, QWidget* parent = nullptr);

  // Names are checked against this graph; a new graph drops every watch.
  void set_graph(std::shared_ptr<const Graph> graph);
  void set_selected_node(const QString& node);
  // "x" or "x:1". False with `error` for a node the graph does not have.
  bool add_watch(const QString& tensor, QString* error = nullptr);
  void remove_watch(const QString& tensor);
  const QStringList& watches() const { return watches_; }
  // Rereads the debugger's copies (after a stop or a run).
  void refresh();
  // Every captured copy, labelled "x @ run 3", oldest run first.
  QList<NamedTensor> captured() const;
  // How a run of the debugger (its run id) is named: the run controller's
  // numbering, so the Watches dock and the Run Log agree. Default "run <id>".
  void set_run_namer(std::function<QString(int64_t)> namer) { namer_ = std::move(namer); }

  QTableWidget* table() const { return table_; }
  QListWidget* history() const { return history_; }

 signals:
  void tensor_activated(const QString& label, const Tensor& tensor);
  void watches_changed();

 private:
  void show_history();
  void open_history_item(QListWidgetItem* item);
  void add_from_edit();

  QString run_text(int64_t run) const;

  Debugger* debugger_;
  std::function<QString(int64_t)> namer_;
  std::shared_ptr<const Graph> graph_;
  QStringList watches_;
  QString selected_node_;
  QLineEdit* name_edit_ = nullptr;
  QPushButton* add_button_ = nullptr;
  QPushButton* add_selected_button_ = nullptr;
  QPushButton* remove_button_ = nullptr;
  QTableWidget* table_ = nullptr;
  QListWidget* history_ = nullptr;
};

}  // namespace flowlens::ui
