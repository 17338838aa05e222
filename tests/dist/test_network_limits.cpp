// A ps under network abuse, as real flowlens-node processes: frames far
// larger than --max-message-mb (announced, not sent; and sent), an oversized
// header and a burst of big garbage frames (dropped, memory back near its
// baseline); 2,000 idle connections against --max-connections and a ps
// started with the usual 1,024 open-file limit (workers and status clients
// still get in); the events (PUB) endpoint and a worker's control endpoint
// hanging up on 4 GiB announcements; subscribers above --max-subscribers
// (the newest closed, an early one still served); and a flood of malformed
// messages (a few log lines and a count, not one line each).
#include "test_main.h"
#include <QtTest>

#include <functional>
#include <memory>

#include <zmq_addon.hpp>

#include "dist/control/cluster_client.h"
#include "dist/hostile_peer.h"
#include "dist/wire/node_connection.h"
#include "dist/node_runner.h"
#include "time_scale.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// Memory a node frees but still holds: AddressSanitizer keeps freed blocks
// in its quarantine (256 MiB by default) to catch uses after free.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kHeldAfterFreeMiB = 256;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kHeldAfterFreeMiB = 256;
#else
constexpr double kHeldAfterFreeMiB = 0;
#endif
#else
constexpr double kHeldAfterFreeMiB = 0;
#endif

int64_t step_of(dist::ClusterClient& client, const char* job, int task) {
  try {
    return client.status(client.node(job, task), std::chrono::milliseconds(scaled_ms(2000))).step;
  } catch (const Error&) {
    return -1;
  }
}

// Sends a STATUS request on `dealer` and waits for its answer: the ps serves
// one connection's messages in order, so everything sent before is handled.
bool round_trip(zmq::socket_t& dealer, int timeout_ms) {
  wire::Header h;
  h.set_kind(wire::STATUS);
  h.set_request_id(424242);
  dist::send_message(dealer, {}, h, {});
  auto reply = dist::receive_frames(dealer, timeout_ms);
  return reply.has_value();
}

// Waits for the next message `subscriber` receives; true when it is a heartbeat.
bool receives_heartbeat(zmq::socket_t& subscriber, int timeout_ms) {
  auto frames = dist::receive_frames(subscriber, timeout_ms);
  if (!frames) return false;
  const dist::DecodeResult r = dist::decode_message(std::move(*frames), false);
  return r.message && r.message->header.kind() == wire::HEARTBEAT;
}

}  // namespace

class TestNetworkLimits : public QObject {
  Q_OBJECT
 private slots:
  void oversized_frames_are_dropped_and_memory_returns_to_baseline() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0, {"--max-message-mb", "16"}));
    QVERIFY(ps.wait_for_stderr("serving on"));
    zmq::context_t context(1);
    zmq::socket_t dealer(context, zmq::socket_type::dealer);
    dealer.set(zmq::sockopt::linger, 0);
    dealer.connect("tcp://" + c.ps_address(0).toStdString());
    QVERIFY(round_trip(dealer, scaled_ms(10000)));
    const double baseline = rss_mib(ps.pid());
    double peak = baseline;

    // A 4 GiB header frame announced, 4 MiB of it sent: libzmq hangs up at
    // the announcement instead of reserving room for it.
    const int fd = zmtp_connect(c.ps_ports[0]);
    QVERIFY(fd >= 0);
    zmtp_announce_frame(fd, uint64_t{4} << 30, 4u << 20);  // may fail halfway: the ps hung up
    QVERIFY(peer_hangs_up(fd, std::chrono::milliseconds(scaled_ms(5000))));
    ::close(fd);

    // The same from a ZeroMQ peer that sends whole 64 MiB frames; then a
    // 2 MiB header and 40 garbage frames of 8 MiB, under the limit: decoded,
    // refused, freed.
    zmq::socket_t big(context, zmq::socket_type::dealer);
    big.set(zmq::sockopt::linger, 0);
    big.connect("tcp://" + c.ps_address(0).toStdString());
    std::string huge(64u << 20, 'x'), header(2u << 20, '\x0a'), garbage(8u << 20, '\xff');
    // Zero-copy sends (libzmq frees nothing): the test itself stays small.
    auto frame = [](std::string& bytes) { return zmq::message_t(bytes.data(), bytes.size(), nullptr); };
    big.send(frame(huge), zmq::send_flags::none);
    dealer.send(frame(header), zmq::send_flags::none);
    for (int i = 0; i < 40; ++i) {
      dealer.send(frame(garbage), zmq::send_flags::none);
      peak = std::max(peak, rss_mib(ps.pid()));
    }
    QVERIFY(round_trip(dealer, scaled_ms(30000)));
    peak = std::max(peak, rss_mib(ps.pid()));
    QVERIFY2(peak < baseline + 256 + kHeldAfterFreeMiB,
             qPrintable(QString("baseline %1 MiB, peak %2 MiB").arg(baseline).arg(peak)));
    // Back to its baseline (wall-clock wait: a failing QTRY waits again).
    const bool back = eventually([&] { return rss_mib(ps.pid()) < baseline + 32 + kHeldAfterFreeMiB; }, scaled_ms(10000));
    QVERIFY2(back, qPrintable(QString("baseline %1 MiB, now %2 MiB").arg(baseline).arg(rss_mib(ps.pid()))));
    QVERIFY(ps.wait_for_stderr("dropped a malformed message: header frame of 2097152 bytes exceeds 1048576"));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QCOMPARE(client.status(client.node("ps", 0), std::chrono::milliseconds(scaled_ms(5000))).state, std::string("serving"));
  }

  void events_endpoint_drops_oversized_frames() {
    // Subscribers send only subscriptions: the PUB socket takes no frame
    // above the header limit, whatever --max-message-mb says.
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    QVERIFY(ps.wait_for_stderr("serving on"));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const std::string events = client.status(client.node("ps", 0), std::chrono::milliseconds(scaled_ms(5000))).events;
    const int port = std::stoi(std::string(split_host_port(events).port));
    // A subscriber that sends a small frame stays connected...
    const int small = zmtp_connect(port, "SUB");
    QVERIFY(small >= 0);
    QVERIFY(zmtp_announce_frame(small, 16, 16));
    QVERIFY(!peer_hangs_up(small, std::chrono::milliseconds(500)));
    ::close(small);
    // ...one that announces 4 GiB is hung up on at once.
    const int fd = zmtp_connect(port, "SUB");
    QVERIFY(fd >= 0);
    zmtp_announce_frame(fd, uint64_t{4} << 30, 1u << 20);
    QVERIFY(peer_hangs_up(fd, std::chrono::milliseconds(scaled_ms(5000))));
    ::close(fd);
    QVERIFY(ps.running());
  }

  void subscribers_above_the_cap_are_closed_newest_first() {
    constexpr int kCap = 4;
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0, {"--max-subscribers", QString::number(kCap)}));
    QVERIFY(ps.wait_for_stderr("serving on"));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const std::string events = client.status(client.node("ps", 0), std::chrono::milliseconds(scaled_ms(5000))).events;
    const int port = std::stoi(std::string(split_host_port(events).port));

    // A monitor that was watching before the flood (heartbeats come every second)...
    zmq::context_t context(1);
    zmq::socket_t early(context, zmq::socket_type::sub);
    early.set(zmq::sockopt::linger, 0);
    early.set(zmq::sockopt::subscribe, "");
    early.connect(events);
    QVERIFY(receives_heartbeat(early, scaled_ms(10000)));

    // ...then subscribers one after another, well above the cap.
    constexpr int kFlood = 16;
    std::vector<int> flood;
    const std::unique_ptr<void, std::function<void(void*)>> cleanup(&flood, [&](void*) {
      for (int fd : flood)
        if (fd >= 0) ::close(fd);
    });
    for (int i = 0; i < kFlood; ++i) flood.push_back(zmtp_connect(port, "SUB"));
    QVERIFY(ps.wait_for_stderr("event subscribers connected, above --max-subscribers 4: closed the "));
    // The newest are closed (one may already be gone during its handshake)...
    for (int i = kCap - 1; i < kFlood; ++i)
      QVERIFY2(flood[static_cast<size_t>(i)] < 0 ||
                   peer_hangs_up(flood[static_cast<size_t>(i)], std::chrono::milliseconds(scaled_ms(5000))),
               qPrintable(QString("subscriber %1 of %2 is still connected").arg(i + 1).arg(kFlood)));
    // ...the first ones up to the cap stay...
    for (int i = 0; i < kCap - 1; ++i) {
      QVERIFY(flood[static_cast<size_t>(i)] >= 0);
      QVERIFY2(!peer_hangs_up(flood[static_cast<size_t>(i)], std::chrono::milliseconds(200)),
               qPrintable(QString("subscriber %1, below the cap, was closed").arg(i + 1)));
    }
    // ...the ps still answers status, and the early monitor still gets its events.
    QCOMPARE(client.status(client.node("ps", 0), std::chrono::milliseconds(scaled_ms(5000))).state, std::string("serving"));
    while (dist::receive_frames(early, 0)) {
    }
    QVERIFY(receives_heartbeat(early, scaled_ms(10000)));
    QVERIFY(ps.running());
  }

  void worker_control_endpoint_drops_oversized_frames() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, {"--print-every", "0", "--max-message-mb", "16"}));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QVERIFY(eventually([&] { return step_of(client, "worker", 0) >= 1; }, scaled_ms(60000)));
    const int fd = zmtp_connect(c.worker_ports[0]);
    QVERIFY(fd >= 0);
    zmtp_announce_frame(fd, uint64_t{4} << 30, 1u << 20);
    QVERIFY(peer_hangs_up(fd, std::chrono::milliseconds(scaled_ms(5000))));
    ::close(fd);
    const int64_t step = step_of(client, "worker", 0);
    QVERIFY(eventually([&] { return step_of(client, "worker", 0) > step; }, scaled_ms(20000)));
  }

  void two_thousand_idle_connections_do_not_lock_out_workers_or_status() {
    LocalCluster c(1, 2);
    // Started with the open-file limit most systems give (1,024, below the
    // 2,000 connections): the ps raises it to the hard limit itself.
    const rlim_t own_limit = set_open_file_limit(1024);
    NodeProcess ps(c.ps_args(0, {"--max-connections", "32"}));
    set_open_file_limit(own_limit);
    const QStringList quiet = {"--print-every", "0"};
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 1000000, quiet));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QVERIFY(eventually([&] { return step_of(client, "worker", 0) >= 3; }, scaled_ms(60000)));

    // This test holds 2,000 descriptors, or as many as its hard limit
    // allows (still well above the cap).
    set_open_file_limit(RLIM_INFINITY);
    const rlim_t allowed = current_open_file_limit();
    const std::size_t flood = std::min<std::size_t>(2000, allowed > 300 ? allowed - 100 : 0);
    if (flood < 200) {
      set_open_file_limit(own_limit);
      QSKIP(qPrintable(QString("open-file hard limit %1: too low to flood").arg(static_cast<qulonglong>(allowed))));
    }
    std::vector<int> idle;
    // Closed however the test ends.
    const std::unique_ptr<void, std::function<void(void*)>> cleanup(&idle, [&](void*) {
      for (int fd : idle) ::close(fd);
      set_open_file_limit(own_limit);
    });
    for (std::size_t i = 0; i < flood; ++i)
      if (const int fd = tcp_connect_nowait(c.ps_ports[0]); fd >= 0) idle.push_back(fd);
    QCOMPARE(idle.size(), flood);

    // A status client that connects now is answered, a worker that starts
    // now trains, and the worker that was there goes on.
    dist::ClusterClient newcomer(load_cluster_spec(c.file.toStdString()));
    QVERIFY(eventually([&] { return step_of(newcomer, "ps", 0) >= 0; }, scaled_ms(10000)));
    const int64_t w0_step = step_of(client, "worker", 0);
    RunResult w1 = run_node(c.worker_args(1, sample("mlp_train.pbtxt"), 20, quiet), scaled_ms(60000));
    QVERIFY2(w1.code == 0 && w1.err.contains("worker 1: 20 steps"), qPrintable(w1.err));
    QVERIFY(step_of(client, "worker", 0) > w0_step);
    QVERIFY(ps.wait_for_stderr("connections open, above --max-connections 32: closed the "));
    // The idle ones are let go: the ps holds about the cap again.
    QVERIFY2(eventually([&] { return open_descriptors(ps.pid()) < 32 + 40; }, scaled_ms(10000)),
             qPrintable(QString("%1 descriptors open").arg(open_descriptors(ps.pid()))));
  }

  void a_flood_of_malformed_messages_is_logged_at_a_bounded_rate() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    QVERIFY(ps.wait_for_stderr("serving on"));
    zmq::context_t context(1);
    zmq::socket_t dealer(context, zmq::socket_type::dealer);
    dealer.set(zmq::sockopt::linger, 0);
    dealer.connect("tcp://" + c.ps_address(0).toStdString());
    const std::string not_a_header("\x0a\xff\xff", 3);  // a length that never ends
    for (int i = 0; i < 5000; ++i) dealer.send(zmq::buffer(not_a_header), zmq::send_flags::none);
    QVERIFY(round_trip(dealer, scaled_ms(30000)));
    ps.terminate();
    const RunResult r = ps.wait(scaled_ms(20000));
    QCOMPARE(r.code, 0);
    const int lines = static_cast<int>(r.err.count("dropped a malformed message"));
    QVERIFY2(lines >= 2 && lines <= 12, qPrintable(r.err));
    QVERIFY2(r.err.contains("more like it in the last"), qPrintable(r.err));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestNetworkLimits)
#include "test_network_limits.moc"
