// Several hosts on one machine: every node of the cluster runs in its own
// network namespace, wired to a bridge by a veth pair, with an address from
// TEST-NET-1 (192.0.2.0/24, RFC 5737) that exists only inside the test's
// namespaces. Training then crosses real interfaces, and the test cuts one
// worker's link mid-training and restores it: nothing hangs, the ps reports
// the cut worker, training resumes, and the ps's global step equals the sum
// of the workers' steps (no update lost or applied twice).
//
// Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN) and iproute2; skips with the
// reason where namespaces are not permitted.
#include "test_main.h"
#include <unistd.h>

#include <QtTest>

#include "dist/node_runner.h"

using namespace flowlens::testing;

namespace {

// `ip ARGS...`; returns "" on success, else what ip said.
QString ip(const QStringList& args) {
  QProcess p;
  p.start("ip", args);
  if (!p.waitForStarted(5000)) return "cannot run ip (install iproute2)";
  p.waitForFinished(10000);
  if (p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) return {};
  const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
  return "ip " + args.join(' ') + ": " + (err.isEmpty() ? "failed" : err);
}

// A bridge namespace ("the switch") and one namespace per node, each with
// eth0 cabled to a bridge port. Everything is removed on destruction.
class NetnsLab {
 public:
  NetnsLab() : prefix_(QString("fl%1").arg(::getpid())) {}
  ~NetnsLab() {
    for (const QString& ns : namespaces_) ip({"netns", "del", ns});
  }

  // "" or why the lab cannot be built here.
  QString start() {
    if (::geteuid() != 0) return "network namespaces need root";
    const QString sw = ns("sw");
    if (QString e = add_namespace(sw); !e.isEmpty()) return e;
    for (const QStringList& a : {QStringList{"-n", sw, "link", "add", "br0", "type", "bridge"},
                                 QStringList{"-n", sw, "link", "set", "br0", "up"}})
      if (QString e = ip(a); !e.isEmpty()) return e;
    return {};
  }

  // A namespace for node `name` with `address`/24 on eth0, cabled to the bridge.
  QString add_host(const QString& name, const QString& address) {
    const QString host = ns(name), sw = ns("sw"), port = "v" + name;
    if (QString e = add_namespace(host); !e.isEmpty()) return e;
    for (const QStringList& a : {QStringList{"-n", sw, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", host},
                                 QStringList{"-n", sw, "link", "set", port, "master", "br0"},
                                 QStringList{"-n", sw, "link", "set", port, "up"},
                                 QStringList{"-n", host, "addr", "add", address + "/24", "dev", "eth0"},
                                 QStringList{"-n", host, "link", "set", "eth0", "up"},
                                 QStringList{"-n", host, "link", "set", "lo", "up"}})
      if (QString e = ip(a); !e.isEmpty()) return e;
    return {};
  }

  // Unplugs (or plugs back) node `name`'s cable at the switch.
  QString set_link(const QString& name, bool up) {
    return ip({"-n", ns("sw"), "link", "set", "v" + name, up ? "up" : "down"});
  }

  // flowlens-node with `args`, inside node `name`'s namespace.
  std::unique_ptr<NodeProcess> run(const QString& name, const QStringList& args) {
    return std::make_unique<NodeProcess>("ip", QStringList{"netns", "exec", ns(name), node_binary()} + args);
  }

 private:
  QString ns(const QString& name) const { return prefix_ + name; }
  QString add_namespace(const QString& name) {
    ip({"netns", "del", name});  // left over from a crashed run with this pid
    QString e = ip({"netns", "add", name});
    if (e.isEmpty()) namespaces_ << name;
    return e;
  }

  QString prefix_;
  QStringList namespaces_;
};

}  // namespace

class TestNetns : public QObject {
  Q_OBJECT
 private slots:
  void cut_link_mid_training_loses_and_repeats_nothing() {
    NetnsLab lab;
    if (QString why = lab.start(); !why.isEmpty())
      QSKIP(qPrintable("network namespaces are not permitted here (" + why + "); skipping the multi-host harness"));
    for (auto [name, address] : {std::pair{"ps0", "192.0.2.10"}, {"w0", "192.0.2.20"}, {"w1", "192.0.2.21"}})
      if (QString e = lab.add_host(name, address); !e.isEmpty()) QSKIP(qPrintable("cannot build the namespaces: " + e));

    QTemporaryDir dir;
    const QString cluster = dir.filePath("cluster.json");
    QFile f(cluster);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"cluster": {"ps": ["192.0.2.10:2222"], "worker": ["192.0.2.20:2222", "192.0.2.21:2222"]}})");
    f.close();

    const int steps = 150;
    const QStringList common = {"--cluster", cluster, "--insecure"};
    auto ps = lab.run("ps0", common + QStringList{"--job", "ps", "--task", "0", "--worker-timeout", "1"});
    QVERIFY(ps->wait_for_stderr("listening on 192.0.2.10:2222 without encryption"));
    auto worker = [&](int task) {
      return lab.run(QString("w%1").arg(task),
                     common + QStringList{"--job", "worker", "--task", QString::number(task), "--graph",
                                          sample("mlp_train.pbtxt"), "--steps", QString::number(steps), "--threads", "1",
                                          "--print-every", "10", "--timeout", "2", "--reconnect-timeout", "60"});
    };
    auto w0 = worker(0), w1 = worker(1);
    QVERIFY(w1->wait_for_stdout("worker 1 step 30:"));

    QCOMPARE(lab.set_link("w1", false), QString());
    QVERIFY(ps->wait_for_stderr("ps 0: worker 1 at 192.0.2.21:2222 is down (", 15000));
    QVERIFY(w1->wait_for_stderr("waiting for ps 0 at 192.0.2.10:2222", 15000));
    QVERIFY(w1->stderr_so_far().contains("retrying for up to 60 s"));
    QTest::qWait(2000);
    QCOMPARE(lab.set_link("w1", true), QString());

    QVERIFY(w1->wait_for_stderr("worker 1: ps 0 answers again after", 30000));
    QVERIFY(ps->wait_for_stderr("ps 0: worker 1 is back", 30000));
    RunResult r0 = w0->wait(120000), r1 = w1->wait(120000);
    QVERIFY2(r0.code == 0 && r0.err.contains(QString("worker 0: %1 steps").arg(steps)), qPrintable(r0.err));
    QVERIFY2(r1.code == 0 && r1.err.contains(QString("worker 1: %1 steps").arg(steps)), qPrintable(r1.err));
    RunResult p = ps->wait(30000);
    QVERIFY2(p.code == 0, qPrintable(p.err));
    // What the cut did, for the log (retries, duplicates answered, downtime).
    for (const QString& line : (p.err + r1.err).split('\n'))
      if (line.contains("worker 1") && (line.contains("down") || line.contains("back") || line.contains("again") ||
                                        line.contains("retrying")))
        qInfo("%s", qPrintable(line));
    // Async: one global step per applied push. Exactly 2 * steps means every
    // push landed once, whatever was retried across the cut.
    QVERIFY2(p.err.contains(QString("ps 0: all workers finished at global step %1").arg(2 * steps)), qPrintable(p.err));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestNetns)
#include "test_netns.moc"
