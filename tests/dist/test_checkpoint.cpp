// ps checkpoints: atomic, owner-only writes, restore on start, saves by time
// (--checkpoint-secs) as well as by steps (the schedule on a fake clock, then
// a real ps), SIGTERM saves, and bad files named on start.
#include "test_main.h"
#include <QtTest>

#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "dist/ps/checkpoint.h"
#include "dist/ps/checkpoint_saver.h"
#include "dist/control/cluster_client.h"
#include "dist/node_runner.h"
#include "io/graph_io.h"
#include "time_scale.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {
dist::ClusterClient client_for(const LocalCluster& c) { return dist::ClusterClient(load_cluster_spec(c.file.toStdString())); }
}  // namespace

class TestCheckpoint : public QObject {
  Q_OBJECT
 private slots:
  // Optimizer slots are variables of the graph the ps runs, saved like the weights.
  void write_and_read_back_with_slots() {
    QTemporaryDir dir;
    dist::Checkpoint ck;
    ck.global_step = 17;
    ck.variables["a/w"] = Tensor::from_vector<float>(Shape{2, 2}, {1, 2, 3, 4});
    ck.variables["a/w/Adam"] = Tensor::from_vector<float>(Shape{2, 2}, {0.5f, 0, 0, 0});
    ck.variables["beta1_power"] = Tensor::scalar<float>(0.81f);
    ck.variables["b"] = Tensor::from_vector<double>(Shape{1}, {2.5});
    const std::string path = dist::checkpoint_path(dir.filePath("sub").toStdString(), 3);
    dist::write_checkpoint(path, ck);
    QVERIFY(!std::filesystem::exists(path + ".tmp"));  // renamed into place
    dist::Checkpoint back = dist::read_checkpoint(path);
    QCOMPARE(back.global_step, int64_t{17});
    QCOMPARE(back.variables.size(), std::size_t{4});
    for (const auto& [name, value] : ck.variables) QVERIFY2(back.variables.at(name).equals(value), name.c_str());
  }

  void checkpoints_are_owner_only() {
    QTemporaryDir dir;
    const std::string path = dist::checkpoint_path(dir.path().toStdString(), 0);
    // A temporary file left by a crashed run, world-readable, is not reused as is.
    std::ofstream(path + ".tmp") << "left over";
    ::chmod((path + ".tmp").c_str(), 0644);
    dist::Checkpoint ck;
    ck.variables["w"] = Tensor::from_vector<float>(Shape{2}, {1, 2});
    dist::write_checkpoint(path, ck);
    struct stat st {};
    QVERIFY(::stat(path.c_str(), &st) == 0);
    QCOMPARE(st.st_mode & 0777, 0600u);
  }

  void saver_saves_every_n_steps_or_after_the_interval() {
    QTemporaryDir dir;
    auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
    dist::CheckpointSaver saver(dir.path().toStdString(), 2, 10, std::chrono::seconds(30), [&now] { return now; });
    QVERIFY(!saver.restore());  // nothing on disk yet
    dist::Checkpoint state;
    state.variables["w"] = Tensor::from_vector<float>(Shape{1}, {1});
    auto saved_step = [&] { return dist::read_checkpoint(saver.path()).global_step; };

    for (state.global_step = 1; state.global_step < 10; ++state.global_step) saver.step_finished(state);
    QVERIFY(!std::filesystem::exists(saver.path()));
    saver.step_finished(state);  // step 10
    QCOMPARE(saved_step(), int64_t{10});
    // By time: only once the interval has passed, and only with new steps.
    state.global_step = 13;
    now += std::chrono::seconds(29);
    saver.save_if_due(state);
    QCOMPARE(saved_step(), int64_t{10});
    now += std::chrono::seconds(1);
    saver.save_if_due(state);
    QCOMPARE(saved_step(), int64_t{13});
    const auto written = std::filesystem::last_write_time(saver.path());
    now += std::chrono::minutes(5);
    saver.save_if_due(state);  // idle: nothing rewritten
    QCOMPARE(std::filesystem::last_write_time(saver.path()), written);
    // The step count starts again from the last save, whatever caused it.
    state.global_step = 22;
    saver.step_finished(state);
    QCOMPARE(saved_step(), int64_t{13});
    state.global_step = 23;
    saver.step_finished(state);
    QCOMPARE(saved_step(), int64_t{23});

    // A new saver restores it and counts from there.
    dist::CheckpointSaver restarted(dir.path().toStdString(), 2, 10, std::chrono::seconds(0), [&now] { return now; });
    const std::optional<dist::Checkpoint> back = restarted.restore();
    QVERIFY(back);
    QCOMPARE(back->global_step, int64_t{23});
    state.global_step = 32;
    restarted.step_finished(state);
    QCOMPARE(saved_step(), int64_t{23});
  }

  void saver_without_a_directory_writes_nothing() {
    dist::CheckpointSaver saver("", 0, 1, std::chrono::milliseconds(1));
    QVERIFY(!saver.enabled());
    QCOMPARE(saver.path(), std::string());
    QVERIFY(!saver.restore());
    dist::Checkpoint state;
    state.global_step = 5;
    saver.step_finished(state);
    saver.save(state);  // no-op, no throw
  }

  void checkpoint_secs_saves_between_step_counts() {
    LocalCluster c(1, 1);
    const QString dir = c.path("ckpt");
    NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", dir, "--checkpoint-every", "0", "--checkpoint-secs", "0.5"}));
    NodeProcess w(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, {"--print-every", "0"}));
    const std::string path = dist::checkpoint_path(dir.toStdString(), 0);
    // Written while training goes on, not only when the ps stops.
    // Written atomically (renamed into place), so every read sees a whole file.
    QVERIFY(eventually([&] { return std::filesystem::exists(path) && dist::read_checkpoint(path).global_step > 0; },
                       scaled_ms(30000)));
    const int64_t first = dist::read_checkpoint(path).global_step;
    QVERIFY(eventually([&] { return dist::read_checkpoint(path).global_step > first; }, scaled_ms(10000)));
    QVERIFY(ps.running() && w.running());
  }

  void bad_files_are_named() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("ps-0.ckpt").toStdString();
    std::ofstream(path) << "definitely not a checkpoint";
    QVERIFY_THROWS_EXCEPTION(ParseError, dist::read_checkpoint(path));
    try {
      dist::read_checkpoint(path);
    } catch (const ParseError& e) {
      QVERIFY2(QString(e.what()).contains(QString::fromStdString(path) + ": not a FlowLens checkpoint"), e.what());
    }
    dist::Checkpoint ck;
    ck.variables["w"] = Tensor::from_vector<float>(Shape{64}, std::vector<float>(64, 1.0f));
    dist::write_checkpoint(path, ck);
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
    try {
      dist::read_checkpoint(path);
      QFAIL("a truncated checkpoint was accepted");
    } catch (const ParseError& e) {
      QVERIFY2(QString(e.what()).contains("tensor 'var/w' is truncated"), e.what());
    }
    // The ps refuses to start on it rather than training from scratch.
    LocalCluster c(1, 1);
    RunResult r = run_node(c.ps_args(0, {"--checkpoint-dir", dir.path()}), 20000);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("ps-0.ckpt") && r.err.contains("truncated"), qPrintable(r.err));
  }

  void restart_restores_variables_and_step() {
    LocalCluster c(1, 1);
    const QString dir = c.path("ckpt");
    {
      NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", dir}));
      RunResult w = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 30));
      QVERIFY2(w.code == 0, qPrintable(w.err));
      RunResult p = ps.wait(20000);
      QVERIFY2(p.code == 0, qPrintable(p.err));
    }
    dist::Checkpoint saved = dist::read_checkpoint(dist::checkpoint_path(dir.toStdString(), 0));
    QCOMPARE(saved.global_step, int64_t{30});

    NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", dir}));
    QVERIFY(ps.wait_for_stderr("restored 4 variable(s) at global step 30"));
    dist::ClusterClient client = client_for(c);
    QCOMPARE(client.status(client.node("ps", 0), std::chrono::seconds(5)).step, int64_t{30});
    const dist::NodeAnswer fetched = client.fetch(client.node("ps", 0), {"logits/weights"}, std::chrono::seconds(5));
    QCOMPARE(fetched.tensors.size(), std::size_t{1});
    QVERIFY(fetched.tensors[0].value.equals(saved.variables.at("logits/weights")));

    RunResult w = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 10));
    QVERIFY2(w.code == 0, qPrintable(w.err));
    QVERIFY2(w.err.contains("initialized 0 of 4"), qPrintable(w.err));  // the chief kept the restored values
    QCOMPARE(ps.wait(20000).code, 0);
    QCOMPARE(dist::read_checkpoint(dist::checkpoint_path(dir.toStdString(), 0)).global_step, int64_t{40});
  }

  void sigterm_saves_a_checkpoint() {
    LocalCluster c(1, 2);  // worker 1 never runs, so the ps keeps serving
    const QString dir = c.path("ckpt");
    NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", dir, "--checkpoint-every", "0"}));
    RunResult w = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 12));
    QVERIFY2(w.code == 0, qPrintable(w.err));
    QVERIFY(ps.running());
    QVERIFY(!std::filesystem::exists(dist::checkpoint_path(dir.toStdString(), 0)));
    ps.terminate();
    RunResult p = ps.wait(20000);
    QVERIFY2(p.code == 0, qPrintable(QString("exit %1: %2").arg(p.code).arg(p.err)));
    QVERIFY2(p.err.contains("interrupted at global step 12"), qPrintable(p.err));
    QCOMPARE(dist::read_checkpoint(dist::checkpoint_path(dir.toStdString(), 0)).global_step, int64_t{12});
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
