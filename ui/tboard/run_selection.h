#pragma once
// TensorBoard's run selector, shared by the dashboards (Scalars, Histograms,
// Distributions, Images): the log's runs, each checkable (on by default) and
// with its colour, in one item model; every dashboard shows a list over it,
// so turning a run off in one hides it in all.
#include <QColor>
#include <QObject>
#include <QStringList>

class QListView;
class QStandardItemModel;
class QWidget;

namespace flowlens::ui {

class RunSelection : public QObject {
  Q_OBJECT

 public:
  explicit RunSelection(QObject* parent = nullptr);

  // Replaces the runs; every run is on. A run keeps its colour by position.
  void set_runs(const QStringList& runs);
  QStringList runs() const;
  bool is_enabled(const QString& run) const;  // false for a run not listed
  void set_enabled(const QString& run, bool on);
  QColor color(const QString& run) const;  // the run's line colour

  QStandardItemModel* model() const { return model_; }
  // A list of the runs with check boxes, over model().
  QListView* make_view(QWidget* parent) const;

 signals:
  void changed();  // a run turned on or off, or the runs replaced

 private:
  QStandardItemModel* model_;
  bool replacing_ = false;
};

}  // namespace flowlens::ui
