// The pieces that keep a node sane under hostile peers, tested alone: the
// log rate limiter, the bounded per-sender traffic table, which requests may
// speak for a worker (incarnation binding, CURVE identity), the decoder's
// limit on sender names and the key file mode check.
#include "test_main.h"
#include <sys/stat.h>

#include <QtTest>

#include <fstream>

#include "dist/security/curve_auth.h"
#include "dist/control/log_rate_limiter.h"
#include "dist/wire/peer_traffic.h"
#include "dist/ps/sender_registry.h"
#include "dist/wire/wire_codec.h"

using namespace flowlens;
using namespace flowlens::dist;
using namespace std::chrono_literals;

class TestGuards : public QObject {
  Q_OBJECT
 private slots:
  void rate_limiter_writes_a_burst_then_one_summary_per_window() {
    QStringList lines;
    LogRateLimiter limiter(10s, 3, [&](const std::string& l) { lines << QString::fromStdString(l); });
    const auto t0 = LogRateLimiter::Clock::now();
    for (int i = 0; i < 5000; ++i) limiter.log("malformed", "bad message " + std::to_string(i), t0 + i * 1ms);
    limiter.log("other kind", "a different complaint", t0);
    QCOMPARE(lines, QStringList({"bad message 0", "bad message 1", "bad message 2", "a different complaint"}));
    limiter.flush_expired(t0 + 9s);  // the window is still open
    QCOMPARE(lines.size(), 4);
    limiter.flush_expired(t0 + 10s);
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines.last(), QString("bad message 4999 (and 4,996 more like it in the last 10 s)"));
    // A new window starts with its whole burst.
    limiter.log("malformed", "bad again", t0 + 11s);
    QCOMPARE(lines.last(), QString("bad again"));
    QCOMPARE(with_thousands(1234567), std::string("1,234,567"));
  }

  void rate_limiter_flushes_what_it_held_back_when_it_goes() {
    QStringList lines;
    {
      LogRateLimiter limiter(10s, 1, [&](const std::string& l) { lines << QString::fromStdString(l); });
      for (int i = 0; i < 3; ++i) limiter.log("k", "line " + std::to_string(i));
    }
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines.last().startsWith("line 2 (and 1 more like it in the last "), qPrintable(lines.last()));
  }

  void traffic_table_keeps_the_tasks_and_a_few_recent_others() {
    PeerTrafficTable table({"ps:0", "worker:0", "worker:1"}, 4, 60s);
    const auto t0 = PeerTrafficTable::Clock::now();
    table.add_in("worker:0", 10, t0);
    table.add_out("", 5, t0);  // unnamed: not counted
    for (int i = 0; i < 2000; ++i) table.add_in("intruder-" + std::to_string(i), 1, t0 + i * 1ms);
    QCOMPARE(table.size(), std::size_t{5});
    std::vector<LinkTraffic> links = table.links(t0 + 2s);
    QCOMPARE(links.size(), std::size_t{5});
    QCOMPARE(links.front().peer, std::string("intruder-1996"));  // by name; the 4 most recent others survive
    QCOMPARE(links.back().peer, std::string("worker:0"));
    QCOMPARE(links.back().bytes_in, uint64_t{10});
    // Silent others expire; the cluster's tasks stay.
    links = table.links(t0 + 2s + 60s);
    QCOMPARE(links.size(), std::size_t{1});
    table.add_in("late", 1, t0 + 3s + 60s);
    QCOMPARE(table.size(), std::size_t{2});
  }

  void only_the_incarnation_that_trains_keeps_a_worker_alive() {
    ClusterSpec cluster;
    cluster.set_task("ps", 0, "127.0.0.1:1");
    cluster.set_task("worker", 0, "127.0.0.1:2");
    cluster.set_task("worker", 1, "127.0.0.1:3");
    SenderRegistry registry(cluster);
    QCOMPARE(registry.worker_task("worker:1"), 1);
    for (const char* invented : {"worker:2", "worker:01", "worker:", "worker:1x", "worker:-1", "client", "ps:0"})
      QVERIFY2(registry.worker_task(invented) == -1, invented);
    QCOMPARE(registry.task_names(), (std::set<std::string>{"ps:0", "worker:0", "worker:1"}));

    QVERIFY(!registry.speaks_for(1, 42));  // nothing bound yet
    QVERIFY(!registry.bind(1, 42));
    QVERIFY(registry.speaks_for(1, 42));
    QVERIFY(!registry.speaks_for(1, 43));
    QVERIFY(!registry.speaks_for(1, 0));
    QVERIFY(!registry.speaks_for(0, 42));
    QVERIFY(registry.bind(1, 43));  // restarted: the new process speaks for it
    QVERIFY(!registry.speaks_for(1, 42));
    QVERIFY(registry.speaks_for(1, 43));
    QVERIFY(is_training_request(wire::PULL) && is_training_request(wire::DONE));
    QVERIFY(!is_training_request(wire::STATUS) && !is_training_request(wire::HEARTBEAT));
  }

  void a_key_decides_which_sender_a_request_may_claim() {
    const AuthenticatedPeer worker1{Role::Worker, "worker:1"}, viewer{Role::Viewer, ""};
    QCOMPARE(identity_problem("worker:1", worker1), std::string());
    QCOMPARE(identity_problem("worker:0", worker1),
             std::string("sender 'worker:0' refused: the connection's CURVE key belongs to worker:1"));
    QVERIFY(!identity_problem("client", worker1).empty());
    QCOMPARE(identity_problem("viewer", viewer), std::string());
    QCOMPARE(identity_problem("worker:1", viewer),
             std::string("sender 'worker:1' refused: the connection's CURVE key belongs to a viewer client"));
    QVERIFY(!identity_problem("ps:0", viewer).empty());
  }

  void decoder_refuses_long_sender_names() {
    wire::Header h;
    h.set_kind(wire::STATUS);
    h.set_request_id(7);
    h.set_sender(std::string(WireLimits{}.max_sender_length + 1, 'x'));
    DecodeResult r = decode_message(encode_message(h, {}), false);
    QVERIFY(!r.message);
    QCOMPARE(r.request_id, uint64_t{7});  // still answerable
    QVERIFY2(r.error.starts_with("sender name is 129 bytes"), r.error.c_str());
  }

  void key_files_others_may_read_are_named() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("k.key").toStdString();
    std::ofstream(path) << "secret";
    ::chmod(path.c_str(), 0600);
    QCOMPARE(key_file_mode_problem(path), std::string());
    ::chmod(path.c_str(), 0644);
    const std::string problem = key_file_mode_problem(path);
    QVERIFY2(problem == "key file " + path + " is mode 0644: users other than its owner can read its secret key and pose "
                                             "as its owner",
             problem.c_str());
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestGuards)
#include "test_guards.moc"
