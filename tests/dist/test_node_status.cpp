// The status a node answers: its JSON (the same document the nlohmann DOM
// wrote, parsed back by flowlens-node status and the GUI) and StatusCache,
// which serves every poll from one encoding, allocating nothing.
// No processes or sockets.
#include "test_main.h"
#include <QtTest>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "dist/control/node_status.h"

// Counts this thread's allocations while `counting` is set.
namespace {
thread_local bool counting = false;
thread_local long allocations = 0;

struct CountAllocations {
  CountAllocations() { allocations = 0, counting = true; }
  ~CountAllocations() { counting = false; }
  long count() const { return allocations; }
};
}  // namespace

void* operator new(std::size_t n) {
  if (counting) ++allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace flowlens;
using namespace flowlens::dist;

namespace {

NodeStatus sample_status() {
  NodeStatus s;
  s.role = "ps";
  s.task = 3;
  s.address = "127.0.0.1:2222";
  s.state = "serving";
  s.step = 1234567890123;
  s.loss = 0.125;
  s.steps_per_second = 812.5;
  s.bytes_in = std::numeric_limits<uint64_t>::max();
  s.bytes_out = 42;
  s.variables = {{"dense/kernel", "float32", "[784,128]", 401408}, {"b\"q\\uote\n\t\x01", "float32", "[]", 4}};
  s.links = {{"worker:0", 10, 20, 300, 4000}, {"client", 0, 5}};
  s.events = "tcp://127.0.0.1:40123";
  s.mode = "sync 2";
  s.detail = "waiting for worker 1 \xC2\xB7 caf\xC3\xA9 \xF0\x9F\x9A\x80";
  s.profiling = true;
  return s;
}

// The document as status_to_json wrote it with nlohmann before.
nlohmann::json reference(const NodeStatus& s) {
  nlohmann::json j;
  j["role"] = s.role;
  j["task"] = s.task;
  j["address"] = s.address;
  j["state"] = s.state;
  j["step"] = s.step;
  j["loss"] = s.loss && std::isfinite(*s.loss) ? nlohmann::json(*s.loss) : nlohmann::json(nullptr);
  j["steps_per_second"] = s.steps_per_second;
  j["bytes_in"] = s.bytes_in;
  j["bytes_out"] = s.bytes_out;
  j["events"] = s.events;
  j["mode"] = s.mode;
  j["detail"] = s.detail;
  j["profiling"] = s.profiling;
  nlohmann::json vars = nlohmann::json::array();
  for (const auto& v : s.variables)
    vars.push_back({{"name", v.name}, {"dtype", v.dtype}, {"shape", v.shape}, {"bytes", v.bytes}});
  j["variables"] = vars;
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : s.links)
    links.push_back({{"peer", l.peer}, {"bytes_in", l.bytes_in}, {"bytes_out", l.bytes_out},
                     {"step_bytes_in", l.step_bytes_in}, {"step_bytes_out", l.step_bytes_out}});
  j["links"] = links;
  return j;
}

}  // namespace

class TestNodeStatus : public QObject {
  Q_OBJECT
 private slots:
  void json_is_the_document_nlohmann_wrote() {
    const NodeStatus s = sample_status();
    const std::string text = status_to_json(s);
    QCOMPARE(nlohmann::json::parse(text), reference(s));
    // Plain ASCII content: byte for byte the same text.
    NodeStatus plain = s;
    plain.variables.pop_back();
    plain.detail = "1 of 2 worker(s) done";
    plain.steps_per_second = 2;  // nlohmann writes "2.0"
    QCOMPARE(QString::fromStdString(status_to_json(plain)), QString::fromStdString(reference(plain).dump()));

    const NodeStatus back = status_from_json(text, "test");
    QCOMPARE(back.variables.size(), std::size_t{2});
    QCOMPARE(back.variables[1].name, s.variables[1].name);
    QCOMPARE(back.detail, s.detail);
    QCOMPARE(back.bytes_in, s.bytes_in);
    QCOMPARE(back.step, s.step);
    QCOMPARE(*back.loss, 0.125);
    QCOMPARE(back.links.size(), std::size_t{2});
    QCOMPARE(back.links[0].step_bytes_in, uint64_t{300});
    QCOMPARE(back.links[0].step_bytes_out, uint64_t{4000});
    // An older node's status, without per-step bytes, still reads.
    nlohmann::json old = nlohmann::json::parse(text);
    for (auto& l : old["links"]) l.erase("step_bytes_in"), l.erase("step_bytes_out");
    QCOMPARE(status_from_json(old.dump(), "old").links[0].step_bytes_in, uint64_t{0});
  }

  // `flowlens-node status`: a line per link with what one step moves on it.
  void status_table_shows_bytes_per_step_per_link() {
    StatusRow row{"worker 0", "127.0.0.1:1", sample_status(), {}};
    const QString table = QString::fromStdString(format_status_table({row}));
    QVERIFY2(table.contains(QRegularExpression("with worker:0 +300 B in, 3.9 KiB out per step")), qPrintable(table));
    QVERIFY2(!table.contains("with client"), qPrintable(table));  // no step bytes: no line
  }

  void non_finite_numbers_are_null_and_bad_utf8_still_parses() {
    NodeStatus s = sample_status();
    s.loss = std::numeric_limits<double>::quiet_NaN();
    s.steps_per_second = std::numeric_limits<double>::infinity();
    s.detail = std::string("bad \xFF\xC3 tail \xED\xA0\x80", 15);
    const std::string text = status_to_json(s);
    QVERIFY2(text.find("\"loss\":null") != std::string::npos, text.c_str());
    QVERIFY2(text.find("\"steps_per_second\":null") != std::string::npos, text.c_str());
    const nlohmann::json j = nlohmann::json::parse(text);  // throws on invalid UTF-8
    QCOMPARE(QString::fromStdString(j["detail"].get<std::string>()), QString::fromUtf8("bad \uFFFD\uFFFD tail \uFFFD\uFFFD\uFFFD"));
    s.steps_per_second = 0;
    QVERIFY(!status_from_json(status_to_json(s), "test").loss);
  }

  void cache_serves_polls_from_one_encoding() {
    StatusCache cache(std::chrono::hours(1));
    int fills = 0;
    std::vector<bool> key_changes;  // what each fill was told
    NodeStatus source = sample_status();
    auto fill = [&](NodeStatus& s, bool key_changed) {
      ++fills;
      key_changes.push_back(key_changed);
      s = source;
    };
    const std::string first = cache.get(1, 10, fill);
    for (int i = 0; i < 100; ++i) QCOMPARE(cache.get(1, 10, fill), first);
    QCOMPARE(fills, 1);
    QCOMPARE(cache.builds(), uint64_t{1});
    QCOMPARE(cache.served(), uint64_t{101});
    // The step moved but the reply is younger than `refresh`: served as is.
    source.step = 11;
    QCOMPARE(cache.get(1, 11, fill), first);
    QCOMPARE(fills, 1);
    // A state change (the key) shows in the very next answer.
    source.state = "paused";
    const std::string paused = cache.get(2, 11, fill);
    QCOMPARE(fills, 2);
    QCOMPARE(status_from_json(paused, "test").state, std::string("paused"));
    QCOMPARE(status_from_json(paused, "test").step, int64_t{11});
    QCOMPARE(key_changes, (std::vector<bool>{true, true}));  // the first build, then the new key
  }

  void cache_refreshes_a_moving_step_and_old_replies() {
    StatusCache cache(std::chrono::milliseconds(0));
    NodeStatus source = sample_status();
    auto fill = [&](NodeStatus& s, bool) { s = source; };
    cache.get(7, 1, fill);
    source.step = 2;
    QCOMPARE(status_from_json(cache.get(7, 2, fill), "test").step, int64_t{2});
    QCOMPARE(cache.builds(), uint64_t{2});
    // Same key and step: a paused node. Its counters move on after a second.
    StatusCache slow(std::chrono::hours(1));
    slow.get(7, 2, fill);
    source.bytes_out = 99;
    QCOMPARE(status_from_json(slow.get(7, 2, fill), "test").bytes_out, uint64_t{42});
    std::this_thread::sleep_for(std::chrono::milliseconds(1050));
    QCOMPARE(status_from_json(slow.get(7, 2, fill), "test").bytes_out, uint64_t{99});
  }

  void cached_and_refreshed_answers_allocate_nothing() {
    StatusCache cache(std::chrono::milliseconds(0));
    int64_t step = 100;
    auto fill = [&](NodeStatus& s, bool key_changed) {
      if (key_changed) s = sample_status();  // the first build sets the strings
      s.step = step;                             // later ones only the counters
      s.bytes_out = static_cast<uint64_t>(step) * 1000;
      s.loss = 1.0 / static_cast<double>(step);
    };
    cache.get(1, step, fill);
    cache.get(1, ++step, fill);  // the buffer reaches its size
    {
      CountAllocations count;
      for (int i = 0; i < 50; ++i) cache.get(1, step, fill);  // served from the cache
      QCOMPARE(count.count(), 0L);
    }
    {
      CountAllocations count;
      for (int i = 0; i < 50; ++i) cache.get(1, ++step, fill);  // re-encoded in place
      QCOMPARE(count.count(), 0L);
    }
    QCOMPARE(status_from_json(cache.get(1, step, fill), "test").step, step);
    // The DOM encoder it replaced allocated per answer.
    CountAllocations count;
    (void)reference(cache.status()).dump();
    QVERIFY(count.count() > 20);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestNodeStatus)
#include "test_node_status.moc"
