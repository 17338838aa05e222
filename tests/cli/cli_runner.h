#pragma once
// Runs build/bin/flowlens-run the way a user's shell would, for the CLI tests.
#include <QProcess>
#include <QString>
#include <QStringList>

namespace flowlens::testing {

struct CliResult {
  int code;  // exit code; -1 timed out, -2 crashed
  QString out;
  QString err;
};

inline CliResult flowlens_run(const QStringList& args, int timeout_ms = 180000) {
  QProcess p;
  p.start(QStringLiteral(FLOWLENS_BIN_DIR "/flowlens-run"), args);
  if (!p.waitForFinished(timeout_ms)) {
    p.kill();
    p.waitForFinished();
    return {-1, {}, "timed out"};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

inline QString sample(const char* name) { return QStringLiteral(FLOWLENS_SAMPLES "/") + name; }

}  // namespace flowlens::testing
