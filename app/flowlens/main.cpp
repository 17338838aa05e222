// flowlens: the desktop viewer.
//
//   flowlens [graph]                                 open a graph (or an empty window)
//   flowlens graph --select node                     open it with `node` selected
//   flowlens graph --screenshot out.png [--select n] render the 1280x800 window to a PNG and exit
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include "ui/app_info.h"
#include "ui/graphview/graph_view.h"
#include "ui/main_window.h"
#include "ui/screenshot.h"

namespace {

int fail(const QString& message, int code = 1) {
  std::fprintf(stderr, "flowlens: %s\n", qPrintable(message));
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  flowlens::ui::init_application(app);

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("FlowLens: see, check and run TensorFlow-1-style dataflow graphs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("graph"),
                               QStringLiteral("GraphDef to open (.pbtxt, .pb, .pbtext, .prototxt)."),
                               QStringLiteral("[graph]"));
  const QCommandLineOption screenshot_option(
      QStringLiteral("screenshot"),
      QStringLiteral("Load the graph, render the window at 1280x800 to <out.png> and exit."),
      QStringLiteral("out.png"));
  const QCommandLineOption select_option(QStringLiteral("select"),
                                         QStringLiteral("Select the node called <node> after loading."),
                                         QStringLiteral("node"));
  parser.addOption(screenshot_option);
  parser.addOption(select_option);
  parser.process(app);  // handles --help, --version and unknown options (exit 1)

  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1)
    return fail(QStringLiteral("expected at most one graph file, got %1 (see --help)").arg(positional.size()), 2);
  const QString graph_path = positional.value(0);
  const bool screenshot = parser.isSet(screenshot_option);
  const QString select = parser.value(select_option);
  if (!select.isEmpty() && graph_path.isEmpty()) return fail(QStringLiteral("--select needs a graph file"), 2);

  flowlens::ui::MainWindow window;
  window.resize(1280, 800);

  bool loaded = false;
  QString load_error;
  if (!graph_path.isEmpty()) {
    loaded = window.open_file(graph_path, &load_error);
    if (!loaded && screenshot) return fail(load_error);
  }
  if (loaded && !select.isEmpty() && !window.select_node(select)) {
    const QString message = QStringLiteral("no node named '%1' in %2").arg(select, graph_path);
    if (screenshot) return fail(message);
    std::fprintf(stderr, "flowlens: %s\n", qPrintable(message));
  }

  if (screenshot) {
    // The graph is laid out off the UI thread; grab only once it is drawn,
    // at the final window size (the view fits itself on the first show).
    window.show();
    if (loaded && !window.graph_view()->wait_for_layout(120000))
      return fail(QStringLiteral("graph layout did not finish in time"));
    QString error;
    if (!flowlens::ui::save_window_screenshot(&window, parser.value(screenshot_option), &error)) return fail(error);
    return 0;
  }

  window.show();
  if (!graph_path.isEmpty() && !loaded)
    QTimer::singleShot(0, &window, [&window, load_error] {
      window.show_error(QStringLiteral("Could not open graph"), load_error);
    });
  return app.exec();
}
