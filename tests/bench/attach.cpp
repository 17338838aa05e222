// The GUI attached to a training cluster must not slow it down:
//   attach_throughput: examples/s of a local cluster (1 ps + 2 workers,
//     flowlens-node launch on samples/mlp_train.pbtxt) with the GUI's cluster
//     model attached (ClusterSession polling every node at 10 Hz, the tree
//     model and the live charts, offscreen) vs with nothing attached; runs
//     in pairs of alternating order; ratio = attached / not attached
//     throughput, median over pairs with its spread (target >= 0.97).
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../free_ports.h"
#include "bench_util.h"
#include "dist/control/node_status.h"
#include "mlp_bench_model.h"
#include "ui/cluster/cluster_charts.h"
#include "ui/cluster/cluster_session.h"
#include "ui/cluster/cluster_tree_model.h"

using namespace flowlens;

namespace {

using flowlens::testing::free_ports;

struct ClusterRun {
  double seconds = 0;
  int updates = 0;  // status answers the GUI model received
  int redraws = 0;  // chart redraws
  double gui_cpu = 0;   // CPU seconds of this process (polling threads, model, charts)
  double node_cpu = 0;  // CPU seconds of flowlens-node launch and its ps/worker processes
  std::vector<dist::NodeStatus> statuses;  // the last answer of each node
};

// What one status poll costs a node: its reply served from the StatusCache,
// and re-encoded (once per 100 ms at most while it trains), for the largest
// status the GUI saw (the ps: variables and links).
std::pair<double, double> status_reply_ns(const std::vector<dist::NodeStatus>& statuses) {
  if (statuses.empty()) return {0, 0};
  const dist::NodeStatus* largest = &statuses[0];
  for (const auto& s : statuses)
    if (dist::status_to_json(s).size() > dist::status_to_json(*largest).size()) largest = &s;
  dist::StatusCache cache(std::chrono::hours(1));
  auto fill = [&](dist::NodeStatus& s, bool /*key_changed*/) {
    if (s.role.empty()) s = *largest;
    ++s.step, s.bytes_in += 1000, s.bytes_out += 1000;
  };
  constexpr int kRounds = 20000;
  std::size_t sink = 0;
  uint64_t key = 1;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  for (int i = 0; i < kRounds; ++i) sink += cache.get(key, 0, fill).size();
  const auto t1 = Clock::now();
  for (int i = 0; i < kRounds; ++i) sink += cache.get(++key, 0, fill).size();
  const auto t2 = Clock::now();
  if (sink == 0) std::puts("");
  const double ns = 1e9 / kRounds;
  return {std::chrono::duration<double>(t1 - t0).count() * ns, std::chrono::duration<double>(t2 - t1).count() * ns};
}

double cpu_seconds(int who) {
  rusage u{};
  ::getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Where the attached runs' extra time goes, gathered by run_cluster.
struct Costs {
  std::vector<double> alone_node_cpu, attached_node_cpu, gui_cpu;
  int updates = 0;
  std::vector<dist::NodeStatus> statuses;  // the last attached run's

  void record(bool attached, const ClusterRun& run) {
    if (!attached) {
      alone_node_cpu.push_back(run.node_cpu);
      return;
    }
    attached_node_cpu.push_back(run.node_cpu);
    gui_cpu.push_back(run.gui_cpu);
    updates += run.updates;
    statuses = run.statuses;
  }

  void print() const {
    if (gui_cpu.empty() || alone_node_cpu.empty()) return;
    const double gui = bench::median(gui_cpu), node_alone = bench::median(alone_node_cpu),
                 node_attached = bench::median(attached_node_cpu);
    const double polls = std::max(1.0, static_cast<double>(updates) / static_cast<double>(gui_cpu.size()));
    const auto [cached_ns, encoded_ns] = status_reply_ns(statuses);
    std::printf("  attached cost (CPU s per run, medians): GUI process %.3f (%.0f us per status update); nodes %.2f "
                "attached vs %.2f alone (%+.2f, within noise unless large); a status reply costs a node %.0f ns "
                "from its cache, %.1f us re-encoded (at most every 100 ms)\n",
                gui, gui / polls * 1e6, node_attached, node_alone, node_attached - node_alone, cached_ns,
                encoded_ns / 1e3);
  }
} costs;

ClusterRun run_cluster(const QString& node, const QString& graph, int steps, bool attached, const QTemporaryDir& dir) {
  const QString file = dir.filePath(QStringLiteral("cluster-%1.json").arg(attached ? "attached" : "plain"));
  QFile f(file);
  if (!f.open(QIODevice::WriteOnly)) throw Error("bench_attach: cannot write " + file.toStdString());
  const std::vector<int> ports = free_ports(3);
  f.write(QStringLiteral("{\"ps\": [\"127.0.0.1:%1\"], \"worker\": [\"127.0.0.1:%2\", \"127.0.0.1:%3\"]}")
              .arg(ports[0]).arg(ports[1]).arg(ports[2]).toUtf8());
  f.close();
  QProcess launch;
  launch.setProcessChannelMode(QProcess::MergedChannels);
  QEventLoop loop;
  QObject::connect(&launch, &QProcess::finished, &loop, &QEventLoop::quit);
  ui::ClusterSession session;
  ui::ClusterTreeModel model(&session);
  ui::ClusterCharts charts(&session);
  const double self0 = cpu_seconds(RUSAGE_SELF), children0 = cpu_seconds(RUSAGE_CHILDREN);
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
  ClusterRun run{static_cast<double>(clock.nsecsElapsed()) / 1e9, session.updates(), charts.redraws(), 0, 0, {}};
  for (const ui::ClusterNodeState& n : session.nodes())
    if (n.status) run.statuses.push_back(*n.status);
  session.detach();
  // launch waited for its ps and workers, and QProcess for launch: their CPU
  // time is in RUSAGE_CHILDREN now.
  run.gui_cpu = cpu_seconds(RUSAGE_SELF) - self0;
  run.node_cpu = cpu_seconds(RUSAGE_CHILDREN) - children0;
  costs.record(attached, run);
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
    costs.print();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_attach: %s\n", e.what());
    return 1;
  }
  return 0;
}
