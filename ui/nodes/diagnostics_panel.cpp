#include "ui/nodes/diagnostics_panel.h"

#include <QApplication>
#include <QHash>
#include <QHeaderView>
#include <QStyle>

namespace flowlens::ui {
namespace {

constexpr int kNodeRole = Qt::UserRole + 1;
constexpr int kGroupTitleRole = Qt::UserRole + 2;  // a group row's "title ×N"

using Kind = flowlens::Diagnostic::Kind;

// Diagnostics with the same key share a row: same severity and check, on
// nodes of the same op. A finding whose kind says nothing (Other, the
// "not listed" count) groups only with the very same message.
QString group_key(const flowlens::Diagnostic& d) {
  const bool by_message = d.kind == Kind::Other || d.kind == Kind::Unlisted || d.node.empty();
  return QStringLiteral("%1|%2|%3")
      .arg(d.is_error() ? 1 : 0)
      .arg(static_cast<int>(d.kind))
      .arg(QString::fromStdString(by_message ? d.message : d.op));
}

// A group row's text: the finding with the node-specific part left out.
QString group_title(const flowlens::Diagnostic& d) {
  const QString op = QString::fromStdString(d.op);
  QString what;
  switch (d.kind) {
    case Kind::UnknownOp: return QStringLiteral("unknown op '%1'").arg(op);
    case Kind::LibraryFunction: return QStringLiteral("op '%1' is a library function (runs as a call)").arg(op);
    case Kind::Other:
    case Kind::Unlisted: return QString::fromStdString(d.message);
    case Kind::EmptyName: return QStringLiteral("nodes with an empty name");
    case Kind::DuplicateName: what = QStringLiteral("duplicate node names"); break;
    case Kind::NoOp: return QStringLiteral("nodes without an op");
    case Kind::MalformedInput: what = QStringLiteral("malformed inputs"); break;
    case Kind::ControlBeforeData: what = QStringLiteral("data inputs after control inputs"); break;
    case Kind::MissingInput: what = QStringLiteral("inputs naming nodes not in the graph"); break;
    case Kind::PortOutOfRange: what = QStringLiteral("inputs asking for outputs their producer lacks"); break;
    case Kind::InputCount: what = QStringLiteral("wrong number of data inputs"); break;
    case Kind::MissingAttr: what = QStringLiteral("missing required attrs"); break;
    case Kind::AttrKindMismatch: what = QStringLiteral("attrs of the wrong kind"); break;
    case Kind::AttrValue: what = QStringLiteral("attr values not allowed"); break;
    case Kind::InvalidDevice: what = QStringLiteral("invalid device names"); break;
    case Kind::Cycle: what = QStringLiteral("cycles without a NextIteration"); break;
  }
  return op.isEmpty() ? what : QStringLiteral("%1 on %2 nodes").arg(what, op);
}

}  // namespace

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
  setRootIsDecorated(false);
  show_placeholder(QStringLiteral("No graph loaded."));
}

void DiagnosticsPanel::set_diagnostics(const std::vector<flowlens::Diagnostic>& diagnostics) {
  clear();
  count_ = static_cast<int>(diagnostics.size());
  setRootIsDecorated(false);
  if (diagnostics.empty()) {
    show_placeholder(QStringLiteral("No problems found."));
    return;
  }
  // Groups by severity, kind and op (by the whole message where the kind
  // says nothing), errors first, each in order of its first diagnostic.
  std::vector<std::vector<const flowlens::Diagnostic*>> groups;
  QHash<QString, std::size_t> group_of;
  for (const bool errors : {true, false}) {
    for (const auto& d : diagnostics) {
      if (d.is_error() != errors) continue;
      const QString key = group_key(d);
      auto it = group_of.constFind(key);
      if (it == group_of.constEnd()) {
        it = group_of.insert(key, groups.size());
        groups.emplace_back();
      }
      groups[*it].push_back(&d);
    }
  }

  QStyle* st = style();
  const QIcon error_icon = st->standardIcon(QStyle::SP_MessageBoxCritical);
  const QIcon warning_icon = st->standardIcon(QStyle::SP_MessageBoxWarning);
  auto paint = [](QTreeWidgetItem* item, bool error) {
    const QColor& color = error ? error_color() : warning_color();
    for (int c = 0; c < 3; ++c) item->setForeground(c, color);
  };
  auto node_row = [&](const flowlens::Diagnostic& d, QTreeWidgetItem* item) {
    const QString node = QString::fromStdString(d.node);
    const QString message = QString::fromStdString(d.message);
    item->setText(NodeColumn, node);
    item->setText(MessageColumn, message);
    item->setToolTip(MessageColumn, message);
    item->setToolTip(NodeColumn, node);
    item->setData(0, kNodeRole, node);
    paint(item, d.is_error());
  };
  QList<QTreeWidgetItem*> items;
  items.reserve(static_cast<qsizetype>(groups.size()));
  for (const auto& group : groups) {
    const flowlens::Diagnostic& first = *group.front();
    const bool error = first.is_error();
    auto* item = new QTreeWidgetItem;
    item->setIcon(SeverityColumn, error ? error_icon : warning_icon);
    item->setText(SeverityColumn, error ? QStringLiteral("Error") : QStringLiteral("Warning"));
    if (group.size() == 1) {
      node_row(first, item);
      items << item;
      continue;
    }
    const auto n = static_cast<int>(group.size());
    const QString title = group_title(first);
    item->setText(NodeColumn, QStringLiteral("%1 nodes").arg(n));
    item->setText(MessageColumn, title);
    item->setData(0, kGroupTitleRole, QStringLiteral("%1 \u00D7%2").arg(title).arg(n));
    item->setToolTip(MessageColumn, QStringLiteral("%1\n(%2 times; expand for each node)")
                                        .arg(QString::fromStdString(first.message))
                                        .arg(n));
    paint(item, error);
    QList<QTreeWidgetItem*> children;
    children.reserve(n);
    for (const flowlens::Diagnostic* d : group) {
      auto* child = new QTreeWidgetItem;
      node_row(*d, child);
      children << child;
    }
    item->addChildren(children);
    setRootIsDecorated(true);
    items << item;
  }
  addTopLevelItems(items);
}

namespace {

QString line_of(const QString& severity, const QTreeWidgetItem* item) {
  QString line = severity.toLower() + QStringLiteral(": ");
  if (!item->text(DiagnosticsPanel::NodeColumn).isEmpty())
    line += QStringLiteral("node '%1': ").arg(item->text(DiagnosticsPanel::NodeColumn));
  return line + item->text(DiagnosticsPanel::MessageColumn);
}

}  // namespace

QStringList DiagnosticsPanel::lines() const {
  QStringList out;
  if (count_ == 0) return out;
  for (int i = 0; i < topLevelItemCount(); ++i) {
    const QTreeWidgetItem* item = topLevelItem(i);
    const QString severity = item->text(SeverityColumn);
    if (item->childCount() == 0) out << line_of(severity, item);
    for (int c = 0; c < item->childCount(); ++c) out << line_of(severity, item->child(c));
  }
  return out;
}

QStringList DiagnosticsPanel::summary_lines() const {
  QStringList out;
  if (count_ == 0) return out;
  for (int i = 0; i < topLevelItemCount(); ++i) {
    const QTreeWidgetItem* item = topLevelItem(i);
    const QString severity = item->text(SeverityColumn);
    if (item->childCount() == 0)
      out << line_of(severity, item);
    else
      out << severity.toLower() + QStringLiteral(" \u00B7 ") + item->data(0, kGroupTitleRole).toString();
  }
  return out;
}

}  // namespace flowlens::ui
