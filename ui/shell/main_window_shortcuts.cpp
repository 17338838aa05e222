#include "ui/shell/main_window_shortcuts.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QGraphicsView>
#include <QHeaderView>
#include <QKeySequence>
#include <QMainWindow>
#include <QMenuBar>
#include <QMenu>
#include <QSet>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace flowlens::ui {
namespace {

const QString kGraphView = QStringLiteral("Graph View");

// "&Open…" → "Open…"; "&&" is a literal ampersand.
QString plain_text(QString text) {
  text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
  text.remove(QLatin1Char('&'));
  text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
  return text;
}

QString section_of(const QAction* action) {
  for (QObject* o : action->associatedObjects())
    if (auto* menu = qobject_cast<QMenu*>(o)) {
      // A submenu's actions go under the top menu ("File", not "Export").
      while (auto* parent = qobject_cast<QMenu*>(menu->menuAction()->associatedObjects().value(0)))
        menu = parent;
      return plain_text(menu->title());
    }
  for (const QObject* o = action->parent(); o; o = o->parent())
    if (qobject_cast<const QGraphicsView*>(o)) return kGraphView;
  return QStringLiteral("Window");
}

}  // namespace

QList<ShortcutEntry> collect_shortcuts(const QWidget* window) {
  QList<ShortcutEntry> out;
  QSet<QString> seen;
  auto add = [&](ShortcutEntry e) {
    const QString key = e.section + QLatin1Char('\n') + e.keys + QLatin1Char('\n') + e.what;
    if (seen.contains(key)) return;
    seen.insert(key);
    out << std::move(e);
  };
  for (const QAction* a : window->findChildren<QAction*>()) {
    if (a->shortcuts().isEmpty() || a->isSeparator()) continue;
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    add({section_of(a), keys.join(QStringLiteral(", ")), plain_text(a->text())});
  }
  // What the graph view does without an action (GraphView, edge_navigation.h).
  const struct {
    const char* keys;
    const char* what;
  } gestures[] = {
      {"Up", "Select the node's first input (its producer)"},
      {"Down", "Select the node's first consumer"},
      {"Left, Right", "Previous / next sibling: the other consumers of the node above, or the other inputs of the "
                      "node below"},
      {"Wheel", "Zoom"},
      {"Drag", "Pan"},
      {"Double-click", "Expand a group; on a scope's frame, collapse it"},
      {"Right-click", "Node menu: copy name or pbtxt, inputs, consumers, breakpoint, fetch"},
  };
  for (const auto& g : gestures) add({kGraphView, QLatin1String(g.keys), QLatin1String(g.what)});
  // In menu bar order, then the sections no menu holds.
  QStringList order;
  if (auto* main = qobject_cast<const QMainWindow*>(window))
    for (const QAction* m : main->menuBar()->actions()) order << plain_text(m->text());
  auto rank = [&](const QString& section) {
    const qsizetype i = order.indexOf(section);
    return i >= 0 ? i : order.size() + (section == kGraphView ? 0 : 1);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const ShortcutEntry& a, const ShortcutEntry& b) { return rank(a.section) < rank(b.section); });
  return out;
}

QDialog* show_shortcuts_dialog(QWidget* window) {
  if (auto* open = window->findChild<QDialog*>(QStringLiteral("shortcutsDialog"))) {
    open->show();
    open->raise();
    return open;
  }
  auto* dialog = new QDialog(window);
  dialog->setObjectName(QStringLiteral("shortcutsDialog"));
  dialog->setWindowTitle(QStringLiteral("Keyboard Shortcuts"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* tree = new QTreeWidget(dialog);
  tree->setObjectName(QStringLiteral("shortcutsTree"));
  tree->setColumnCount(2);
  tree->setHeaderLabels({QStringLiteral("Shortcut"), QStringLiteral("Action")});
  tree->setRootIsDecorated(false);
  tree->setSelectionMode(QAbstractItemView::NoSelection);
  tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  tree->header()->setStretchLastSection(true);
  QTreeWidgetItem* section = nullptr;
  for (const ShortcutEntry& e : collect_shortcuts(window)) {
    if (!section || section->text(0) != e.section) {
      section = new QTreeWidgetItem(tree, {e.section});
      section->setFirstColumnSpanned(true);
      QFont bold = section->font(0);
      bold.setBold(true);
      section->setFont(0, bold);
    }
    new QTreeWidgetItem(section, {e.keys, e.what});
  }
  tree->expandAll();
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(tree);
  layout->addWidget(buttons);
  dialog->resize(620, 560);
  dialog->show();
  return dialog;
}

}  // namespace flowlens::ui
