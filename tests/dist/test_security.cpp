// CURVE clusters with real flowlens-node processes: keygen, a secured ps and
// worker that train, roles (a viewer may read but not pause; an operator may),
// a key outside the allow-list refused at the handshake, a client without
// keys unable to talk to a node at all (the traffic is encrypted), a task
// started with another task's key, a key file others can read (a warning,
// refused with --strict-keys), and the refusal to listen on a non-loopback
// address without keys unless --insecure.
#include "test_main.h"
#include <sys/stat.h>

#include <QtTest>

#include "dist/control/cluster_client.h"
#include "dist/security/cluster_security.h"
#include "dist/wire/node_connection.h"
#include "dist/node_runner.h"
#include "time_scale.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestSecurity : public QObject {
  Q_OBJECT

  // keygen for `c` into c's folder/keys; returns the secured cluster file.
  static QString make_keys(const LocalCluster& c) {
    RunResult r = run_node({"keygen", "--out", c.path("keys"), "--cluster", c.file});
    if (r.code != 0) qWarning("%s", qPrintable(r.out + r.err));
    return r.code == 0 ? c.path("keys/cluster.json") : QString();
  }
  static QString key(const LocalCluster& c, const QString& name) { return c.path("keys/" + name + ".key"); }

 private slots:
  void keygen_writes_owner_only_keys_and_a_secured_cluster_file() {
    LocalCluster c(1, 2);
    const QString secured = make_keys(c);
    QVERIFY(!secured.isEmpty());
    for (const char* name : {"ps0", "worker0", "worker1", "operator", "viewer"}) {
      struct stat st {};
      QVERIFY2(::stat(key(c, name).toUtf8().constData(), &st) == 0, name);
      QCOMPARE(st.st_mode & 0777, 0600u);
      QVERIFY(QFile::exists(c.path(QString("keys/%1.pub").arg(name))));
    }
    const ClusterSpec cluster = load_cluster_spec(secured.toStdString());
    QCOMPARE(cluster.num_tasks("worker"), 2);
    const dist::ClusterSecurity security = dist::load_cluster_security(secured.toStdString(), cluster);
    QVERIFY(security.enabled());
    QCOMPARE(security.node_key("worker 1"), dist::load_key_pair(key(c, "worker1").toStdString()).public_key);
    const auto op = security.clients.at(dist::load_key_pair(key(c, "operator").toStdString()).public_key);
    QCOMPARE(op.role, dist::Role::Operator);
    // A security section that lists a task the cluster lacks is named.
    try {
      dist::parse_cluster_security(R"({"cluster": {"ps": ["127.0.0.1:1"]}, "security": {"keys": {"ps": []}}})",
                                   load_cluster_spec(c.file.toStdString()), "sec.json");
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("no public key for ps 0"), e.what());
    }
  }

  void secured_cluster_trains_and_enforces_roles() {
    LocalCluster c(1, 1);
    const QString secured = make_keys(c);
    QVERIFY(!secured.isEmpty());
    NodeProcess ps({"--cluster", secured, "--job", "ps", "--task", "0", "--key", key(c, "ps0")});
    NodeProcess worker({"--cluster", secured, "--job", "worker", "--task", "0", "--key", key(c, "worker0"), "--graph",
                        sample("mlp_train.pbtxt"), "--steps", "1000000", "--threads", "1", "--print-every", "0"});
    QVERIFY(worker.wait_for_stderr("worker 0: 4 variable(s)"));

    // (--node-timeout: the default 500 ms, scaled under sanitizers, where a first CURVE handshake can take longer)
    RunResult viewer_status = run_node({"status", "--cluster", secured, "--key", key(c, "viewer"), "--once",
                                        "--node-timeout", QString::number(scaled_ms(500))});
    QVERIFY2(viewer_status.code == 0 && viewer_status.out.contains("training"), qPrintable(viewer_status.out + viewer_status.err));
    RunResult fetch = run_node({"fetch", "--cluster", secured, "--key", key(c, "viewer"), "layer1/biases"});
    QVERIFY2(fetch.code == 0 && fetch.out.contains("layer1/biases = ["), qPrintable(fetch.out + fetch.err));
    RunResult denied = run_node({"pause", "--cluster", secured, "--key", key(c, "viewer"), "--job", "worker", "--task", "0"});
    QVERIFY2(denied.code == 1 && denied.err.contains("permission denied: role viewer may not send control commands"),
             qPrintable(denied.err));
    RunResult denied_ps = run_node({"pause", "--cluster", secured, "--key", key(c, "viewer"), "--job", "ps", "--task", "0"});
    QVERIFY2(denied_ps.code == 1 && denied_ps.err.contains("permission denied"), qPrintable(denied_ps.err));
    RunResult paused = run_node({"pause", "--cluster", secured, "--key", key(c, "operator"), "--job", "worker", "--task", "0"});
    QVERIFY2(paused.code == 0 && paused.out.contains("pausing after step"), qPrintable(paused.out + paused.err));
    QCOMPARE(run_node({"resume", "--cluster", secured, "--key", key(c, "operator")}).code, 0);
    RunResult no_key = run_node({"status", "--cluster", secured, "--once"});
    QVERIFY2(no_key.code != 0 && no_key.err.contains("secured cluster") && no_key.err.contains("--key"), qPrintable(no_key.err));

    const ClusterSpec cluster = load_cluster_spec(secured.toStdString());
    const dist::ClusterSecurity security = dist::load_cluster_security(secured.toStdString(), cluster);
    zmq::context_t context(1);
    wire::Header status;
    status.set_kind(wire::STATUS);
    // A key pair outside the allow-list is refused during the handshake.
    dist::NodeConnection stranger(context, "ps 0", c.ps_address(0).toStdString(), "stranger");
    const dist::KeyPair unknown = dist::generate_key_pair();
    stranger.use_curve(unknown, security.node_key("ps 0"));
    QVERIFY_THROWS_EXCEPTION(dist::TimeoutError, stranger.request(status, {}, std::chrono::milliseconds(1500)));
    QVERIFY(ps.wait_for_stderr("CURVE key " + QString::fromStdString(unknown.public_key) + " is not in the cluster's allow-list"));
    // Without keys a client cannot even start a conversation: no plaintext path exists.
    dist::NodeConnection plain(context, "ps 0", c.ps_address(0).toStdString(), "plain");
    QVERIFY_THROWS_EXCEPTION(dist::TimeoutError, plain.request(status, {}, std::chrono::milliseconds(1500)));
    // A client that expects another server key (someone posing as the ps) gets nothing either.
    dist::NodeConnection wrong_server(context, "ps 0", c.ps_address(0).toStdString(), "op");
    wrong_server.use_curve(dist::load_key_pair(key(c, "operator").toStdString()), security.node_key("worker 0"));
    QVERIFY_THROWS_EXCEPTION(dist::TimeoutError, wrong_server.request(status, {}, std::chrono::milliseconds(1500)));
    // With the operator's pair it works, and its role is checked per request.
    dist::ClusterClient client(cluster);
    client.use_credentials({dist::load_key_pair(key(c, "operator").toStdString()), security});
    QCOMPARE(client.status(client.node("ps", 0), std::chrono::seconds(5)).role, std::string("ps"));

    RunResult stop = run_node({"stop", "--cluster", secured, "--key", key(c, "operator")});
    QVERIFY2(stop.code == 0, qPrintable(stop.out + stop.err));
    QCOMPARE(worker.wait(20000).code, 0);
    QCOMPARE(ps.wait(20000).code, 0);
  }

  void a_task_with_another_tasks_key_is_refused() {
    LocalCluster c(1, 1);
    const QString secured = make_keys(c);
    RunResult r = run_node({"--cluster", secured, "--job", "worker", "--task", "0", "--key", key(c, "ps0"), "--graph",
                            sample("mlp_train.pbtxt"), "--steps", "1"});
    QVERIFY2(r.code == 1 && r.err.contains("is not worker 0's key pair"), qPrintable(r.err));
    RunResult none = run_node({"--cluster", secured, "--job", "ps", "--task", "0"});
    QVERIFY2(none.code == 1 && none.err.contains("pass --key FILE with ps 0's key pair"), qPrintable(none.err));
  }

  void key_files_others_can_read_get_a_warning_or_are_refused() {
    LocalCluster c(1, 1);
    const QString secured = make_keys(c);
    QVERIFY(!secured.isEmpty());
    QVERIFY(::chmod(key(c, "ps0").toUtf8().constData(), 0644) == 0);
    const QString problem = "key file " + key(c, "ps0") + " is mode 0644: users other than its owner can read its secret key";
    RunResult strict = run_node({"--cluster", secured, "--job", "ps", "--task", "0", "--key", key(c, "ps0"), "--strict-keys"});
    QVERIFY2(strict.code == 1 && strict.err.contains(problem) && strict.err.contains("--strict-keys refuses it"),
             qPrintable(strict.err));
    NodeProcess warned({"--cluster", secured, "--job", "ps", "--task", "0", "--key", key(c, "ps0")});
    QVERIFY(warned.wait_for_stderr("warning: " + problem));
    QVERIFY(warned.wait_for_stderr("serving on"));
  }

  void non_loopback_address_needs_keys_or_insecure() {
    QTemporaryDir dir;
    const int port = free_ports(1)[0];
    const QString file = dir.filePath("open.json");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QString("{\"ps\": [\"0.0.0.0:%1\"], \"worker\": [\"127.0.0.1:1\"]}").arg(port).toUtf8());
    f.close();
    RunResult refused = run_node({"--cluster", file, "--job", "ps", "--task", "0"});
    QVERIFY2(refused.code == 1 && refused.err.contains("refusing to listen on 0.0.0.0") && refused.err.contains("--insecure"),
             qPrintable(refused.err));
    NodeProcess insecure({"--cluster", file, "--job", "ps", "--task", "0", "--insecure"});
    QVERIFY(insecure.wait_for_stderr("warning: listening on 0.0.0.0"));
    insecure.terminate();
    QCOMPARE(insecure.wait(20000).code, 0);
  }
};

FLOWLENS_TEST_MAIN(TestSecurity)
#include "test_security.moc"
