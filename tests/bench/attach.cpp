// The GUI attached to a training cluster must not slow it down:
//   attach_throughput: examples/s of a local cluster (1 ps + 2 workers,
//     flowlens-node launch on samples/mlp_train.pbtxt) with the GUI's cluster
//     model attached (ClusterSession polling every node at 10 Hz, the tree
//     model and the live charts, offscreen) vs with nothing attached; runs
//     in pairs of alternating order; ratio = attached / not attached
//     throughput, median over pairs with its spread (target >= 0.97).
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_util.h"
#include "mlp_bench_model.h"
#include "ui/cluster/cluster_charts.h"
#include "ui/cluster/cluster_session.h"
#include "ui/cluster/cluster_tree_model.h"

using namespace flowlens;

namespace {

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct ClusterRun {
  double seconds = 0;
  int updates = 0;  // status answers the GUI model received
  int redraws = 0;  // chart redraws
};

ClusterRun run_cluster(const QString& node, const QString& graph, int steps, bool attached, const QTemporaryDir& dir) {
  const QString file = dir.filePath(QStringLiteral("cluster-%1.json").arg(attached ? "attached" : "plain"));
  QFile f(file);
  if (!f.open(QIODevice::WriteOnly)) throw Error("bench_attach: cannot write " + file.toStdString());
  f.write(QStringLiteral("{\"ps\": [\"127.0.0.1:%1\"], \"worker\": [\"127.0.0.1:%2\", \"127.0.0.1:%3\"]}")
              .arg(free_port()).arg(free_port()).arg(free_port()).toUtf8());
  f.close();
  QProcess launch;
  launch.setProcessChannelMode(QProcess::MergedChannels);
  QEventLoop loop;
  QObject::connect(&launch, &QProcess::finished, &loop, &QEventLoop::quit);
  ui::ClusterSession session;
  ui::ClusterTreeModel model(&session);
  ui::ClusterCharts charts(&session);
  QElapsedTimer clock;
  clock.start();
  launch.start(node, {"launch", "--cluster", file, "--graph", graph, "--steps", QString::number(steps), "--threads", "1",
                      "--print-every", "0"});
  if (!launch.waitForStarted(10000)) throw Error("bench_attach: cannot start " + node.toStdString());
  if (attached) {
    charts.resize(600, 500);
    charts.show();
    session.attach(load_cluster_spec(file.toStdString()), 10);
  }
  loop.exec();
  ClusterRun run{static_cast<double>(clock.nsecsElapsed()) / 1e9, session.updates(), charts.redraws()};
  session.detach();
  if (launch.exitStatus() != QProcess::NormalExit || launch.exitCode() != 0)
    throw Error("bench_attach: flowlens-node launch failed:\n" + launch.readAll().toStdString());
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  // One BLAS thread per process, as the other cluster benchmarks do.
  const char* blas_threads = std::getenv("OPENBLAS_NUM_THREADS");
  if (!blas_threads || std::strcmp(blas_threads, "1") != 0) {
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    std::perror("bench_attach: re-exec with OPENBLAS_NUM_THREADS=1 failed");
    return 1;
  }
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  const bool smoke = bench::smoke_mode(argc, argv);
  try {
    QTemporaryDir dir;
    const QString node = QCoreApplication::applicationDirPath() + QStringLiteral("/flowlens-node");
    const QString graph = QString::fromStdString(bench::samples_dir() + "/mlp_train.pbtxt");
    const int steps = smoke ? 20 : 6000, reps = smoke ? 1 : 6;
    // Pairs in alternating order (alone first, then attached first, ...):
    // the ratio within each pair, its median and spread (bench_util.h).
    bench::Comparison c;
    int updates = 0, redraws = 0;
    double attached_seconds = 0;
    auto attached_run = [&] {
      ClusterRun a = run_cluster(node, graph, steps, true, dir);
      c.candidate.push_back(a.seconds);
      updates += a.updates;
      redraws += a.redraws;
      attached_seconds += a.seconds;
    };
    for (int rep = 0; rep < reps; ++rep) {
      if (rep % 2 == 1) attached_run();
      c.baseline.push_back(run_cluster(node, graph, steps, false, dir).seconds);
      if (rep % 2 == 0) attached_run();
    }
    // Throughput attached / alone = alone time / attached time: a cost, so
    // never printed above 1 as a speed-up.
    const std::string text = bench::throughput_cost_text(c);
    std::printf("attach_throughput: %s   (2 workers x %d steps: %.2f s alone, %.2f s attached, %d pairs; GUI model got "
                "%.1f status updates/s and redrew the charts %.1f times/s; target >= 0.97)\n",
                text.c_str(), steps, c.baseline_median(), c.candidate_median(), c.pairs(), updates / attached_seconds,
                redraws / attached_seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_attach: %s\n", e.what());
    return 1;
  }
  return 0;
}
