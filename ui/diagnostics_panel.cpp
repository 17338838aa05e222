#include "ui/diagnostics_panel.h"

#include <QApplication>
#include <QHeaderView>
#include <QStyle>
#include <algorithm>

namespace flowlens::ui {
namespace {
constexpr int kNodeRole = Qt::UserRole + 1;
}

const QColor& DiagnosticsPanel::error_color() {
  static const QColor c(0xc6, 0x28, 0x28);
  return c;
}

const QColor& DiagnosticsPanel::warning_color() {
  static const QColor c(0x9a, 0x62, 0x00);
  return c;
}

DiagnosticsPanel::DiagnosticsPanel(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(3);
  setHeaderLabels({QStringLiteral("Severity"), QStringLiteral("Node"), QStringLiteral("Message")});
  setRootIsDecorated(false);
  setUniformRowHeights(true);
  setAlternatingRowColors(true);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setWordWrap(false);
  setTextElideMode(Qt::ElideRight);
  setFrameShape(QFrame::NoFrame);
  header()->setStretchLastSection(true);
  header()->setSectionResizeMode(SeverityColumn, QHeaderView::ResizeToContents);
  header()->resizeSection(NodeColumn, 220);
  connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    const QString node = item->data(0, kNodeRole).toString();
    if (!node.isEmpty()) emit node_activated(node);
  });
  connect(this, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    const QString node = item->data(0, kNodeRole).toString();
    if (!node.isEmpty()) emit node_activated(node);
  });
  clear_diagnostics();
}

void DiagnosticsPanel::show_placeholder(const QString& text) {
  auto* item = new QTreeWidgetItem(this);
  item->setText(SeverityColumn, text);
  item->setFlags(Qt::NoItemFlags);
  item->setForeground(SeverityColumn, palette().color(QPalette::PlaceholderText));
  item->setFirstColumnSpanned(true);
}

void DiagnosticsPanel::clear_diagnostics() {
  clear();
  count_ = 0;
  show_placeholder(QStringLiteral("No graph loaded."));
}

void DiagnosticsPanel::set_diagnostics(const std::vector<flowlens::Diagnostic>& diagnostics) {
  clear();
  count_ = static_cast<int>(diagnostics.size());
  if (diagnostics.empty()) {
    show_placeholder(QStringLiteral("No problems found."));
    return;
  }
  std::vector<const flowlens::Diagnostic*> sorted;
  sorted.reserve(diagnostics.size());
  for (const auto& d : diagnostics) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto* a, const auto* b) { return a->is_error() && !b->is_error(); });

  QStyle* st = style();
  const QIcon error_icon = st->standardIcon(QStyle::SP_MessageBoxCritical);
  const QIcon warning_icon = st->standardIcon(QStyle::SP_MessageBoxWarning);
  QList<QTreeWidgetItem*> items;
  items.reserve(static_cast<qsizetype>(sorted.size()));
  for (const auto* d : sorted) {
    auto* item = new QTreeWidgetItem;
    const bool error = d->is_error();
    const QString node = QString::fromStdString(d->node);
    const QString message = QString::fromStdString(d->message);
    item->setIcon(SeverityColumn, error ? error_icon : warning_icon);
    item->setText(SeverityColumn, error ? QStringLiteral("Error") : QStringLiteral("Warning"));
    item->setText(NodeColumn, node);
    item->setText(MessageColumn, message);
    item->setToolTip(MessageColumn, message);
    item->setToolTip(NodeColumn, node);
    item->setData(0, kNodeRole, node);
    const QColor& color = error ? error_color() : warning_color();
    for (int c = 0; c < 3; ++c) item->setForeground(c, color);
    items << item;
  }
  addTopLevelItems(items);
}

QStringList DiagnosticsPanel::lines() const {
  QStringList out;
  if (count_ == 0) return out;
  for (int i = 0; i < topLevelItemCount(); ++i) {
    const QTreeWidgetItem* item = topLevelItem(i);
    QString line = item->text(SeverityColumn).toLower() + QStringLiteral(": ");
    if (!item->text(NodeColumn).isEmpty()) line += QStringLiteral("node '%1': ").arg(item->text(NodeColumn));
    out << line + item->text(MessageColumn);
  }
  return out;
}

}  // namespace flowlens::ui
