// The main window: loading, the node table and its filter, node details,
// diagnostics, load failures, the screenshot path that `flowlens
// --screenshot` uses, Help → Keyboard Shortcuts and the first-start layout.
#include "test_main.h"
#include <QtTest>

#include <QAction>
#include <QDialog>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>

#include "io/graph_io.h"
#include "ui/shell/app_info.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/nodes/diagnostics_panel.h"
#include "ui/document/graph_document.h"
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_actions.h"
#include "ui/nodes/node_details_view.h"
#include "ui/nodes/node_filter_proxy_model.h"
#include "ui/nodes/node_table_model.h"
#include "ui/shell/screenshot.h"

using flowlens::ui::DiagnosticsPanel;
using flowlens::ui::MainWindow;

namespace {

// Two constants added on /cpu:0, plus a node whose op nobody registered.
const char* kGood = R"(
node {
  name: "a"
  op: "Const"
  device: "/cpu:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1.5 } } }
}
node {
  name: "b"
  op: "Const"
  device: "/cpu:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } }
}
node {
  name: "sum"
  op: "Add"
  input: "a"
  input: "b"
  device: "/cpu:0"
  attr { key: "T" value { type: DT_FLOAT } }
}
node {
  name: "mystery"
  op: "FrobnicateOp"
  input: "sum"
}
)";

// Valid syntax, but an input naming a node that does not exist.
const char* kBroken = R"(
node {
  name: "a"
  op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } }
}
node { name: "neg" op: "Neg" input: "ghost" attr { key: "T" value { type: DT_FLOAT } } }
)";

const char* kMalformed = "node {\n  name: \"x\"\n  op: \"Const\"\n  attr { key: \n";

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString good_, broken_, malformed_;

  QString write(const QString& name, const char* text) {
    const QString path = dir_.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(text);
    return path;
  }

  QString error_ = {};
  std::unique_ptr<MainWindow> open_good() {
    auto w = std::make_unique<MainWindow>();
    if (!w->open_file(good_, &error_)) qWarning("open_file failed: %s", qPrintable(error_));
    return w;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    good_ = write(QStringLiteral("good.pbtxt"), kGood);
    broken_ = write(QStringLiteral("broken.pbtxt"), kBroken);
    malformed_ = write(QStringLiteral("malformed.pbtxt"), kMalformed);
  }

  void starts_empty() {
    MainWindow w;
    QCOMPARE(w.windowTitle(), QStringLiteral("FlowLens"));
    QVERIFY(!w.document());
    QCOMPARE(w.node_model()->rowCount(), 0);
    QCOMPARE(w.summary_text(), QStringLiteral("No graph loaded"));
  }

  void loads_graph() {
    MainWindow w;
    QString error;
    QVERIFY2(w.open_file(good_, &error), qPrintable(error));
    QCOMPARE(w.windowTitle(), QStringLiteral("FlowLens \u2014 good.pbtxt"));
    QCOMPARE(w.node_model()->rowCount(), 4);
    QCOMPARE(w.node_model()->columnCount(), 4);
    QCOMPARE(w.node_table()->model()->rowCount(), 4);
    QCOMPARE(w.node_model()->headerData(0, Qt::Horizontal).toString(), QStringLiteral("Name"));
    QCOMPARE(w.node_model()->headerData(3, Qt::Horizontal).toString(), QStringLiteral("Inputs"));
    // File order, all four columns.
    auto cell = [&](int row, int col) { return w.node_table()->model()->index(row, col).data().toString(); };
    QCOMPARE(cell(0, 0), QStringLiteral("a"));
    QCOMPARE(cell(2, 0), QStringLiteral("sum"));
    QCOMPARE(cell(2, 1), QStringLiteral("Add"));
    QCOMPARE(cell(2, 2), QStringLiteral("/cpu:0"));
    QCOMPARE(cell(2, 3), QStringLiteral("a, b"));
    QCOMPARE(cell(3, 2), QString());
    QCOMPARE(w.summary_text(), QStringLiteral("4 nodes \u00B7 3 ops \u00B7 1 device"));
  }

  void filter_matches_name_op_and_device() {
    auto w = open_good();
    QAbstractItemModel* view_model = w->node_table()->model();
    QLineEdit* filter = w->filter_edit();
    QCOMPARE(filter->placeholderText(), QStringLiteral("Filter nodes\u2026"));

    filter->setText(QStringLiteral("const"));  // op, case-insensitive
    QCOMPARE(view_model->rowCount(), 2);
    filter->setText(QStringLiteral("CPU:0"));  // device
    QCOMPARE(view_model->rowCount(), 3);
    filter->setText(QStringLiteral("myst"));  // name
    QCOMPARE(view_model->rowCount(), 1);
    QCOMPARE(view_model->index(0, 0).data().toString(), QStringLiteral("mystery"));
    filter->setText(QStringLiteral("sum"));  // "mystery" has input "sum": inputs are not matched
    QCOMPARE(view_model->rowCount(), 1);
    QCOMPARE(view_model->index(0, 0).data().toString(), QStringLiteral("sum"));
    filter->setText(QStringLiteral("no such thing"));
    QCOMPARE(view_model->rowCount(), 0);
    filter->clear();
    QCOMPARE(view_model->rowCount(), 4);
  }

  void sorting_by_header() {
    auto w = open_good();
    QTableView* table = w->node_table();
    table->sortByColumn(flowlens::ui::NodeTableModel::NameColumn, Qt::AscendingOrder);
    QCOMPARE(table->model()->index(0, 0).data().toString(), QStringLiteral("a"));
    QCOMPARE(table->model()->index(3, 0).data().toString(), QStringLiteral("sum"));
    table->sortByColumn(flowlens::ui::NodeTableModel::OpColumn, Qt::DescendingOrder);
    QCOMPARE(table->model()->index(0, 1).data().toString(), QStringLiteral("FrobnicateOp"));
  }

  void details_follow_selection() {
    auto w = open_good();
    QSignalSpy spy(w.get(), &MainWindow::current_node_changed);
    QVERIFY(w->select_node(QStringLiteral("sum")));
    QCOMPARE(w->current_node_name(), QStringLiteral("sum"));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("sum"));

    const QString text = w->details_view()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("sum")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Op: Add")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Device: /cpu:0")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Inputs (2)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Used by (1)")) && text.contains(QStringLiteral("mystery")),
             qPrintable(text));
    // Attributes are shown as "key: AttrValue::to_string()".
    const flowlens::Node* sum = w->document()->graph->find("sum");
    QVERIFY(sum);
    const QString attr = QStringLiteral("T: ") + QString::fromStdString(sum->attr("T").to_string());
    QVERIFY2(text.contains(attr), qPrintable(attr + QStringLiteral(" not in:\n") + text));

    // Selecting a node the filter hides clears the filter.
    w->filter_edit()->setText(QStringLiteral("const"));
    QVERIFY(w->select_node(QStringLiteral("mystery")));
    QVERIFY(w->filter_edit()->text().isEmpty());
    QVERIFY(w->details_view()->toPlainText().contains(QStringLiteral("FrobnicateOp")));

    QVERIFY(!w->select_node(QStringLiteral("nope")));
    QCOMPARE(w->current_node_name(), QStringLiteral("mystery"));
  }

  void diagnostics_list_validation_results() {
    auto w = open_good();
    DiagnosticsPanel* panel = w->diagnostics_panel();
    QVERIFY(w->document()->warning_count() >= 1);
    QCOMPARE(w->document()->error_count(), 0);
    QCOMPARE(panel->diagnostic_count(), static_cast<int>(w->document()->diagnostics().size()));
    const QStringList lines = panel->lines();
    bool found = false;
    for (const QString& line : lines)
      found |= line.startsWith(QStringLiteral("warning: node 'mystery'")) && line.contains(QStringLiteral("FrobnicateOp"));
    QVERIFY2(found, qPrintable(lines.join(QLatin1Char('\n'))));
    QVERIFY(w->diagnostics_dock()->windowTitle().contains(QStringLiteral("warning")));
    // The node's own diagnostics also appear in its details.
    QVERIFY(w->select_node(QStringLiteral("mystery")));
    QVERIFY(w->details_view()->toPlainText().contains(QStringLiteral("Warning:")));
  }

  void errors_are_red_and_listed_first() {
    MainWindow w;
    QString error;
    QVERIFY2(w.open_file(broken_, &error), qPrintable(error));  // loads: validation errors are not load errors
    QVERIFY(w.document()->error_count() >= 1);
    DiagnosticsPanel* panel = w.diagnostics_panel();
    QTreeWidgetItem* first = panel->topLevelItem(0);
    QVERIFY(first);
    QCOMPARE(first->text(DiagnosticsPanel::SeverityColumn), QStringLiteral("Error"));
    QCOMPARE(first->text(DiagnosticsPanel::NodeColumn), QStringLiteral("neg"));
    QVERIFY(first->text(DiagnosticsPanel::MessageColumn).contains(QStringLiteral("ghost")));
    QCOMPARE(first->foreground(DiagnosticsPanel::MessageColumn).color(), DiagnosticsPanel::error_color());
    // Clicking it selects the node.
    emit panel->itemClicked(first, 0);
    QCOMPARE(w.current_node_name(), QStringLiteral("neg"));
  }

  void malformed_file_keeps_previous_graph() {
    auto w = open_good();
    QVERIFY(w->select_node(QStringLiteral("sum")));
    QString error;
    QVERIFY(!w->open_file(malformed_, &error));
    QVERIFY2(error.contains(QStringLiteral("malformed.pbtxt")), qPrintable(error));
    QCOMPARE(w->node_model()->rowCount(), 4);
    QCOMPARE(w->windowTitle(), QStringLiteral("FlowLens \u2014 good.pbtxt"));
    QCOMPARE(w->current_node_name(), QStringLiteral("sum"));
    QVERIFY(w->document()->path.endsWith(QStringLiteral("good.pbtxt")));
  }

  void missing_file_reports_error() {
    auto w = open_good();
    QString error;
    const QString missing = dir_.filePath(QStringLiteral("does_not_exist.pbtxt"));
    QVERIFY(!w->open_file(missing, &error));
    QVERIFY2(error.contains(QStringLiteral("does_not_exist.pbtxt")), qPrintable(error));
    QCOMPARE(w->node_model()->rowCount(), 4);
    QVERIFY(!w->open_file(QString(), &error));
    QVERIFY(!error.isEmpty());
  }

  void interactive_open_shows_error_dialog() {
    auto w = open_good();
    w->show();
    QString shown;
    QTimer poll;
    poll.setInterval(20);
    connect(&poll, &QTimer::timeout, this, [&] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        shown = box->text();
        box->accept();
      }
    });
    poll.start();
    QVERIFY(!w->open_file_interactive(malformed_));
    poll.stop();
    QVERIFY2(shown.contains(QStringLiteral("malformed.pbtxt")), qPrintable(shown));
    QCOMPARE(w->node_model()->rowCount(), 4);
  }

  void reload_keeps_selection() {
    auto w = open_good();
    QVERIFY(w->select_node(QStringLiteral("b")));
    QSignalSpy spy(w.get(), &MainWindow::document_changed);
    QVERIFY(w->open_file(good_));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(w->current_node_name(), QStringLiteral("b"));
  }

  // A graph with no file (a cluster worker's partition): no temporary file,
  // titled by its name, kept by Reload with its selection.
  void show_graph_needs_no_file() {
    MainWindow w;
    QSignalSpy spy(&w, &MainWindow::document_changed);
    w.show_graph(flowlens::parse_graph_text(kGood, "worker 1"), QStringLiteral("worker 1"));
    QCOMPARE(spy.count(), 1);
    QVERIFY(w.document());
    QCOMPARE(w.document()->file_name(), QStringLiteral("worker 1"));
    QCOMPARE(w.windowTitle(), QStringLiteral("FlowLens \u2014 worker 1"));
    QVERIFY(w.windowFilePath().isEmpty());
    QCOMPARE(w.node_model()->rowCount(), 4);
    QVERIFY(w.document()->warning_count() >= 1);  // validated like a loaded file
    QVERIFY(w.select_node(QStringLiteral("sum")));
    const auto shown = w.document();
    w.reload();
    QCOMPARE(spy.count(), 2);
    QCOMPARE(w.document(), shown);
    QCOMPARE(w.current_node_name(), QStringLiteral("sum"));
  }

  void screenshot_writes_png() {
    auto w = open_good();
    w->resize(1000, 700);
    QVERIFY(w->select_node(QStringLiteral("sum")));
    const QString out = dir_.filePath(QStringLiteral("shots/window.png"));  // folder is created
    QString error;
    QVERIFY2(flowlens::ui::save_window_screenshot(w.get(), out, &error), qPrintable(error));
    QImage image(out);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), w->size() * w->devicePixelRatio());
    // Not a blank image.
    QVERIFY(image.pixel(5, 5) != image.pixel(image.width() / 2, image.height() / 2) ||
            image.pixel(5, 5) != image.pixel(image.width() - 5, image.height() - 5));

    QVERIFY(!flowlens::ui::save_window_screenshot(w.get(), dir_.filePath(QStringLiteral("x.notaformat")), &error));
    QVERIFY(error.contains(QStringLiteral("unsupported")));
    QVERIFY(!flowlens::ui::save_window_screenshot(nullptr, out, &error));
  }

  void help_lists_every_shortcut() {
    MainWindow w;
    QAction* help = w.actions()->action(QStringLiteral("actionShortcuts"));
    QVERIFY(help);
    help->trigger();
    auto* dialog = w.findChild<QDialog*>(QStringLiteral("shortcutsDialog"));
    QVERIFY(dialog && dialog->isVisible());
    auto* tree = dialog->findChild<QTreeWidget*>(QStringLiteral("shortcutsTree"));
    QVERIFY(tree);
    QList<QPair<QStringList, QString>> rows;  // (keys, what)
    QStringList sections;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
      sections << tree->topLevelItem(i)->text(0);
      for (int c = 0; c < tree->topLevelItem(i)->childCount(); ++c) {
        const QTreeWidgetItem* row = tree->topLevelItem(i)->child(c);
        rows.append({row->text(0).split(QStringLiteral(", ")), row->text(1)});
      }
    }
    // Every action's shortcut, read from the actions (Run's F5 and F9 too).
    int checked = 0;
    for (const QAction* a : w.findChildren<QAction*>()) {
      if (a->shortcut().isEmpty()) continue;
      const QString key = a->shortcut().toString(QKeySequence::NativeText);
      QString text = a->text();
      text.remove(QLatin1Char('&'));
      bool found = false;
      for (const auto& [keys, what] : rows) found |= keys.contains(key) && what == text;
      QVERIFY2(found, qPrintable(key + QStringLiteral(" ") + text));
      ++checked;
    }
    QVERIFY(checked >= 10);
    for (const char* key : {"F5", "F9", "F"}) {
      bool found = false;
      for (const auto& row : rows) found |= row.first.contains(QLatin1String(key));
      QVERIFY2(found, key);
    }
    // And what no action carries.
    for (const char* gesture : {"Up", "Down", "Left", "Wheel", "Double-click", "Right-click"}) {
      bool found = false;
      for (const auto& row : rows) found |= row.first.contains(QLatin1String(gesture));
      QVERIFY2(found, gesture);
    }
    QCOMPARE(sections.value(0), QStringLiteral("File"));  // menu bar order
    QVERIFY(sections.contains(QStringLiteral("Run")));
    QVERIFY(sections.contains(QStringLiteral("Graph View")));
    help->trigger();  // the open dialog again, not a second one
    QCOMPARE(w.findChildren<QDialog*>(QStringLiteral("shortcutsDialog")).size(), 1);
  }

  void graph_gets_most_of_a_fresh_window() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();  // first start: nothing saved
    MainWindow w;
    w.enable_settings();
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString error;
    QVERIFY2(w.open_file(good_, &error), qPrintable(error));
    QCoreApplication::processEvents();
    QCOMPARE(w.size(), QSize(1280, 800));
    const QRect graph = w.centralWidget()->geometry();
    const QString sizes = QStringLiteral("graph %1x%2 of 1280x800").arg(graph.width()).arg(graph.height());
    QVERIFY2(graph.width() >= 0.65 * 1280, qPrintable(sizes));
    QVERIFY2(graph.height() >= 0.65 * 800, qPrintable(sizes));
    // The docks are there and each can be brought back from the View menu.
    QVERIFY(w.nodes_dock()->isVisible() && w.details_dock()->isVisible());
    // Diagnostics only when there is something to say; the status bar says "No problems".
    const bool findings = w.document()->error_count() + w.document()->warning_count() > 0;
    QCOMPARE(w.diagnostics_dock()->isVisible(), findings);
    // The debugger's docks wait for the first run; a run that cannot start
    // shows the Run Log with the reason.
    QDockWidget* log = w.debug_workbench()->dock(flowlens::ui::DebugWorkbench::Dock::RunLog);
    QVERIFY(!log->isVisible());
    w.debug_workbench()->fetch_edit()->setText(QStringLiteral("no_such_node"));
    w.debug_workbench()->run_or_continue();
    QVERIFY(log->isVisible());
    const QList<QAction*> view = w.actions()->view_menu()->actions();
    for (QDockWidget* dock : w.findChildren<QDockWidget*>())
      QVERIFY2(view.contains(dock->toggleViewAction()), qPrintable(dock->objectName()));
    w.close();
    QSettings().clear();
  }

  void load_document_directly() {
    QString error;
    auto doc = flowlens::ui::load_graph_document(good_, &error);
    QVERIFY2(doc, qPrintable(error));
    QCOMPARE(doc->node_count(), 4);
    QCOMPARE(doc->op_count, 3);
    QCOMPARE(doc->device_count, 1);
    // "a" feeds "sum"; "sum" feeds "mystery".
    QCOMPARE(doc->consumers(0), std::vector<int>{2});
    QCOMPARE(doc->consumers(2), std::vector<int>{3});
    QVERIFY(doc->consumers(3).empty());
  }
};

// Its own entry: the application gets the GUI's start-up set-up first.
static int run_main_window_tests(int argc, char** argv) {
  QApplication app(argc, argv);
  flowlens::ui::init_application(app);
  TestMainWindow test;
  return QTest::qExec(&test, argc, argv);
}
FLOWLENS_TEST_ENTRY(run_main_window_tests)

#include "test_main_window.moc"
