// Faults survived by real flowlens-node processes on 127.0.0.1: a worker
// killed (-9) during async and sync training, a restarted worker rejoining at
// the current global step, and a ps killed (-9) that restores its checkpoint
// while the workers ride out the gap and continue.
#include "test_main.h"
#include <QtTest>

#include "dist/control/cluster_client.h"
#include "dist/node_runner.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// The node's step, or -1 while it does not answer.
int64_t step_of(dist::ClusterClient& client, const char* job, int task) {
  try {
    return client.status(client.node(job, task), std::chrono::milliseconds(1000)).step;
  } catch (const Error&) {
    return -1;
  }
}

std::string detail_of(dist::ClusterClient& client, const char* job, int task) {
  try {
    return client.status(client.node(job, task), std::chrono::milliseconds(1000)).detail;
  } catch (const Error& e) {
    return e.what();
  }
}

// "... at global step 123" at the end of a ps's last line -> 123.
int64_t final_global_step(const QString& ps_stderr) {
  const QRegularExpression re(R"(ps 0: all workers finished at global step (\d+))");
  const auto m = re.match(ps_stderr);
  return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

const QStringList kQuiet = {"--print-every", "0", "--timeout", "3", "--reconnect-timeout", "30"};

}  // namespace

class TestFaults : public QObject {
  Q_OBJECT
 private slots:
  void async_worker_killed_others_keep_running_and_it_rejoins() {
    LocalCluster c(1, 2);
    NodeProcess ps(c.ps_args(0, {"--worker-timeout", "1"}));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, kQuiet));
    auto w1 = std::make_unique<NodeProcess>(c.worker_args(1, sample("mlp_train.pbtxt"), 1000000, kQuiet));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QTRY_VERIFY_WITH_TIMEOUT(step_of(client, "worker", 1) >= 5, 60000);

    w1->kill9();
    QVERIFY(ps.wait_for_stderr("ps 0: worker 1 at " + c.worker_address(1) + " is down (", 10000));
    QVERIFY2(detail_of(client, "ps", 0).find("worker 1 down") != std::string::npos, detail_of(client, "ps", 0).c_str());
    // The ps and worker 0 go on without it.
    const int64_t w0_step = step_of(client, "worker", 0), ps_step = step_of(client, "ps", 0);
    QTRY_VERIFY_WITH_TIMEOUT(step_of(client, "worker", 0) >= w0_step + 20, 20000);
    QVERIFY(step_of(client, "ps", 0) >= ps_step + 20);
    QVERIFY(ps.running() && w0.running());

    // Restarted, worker 1 picks up the ps's current values and step.
    const int64_t before_rejoin = step_of(client, "ps", 0);
    NodeProcess again(c.worker_args(1, sample("mlp_train.pbtxt"), 30, kQuiet));
    QVERIFY(again.wait_for_stderr("worker 1: joining at global step "));
    const QRegularExpression joined(R"(worker 1: joining at global step (\d+))");
    QVERIFY(joined.match(again.stderr_so_far()).captured(1).toLongLong() >= before_rejoin);
    QVERIFY(ps.wait_for_stderr("ps 0: worker 1 is back"));
    RunResult r1 = again.wait();
    QVERIFY2(r1.code == 0 && r1.err.contains("worker 1: 30 steps"), qPrintable(r1.err));

    run_node({"stop", "--cluster", c.file});  // exit code 1: the finished worker 1 is not there to stop
    QCOMPARE(w0.wait().code, 0);
    RunResult p = ps.wait();
    QVERIFY2(p.code == 0, qPrintable(p.err));
  }

  void sync_lowers_aggregation_to_live_replicas_and_restores_it() {
    LocalCluster c(1, 2);
    NodeProcess ps(c.ps_args(0, {"--worker-timeout", "1", "--timeout", "30"}));
    const QStringList sync = kQuiet + QStringList{"--sync"};
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, sync));
    auto w1 = std::make_unique<NodeProcess>(c.worker_args(1, sample("mlp_train.pbtxt"), 1000000, sync));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QTRY_VERIFY_WITH_TIMEOUT(step_of(client, "ps", 0) >= 5, 60000);

    w1->kill9();
    // Without worker 1 no step could complete; after the heartbeat timeout
    // the ps says so and aggregates worker 0's gradients alone.
    QVERIFY(ps.wait_for_stderr("ps 0: worker 1 at " + c.worker_address(1) +
                                   " is down (", 10000));
    QVERIFY(ps.wait_for_stderr("sync steps aggregate 1 of 2 replica(s) until it returns"));
    QVERIFY2(detail_of(client, "ps", 0).find("worker 1 down; aggregating 1 of 2") != std::string::npos,
             detail_of(client, "ps", 0).c_str());
    const int64_t alone = step_of(client, "ps", 0);
    QTRY_VERIFY_WITH_TIMEOUT(step_of(client, "ps", 0) >= alone + 20, 20000);

    NodeProcess again(c.worker_args(1, sample("mlp_train.pbtxt"), 20, sync));
    QVERIFY(again.wait_for_stderr("worker 1: joining at global step "));
    QVERIFY(ps.wait_for_stderr("ps 0: worker 1 is back; sync steps aggregate 2 of 2 replica(s) again"));
    RunResult r1 = again.wait();
    QVERIFY2(r1.code == 0 && r1.err.contains("worker 1: 20 steps"), qPrintable(r1.err));
    // Worker 0 was held at the barrier with it, not left behind: both advance.
    QVERIFY(step_of(client, "worker", 0) > 0);

    run_node({"stop", "--cluster", c.file});  // exit code 1: the finished worker 1 is not there to stop
    QCOMPARE(w0.wait().code, 0);
    QCOMPARE(ps.wait().code, 0);
  }

  void ps_killed_restores_its_checkpoint_and_workers_continue() {
    LocalCluster c(1, 2);
    const QStringList ps_extra = {"--checkpoint-dir", c.path("ckpt"), "--checkpoint-every", "20"};
    auto ps = std::make_unique<NodeProcess>(c.ps_args(0, ps_extra));
    const int steps = 2000;  // long enough that the kill lands mid-training
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), steps, kQuiet));
    NodeProcess w1(c.worker_args(1, sample("mlp_train.pbtxt"), steps, kQuiet));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QTRY_VERIFY_WITH_TIMEOUT(step_of(client, "ps", 0) >= 60 && step_of(client, "worker", 1) >= 5, 60000);

    ps->kill9();
    QTest::qWait(500);
    ps = std::make_unique<NodeProcess>(c.ps_args(0, ps_extra));
    QVERIFY(ps->wait_for_stderr("ps 0: restored 4 variable(s) at global step "));
    const QRegularExpression restored(R"(restored 4 variable\(s\) at global step (\d+))");
    const int64_t restored_step = restored.match(ps->stderr_so_far()).captured(1).toLongLong();
    QVERIFY(restored_step >= 60 - 20);

    RunResult r0 = w0.wait(), r1 = w1.wait();
    QVERIFY2(r0.code == 0 && r0.err.contains("ps 0 answers again after"), qPrintable(r0.err));
    QVERIFY2(r1.code == 0 && r1.err.contains("ps 0 answers again after"), qPrintable(r1.err));
    RunResult p = ps->wait();
    QVERIFY2(p.code == 0, qPrintable(p.err));
    // Every push after the restart landed; what was lost is at most what the
    // old ps applied after its last checkpoint (checkpoint-every 20).
    const int64_t final_step = final_global_step(p.err);
    QVERIFY2(final_step <= 2 * steps && final_step >= 2 * steps - 20, qPrintable(p.err));
  }

  void ps_restarted_without_checkpoint_gets_variables_from_the_chief() {
    LocalCluster c(1, 2);
    auto ps = std::make_unique<NodeProcess>(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, kQuiet));
    NodeProcess w1(c.worker_args(1, sample("mlp_train.pbtxt"), 1000000, kQuiet));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    // Both workers training (a worker that never pulled waits only --timeout for the chief).
    QTRY_VERIFY_WITH_TIMEOUT(step_of(client, "worker", 0) >= 10 && step_of(client, "worker", 1) >= 10, 60000);
    ps->kill9();
    QTest::qWait(300);
    ps = std::make_unique<NodeProcess>(c.ps_args(0));
    QVERIFY(w0.wait_for_stderr("worker 0 (chief): ps 0 lost its variables"));
    QVERIFY(w0.wait_for_stderr("ps 0 answers again after"));
    const int64_t w0_step = step_of(client, "worker", 0), w1_step = step_of(client, "worker", 1);
    QTRY_VERIFY_WITH_TIMEOUT(step_of(client, "worker", 0) >= w0_step + 20 && step_of(client, "worker", 1) >= w1_step + 20,
                             30000);
    QVERIFY(step_of(client, "ps", 0) >= 20);  // the new ps counts from 0: it had no checkpoint
    QCOMPARE(run_node({"stop", "--cluster", c.file}).code, 0);
    QCOMPARE(w0.wait().code, 0);
    QCOMPARE(w1.wait().code, 0);
    QCOMPARE(ps->wait().code, 0);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestFaults)
#include "test_faults.moc"
