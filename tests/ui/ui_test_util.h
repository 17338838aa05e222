#pragma once
// Helpers shared by the UI tests: sample paths, waiting for a layout, and
// writing small graph files into a test's temporary directory.
#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include "ui/graphview/graph_view.h"

namespace flowlens::testing {

// Generous: layouts share two cores with the rest of the test suite.
inline constexpr int kLayoutTimeoutMs = 60000;

inline QString sample(const char* name) { return QStringLiteral(FLOWLENS_SAMPLES "/") + QLatin1String(name); }

// True once the view's layout finished within the timeout.
inline bool wait_for_layout(ui::GraphView* view) {
  return view->wait_for_layout(kLayoutTimeoutMs) && !view->layout_pending();
}

// Writes `text` to dir/name; returns the path, or "" if it cannot be written.
inline QString write_file(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(text);
  return path;
}

}  // namespace flowlens::testing
