#include "ui/cluster/cluster_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include "ui/cluster/cluster_tree_model.h"

namespace flowlens::ui {

ClusterPanel::ClusterPanel(ClusterTreeModel* model, const QList<QAction*>& actions, QWidget* parent)
    : QWidget(parent), model_(model) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* bar = new QToolBar;
  bar->setIconSize(QSize(16, 16));
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  for (QAction* a : actions) {
    if (a) bar->addAction(a);
    else bar->addSeparator();
  }
  layout->addWidget(bar);
  tree_ = new QTreeView;
  tree_->setObjectName(QStringLiteral("clusterTree"));
  tree_->setModel(model_);
  tree_->setUniformRowHeights(true);
  tree_->setSelectionMode(QAbstractItemView::SingleSelection);
  tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  tree_->header()->setStretchLastSection(true);
  layout->addWidget(tree_, 1);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("clusterMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(message_);
  // Jobs open by default: the tasks are what people come to see.
  connect(model_, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex& parent, int first, int last) {
    if (parent.isValid()) return;
    for (int r = first; r <= last; ++r) tree_->expand(model_->index(r, 0));
  });
  connect(tree_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ClusterPanel::selection_changed);
}

QString ClusterPanel::selected_node() const { return ClusterTreeModel::node_of(tree_->currentIndex()); }
QString ClusterPanel::selected_variable() const { return ClusterTreeModel::variable_of(tree_->currentIndex()); }

bool ClusterPanel::select_node(const QString& label) {
  const QModelIndex index = model_->node_index(label);
  if (!index.isValid()) return false;
  tree_->setCurrentIndex(index);
  return true;
}

void ClusterPanel::set_message(const QString& text) { message_->setText(text); }
QString ClusterPanel::message() const { return message_->text(); }

}  // namespace flowlens::ui
