// A ps's view of its workers' lives on a fake clock: heartbeats, timeouts,
// returns, finished workers, and when a ps left without workers may stop.
// No processes, sockets or sleeps: the test moves the clock itself.
#include "test_main.h"
#include <QtTest>

#include "dist/worker/worker_liveness.h"

using namespace flowlens;
using namespace flowlens::dist;
using std::chrono::milliseconds;

namespace {

struct FakeClock {
  std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
  TimeSource source() {
    return [this] { return now; };
  }
  void advance(milliseconds by) { now += by; }
};

constexpr milliseconds kTimeout{5000}, kGiveUp{10000};

}  // namespace

class TestWorkerLiveness : public QObject {
  Q_OBJECT
 private slots:
  void heartbeats_keep_a_worker_up() {
    FakeClock clock;
    WorkerLiveness l({0, 1}, kTimeout, kGiveUp, clock.source());
    for (int i = 0; i < 20; ++i) {
      l.heard_from(0);
      l.heard_from(1);
      clock.advance(milliseconds(500));
      QVERIFY(l.mark_silent_down().empty());
    }
    QCOMPARE(l.live_count(), 2);
  }

  void silence_for_the_timeout_marks_a_worker_down() {
    FakeClock clock;
    WorkerLiveness l({0, 1}, kTimeout, kGiveUp, clock.source());
    l.heard_from(0);
    l.heard_from(1);
    clock.advance(milliseconds(4999));
    l.heard_from(0);
    QVERIFY(l.mark_silent_down().empty());
    clock.advance(milliseconds(1));
    const auto lapses = l.mark_silent_down();
    QCOMPARE(lapses.size(), std::size_t{1});
    QCOMPARE(lapses[0].worker, 1);
    QCOMPARE(lapses[0].silent, kTimeout);
    QVERIFY(l.is_live(0));
    QVERIFY(!l.is_live(1));
    QCOMPARE(l.down_workers(), std::vector<int>{1});
    QCOMPARE(l.live_count(), 1);
    // Said once, not at every check.
    clock.advance(milliseconds(100));
    QVERIFY(l.mark_silent_down().empty());
  }

  void a_worker_never_heard_from_is_not_timed_out() {
    // It may still be starting (loading its graph, waiting for a ps).
    FakeClock clock;
    WorkerLiveness l({0, 1}, kTimeout, kGiveUp, clock.source());
    clock.advance(std::chrono::minutes(10));
    QVERIFY(l.mark_silent_down().empty());
    QVERIFY(l.is_live(0) && l.is_live(1));
    QVERIFY(!l.check_deserted());
  }

  void a_down_worker_that_is_heard_from_again_is_back() {
    FakeClock clock;
    WorkerLiveness l({0}, kTimeout, kGiveUp, clock.source());
    QVERIFY(!l.heard_from(0));  // first contact is no return
    clock.advance(kTimeout);
    QCOMPARE(l.mark_silent_down().size(), std::size_t{1});
    QVERIFY(l.heard_from(0));
    QVERIFY(l.is_live(0));
    QVERIFY(!l.heard_from(0));
    QVERIFY(l.down_workers().empty());
  }

  void finished_workers_are_neither_live_nor_timed_out() {
    FakeClock clock;
    WorkerLiveness l({0, 1}, kTimeout, kGiveUp, clock.source());
    l.heard_from(0);
    l.finished(0);
    clock.advance(kTimeout * 3);
    QVERIFY(l.mark_silent_down().empty());
    QVERIFY(!l.is_live(0));
    QVERIFY(l.is_finished(0));
    QCOMPARE(l.finished_count(), std::size_t{1});
    QVERIFY(!l.all_finished());
    l.finished(1);
    QVERIFY(l.all_finished());
    // Everyone finished is the normal end, not a ps left behind.
    QVERIFY(!l.check_deserted());
  }

  void a_ps_without_live_workers_may_stop_after_the_grace_period() {
    FakeClock clock;
    WorkerLiveness l({0, 1}, kTimeout, kGiveUp, clock.source());
    l.heard_from(0);
    l.heard_from(1);
    l.finished(0);
    QVERIFY(!l.check_deserted());
    clock.advance(kTimeout);
    QCOMPARE(l.mark_silent_down().size(), std::size_t{1});

    auto first = l.check_deserted();
    QVERIFY(first);
    QCOMPARE(first->who, std::string("worker 1 down, worker 0 finished"));
    QVERIFY(first->just_now);
    QVERIFY(!first->give_up);
    clock.advance(kGiveUp - milliseconds(1));
    auto later = l.check_deserted();
    QVERIFY(later && !later->just_now && !later->give_up);
    clock.advance(milliseconds(1));
    QVERIFY(l.check_deserted()->give_up);
  }

  void a_returning_worker_resets_the_grace_period() {
    FakeClock clock;
    WorkerLiveness l({0, 1}, kTimeout, kGiveUp, clock.source());
    l.heard_from(0);
    l.heard_from(1);
    clock.advance(kTimeout);
    QCOMPARE(l.mark_silent_down().size(), std::size_t{2});
    auto deserted = l.check_deserted();
    QVERIFY(deserted && deserted->just_now);
    QCOMPARE(deserted->who, std::string("worker 0, 1 down"));

    clock.advance(kGiveUp / 2);
    QVERIFY(l.heard_from(1));
    QVERIFY(!l.check_deserted());
    // Down again: a fresh grace period, announced again.
    clock.advance(kTimeout);
    QCOMPARE(l.mark_silent_down().size(), std::size_t{1});
    deserted = l.check_deserted();
    QVERIFY(deserted && deserted->just_now && !deserted->give_up);
    clock.advance(kGiveUp / 2);
    QVERIFY(!l.check_deserted()->give_up);
    clock.advance(kGiveUp / 2);
    QVERIFY(l.check_deserted()->give_up);
  }

  void unknown_workers_hold_no_state() {
    FakeClock clock;
    WorkerLiveness l({0}, kTimeout, kGiveUp, clock.source());
    QVERIFY(!l.heard_from(99));
    l.finished(99);
    QCOMPARE(l.finished_count(), std::size_t{0});
    clock.advance(kTimeout);
    QVERIFY(l.mark_silent_down().empty());
  }

  void a_cluster_without_workers_is_never_deserted() {
    FakeClock clock;
    WorkerLiveness l({}, kTimeout, kGiveUp, clock.source());
    QVERIFY(!l.all_finished());
    QVERIFY(!l.check_deserted());
    QCOMPARE(l.live_count(), 0);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestWorkerLiveness)
#include "test_worker_liveness.moc"
