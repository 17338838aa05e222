// ps checkpoints: TensorFlow V2 bundles in the tf.train.Saver layout,
// atomic, owner-only writes, restore on start, saves by time
// (--checkpoint-secs) as well as by steps (the schedule on a fake clock, then
// a real ps), SIGTERM saves, bad files and old FLCKPT files named on start,
// and a checkpoint of another graph refused naming the file and the key.
// test_cluster_checkpoint reads a cluster's checkpoint with flowlens-run.
#include "test_main.h"
#include <QtTest>

#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>

#include "dist/ps/checkpoint.h"
#include "dist/ps/checkpoint_saver.h"
#include "dist/control/cluster_client.h"
#include "dist/node_runner.h"
#include "io/graph_io.h"
#include "io/tensor_bundle.h"
#include "time_scale.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {
dist::ClusterClient client_for(const LocalCluster& c) { return dist::ClusterClient(load_cluster_spec(c.file.toStdString())); }

QString error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

// The files of a task directory, sorted.
QStringList files_in(const std::string& dir) {
  QStringList names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names << QString::fromStdString(e.path().filename().string());
  names.sort();
  return names;
}
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
    QCOMPARE(QString::fromStdString(path), dir.filePath("sub/ps-3"));
    QVERIFY(!dist::checkpoint_exists(path));
    dist::write_checkpoint(path, ck);
    QVERIFY(dist::checkpoint_exists(path));
    // tf.train.Saver's layout: a state file naming the bundle, nothing else left.
    QCOMPARE(files_in(path), (QStringList{"checkpoint", "model.ckpt-17.data-00000-of-00001", "model.ckpt-17.index"}));
    QCOMPARE(latest_checkpoint(path), path + "/model.ckpt-17");
    // Keys are the variables' node names; the step is TensorFlow's int64 "global_step".
    const BundleReader reader(path + "/model.ckpt-17");
    QCOMPARE(reader.entries().size(), std::size_t{5});
    const Tensor step = reader.read("global_step");
    QCOMPARE(step.dtype(), DType::Int64);
    QCOMPARE(step.shape(), Shape{});
    QCOMPARE(step.data<int64_t>()[0], int64_t{17});
    dist::Checkpoint back = dist::read_checkpoint(path);
    QCOMPARE(back.global_step, int64_t{17});
    QCOMPARE(back.source, path + "/model.ckpt-17");
    QCOMPARE(back.variables.size(), std::size_t{4});  // the step is no variable of the graph
    for (const auto& [name, value] : ck.variables) QVERIFY2(back.variables.at(name).equals(value), name.c_str());

    // Saved again at the same step, the current bundle is not overwritten in
    // place: the new one takes another name.
    ck.variables["b"] = Tensor::from_vector<double>(Shape{1}, {3.5});
    dist::write_checkpoint(path, ck);
    QCOMPARE(files_in(path), (QStringList{"checkpoint", "model.ckpt-17.data-00000-of-00001", "model.ckpt-17.index",
                                          "model.ckpt-17_1.data-00000-of-00001", "model.ckpt-17_1.index"}));
    QVERIFY(dist::read_checkpoint(path).variables.at("b").equals(ck.variables["b"]));
    // A third save at that step rewrites neither: the kept _1 stays whole.
    ck.variables["b"] = Tensor::from_vector<double>(Shape{1}, {4.5});
    dist::write_checkpoint(path, ck);
    QCOMPARE(files_in(path), (QStringList{"checkpoint", "model.ckpt-17_1.data-00000-of-00001", "model.ckpt-17_1.index",
                                          "model.ckpt-17_2.data-00000-of-00001", "model.ckpt-17_2.index"}));
    QCOMPARE(dist::read_checkpoint(path).source, path + "/model.ckpt-17_2");
    QVERIFY(dist::read_checkpoint(path + "/model.ckpt-17_1").variables.at("b").equals(
        Tensor::from_vector<double>(Shape{1}, {3.5})));
    // The one before the latest stays (a reader may have just looked it up), older ones go.
    ck.global_step = 18;
    dist::write_checkpoint(path, ck);
    QCOMPARE(files_in(path), (QStringList{"checkpoint", "model.ckpt-17_2.data-00000-of-00001", "model.ckpt-17_2.index",
                                          "model.ckpt-18.data-00000-of-00001", "model.ckpt-18.index"}));
    // Its prefix or its .index read the same.
    QCOMPARE(dist::read_checkpoint(path + "/model.ckpt-18.index").global_step, int64_t{18});
  }

  // The graph's own global_step variable on this ps is the step TensorFlow sees.
  void a_global_step_variable_holds_the_step() {
    QTemporaryDir dir;
    const std::string path = dist::checkpoint_path(dir.path().toStdString(), 0);
    dist::Checkpoint ck;
    ck.global_step = 9;
    ck.variables["global_step"] = Tensor::scalar<int32_t>(9);
    ck.variables["w"] = Tensor::from_vector<float>(Shape{2}, {1, 2});
    dist::write_checkpoint(path, ck);
    const dist::Checkpoint back = dist::read_checkpoint(path);
    QCOMPARE(back.global_step, int64_t{9});
    QCOMPARE(back.variables.size(), std::size_t{1});
    QCOMPARE(BundleReader(back.source).read("global_step").dtype(), DType::Int32);  // as the graph declared it
    // A variable of that name that cannot be a step clashes with its key.
    ck.variables["global_step"] = Tensor::from_vector<float>(Shape{2}, {1, 2});
    const QString clash = error_of([&] { dist::write_checkpoint(path, ck); });
    QVERIFY2(clash.contains("'global_step'") && clash.contains("float32 [2]"), qPrintable(clash));
    QCOMPARE(dist::read_checkpoint(path).global_step, int64_t{9});  // the last good one stays
  }

  void checkpoints_are_owner_only() {
    QTemporaryDir dir;
    const std::string path = dist::checkpoint_path(dir.path().toStdString(), 0);
    // A directory made by someone else, world-readable, with what a crashed
    // save left in it: made owner-only, and the leftovers go.
    std::filesystem::create_directories(path);
    ::chmod(path.c_str(), 0755);
    std::ofstream(path + "/model.ckpt-3.data-00000-of-00001.tempstate-flowlens") << "left over";
    std::ofstream(path + "/unrelated.txt") << "not ours";
    dist::Checkpoint ck;
    ck.global_step = 4;
    ck.variables["w"] = Tensor::from_vector<float>(Shape{2}, {1, 2});
    dist::write_checkpoint(path, ck);
    auto mode = [](const std::string& p) {
      struct stat st {};
      return ::stat(p.c_str(), &st) == 0 ? st.st_mode & 0777 : 0u;
    };
    QCOMPARE(mode(path), 0700u);
    for (const QString& f : files_in(path))
      if (f != "unrelated.txt") QVERIFY2(mode(path + "/" + f.toStdString()) == 0600u, qPrintable(f));
    QCOMPARE(files_in(path), (QStringList{"checkpoint", "model.ckpt-4.data-00000-of-00001", "model.ckpt-4.index",
                                          "unrelated.txt"}));
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
    QVERIFY(!dist::checkpoint_exists(saver.path()));
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
    const std::string written = latest_checkpoint(saver.path());
    const auto written_at = std::filesystem::last_write_time(bundle_index_path(written));
    now += std::chrono::minutes(5);
    saver.save_if_due(state);  // idle: nothing rewritten
    QCOMPARE(latest_checkpoint(saver.path()), written);
    QCOMPARE(std::filesystem::last_write_time(bundle_index_path(written)), written_at);
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
    // Committed atomically (the state file renamed into place after the
    // bundle is whole), so every read sees a whole checkpoint.
    QVERIFY(eventually([&] { return dist::checkpoint_exists(path) && dist::read_checkpoint(path).global_step > 0; },
                       scaled_ms(30000)));
    const int64_t first = dist::read_checkpoint(path).global_step;
    QVERIFY(eventually([&] { return dist::read_checkpoint(path).global_step > first; }, scaled_ms(10000)));
    QVERIFY(ps.running() && w.running());
  }

  void bad_files_are_named() {
    QTemporaryDir dir;
    const std::string path = dist::checkpoint_path(dir.path().toStdString(), 0);
    QVERIFY(error_of([&] { dist::read_checkpoint(path); }).contains(QString::fromStdString(path)));
    dist::Checkpoint ck;
    ck.global_step = 5;
    ck.variables["w"] = Tensor::from_vector<float>(Shape{64}, std::vector<float>(64, 1.0f));
    dist::write_checkpoint(path, ck);
    // A flipped byte in the data file fails the tensor's checksum, named.
    const std::string data = path + "/model.ckpt-5.data-00000-of-00001";
    {
      std::fstream f(data, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(12);
      f.put('\x7f');
    }
    const QString corrupt = error_of([&] { dist::read_checkpoint(path); });
    QVERIFY2(corrupt.contains("'w'") && corrupt.contains("model.ckpt-5"), qPrintable(corrupt));
    // The ps refuses to start on it rather than training from scratch.
    LocalCluster c(1, 1);
    RunResult r = run_node(c.ps_args(0, {"--checkpoint-dir", dir.path()}), 20000);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("model.ckpt-5") && r.err.contains("'w'"), qPrintable(r.err));

    // A step that is no integer scalar.
    write_bundle(path + "/odd", {{"global_step", Tensor::scalar<float>(1.5f)}});
    const QString odd = error_of([&] { dist::read_checkpoint(path + "/odd"); });
    QVERIFY2(odd.contains("odd.index") && odd.contains("'global_step' is float32 []"), qPrintable(odd));
  }

  // Earlier versions' private FLCKPT02 file: refused, saying what it is and what to do.
  void old_flckpt_files_are_refused() {
    QTemporaryDir dir;
    const std::string legacy = dist::legacy_checkpoint_path(dir.path().toStdString(), 0);
    QCOMPARE(QString::fromStdString(legacy), dir.filePath("ps-0.ckpt"));
    std::ofstream(legacy, std::ios::binary) << std::string("FLCKPT02\x10\0\0\0\0\0\0\0", 16) << "header bytes....";
    const QString e = error_of([&] { dist::read_checkpoint(legacy); });
    QVERIFY2(e.contains(QString::fromStdString(legacy)) && e.contains("a FLCKPT02 checkpoint") &&
                 e.contains("TensorFlow V2") && e.contains("Move the file out of the checkpoint directory"),
             qPrintable(e));
    LocalCluster c(1, 1);
    RunResult r = run_node(c.ps_args(0, {"--checkpoint-dir", dir.path()}), 20000);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("ps-0.ckpt") && r.err.contains("a FLCKPT02 checkpoint"), qPrintable(r.err));
    // Moved away, the ps starts (and the file of another name is no concern of it).
    std::filesystem::rename(legacy, legacy + ".old");
    NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", dir.path()}));
    QVERIFY(ps.wait_for_stderr("serving on"));
  }

  // A checkpoint of another graph: the partition is refused, naming the
  // file, the key and both shapes, or the keys it lacks.
  void a_checkpoint_of_another_graph_is_refused() {
    LocalCluster c(1, 1);
    const QString dir = c.path("ckpt");
    dist::Checkpoint ck;
    ck.global_step = 7;
    ck.variables["layer1/weights"] = Tensor::from_vector<float>(Shape{3}, {1, 2, 3});
    dist::write_checkpoint(dist::checkpoint_path(dir.toStdString(), 0), ck);
    NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", dir}));
    RunResult w = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 3));
    QVERIFY(w.code != 0);
    const QString index = dir + "/ps-0/model.ckpt-7.index";
    QVERIFY2(w.err.contains("refused the partition") && w.err.contains(index) && w.err.contains("'layer1/weights'") &&
                 w.err.contains("expected float32 [8,") && w.err.contains("got float32 [3]"),
             qPrintable(w.err));
    QVERIFY(ps.stderr_has(index));

    // Some variables missing (another graph, another number of ps tasks):
    // refused too, as tf.train.Saver.restore refuses, naming them.
    ps.terminate();
    QCOMPARE(ps.wait(20000).code, 0);
    const Graph g = load_graph(sample("mlp_train.pbtxt").toStdString());
    Session s(g);
    s.initialize_variables();
    ck.variables = {{"layer1/weights", s.find_variable("layer1/weights")->value}};
    dist::write_checkpoint(dist::checkpoint_path(dir.toStdString(), 0), ck);
    {
      NodeProcess partial(c.ps_args(0, {"--checkpoint-dir", dir}));
      w = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 3));
      QVERIFY2(w.code != 0 && w.err.contains(dir + "/ps-0/model.ckpt-7") && w.err.contains(" has no '") &&
                   w.err.contains("' of the 4 variable(s) this ps runs"),
               qPrintable(w.err));
      for (const char* name : {"'layer1/biases'", "'logits/weights'", "'logits/biases'"}) QVERIFY2(w.err.contains(name), name);
      QVERIFY(!w.err.contains("'layer1/weights' of"));
    }

    // No variables at all (saved before the chief initialized them): the
    // step is restored and the chief initializes the variables.
    ck.variables.clear();
    dist::write_checkpoint(dist::checkpoint_path(dir.toStdString(), 0), ck);
    NodeProcess empty(c.ps_args(0, {"--checkpoint-dir", dir}));
    w = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 3));
    QVERIFY2(w.code == 0 && w.err.contains("0 from the checkpoint, 4 uninitialized"), qPrintable(w.err));
    QVERIFY(empty.stderr_has("holds no variables (saved before the chief initialized them)", 5000));
    QCOMPARE(empty.wait(20000).code, 0);
    QCOMPARE(dist::read_checkpoint(dist::checkpoint_path(dir.toStdString(), 0)).global_step, int64_t{10});
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
    QVERIFY(!dist::checkpoint_exists(dist::checkpoint_path(dir.toStdString(), 0)));
    ps.terminate();
    RunResult p = ps.wait(20000);
    QVERIFY2(p.code == 0, qPrintable(QString("exit %1: %2").arg(p.code).arg(p.err)));
    QVERIFY2(p.err.contains("interrupted at global step 12"), qPrintable(p.err));
    QCOMPARE(dist::read_checkpoint(dist::checkpoint_path(dir.toStdString(), 0)).global_step, int64_t{12});
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
