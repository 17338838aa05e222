// What `flowlens` does at start-up (ui/startup_script), driven without a
// process: the requested graph opens, --select (a name or an op type)
// selects, --screenshot writes a picture and ends, --break and --dock reach
// the debugger, the editor options open the editor, and options that cannot
// apply end with the exit code the command line promises.
#include "test_main.h"
#include <QtTest>

#include <QAction>
#include <QDockWidget>
#include <QImage>
#include <QTemporaryDir>

#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/run_actions.h"
#include "ui/editor/editor_workbench.h"
#include "ui/editor/node_inspector.h"
#include "ui/document/graph_document.h"
#include "ui/shell/main_window.h"
#include "ui/shell/startup_script.h"

using flowlens::ui::DebugWorkbench;
using flowlens::ui::MainWindow;
using flowlens::ui::run_startup_script;
using flowlens::ui::StartupOptions;
using flowlens::ui::StartupOutcome;

namespace {

const QString kMatmul = QStringLiteral(FLOWLENS_SAMPLES "/matmul_baseline.pbtxt");

}  // namespace

class TestStartupScript : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

 private slots:
  void opensTheGraphAndSelectsTheNode() {
    MainWindow window;
    StartupOptions options;
    options.graph_path = kMatmul;
    options.select = QStringLiteral("b/read");
    const StartupOutcome outcome = run_startup_script(window, options);
    QVERIFY2(!outcome.exit_code, qPrintable(outcome.error));
    QVERIFY(outcome.warnings.isEmpty());
    QVERIFY(window.isVisible());
    QVERIFY(window.document());
    QCOMPARE(window.document()->file_name(), QStringLiteral("matmul_baseline.pbtxt"));
    QCOMPARE(window.current_node_name(), QStringLiteral("b/read"));
  }

  void selectsByOpType() {
    MainWindow window;
    StartupOptions options;
    options.graph_path = kMatmul;
    options.select = QStringLiteral("MatMul");
    QVERIFY(!run_startup_script(window, options).exit_code);
    QCOMPARE(window.current_node_name(), QStringLiteral("output"));
  }

  void unknownNodeIsAWarningUnlessScreenshotting() {
    MainWindow window;
    StartupOptions options;
    options.graph_path = kMatmul;
    options.select = QStringLiteral("no_such_node");
    StartupOutcome outcome = run_startup_script(window, options);
    QVERIFY(!outcome.exit_code);
    QCOMPARE(outcome.warnings.size(), 1);
    QVERIFY2(outcome.warnings.front().contains("no_such_node"), qPrintable(outcome.warnings.front()));

    MainWindow second;
    options.screenshot = dir_.filePath(QStringLiteral("never.png"));
    outcome = run_startup_script(second, options);
    QCOMPARE(outcome.exit_code, std::optional<int>(1));
    QVERIFY2(outcome.error.contains("no_such_node"), qPrintable(outcome.error));
    QVERIFY(!QFile::exists(*options.screenshot));
  }

  void screenshotIsWrittenAndEnds() {
    MainWindow window;
    window.resize(1280, 800);
    StartupOptions options;
    options.graph_path = kMatmul;
    options.select = QStringLiteral("output");
    options.screenshot = dir_.filePath(QStringLiteral("shot.png"));
    const StartupOutcome outcome = run_startup_script(window, options);
    QCOMPARE(outcome.exit_code, std::optional<int>(0));
    QCOMPARE(window.current_node_name(), QStringLiteral("output"));
    const QImage picture(*options.screenshot);
    QVERIFY(!picture.isNull());
    QVERIFY(picture.width() >= 1280);
  }

  void breakpointsAndDockReachTheDebugger() {
    MainWindow window;
    StartupOptions options;
    options.graph_path = kMatmul;
    options.breakpoints = {"output"};
    options.check_numerics = true;
    options.dock = QStringLiteral("profiler");
    QVERIFY(!run_startup_script(window, options).exit_code);
    DebugWorkbench* debug = window.debug_workbench();
    QVERIFY(debug->breakpoints()->has_breakpoint(QStringLiteral("output")));
    QVERIFY(debug->actions()->check_numerics_action()->isChecked());
    QVERIFY(debug->dock(DebugWorkbench::Dock::Profiler)->isVisible());
  }

  void optionsThatCannotApplyEndWithCodeTwo() {
    auto code_of = [](const StartupOptions& options) {
      MainWindow window;
      return run_startup_script(window, options).exit_code;
    };
    StartupOptions bad_break;
    bad_break.graph_path = kMatmul;
    bad_break.breakpoints = {"ghost"};
    QCOMPARE(code_of(bad_break), std::optional<int>(2));
    StartupOptions bad_dock;
    bad_dock.dock = QStringLiteral("nowhere");
    QCOMPARE(code_of(bad_dock), std::optional<int>(2));
    StartupOptions key_alone;
    key_alone.key = QStringLiteral("client.key");
    QCOMPARE(code_of(key_alone), std::optional<int>(2));
    StartupOptions bad_template;
    bad_template.template_name = QStringLiteral("no-such-template");
    QCOMPARE(code_of(bad_template), std::optional<int>(2));
  }

  void templateOpensInTheEditorWithTheNodeSelected() {
    MainWindow window;
    StartupOptions options;
    options.template_name = QStringLiteral("matmul");
    options.select = QStringLiteral("output");
    QVERIFY(!run_startup_script(window, options).exit_code);
    flowlens::ui::EditorWorkbench* editor = window.editor_workbench();
    QVERIFY(editor->active());
    QCOMPARE(editor->inspector()->node(), QStringLiteral("output"));
    QVERIFY(!window.document());  // the viewer stays empty
  }
};

FLOWLENS_TEST_MAIN(TestStartupScript)
#include "test_startup_script.moc"
