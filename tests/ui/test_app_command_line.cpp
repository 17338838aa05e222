// The `flowlens` program's command line as a newcomer meets it: --help and
// --version answer without a display (over ssh, in scripts, in CI), and
// starting the GUI where no display can be reached says what to do instead of
// aborting inside Qt's platform plugin.
#include "test_main.h"
#include <QtTest>

#include <QProcess>
#include <QProcessEnvironment>

namespace {

struct Outcome {
  int code = -1;
  QString out, err;
};

// Runs bin/flowlens with no display of any kind: no X, no Wayland, no
// platform chosen through QT_QPA_PLATFORM.
Outcome run_without_display(const QStringList& args) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(QString::fromLatin1(name));
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(FLOWLENS_BIN_DIR "/flowlens"), args);
  Outcome o;
  if (!p.waitForFinished(30000)) {
    p.kill();
    p.waitForFinished();
    return o;
  }
  o.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  o.out = QString::fromUtf8(p.readAllStandardOutput());
  o.err = QString::fromUtf8(p.readAllStandardError());
  return o;
}

}  // namespace

class TestAppCommandLine : public QObject {
  Q_OBJECT
 private slots:
  void helpNeedsNoDisplay() {
    for (const QString& flag : {QStringLiteral("--help"), QStringLiteral("-h")}) {
      const Outcome o = run_without_display({flag});
      QVERIFY2(o.code == 0, qPrintable(o.err));
      // Every start-up option is described, the GUI-only ones included.
      for (const char* option : {"--screenshot", "--select", "--replicas", "--run", "--break", "--dock", "--edit",
                                 "--template", "--attach", "--expand-all", "--version"})
        QVERIFY2(o.out.contains(QLatin1String(option)), option);
      // Qt names the program as it was started: the path to bin/flowlens.
      QVERIFY2(o.out.contains(QRegularExpression(QStringLiteral("^Usage: \\S*flowlens \\[options\\] \\[graph\\]"))),
               qPrintable(o.out));
    }
  }

  void versionNeedsNoDisplay() {
    const Outcome o = run_without_display({QStringLiteral("--version")});
    QVERIFY2(o.code == 0, qPrintable(o.err));
    QVERIFY2(o.out.contains(QRegularExpression(QStringLiteral("flowlens \\d+\\.\\d+"))), qPrintable(o.out));
  }

  void noDisplayIsAClearErrorNotACrash() {
    const Outcome o = run_without_display({QStringLiteral(FLOWLENS_SAMPLES "/matmul_baseline.pbtxt")});
    QCOMPARE(o.code, 1);
    QVERIFY2(o.err.contains(QStringLiteral("no display")) && o.err.contains(QStringLiteral("xvfb-run")),
             qPrintable(o.err));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestAppCommandLine)
#include "test_app_command_line.moc"
