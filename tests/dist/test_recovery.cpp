// Recovery with real flowlens-node processes: a ps whose workers are all
// down exits (or, with --wait-for-workers, waits for them); `stop` does not
// wait on workers that are gone; workers notice a restarted ps within about
// a second; and --reconnect-timeout is what a worker really waits.
#include "test_main.h"
#include <QtTest>

#include "dist/control/cluster_client.h"
#include "dist/node_runner.h"
#include "time_scale.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

int64_t step_of(dist::ClusterClient& client, const char* job, int task) {
  try {
    return client.status(client.node(job, task), std::chrono::milliseconds(scaled_ms(1000))).step;
  } catch (const Error&) {
    return -1;
  }
}

const QStringList kQuiet = {"--print-every", "0"};

}  // namespace

class TestRecovery : public QObject {
  Q_OBJECT
 private slots:
  void ps_exits_when_every_worker_is_down() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0, {"--worker-timeout", "1", "--timeout", "2"}));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, kQuiet));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QVERIFY(eventually([&] { return step_of(client, "worker", 0) >= 3; }, scaled_ms(60000)));
    w0.kill9();
    QVERIFY(ps.wait_for_stderr("ps 0: no live worker left (worker 0 down); exiting in 2 s unless one returns "
                               "(--wait-for-workers keeps it serving)",
                               scaled_ms(10000)));
    const RunResult r = ps.wait(scaled_ms(10000));
    QVERIFY2(r.code == 0 && r.err.contains("ps 0: no live worker left (worker 0 down) at global step "), qPrintable(r.err));
  }

  void wait_for_workers_keeps_serving_until_one_returns() {
    LocalCluster c(1, 2);
    NodeProcess ps(c.ps_args(0, {"--worker-timeout", "1", "--timeout", "1", "--wait-for-workers"}));
    RunResult w0 = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 5, kQuiet));
    QVERIFY2(w0.code == 0, qPrintable(w0.err));
    NodeProcess w1(c.worker_args(1, sample("mlp_train.pbtxt"), 1000000, kQuiet));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QVERIFY(eventually([&] { return step_of(client, "worker", 1) >= 2; }, scaled_ms(60000)));
    w1.kill9();
    QVERIFY(ps.wait_for_stderr("ps 0: no live worker left (worker 1 down, worker 0 finished); waiting for them to "
                               "return (--wait-for-workers)",
                               scaled_ms(10000)));
    QTest::qWait(1500);  // past --timeout: it would have exited by now
    QVERIFY(ps.running());
    RunResult again = run_node(c.worker_args(1, sample("mlp_train.pbtxt"), 5, kQuiet));
    QVERIFY2(again.code == 0, qPrintable(again.err));
    const RunResult r = ps.wait(scaled_ms(10000));
    QVERIFY2(r.code == 0 && r.err.contains("ps 0: worker 1 is back") && r.err.contains("all workers finished"),
             qPrintable(r.err));
  }

  void stop_does_not_wait_on_dead_workers() {
    LocalCluster c(1, 4);  // workers 1-3 never run: each used to cost a --timeout
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, kQuiet));
    QVERIFY(w0.wait_for_stderr("worker 0: 4 variable(s)"));
    QElapsedTimer t;
    t.start();
    const RunResult stop = run_node({"stop", "--cluster", c.file}, scaled_ms(30000));
    const qint64 took = t.elapsed();
    QCOMPARE(stop.code, 1);  // the absent workers are reported
    for (int w = 1; w <= 3; ++w)
      QVERIFY2(stop.err.contains(QString("worker %1 at %2: not running").arg(w).arg(c.worker_address(w))),
               qPrintable(stop.err));
    QVERIFY2(took < scaled_ms(8000), qPrintable(QString("stop took %1 ms").arg(took)));
    QCOMPARE(w0.wait(scaled_ms(10000)).code, 0);
    QCOMPARE(ps.wait(scaled_ms(10000)).code, 0);
  }

  void workers_reconnect_within_a_second_of_the_ps_returning() {
    LocalCluster c(1, 1);
    const QStringList ps_extra = {"--checkpoint-dir", c.path("ckpt"), "--checkpoint-every", "20"};
    auto ps = std::make_unique<NodeProcess>(c.ps_args(0, ps_extra));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, kQuiet));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QVERIFY(eventually([&] { return step_of(client, "ps", 0) >= 30; }, scaled_ms(60000)));
    ps->kill9();
    QTest::qWait(2500);
    ps = std::make_unique<NodeProcess>(c.ps_args(0, ps_extra));
    QVERIFY(ps->wait_for_stderr("serving on"));
    QElapsedTimer back;
    back.start();
    QVERIFY(w0.wait_for_stderr("worker 0: ps 0 answers again after ", scaled_ms(20000)));
    QVERIFY2(back.elapsed() < scaled_ms(2500), qPrintable(QString("%1 ms after the ps was back").arg(back.elapsed())));
    const int64_t step = step_of(client, "worker", 0);
    QVERIFY(eventually([&] { return step_of(client, "worker", 0) >= step + 10; }, scaled_ms(20000)));
  }

  void reconnect_timeout_is_what_a_worker_waits() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, kQuiet + QStringList{"--reconnect-timeout", "3"}));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QVERIFY(eventually([&] { return step_of(client, "worker", 0) >= 3; }, scaled_ms(60000)));
    ps.kill9();
    QElapsedTimer t;
    t.start();
    const RunResult r = w0.wait(scaled_ms(30000));
    const qint64 took = t.elapsed();
    QCOMPARE(r.code, 1);
    const QRegularExpression gave_up(R"(has not answered for ([0-9.]+) s \(gave up after --reconnect-timeout 3 s\))");
    const auto m = gave_up.match(r.err);
    QVERIFY2(m.hasMatch(), qPrintable(r.err));
    QVERIFY2(m.captured(1).toDouble() >= 3 && m.captured(1).toDouble() < 3 + scaled_ms(2000) / 1000.0, qPrintable(r.err));
    QVERIFY2(took >= 2900 && took < 3000 + scaled_ms(4000), qPrintable(QString("gave up after %1 ms").arg(took)));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestRecovery)
#include "test_recovery.moc"
