#include "ui/tboard/run_selection.h"

#include <QListView>
#include <QPixmap>
#include <QStandardItemModel>
#include <algorithm>

namespace flowlens::ui {
namespace {

// TensorBoard's run palette (its categorical colours, in order).
QColor tensorboard_run_color(int index) {
  static const QColor palette[] = {QColor(0xff, 0x70, 0x43), QColor(0x00, 0x77, 0xbb), QColor(0xcc, 0x33, 0x11),
                                   QColor(0x33, 0xbb, 0xee), QColor(0xee, 0x33, 0x77), QColor(0x00, 0x99, 0x88),
                                   QColor(0xbb, 0xbb, 0xbb)};
  return palette[index % static_cast<int>(std::size(palette))];
}

}  // namespace

RunSelection::RunSelection(QObject* parent) : QObject(parent), model_(new QStandardItemModel(this)) {
  connect(model_, &QStandardItemModel::itemChanged, this, [this] {
    if (!replacing_) emit changed();
  });
}

void RunSelection::set_runs(const QStringList& runs) {
  replacing_ = true;
  model_->clear();
  for (int i = 0; i < runs.size(); ++i) {
    auto* item = new QStandardItem(runs[i]);
    item->setCheckable(true);
    item->setCheckState(Qt::Checked);
    item->setEditable(false);
    QPixmap swatch(10, 10);
    swatch.fill(tensorboard_run_color(i));
    item->setData(swatch, Qt::DecorationRole);
    item->setToolTip(QStringLiteral("Run %1: uncheck to hide it in every dashboard").arg(runs[i]));
    model_->appendRow(item);
  }
  replacing_ = false;
  emit changed();
}

QStringList RunSelection::runs() const {
  QStringList out;
  for (int i = 0; i < model_->rowCount(); ++i) out << model_->item(i)->text();
  return out;
}

bool RunSelection::is_enabled(const QString& run) const {
  for (int i = 0; i < model_->rowCount(); ++i)
    if (model_->item(i)->text() == run) return model_->item(i)->checkState() == Qt::Checked;
  return false;
}

void RunSelection::set_enabled(const QString& run, bool on) {
  for (int i = 0; i < model_->rowCount(); ++i)
    if (model_->item(i)->text() == run) model_->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
}

QColor RunSelection::color(const QString& run) const {
  for (int i = 0; i < model_->rowCount(); ++i)
    if (model_->item(i)->text() == run) return tensorboard_run_color(i);
  return tensorboard_run_color(0);
}

QListView* RunSelection::make_view(QWidget* parent) const {
  auto* view = new QListView(parent);
  view->setObjectName(QStringLiteral("runSelector"));
  view->setModel(model_);
  view->setToolTip(QStringLiteral("Runs: each one on or off, in every dashboard"));
  // As tall as its runs (up to five rows), so the tags keep the room.
  auto fit = [view, model = model_] {
    const int row = std::max(view->sizeHintForRow(0), view->fontMetrics().height() + 4);
    view->setFixedHeight(std::clamp(model->rowCount(), 1, 5) * row + 2 * view->frameWidth() + 2);
  };
  connect(model_, &QStandardItemModel::rowsInserted, view, fit);
  connect(model_, &QStandardItemModel::modelReset, view, fit);
  fit();
  return view;
}

}  // namespace flowlens::ui
