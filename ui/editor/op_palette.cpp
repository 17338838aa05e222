#include "ui/editor/op_palette.h"

#include <QLineEdit>
#include <QMimeData>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "ops/framework/op_registry.h"

namespace flowlens::ui {
namespace {

constexpr int kOpRole = Qt::UserRole + 1;

// Only op rows drag, and they carry the op name.
class OpTree : public QTreeWidget {
 public:
  using QTreeWidget::QTreeWidget;

 protected:
  QStringList mimeTypes() const override { return {OpPalette::kMimeType}; }
  QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override {
    for (QTreeWidgetItem* item : items)
      if (const QString op = item->data(0, kOpRole).toString(); !op.isEmpty()) return OpPalette::mime_for(op);
    return nullptr;
  }
};

QString arity(const OpDef& def) {
  const int min = def.min_inputs(), max = def.max_inputs();
  if (max < 0) return QStringLiteral("%1+ inputs").arg(min);
  if (min == max) return min == 1 ? QStringLiteral("1 input") : QStringLiteral("%1 inputs").arg(min);
  return QStringLiteral("%1-%2 inputs").arg(min).arg(max);
}

QString describe(const OpDef& def) {
  QStringList attrs;
  for (const AttrDef& a : def.attrs)
    attrs << QString::fromStdString(a.name) + (!a.default_value && !a.inferable ? QStringLiteral("*") : QString());
  QStringList outputs;
  for (const ArgDef& a : def.outputs) outputs << QString::fromStdString(a.is_list() ? a.name + "[]" : a.name);
  QString text = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(def.name));
  if (!def.summary.empty()) text += QStringLiteral("<br>%1").arg(QString::fromStdString(def.summary).toHtmlEscaped());
  text += QStringLiteral("<br>%1; outputs: %2").arg(arity(def), outputs.isEmpty() ? QStringLiteral("none") : outputs.join(QStringLiteral(", ")));
  if (!attrs.isEmpty()) text += QStringLiteral("<br>attrs: %1 (* required)").arg(attrs.join(QStringLiteral(", ")));
  if (def.kernels.empty()) text += QStringLiteral("<br><i>no kernel: can be drawn, not run</i>");
  return text + QStringLiteral("<br>Drag onto the canvas, or double-click.");
}

}  // namespace

const QString OpPalette::kMimeType = QStringLiteral("application/x-flowlens-op");

QMimeData* OpPalette::mime_for(const QString& op) {
  auto* mime = new QMimeData;
  mime->setData(kMimeType, op.toUtf8());
  return mime;
}

QString OpPalette::op_from_mime(const QMimeData* mime) {
  return mime && mime->hasFormat(kMimeType) ? QString::fromUtf8(mime->data(kMimeType)) : QString();
}

OpPalette::OpPalette(const OpRegistry& registry, QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("opPalette"));
  search_ = new QLineEdit(this);
  search_->setObjectName(QStringLiteral("opSearch"));
  search_->setPlaceholderText(QStringLiteral("Search ops\u2026"));
  search_->setClearButtonEnabled(true);
  tree_ = new OpTree(this);
  tree_->setObjectName(QStringLiteral("opTree"));
  tree_->setHeaderHidden(true);
  tree_->setDragEnabled(true);
  tree_->setDragDropMode(QAbstractItemView::DragOnly);
  tree_->setSelectionMode(QAbstractItemView::SingleSelection);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(search_);
  layout->addWidget(tree_);
  fill(registry);

  connect(search_, &QLineEdit::textChanged, this, &OpPalette::apply_filter);
  connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    if (const QString op = item->data(0, kOpRole).toString(); !op.isEmpty()) emit op_activated(op);
  });
  // Enter in the search box adds the only (or first) match.
  connect(search_, &QLineEdit::returnPressed, this, [this] {
    const QStringList ops = visible_ops();
    if (!ops.isEmpty()) emit op_activated(ops.front());
  });
}

void OpPalette::fill(const OpRegistry& registry) {
  QHash<QString, QTreeWidgetItem*> groups;
  for (const std::string& category : op_categories()) {
    if (category == "internal") continue;  // _Send/_Recv: partitioning inserts them, nobody draws them
    const QString g = QString::fromStdString(category);
    auto* item = new QTreeWidgetItem(tree_, {g});
    item->setFlags(Qt::ItemIsEnabled);
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    groups.insert(g, item);
  }
  for (const std::string& name : registry.op_names()) {
    const OpDef* def = registry.find(name);
    QTreeWidgetItem* group = groups.value(QString::fromStdString(def->category));
    if (!group) continue;
    auto* item = new QTreeWidgetItem(group, {QString::fromStdString(name)});
    item->setData(0, kOpRole, QString::fromStdString(name));
    item->setToolTip(0, describe(*def));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
  }
  for (QTreeWidgetItem* g : groups) {
    g->setText(0, QStringLiteral("%1 (%2)").arg(g->text(0)).arg(g->childCount()));
    g->setHidden(g->childCount() == 0);
  }
  tree_->expandAll();
}

void OpPalette::apply_filter(const QString& text) {
  const QString needle = text.trimmed();
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* group = tree_->topLevelItem(i);
    int shown = 0;
    for (int j = 0; j < group->childCount(); ++j) {
      QTreeWidgetItem* op = group->child(j);
      const bool match = needle.isEmpty() || op->text(0).contains(needle, Qt::CaseInsensitive);
      op->setHidden(!match);
      shown += match ? 1 : 0;
    }
    group->setHidden(shown == 0);
  }
  tree_->expandAll();
}

QStringList OpPalette::visible_ops() const {
  QStringList ops;
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* group = tree_->topLevelItem(i);
    if (group->isHidden()) continue;
    for (int j = 0; j < group->childCount(); ++j)
      if (!group->child(j)->isHidden()) ops << group->child(j)->data(0, kOpRole).toString();
  }
  return ops;
}

QTreeWidgetItem* OpPalette::op_item(const QString& op) const {
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* group = tree_->topLevelItem(i);
    for (int j = 0; j < group->childCount(); ++j)
      if (group->child(j)->data(0, kOpRole).toString() == op) return group->child(j);
  }
  return nullptr;
}

}  // namespace flowlens::ui
