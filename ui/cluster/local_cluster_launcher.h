#pragma once
// Cluster → Launch Local Cluster…: writes a cluster file with free ports on
// 127.0.0.1 (P ps tasks, N workers) and runs `flowlens-node launch` on it as a
// child process (QProcess), so the GUI can attach to a real cluster on one
// machine. Its output is kept for the log; stop() ends it like Ctrl+C does
// (SIGTERM: workers stop, the ps saves its checkpoint).
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <memory>

class QTemporaryDir;

namespace flowlens::ui {

struct LocalClusterOptions {
  QString graph;   // training graph (.pbtxt)
  int ps = 1;  // parameter-server tasks (replica_device_setter spreads the variables over them)
  int workers = 2;
  int steps = 100000;
  bool sync = false;
  int threads = 1;  // per worker
  QString node_binary;  // default: flowlens-node beside this executable
};

class LocalClusterLauncher : public QObject {
  Q_OBJECT

 public:
  explicit LocalClusterLauncher(QObject* parent = nullptr);
  ~LocalClusterLauncher() override;  // stops the cluster

  // Starts the cluster; false with `error` when it cannot (no binary, no graph).
  bool start(const LocalClusterOptions& options, QString* error = nullptr);
  void stop();
  bool running() const;
  QString cluster_file() const { return cluster_file_; }
  QString output() const { return output_; }

 signals:
  void output_received(const QString& text);
  void finished(int exit_code);

 private:
  std::unique_ptr<QTemporaryDir> dir_;
  QProcess* process_ = nullptr;
  QString cluster_file_;
  QString output_;
};

}  // namespace flowlens::ui
