#pragma once
// Helpers shared by the UI tests: sample paths, waiting for a layout, and
// writing graph files (small ones, synthetic big ones) into a test's
// temporary directory.
#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include "../bench/synthetic_graph.h"
#include "ui/graphview/graph_view.h"
#include "ui/shell/screenshot.h"

namespace flowlens::testing {

// Generous: layouts share two cores with the rest of the test suite.
inline constexpr int kLayoutTimeoutMs = 60000;

inline QString sample(const char* name) { return QStringLiteral(FLOWLENS_SAMPLES "/") + QLatin1String(name); }

// True once the view's layout finished within the timeout.
inline bool wait_for_layout(ui::GraphView* view) {
  return view->wait_for_layout(kLayoutTimeoutMs) && !view->layout_pending();
}

// With FLOWLENS_SCREENSHOT_DIR set, saves the window there as `name` (the
// pictures a closing note shows); otherwise nothing.
inline void keep_screenshot(QWidget* window, const QString& name) {
  const QString dir = qEnvironmentVariable("FLOWLENS_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QString error;
  QVERIFY2(ui::save_window_screenshot(window, dir + QLatin1Char('/') + name, &error), qPrintable(error));
}

// Writes `text` to dir/name; returns the path, or "" if it cannot be written.
inline QString write_file(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(text);
  return path;
}

// Writes a synthetic training export of about `nodes` nodes
// (tests/bench/synthetic_graph.h) to dir; returns the path, or "".
// `written`, if given, receives the exact node count.
inline QString write_synthetic_graph(const QTemporaryDir& dir, int64_t nodes, int64_t* written = nullptr) {
  const auto graph = bench::synthetic_training_graph(nodes);
  if (written) *written = graph.nodes;
  return write_file(dir, QStringLiteral("synthetic_%1.pbtxt").arg(nodes), QByteArray::fromStdString(graph.text));
}

}  // namespace flowlens::testing
