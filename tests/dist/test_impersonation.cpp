// Peers that lie about who they are, against real flowlens-node processes: a
// viewer key (secured cluster) or a status connection (open cluster) posing
// as a dead worker must not keep it alive, so sync training goes on without
// it; and 2,000 invented sender names must not grow the ps's state or its
// status reply.
#include "test_main.h"
#include <QtTest>

#include "dist/control/cluster_client.h"
#include "dist/security/cluster_security.h"
#include "dist/wire/node_connection.h"
#include "dist/node_runner.h"
#include "time_scale.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

int64_t ps_step(dist::ClusterClient& client) {
  try {
    return client.status(client.node("ps", 0), std::chrono::milliseconds(scaled_ms(1000))).step;
  } catch (const Error&) {
    return -1;
  }
}

wire::Header header(wire::Kind kind) {
  wire::Header h;
  h.set_kind(kind);
  return h;
}

// Kills worker 1 of a sync cluster while `lie` keeps claiming to be it
// (every 100 ms); the ps must still mark it down and step on with worker 0
// alone. Returns what went wrong, or "".
QString dead_worker_marked_down(NodeProcess& ps, NodeProcess& w1, dist::ClusterClient& client, const LocalCluster& c,
                                const std::function<void()>& lie) {
  QElapsedTimer t;
  t.start();
  while (ps_step(client) < 3)
    if (t.elapsed() > scaled_ms(60000)) return "the cluster did not train:\n" + ps.stderr_so_far();
  w1.kill9();
  const QString down = "ps 0: worker 1 at " + c.worker_address(1) + " is down (";
  t.restart();
  while (!ps.stderr_has(down, 100)) {
    if (t.elapsed() > scaled_ms(15000)) return "worker 1 was never marked down:\n" + ps.stderr_so_far();
    lie();
  }
  // Sync steps aggregate worker 0 alone instead of waiting for worker 1.
  const int64_t alone = ps_step(client);
  t.restart();
  while (ps_step(client) < alone + 5)
    if (t.elapsed() > scaled_ms(20000)) return "sync steps stopped without worker 1:\n" + ps.stderr_so_far();
  return {};
}

}  // namespace

class TestImpersonation : public QObject {
  Q_OBJECT
 private slots:
  void a_viewer_key_cannot_keep_a_dead_worker_alive() {
    LocalCluster c(1, 2);
    RunResult keygen = run_node({"keygen", "--out", c.path("keys"), "--cluster", c.file});
    QVERIFY2(keygen.code == 0, qPrintable(keygen.err));
    const QString secured = c.path("keys/cluster.json");
    auto key = [&](const QString& name) { return c.path("keys/" + name + ".key"); };
    NodeProcess ps({"--cluster", secured, "--job", "ps", "--task", "0", "--key", key("ps0"), "--worker-timeout", "1",
                    "--timeout", "30"});
    auto worker = [&](int task) {
      return std::make_unique<NodeProcess>(QStringList{"--cluster", secured, "--job", "worker", "--task", QString::number(task),
                                                       "--key", key(QString("worker%1").arg(task)), "--graph",
                                                       sample("mlp_train.pbtxt"), "--steps", "1000000", "--sync",
                                                       "--threads", "1", "--print-every", "0", "--timeout", "30"});
    };
    auto w0 = worker(0), w1 = worker(1);
    const ClusterSpec cluster = load_cluster_spec(secured.toStdString());
    const dist::ClusterSecurity security = dist::load_cluster_security(secured.toStdString(), cluster);
    dist::ClusterClient client(cluster);
    client.use_credentials({dist::load_key_pair(key("viewer").toStdString()), security});

    zmq::context_t context(1);
    dist::NodeConnection impostor(context, "ps 0", c.ps_address(0).toStdString(), "worker:1");
    impostor.use_curve(dist::load_key_pair(key("viewer").toStdString()), security.node_key("ps 0"));
    std::string refusal;
    const QString problem = dead_worker_marked_down(ps, *w1, client, c, [&] {
      try {
        refusal = impostor.request(header(wire::STATUS), {}, std::chrono::milliseconds(scaled_ms(1000))).header.text();
      } catch (const dist::TimeoutError&) {
      }
    });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(refusal, std::string("sender 'worker:1' refused: the connection's CURVE key belongs to a viewer client"));
    QVERIFY(ps.wait_for_stderr("ps 0: refused a STATUS request: sender 'worker:1' refused"));
    QVERIFY(w0->running());
  }

  void a_status_connection_cannot_keep_a_dead_worker_alive() {
    LocalCluster c(1, 2);
    NodeProcess ps(c.ps_args(0, {"--worker-timeout", "1", "--timeout", "30"}));
    const QStringList sync = {"--sync", "--print-every", "0", "--timeout", "30"};
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, sync));
    NodeProcess w1(c.worker_args(1, sample("mlp_train.pbtxt"), 1000000, sync));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));

    // Without keys anyone may write "worker:1"; heartbeats and requests under
    // that name from a connection that never trained as it must not count.
    zmq::context_t context(1);
    dist::NodeConnection impostor(context, "ps 0", c.ps_address(0).toStdString(), "worker:1");
    impostor.set_incarnation(dist::new_incarnation());
    const QString problem = dead_worker_marked_down(ps, w1, client, c, [&] {
      impostor.notify(header(wire::HEARTBEAT));
      try {
        impostor.request(header(wire::STATUS), {}, std::chrono::milliseconds(scaled_ms(1000)));
      } catch (const dist::TimeoutError&) {
      }
    });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(w0.running());
  }

  void invented_sender_names_do_not_grow_the_status() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    QVERIFY(ps.wait_for_stderr("serving on"));
    zmq::context_t context(1);
    std::string long_name_answer;
    for (int i = 0; i < 2000; ++i) {
      // Long names (what made the reply 2 MB), short ones and invented workers.
      const std::string name = i % 3 == 0   ? std::string(1000, 'x') + std::to_string(i)
                               : i % 3 == 1 ? "intruder-" + std::to_string(i)
                                            : "worker:" + std::to_string(100 + i);
      dist::NodeConnection liar(context, "ps 0", c.ps_address(0).toStdString(), name);
      dist::WireMessage r = liar.request(header(wire::STATUS), {}, std::chrono::milliseconds(scaled_ms(5000)));
      if (i == 0) long_name_answer = r.header.text();
    }
    QCOMPARE(long_name_answer, std::string("sender name is 1001 bytes (at most 128)"));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const dist::NodeStatus s = client.status(client.node("ps", 0), std::chrono::milliseconds(scaled_ms(5000)));
    QVERIFY2(s.links.size() <= 2 + 32, qPrintable(QString::number(s.links.size())));
    QVERIFY2(dist::status_to_json(s).size() < 16 * 1024, qPrintable(QString::number(dist::status_to_json(s).size())));
    QCOMPARE(s.detail, std::string());  // no invented worker is "down"
    QVERIFY(ps.running());
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestImpersonation)
#include "test_impersonation.moc"
