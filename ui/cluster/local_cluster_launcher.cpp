#include "ui/cluster/local_cluster_launcher.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

namespace flowlens::ui {
namespace {

// A port the kernel just handed out on 127.0.0.1 (free now; the nodes bind
// it a moment later, which is how test harnesses everywhere do it).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

}  // namespace

LocalClusterLauncher::LocalClusterLauncher(QObject* parent) : QObject(parent) {}

LocalClusterLauncher::~LocalClusterLauncher() { stop(); }

bool LocalClusterLauncher::running() const { return process_ && process_->state() != QProcess::NotRunning; }

bool LocalClusterLauncher::start(const LocalClusterOptions& options, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  stop();
  const QString node = options.node_binary.isEmpty()
                           ? QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("flowlens-node"))
                           : options.node_binary;
  if (!QFileInfo(node).isExecutable()) return fail(tr("cannot launch a cluster: %1 is not an executable").arg(node));
  if (!QFileInfo(options.graph).isFile()) return fail(tr("cannot launch a cluster: no graph file %1").arg(options.graph));
  if (options.workers < 1) return fail(tr("cannot launch a cluster: it needs at least one worker"));

  dir_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/flowlens-cluster-XXXXXX"));
  if (!dir_->isValid()) return fail(tr("cannot create a folder for the cluster: %1").arg(dir_->errorString()));
  if (options.ps < 1) return fail(tr("cannot launch a cluster: it needs at least one parameter server"));
  auto addresses = [](int count) {
    QJsonArray list;
    for (int i = 0; i < count; ++i) list.append(QStringLiteral("127.0.0.1:%1").arg(free_port()));
    return list;
  };
  const QJsonObject spec{{QStringLiteral("ps"), addresses(options.ps)},
                         {QStringLiteral("worker"), addresses(options.workers)}};
  cluster_file_ = dir_->filePath(QStringLiteral("cluster.json"));
  QFile f(cluster_file_);
  if (!f.open(QIODevice::WriteOnly)) return fail(tr("cannot write %1: %2").arg(cluster_file_, f.errorString()));
  f.write(QJsonDocument(spec).toJson(QJsonDocument::Compact) + '\n');
  f.close();

  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  process_->setWorkingDirectory(dir_->path());  // checkpoints and traces land there
  connect(process_, &QProcess::readyRead, this, [this] {
    const QString text = QString::fromLocal8Bit(process_->readAll());
    output_ += text;
    if (output_.size() > 1 << 20) output_ = output_.right(1 << 19);
    emit output_received(text);
  });
  connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) { emit finished(code); });
  QStringList args = {QStringLiteral("launch"), QStringLiteral("--cluster"), cluster_file_, QStringLiteral("--graph"),
                      QFileInfo(options.graph).absoluteFilePath(), QStringLiteral("--steps"),
                      QString::number(options.steps), QStringLiteral("--threads"), QString::number(options.threads),
                      QStringLiteral("--checkpoint-dir"), dir_->filePath(QStringLiteral("checkpoints"))};
  if (options.sync) args << QStringLiteral("--sync");
  output_.clear();
  process_->start(node, args);
  if (!process_->waitForStarted(5000)) return fail(tr("cannot start %1: %2").arg(node, process_->errorString()));
  return true;
}

void LocalClusterLauncher::stop() {
  if (!process_) return;
  if (process_->state() != QProcess::NotRunning) {
    process_->terminate();  // SIGTERM: launch stops workers, then the ps (which saves)
    if (!process_->waitForFinished(10000)) {
      process_->kill();
      process_->waitForFinished(2000);
    }
  }
  process_->deleteLater();
  process_ = nullptr;
}

}  // namespace flowlens::ui
