// The control plane every node serves (NodeControlServer): its command
// table, the commands every node shares over its PauseGate, the checks on
// FETCH, and the hooks around each request and reply. One server on
// 127.0.0.1 served from a thread, one client; no node processes. Also the
// ps's memory of pushes (PushLedger), which needs no socket at all.
#include "test_main.h"
#include <QtTest>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "cluster/cluster_spec.h"
#include "dist/control/node_control_server.h"
#include "dist/ps/push_ledger.h"
#include "dist/wire/node_connection.h"

using namespace flowlens;
using namespace flowlens::dist;

namespace {

// A NodeControlServer served on its own thread (as ConnectionGuard asks,
// built there too) while the test talks to it.
class ServedNode {
 public:
  using Setup = std::function<void(NodeControlServer&)>;
  explicit ServedNode(Setup setup) {
    auto bound = ready_.get_future();
    thread_ = std::thread([this, setup = std::move(setup)] {
      NodeControlOptions o;
      o.node = "node 0";
      o.sender = "node:0";
      o.address = "127.0.0.1:1";  // the PUB binds on its host; the ROUTER where `bind` says
      o.bind = "tcp://127.0.0.1:*";
      NodeControlServer server(o);
      setup(server);
      ready_.set_value(server.endpoint());
      while (running_) server.serve(20);
    });
    const std::string endpoint = bound.get();  // "tcp://127.0.0.1:<port>"
    address_ = "127.0.0.1:" + std::string(split_host_port(endpoint).port);
  }
  ~ServedNode() {
    running_ = false;
    thread_.join();
  }
  WireMessage request(wire::Header h) {
    NodeConnection c(context_, "node 0", address_, "client");
    return c.request(std::move(h), {}, std::chrono::seconds(5));
  }
  WireMessage command(const std::string& cmd, const std::string& text = {}) {
    wire::Header h;
    h.set_kind(wire::CONTROL);
    h.set_command(cmd);
    h.set_text(text);
    return request(std::move(h));
  }

 private:
  std::atomic<bool> running_{true};
  std::promise<std::string> ready_;  // the endpoint once bound
  std::thread thread_;
  zmq::context_t context_{1};
  std::string address_;
};

}  // namespace

class TestNodeControl : public QObject {
  Q_OBJECT
 private slots:
  void gate_commands_move_the_gate_under_the_lock_and_reply_what_the_node_says() {
    PauseGate gate;
    std::mutex lock;
    std::vector<std::string> seen;
    bool unlocked = false;  // after() found the lock free
    {
      ServedNode node([&](NodeControlServer& s) {
        s.add_gate_commands(gate, &lock, [&](const std::string& cmd) {
          if (lock.try_lock()) {
            unlocked = true;
            lock.unlock();
          }
          seen.push_back(cmd);
          return cmd + "d";
        });
      });
      WireMessage r = node.command("pause");
      QCOMPARE(r.header.code(), wire::OK);
      QCOMPARE(r.header.text(), std::string("paused"));
      node.command("step");
      node.command("resume");
    }
    QCOMPARE(seen, (std::vector<std::string>{"pause", "step", "resume"}));
    QVERIFY(!unlocked);
    QVERIFY(!gate.paused());
    QVERIFY(gate.admit_update());
  }

  void unknown_command_lists_the_table_in_registration_order() {
    PauseGate gate;
    ServedNode node([&](NodeControlServer& s) {
      s.add_gate_commands(gate, nullptr, [](const std::string&) { return std::string(); });
      s.on_command("echo", [](const WireMessage& m) { return CommandReply{wire::OK, m.header.text(), {}}; });
    });
    QCOMPARE(node.command("echo", "hi").header.text(), std::string("hi"));
    WireMessage r = node.command("jump");
    QCOMPARE(r.header.code(), wire::BAD_REQUEST);
    QCOMPARE(r.header.text(), std::string("unknown command 'jump' (expected pause, step, resume or echo)"));
  }

  void stop_names_who_asked_and_profile_stop_needs_a_start() {
    std::string reason;
    bool active = false;
    std::string written_to;
    {
      ServedNode node([&](NodeControlServer& s) {
        s.add_stop_command([&](const std::string& why) {
          reason = why;
          return std::string("stopping");
        });
        s.add_profile_commands({[&] { active = true; }, [&] { return active; },
                                [&](const std::string& path) {
                                  written_to = path;
                                  active = false;
                                  return std::size_t{3};
                                },
                                "profiling things", "thing(s)"});
      });
      QCOMPARE(node.command("profile_stop").header.code(), wire::FAILED);
      QCOMPARE(node.command("profile_start").header.text(), std::string("profiling things"));
      WireMessage r = node.command("profile_stop");
      QCOMPARE(r.header.text(), std::string("wrote 3 thing(s) to node-0-profile.json"));
      QCOMPARE(node.command("stop").header.text(), std::string("stopping"));
    }
    QCOMPARE(written_to, std::string("node-0-profile.json"));  // the node's label, no spaces
    QCOMPARE(reason, std::string("stopped by client"));
  }

  void fetch_of_nothing_and_unhandled_kinds_are_bad_requests() {
    int fetched = 0;
    ServedNode node([&](NodeControlServer& s) {
      s.add_fetch([&](const WireMessage&, const std::vector<std::string>& names) {
        ++fetched;
        return CommandReply{wire::OK, std::to_string(names.size()), {}};
      });
    });
    wire::Header fetch;
    fetch.set_kind(wire::FETCH);
    WireMessage none = node.request(fetch);
    QCOMPARE(none.header.code(), wire::BAD_REQUEST);
    QCOMPARE(none.header.text(), std::string("FETCH names nothing"));
    fetch.add_names("a");
    fetch.add_names("b");
    QCOMPARE(node.request(fetch).header.text(), std::string("2"));
    wire::Header pull;
    pull.set_kind(wire::PULL);
    WireMessage r = node.request(pull);
    QCOMPARE(r.header.code(), wire::BAD_REQUEST);
    QCOMPARE(r.header.text(), std::string("node 0 does not accept PULL requests"));
    QCOMPARE(fetched, 1);
  }

  void hooks_see_every_request_and_reply() {
    // Counted on the serving thread, checked here.
    std::atomic<int> admitted{0}, served{0}, replied{0};
    ServedNode node([&](NodeControlServer& s) {
      s.on_command("noop", [](const WireMessage&) { return CommandReply{}; });
      s.on_admitted = [&](const WireMessage&, std::size_t bytes, NodeControlServer::Clock::time_point) {
        admitted += bytes > 0;
      };
      s.on_served = [&](wire::Kind kind, const std::string& sender, NodeControlServer::Clock::time_point) {
        served += kind == wire::CONTROL && sender == "client";
      };
      s.before_reply = [](const WireMessage&, wire::Header& h) { h.set_step(42); };
      s.after_reply = [&](const WireMessage&, std::size_t bytes) { replied += bytes > 0; };
    });
    QCOMPARE(node.command("noop").header.step(), int64_t{42});
    QCOMPARE(admitted.load(), 1);
    QCOMPARE(served.load(), 1);
    QCOMPARE(replied.load(), 1);
  }

  void push_ledger_answers_retries_and_lets_a_held_retry_take_its_place() {
    // Push #sequence of worker 1's process `incarnation`, sent as request `id` from `socket`.
    auto push = [](const std::string& socket, uint64_t id, uint64_t sequence, uint64_t incarnation = 7) {
      WireMessage m;  // frames cannot be copied: each message is built anew
      m.identity = socket;
      m.header.set_kind(wire::PUSH);
      m.header.set_sender("worker:1");
      m.header.set_incarnation(incarnation);
      m.header.set_sequence(sequence);
      m.header.set_request_id(id);
      return m;
    };
    PushLedger ledger;
    QVERIFY(!ledger.repeated_reply(push("old socket", 10, 3), 1));  // never answered
    ledger.hold(push("old socket", 10, 3));
    QVERIFY(ledger.replace_held(push("new socket", 11, 3)));
    QVERIFY(!ledger.replace_held(push("new socket", 12, 4)));  // another push: not held
    WireMessage released = ledger.release();
    QVERIFY(!ledger.holding());
    QCOMPARE(released.identity, std::string("new socket"));
    QCOMPARE(released.header.request_id(), uint64_t{11});

    const WireMessage first = push("old socket", 10, 3);
    ledger.answered(first, 1, reply_header(first.header, wire::OK, "applied at step 5"));
    std::optional<wire::Header> again = ledger.repeated_reply(push("new socket", 11, 3), 1);
    QVERIFY(again);
    QCOMPARE(again->text(), std::string("applied at step 5"));
    QCOMPARE(again->request_id(), uint64_t{11});  // the retry's id, so its sender takes it
    QCOMPARE(ledger.repeated_reply(push("s", 12, 2), 1)->text(), std::string("already applied"));
    QVERIFY(!ledger.repeated_reply(push("s", 13, 4), 1));     // the next push
    QVERIFY(!ledger.repeated_reply(push("s", 14, 3, 8), 1));  // a new process numbers its own pushes
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestNodeControl)
#include "test_node_control.moc"
