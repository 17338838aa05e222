// flowlens-node as a user drives it: help, TF_CONFIG, status, control
// commands, fetch, launch, and waits that fail naming who is missing.
#include "test_main.h"
#include <QtTest>

#include <filesystem>

#include "dist/ps/checkpoint.h"
#include "dist/control/cluster_client.h"
#include "dist/wire/node_connection.h"
#include "dist/node_runner.h"
#include "time_scale.h"
#include "dist/wire/wire_codec.h"
#include "io/graph_io.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

QProcessEnvironment with_tf_config(const QString& json) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("TF_CONFIG", json);
  return env;
}

int64_t worker_step(dist::ClusterClient& client, int task) {
  return client.status(client.node("worker", task), std::chrono::seconds(5)).step;
}

}  // namespace

class TestNodeCli : public QObject {
  Q_OBJECT
 private slots:
  void every_subcommand_has_help() {
    RunResult top = run_node({"--help"});
    QCOMPARE(top.code, 0);
    QVERIFY(top.out.contains("--job") && top.out.contains("--replicas-to-aggregate"));
    for (const char* sub : {"ps", "worker", "launch", "status", "stop", "pause", "resume", "step", "profile", "fetch",
                            "graph", "break", "clear-break"}) {
      RunResult r = run_node({sub, "--help"});
      QVERIFY2(r.code == 0 && r.out.contains("Usage"), sub);
    }
    QCOMPARE(run_node({"launch"}).code, 106);  // CLI11: required option missing
  }

  void tf_config_errors_name_the_field() {
    struct Case {
      const char* json;
      const char* expected;
    };
    for (const Case& c : {Case{R"({"cluster": {"ps": "127.0.0.1:1"}})", "TF_CONFIG: cluster.ps: expected a list"},
                          Case{R"({"cluster": {"ps": ["127.0.0.1:1"]}, "task": {"type": "worker", "index": 0}})",
                               "TF_CONFIG: task.type: job 'worker' is not in the cluster"},
                          Case{R"({"cluster": {"ps": ["127.0.0.1:1"]}, "task": {"type": "ps", "index": -1}})",
                               "TF_CONFIG: task.index: expected a non-negative integer"},
                          Case{R"({"cluster": {"ps": ["127.0.0.1"]}})", "TF_CONFIG: cluster.ps"},
                          Case{R"({"cluster": )", "TF_CONFIG:1:"}}) {
      RunResult r = run_node({"ps", "0"}, 20000, with_tf_config(c.json));
      QCOMPARE(r.code, 1);
      QVERIFY2(r.err.contains(c.expected), qPrintable(r.err));
    }
    QProcessEnvironment none = QProcessEnvironment::systemEnvironment();
    none.remove("TF_CONFIG");
    RunResult r = run_node({"ps", "0"}, 20000, none);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("no cluster: pass --cluster FILE or set the TF_CONFIG"), qPrintable(r.err));
  }

  void short_form_runs_the_tf_config_task_and_stop_ends_it() {
    LocalCluster c(1, 1);
    const QString tf = QString(R"({"cluster": {"ps": ["%1"], "worker": ["%2"]}, "task": {"type": "ps", "index": 0}})")
                           .arg(c.ps_address(0), c.worker_address(0));
    NodeProcess ps({"ps"}, with_tf_config(tf));
    QVERIFY(ps.wait_for_stderr("serving on tcp://" + c.ps_address(0)));
    RunResult stop = run_node({"stop"}, 20000, with_tf_config(tf));
    QVERIFY2(stop.out.contains("ps 0 at " + c.ps_address(0) + ": stopping"), qPrintable(stop.out + stop.err));
    QCOMPARE(stop.code, 1);  // worker 0 is not running: reported, and the exit code says so
    RunResult p = ps.wait(10000);
    QVERIFY2(p.code == 0 && p.err.contains("stopped by client"), qPrintable(p.err));
  }

  void status_once_pause_step_fetch_profile_stop() {
    LocalCluster c(1, 2);
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, {"--print-every", "0"}));
    NodeProcess w1(c.worker_args(1, sample("mlp_train.pbtxt"), 1000000, {"--print-every", "0"}));
    QVERIFY(w0.wait_for_stderr("worker 0: 4 variable(s)"));
    QVERIFY(w1.wait_for_stderr("worker 1: 4 variable(s)"));
    QTest::qWait(300);

    RunResult st = run_node({"status", "--cluster", c.file, "--once", "--node-timeout", QString::number(scaled_ms(500))});
    QVERIFY2(st.code == 0, qPrintable(st.out + st.err));
    // A row per node, then a line per link with what one step moves on it.
    QStringList lines, links;
    for (const QString& l : st.out.split('\n', Qt::SkipEmptyParts)) (l.startsWith(' ') ? links : lines).append(l);
    QCOMPARE(lines.size(), 4);
    // Each worker pulls 4 variables (848 B) and pushes 4 gradients and 4 learning rates (864 B).
    QVERIFY2(links.filter("with ps 0").size() == 2 && links.filter("848 B in, 864 B out per step").size() == 2,
             qPrintable(st.out));
    QVERIFY2(links.filter("with worker:0").size() == 1 && links.filter("864 B in, 848 B out per step").size() == 2,
             qPrintable(st.out));
    QVERIFY(lines[0].contains("node") && lines[0].contains("steps/s") && lines[0].contains("variables"));
    QVERIFY2(lines[1].startsWith("ps 0") && lines[1].contains(c.ps_address(0)) && lines[1].contains("serving") && lines[1].contains("async") &&
                 lines[1].contains("4 (848 B)"),
             qPrintable(lines[1]));
    for (int w = 0; w < 2; ++w) {
      const QString& line = lines[2 + w];
      QVERIFY2(line.startsWith(QString("worker %1").arg(w)) && line.contains(c.worker_address(w)) &&
                   line.contains("training") && line.contains(QRegularExpression(R"(\d\.\d{6})")),
               qPrintable(line));
    }

    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    RunResult pause = run_node({"pause", "--cluster", c.file, "--job", "worker", "--task", "0"});
    QVERIFY2(pause.code == 0 && pause.out.contains("pausing after step"), qPrintable(pause.out + pause.err));
    QTest::qWait(200);
    const int64_t paused_at = worker_step(client, 0);
    QTest::qWait(300);
    QCOMPARE(worker_step(client, 0), paused_at);
    QCOMPARE(client.status(client.node("worker", 0), std::chrono::seconds(5)).state, std::string("paused"));
    QCOMPARE(run_node({"step", "--cluster", c.file, "--job", "worker", "--task", "0"}).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(worker_step(client, 0), paused_at + 1, 5000);
    QTest::qWait(200);
    QCOMPARE(worker_step(client, 0), paused_at + 1);

    RunResult fetch = run_node({"fetch", "--cluster", c.file, "--job", "worker", "--task", "0", "loss", "layer1/biases"});
    QVERIFY2(fetch.code == 0 && fetch.out.contains("loss = ") && fetch.out.contains("layer1/biases = ["),
             qPrintable(fetch.out + fetch.err));
    const QString npy = c.path("npy");
    RunResult save = run_node({"fetch", "--cluster", c.file, "logits/weights", "--save", npy});
    QVERIFY2(save.code == 0, qPrintable(save.err));
    QVERIFY(std::filesystem::exists((npy + "/logits_weights.npy").toStdString()));
    RunResult missing = run_node({"fetch", "--cluster", c.file, "no/such/variable"});
    QVERIFY2(missing.code == 1 && missing.err.contains("ps 0 has no variable no/such/variable"), qPrintable(missing.err));

    const QString trace = c.path("trace.json");
    QCOMPARE(run_node({"profile", "start", "--cluster", c.file, "--job", "worker", "--task", "1"}).code, 0);
    QTest::qWait(200);
    RunResult prof = run_node({"profile", "stop", "--cluster", c.file, "--job", "worker", "--task", "1", "-o", trace});
    QVERIFY2(prof.code == 0 && prof.out.contains("node execution(s) to"), qPrintable(prof.out + prof.err));
    QVERIFY(std::filesystem::file_size(trace.toStdString()) > 100);

    RunResult resume = run_node({"resume", "--cluster", c.file});
    QCOMPARE(resume.code, 0);
    RunResult stop = run_node({"stop", "--cluster", c.file});
    QVERIFY2(stop.code == 0, qPrintable(stop.out + stop.err));
    for (NodeProcess* p : {&w0, &w1, &ps}) {
      RunResult r = p->wait(20000);
      QVERIFY2(r.code == 0, qPrintable(r.err));
    }
    RunResult after = run_node({"status", "--cluster", c.file, "--once", "--node-timeout", "200"});
    QCOMPARE(after.code, 1);
    QCOMPARE(after.out.count("unreachable"), 3);
  }

  void remote_breakpoints_graph_and_node_times() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, {"--print-every", "0"}));
    QVERIFY(w0.wait_for_stderr("worker 0: 4 variable(s)"));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const dist::NodeRef worker = client.node("worker", 0);

    // A breakpoint on the loss: the worker finishes that step, then parks.
    RunResult brk = run_node({"break", "loss", "--cluster", c.file, "--job", "worker", "--task", "0"});
    QVERIFY2(brk.code == 0 && brk.out.contains("breakpoint at 'loss'"), qPrintable(brk.out + brk.err));
    QTRY_COMPARE_WITH_TIMEOUT(client.status(worker, std::chrono::seconds(5)).state, std::string("paused"), 10000);
    QTest::qWait(300);  // "paused" shows as soon as it is asked for; the step it hit in ends first
    const dist::NodeStatus paused = client.status(worker, std::chrono::seconds(5));
    QVERIFY2(paused.detail.find("breakpoint at 'loss' in step") != std::string::npos, paused.detail.c_str());
    QTest::qWait(300);
    QCOMPARE(client.status(worker, std::chrono::seconds(5)).step, paused.step);
    // The ps kept the step's push: its global step equals the worker's.
    QCOMPARE(client.status(client.node("ps", 0), std::chrono::seconds(5)).step, paused.step);
    // A condition that never holds does not stop it.
    QCOMPARE(run_node({"clear-break", "--cluster", c.file, "--job", "worker", "--task", "0"}).code, 0);
    QCOMPARE(run_node({"break", "loss max>1e30", "--cluster", c.file, "--job", "worker", "--task", "0"}).code, 0);
    QCOMPARE(run_node({"resume", "--cluster", c.file, "--job", "worker", "--task", "0"}).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(client.status(worker, std::chrono::seconds(5)).step > paused.step + 20, 10000);
    QCOMPARE(client.status(worker, std::chrono::seconds(5)).state, std::string("training"));
    // Bad breakpoints are refused with the reason.
    RunResult unknown = run_node({"break", "no_such_node", "--cluster", c.file, "--job", "worker", "--task", "0"});
    QVERIFY2(unknown.code == 1 && unknown.err.contains("runs no node 'no_such_node'"), qPrintable(unknown.err));
    RunResult bad = run_node({"break", "loss sometimes", "--cluster", c.file, "--job", "worker", "--task", "0"});
    QVERIFY2(bad.code == 1 && bad.err.contains("unknown condition 'sometimes'"), qPrintable(bad.err));
    RunResult none = run_node({"clear-break", "logits", "--cluster", c.file, "--job", "worker", "--task", "0"});
    QVERIFY2(none.code == 1 && none.err.contains("no breakpoint at 'logits'"), qPrintable(none.err));

    // The partition the worker runs: every variable arrives by _Recv from the ps.
    wire::Header h;
    h.set_kind(wire::CONTROL);
    h.set_command("graph");
    zmq::context_t context(1);
    dist::NodeConnection conn(context, "worker 0", c.worker_address(0).toStdString(), "test");
    dist::WireMessage g = conn.request(h, {}, std::chrono::seconds(5));
    QCOMPARE(g.header.code(), wire::OK);
    QCOMPARE(g.num_tensors(), std::size_t{1});
    Graph partition = parse_graph_binary(std::string_view(static_cast<const char*>(g.frames[0].data()), g.frames[0].size()), "reply");
    int recvs = 0, sends = 0;
    for (const Node& n : partition.nodes()) {
      QVERIFY2(n.device.find("/job:worker") != std::string::npos, n.device.c_str());
      if (n.op == "_Recv" && n.attr_string("send_device", "").find("/job:ps") != std::string::npos) ++recvs;
      if (n.op == "_Send" && n.attr_string("recv_device", "").find("/job:ps") != std::string::npos) ++sends;
    }
    QVERIFY(recvs >= 4);
    // One gradient and one learning rate per variable: the rate is a Const
    // outside the variable's colocation, so it is computed on the worker
    // and sent, as TensorFlow sends it.
    QCOMPARE(sends, 8);

    // The same from the command line, for the ps too: its variables and the graph's own updates.
    const QString file = c.path("worker0.pbtxt"), ps_file = c.path("ps0.pbtxt");
    RunResult wg = run_node({"graph", "--cluster", c.file, "--task", "0", "-o", file});
    QVERIFY2(wg.code == 0 && wg.out.contains("the partition worker 0 runs"), qPrintable(wg.out + wg.err));
    QCOMPARE(static_cast<int>(load_graph(file.toStdString()).size()), static_cast<int>(partition.size()));
    RunResult pg = run_node({"graph", "--cluster", c.file, "--job", "ps", "-o", ps_file});
    QVERIFY2(pg.code == 0, qPrintable(pg.out + pg.err));
    int applies = 0;
    const Graph ps_partition = load_graph(ps_file.toStdString());
    for (const Node& n : ps_partition.nodes()) applies += n.op == "ApplyGradientDescent";
    QCOMPARE(applies, 4);
    RunResult missing = run_node({"graph", "--cluster", c.file, "--task", "7", "-o", file});
    QVERIFY2(missing.code != 0 && missing.err.contains("7"), qPrintable(missing.err));

    // Node times: the first request starts timing, later ones return a window.
    QString first = QString::fromStdString(client.control(worker, "node_times", "", std::chrono::seconds(5)));
    QCOMPARE(first, QString("{}"));
    QTest::qWait(300);
    const QString times = QString::fromStdString(client.control(worker, "node_times", "", std::chrono::seconds(5)));
    QVERIFY2(times.contains("\"loss\":{\"count\":") && times.contains("total_ms"), qPrintable(times.left(300)));
  }

  void paused_ps_holds_pushes_until_step_or_resume() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    NodeProcess worker(c.worker_args(0, sample("mlp_train.pbtxt"), 100000000, {"--print-every", "0"}));
    QVERIFY(worker.wait_for_stderr("worker 0: 4 variable(s)"));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const dist::NodeRef node = client.node("ps", 0);
    auto global_step = [&] { return client.status(node, std::chrono::seconds(5)).step; };
    QVERIFY(QString::fromStdString(client.control(node, "pause", "", std::chrono::seconds(5))).contains("paused at global step"));
    QTest::qWait(200);
    const int64_t held = global_step();
    QTest::qWait(300);
    QCOMPARE(global_step(), held);
    QCOMPARE(client.status(node, std::chrono::seconds(5)).state, std::string("paused"));
    client.control(node, "step", "", std::chrono::seconds(5));
    QCOMPARE(global_step(), held + 1);  // the held push, applied; the next one waits again
    QTest::qWait(200);
    QCOMPARE(global_step(), held + 1);
    client.control(node, "resume", "", std::chrono::seconds(5));
    QTRY_VERIFY_WITH_TIMEOUT(global_step() > held + 10, 5000);
    QVERIFY(worker.running());
    QCOMPARE(run_node({"stop", "--cluster", c.file}).code, 0);
    QCOMPARE(worker.wait(20000).code, 0);
    QCOMPARE(ps.wait(20000).code, 0);
  }

  void ps_publishes_heartbeats_and_step_events() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    QVERIFY(ps.wait_for_stderr("serving on"));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const std::string events = client.status(client.node("ps", 0), std::chrono::seconds(5)).events;
    QVERIFY2(QString::fromStdString(events).startsWith("tcp://127.0.0.1:"), events.c_str());
    zmq::context_t ctx;
    zmq::socket_t sub(ctx, zmq::socket_type::sub);
    sub.set(zmq::sockopt::subscribe, "");
    sub.connect(events);
    NodeProcess worker(c.worker_args(0, sample("mlp_train.pbtxt"), 200000, {"--print-every", "0"}));
    bool heartbeat = false;
    int64_t last_step = 0;
    QElapsedTimer t;
    t.start();
    while ((!heartbeat || last_step < 5) && t.elapsed() < 10000) {
      auto frames = dist::receive_frames(sub, 200);
      if (!frames) continue;
      dist::DecodeResult r = dist::decode_message(std::move(*frames), false);
      QVERIFY2(r.message, r.error.c_str());
      if (r.message->header.kind() == wire::HEARTBEAT) {
        heartbeat = true;
        QCOMPARE(dist::status_from_json(r.message->header.text(), "heartbeat").role, std::string("ps"));
      } else if (r.message->header.kind() == wire::STEP_EVENT) {
        QVERIFY(r.message->header.step() > last_step);  // global steps only go up
        last_step = r.message->header.step();
      }
    }
    QVERIFY(heartbeat);
    QVERIFY2(last_step >= 5, qPrintable(QString::number(last_step)));
  }

  void waits_time_out_naming_who_is_missing() {
    LocalCluster c(1, 2);
    RunResult no_ps = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 5, {"--timeout", "1"}));
    QCOMPARE(no_ps.code, 1);
    QVERIFY2(no_ps.err.contains("waiting for ps 0 at " + c.ps_address(0) + " for 1 s"), qPrintable(no_ps.err));

    NodeProcess ps(c.ps_args(0, {"--timeout", "1"}));
    RunResult no_chief = run_node(c.worker_args(1, sample("mlp_train.pbtxt"), 5, {"--timeout", "1"}));
    QCOMPARE(no_chief.code, 1);
    QVERIFY2(no_chief.err.contains("waiting for worker 0 (the chief) at " + c.worker_address(0)), qPrintable(no_chief.err));

    RunResult alone = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), 5, {"--sync", "--timeout", "1"}));
    QCOMPARE(alone.code, 1);
    QVERIFY2(alone.err.contains("waiting for worker 1 at " + c.worker_address(1) + " for 1 s"), qPrintable(alone.err));
  }

  void launch_runs_the_cluster_and_fails_when_a_child_fails() {
    LocalCluster c(1, 2);
    RunResult ok = run_node({"launch", "--cluster", c.file, "--graph", sample("mlp_train.pbtxt"), "--steps", "50",
                             "--threads", "1"});
    QVERIFY2(ok.code == 0 && ok.err.contains("launch: all nodes finished"), qPrintable(ok.err));
    QCOMPARE(worker_losses(ok.out, 0).size(), 6);
    QCOMPARE(worker_losses(ok.out, 1).size(), 6);
    // --batch 7 cannot be split over 2 sync workers: the workers fail, launch says which.
    RunResult bad = run_node({"launch", "--cluster", c.file, "--graph", sample("mlp_train.pbtxt"), "--steps", "5", "--sync",
                              "--batch", "7", "--timeout", "2"});
    QCOMPARE(bad.code, 1);
    QVERIFY2(bad.err.contains("not divisible by 2 workers") && bad.err.contains("failed (exit code 1)"), qPrintable(bad.err));
  }

  void launch_forwards_sigterm_and_the_ps_checkpoints() {
    LocalCluster c(1, 2);
    const QString ckpt = c.path("ckpt");
    NodeProcess launch({"launch", "--cluster", c.file, "--graph", sample("mlp_train.pbtxt"), "--steps", "100000000",
                        "--print-every", "0", "--threads", "1", "--checkpoint-dir", ckpt, "--checkpoint-every", "0"});
    QVERIFY(launch.wait_for_stderr("worker 0: 4 variable(s)"));
    QVERIFY(launch.wait_for_stderr("worker 1: 4 variable(s)"));
    launch.terminate();
    RunResult r = launch.wait(30000);
    QVERIFY2(r.code == 130 && r.err.contains("forwarding to the nodes"), qPrintable(r.err));
    QVERIFY2(dist::checkpoint_exists(dist::checkpoint_path(ckpt.toStdString(), 0)), qPrintable(r.err));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestNodeCli)
#include "test_node_cli.moc"
