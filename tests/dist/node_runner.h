#pragma once
// Real flowlens-node processes on 127.0.0.1 for the dist tests. Ports are
// checked free by binding them (see free_ports). Every process started
// here is killed when its NodeProcess goes out of scope, also when a QVERIFY
// fails and returns early: no test leaves nodes behind.
#include <sys/socket.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include "free_ports.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <vector>

namespace flowlens::testing {

inline QString node_binary() { return QStringLiteral(FLOWLENS_BIN_DIR "/flowlens-node"); }
inline QString sample(const char* name) { return QStringLiteral(FLOWLENS_SAMPLES "/") + name; }

// Polls `condition` until it holds or `timeout_ms` of wall-clock time have
// passed. (QTRY_* counts only its own sleeps, so a condition that takes a
// while, such as a status request to a node that is gone, stretches its
// timeout many times over.)
template <class Condition>
bool eventually(Condition condition, int timeout_ms) {
  QElapsedTimer t;
  t.start();
  while (!condition()) {
    if (t.elapsed() > timeout_ms) return false;
    QTest::qWait(50);
  }
  return true;
}

struct RunResult {
  int code;  // exit code; -1 timed out, -2 crashed
  QString out;
  QString err;
};

// One child process; killed on destruction unless it already finished.
class NodeProcess {
 public:
  explicit NodeProcess(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
      : NodeProcess(node_binary(), args, env) {}
  // Any program (e.g. `ip netns exec NS flowlens-node ...`).
  NodeProcess(const QString& program, const QStringList& args,
              const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    process_.setProcessEnvironment(env);
    // Killed with the test: a test binary that ctest times out (SIGKILL)
    // runs no destructor, and its nodes would otherwise train on forever.
    process_.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    process_.start(program, args);
    process_.waitForStarted();
  }
  ~NodeProcess() {
    if (process_.state() != QProcess::NotRunning) {
      process_.kill();
      process_.waitForFinished(5000);
    }
  }
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  RunResult wait(int timeout_ms = 60000) {
    // waitForFinished() is false for a process that already ended, too.
    if (process_.state() != QProcess::NotRunning && !process_.waitForFinished(timeout_ms)) {
      process_.kill();
      process_.waitForFinished(5000);
      return {-1, out_ + QString::fromUtf8(process_.readAllStandardOutput()),
              err_ + QString::fromUtf8(process_.readAllStandardError()) + "\n(timed out)"};
    }
    out_ += QString::fromUtf8(process_.readAllStandardOutput());
    err_ += QString::fromUtf8(process_.readAllStandardError());
    return {process_.exitStatus() == QProcess::NormalExit ? process_.exitCode() : -2, out_, err_};
  }
  // Waits until stderr contains `text` (or the process ends / time runs out).
  // Generous timeout: sanitizer builds on a loaded 2-core machine start slowly.
  bool wait_for_stderr(const QString& text, int timeout_ms = 60000) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeout_ms) {
      err_ += QString::fromUtf8(process_.readAllStandardError());
      if (err_.contains(text)) return true;
      if (process_.state() == QProcess::NotRunning) break;
      process_.waitForReadyRead(50);
    }
    err_ += QString::fromUtf8(process_.readAllStandardError());
    qWarning("did not see \"%s\" on stderr after %lld ms (%s); stderr so far:\n%s", qPrintable(text),
             static_cast<long long>(t.elapsed()), running() ? "still running" : "exited", qPrintable(err_));
    return false;
  }
  // Waits until stdout contains `text` (or the process ends / time runs out).
  bool wait_for_stdout(const QString& text, int timeout_ms = 60000) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeout_ms) {
      out_ += QString::fromUtf8(process_.readAllStandardOutput());
      err_ += QString::fromUtf8(process_.readAllStandardError());
      if (out_.contains(text)) return true;
      if (process_.state() == QProcess::NotRunning) break;
      process_.waitForReadyRead(50);
    }
    qWarning("did not see \"%s\" on stdout after %lld ms; stderr so far:\n%s", qPrintable(text),
             static_cast<long long>(t.elapsed()), qPrintable(err_));
    return false;
  }
  // Whether stderr holds `text`, reading what arrives within `wait_ms`
  // (quietly: for loops that do something else until it shows up).
  bool stderr_has(const QString& text, int wait_ms = 0) {
    if (running()) process_.waitForReadyRead(wait_ms);
    return stderr_so_far().contains(text);
  }
  void terminate() { process_.terminate(); }  // SIGTERM
  // kill -9: no signal handler runs, nothing is saved or said goodbye.
  void kill9() {
    if (running()) ::kill(static_cast<pid_t>(process_.processId()), SIGKILL);
    process_.waitForFinished(5000);
  }
  QString stderr_so_far() {
    err_ += QString::fromUtf8(process_.readAllStandardError());
    return err_;
  }
  bool running() const { return process_.state() != QProcess::NotRunning; }
  qint64 pid() const { return process_.processId(); }

 private:
  QProcess process_;
  QString out_, err_;
};

inline RunResult run_node(const QStringList& args, int timeout_ms = 60000,
                          const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
  NodeProcess p(args, env);
  return p.wait(timeout_ms);
}

// A cluster file with `ps` ps tasks and `workers` worker tasks on free ports.
struct LocalCluster {
  QTemporaryDir dir;
  QString file;
  std::vector<int> ps_ports, worker_ports;

  LocalCluster(int ps, int workers) {
    std::vector<int> ports = free_ports(ps + workers);
    QStringList ps_list, worker_list;
    for (int i = 0; i < ps + workers; ++i) {
      const QString a = QString("\"127.0.0.1:%1\"").arg(ports[static_cast<size_t>(i)]);
      if (i < ps) ps_ports.push_back(ports[static_cast<size_t>(i)]), ps_list << a;
      else worker_ports.push_back(ports[static_cast<size_t>(i)]), worker_list << a;
    }
    file = dir.filePath("cluster.json");
    QFile f(file);
    f.open(QIODevice::WriteOnly);
    f.write(QString("{\"cluster\": {\"ps\": [%1], \"worker\": [%2]}}").arg(ps_list.join(", "), worker_list.join(", ")).toUtf8());
  }
  QString path(const QString& name) const { return dir.filePath(name); }
  QString ps_address(int i) const { return QString("127.0.0.1:%1").arg(ps_ports[static_cast<size_t>(i)]); }
  QString worker_address(int i) const { return QString("127.0.0.1:%1").arg(worker_ports[static_cast<size_t>(i)]); }

  QStringList ps_args(int task, const QStringList& extra = {}) const {
    return QStringList{"--cluster", file, "--job", "ps", "--task", QString::number(task)} + extra;
  }
  QStringList worker_args(int task, const QString& graph, int steps, const QStringList& extra = {}) const {
    return QStringList{"--cluster", file, "--job", "worker", "--task", QString::number(task), "--graph", graph,
                       "--steps", QString::number(steps), "--threads", "1"} + extra;
  }
};

// "worker N step S: loss X" lines of one worker -> X per printed step.
inline QList<double> worker_losses(const QString& out, int worker) {
  QList<double> values;
  const QRegularExpression line(QString(R"(^worker %1 step \d+: loss ([-0-9.eE+naninf]+)$)").arg(worker),
                                QRegularExpression::MultilineOption);
  for (auto it = line.globalMatch(out); it.hasNext();) values.append(it.next().captured(1).toDouble());
  return values;
}

}  // namespace flowlens::testing
