// Sync-round aggregation without a ps: K of N gradient sets per step, stale
// and duplicate sets, workers leaving and returning, and the average summed
// in worker order. No processes, sockets or clocks.
#include "test_main.h"
#include <QtTest>

#include "dist/ps/sync_aggregator.h"

using namespace flowlens;
using namespace flowlens::dist;

namespace {

// Worker `worker`'s gradient for "w" at `step`: [value, 2 * value].
GradientSet gradients(int worker, int64_t step, float value, int k = 2) {
  GradientSet set;
  set.worker = worker;
  set.step = step;
  set.replicas_to_aggregate = k;
  set.gradients.push_back({"w", Tensor::from_vector<float>(Shape{2}, {value, 2 * value})});
  return set;
}

std::vector<float> values(const Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

}  // namespace

class TestSyncAggregator : public QObject {
  Q_OBJECT
 private slots:
  void k_of_n_completes_with_the_first_k_sets() {
    SyncAggregator a({0, 1, 2});
    QVERIFY(a.offer(gradients(2, 0, 3.0f), 0).accepted());
    QVERIFY(!a.complete());
    QVERIFY(a.offer(gradients(0, 0, 1.0f), 0).accepted());
    QVERIFY(a.complete());
    QCOMPARE(a.target(), 2);
    // A third set for a step that already has its two is too late.
    const OfferResult late = a.offer(gradients(1, 0, 5.0f), 0);
    QVERIFY(late.outcome == OfferResult::Outcome::Stale);
    QCOMPARE(late.reason, std::string("gradients of step 0 dropped: that step already has its gradient sets"));

    const AggregatedStep step = a.take();
    QCOMPARE(step.step, int64_t{0});
    QCOMPARE(step.averages.size(), std::size_t{1});
    QCOMPARE(step.averages[0].name, std::string("w"));
    QCOMPARE(values(step.averages[0].value), (std::vector<float>{2.0f, 4.0f}));
    QCOMPARE(a.collected(), std::size_t{0});
    QVERIFY(!a.complete());
  }

  void n_of_n_waits_for_every_worker() {
    SyncAggregator a({0, 1, 2});
    QVERIFY(a.offer(gradients(0, 4, 1.0f, 3), 4).accepted());
    QVERIFY(a.offer(gradients(1, 4, 2.0f, 3), 4).accepted());
    QVERIFY(!a.complete());
    QVERIFY(a.has(0) && a.has(1) && !a.has(2));
    QVERIFY(a.offer(gradients(2, 4, 6.0f, 3), 4).accepted());
    QVERIFY(a.complete());
    QCOMPARE(values(a.take().averages[0].value), (std::vector<float>{3.0f, 6.0f}));
  }

  void k_above_the_worker_count_needs_every_worker() {
    SyncAggregator a({0, 1});
    QVERIFY(a.offer(gradients(0, 0, 1.0f, 5), 0).accepted());
    QCOMPARE(a.target(), 2);
    QVERIFY(a.offer(gradients(1, 0, 1.0f, 5), 0).accepted());
    QVERIFY(a.complete());
  }

  void stale_gradients_are_dropped() {
    SyncAggregator a({0, 1});
    const OfferResult r = a.offer(gradients(0, 3, 1.0f), 5);
    QVERIFY(r.outcome == OfferResult::Outcome::Stale);
    QCOMPARE(r.reason, std::string("gradients of step 3 dropped: the global step is 5"));
    QCOMPARE(a.collected(), std::size_t{0});
  }

  void gradients_ahead_of_the_global_step_are_refused() {
    SyncAggregator a({0, 1});
    const OfferResult r = a.offer(gradients(0, 6, 1.0f), 5);
    QVERIFY(r.outcome == OfferResult::Outcome::Refused);
    QCOMPARE(r.reason, std::string("gradients for step 6, ahead of the global step 5"));
  }

  void a_second_set_of_one_worker_is_refused() {
    SyncAggregator a({0, 1, 2});
    QVERIFY(a.offer(gradients(1, 0, 1.0f, 3), 0).accepted());
    const OfferResult r = a.offer(gradients(1, 0, 9.0f, 3), 0);
    QVERIFY(r.outcome == OfferResult::Outcome::Refused);
    QCOMPARE(r.reason, std::string("worker 1 already pushed gradients for step 0"));
    QCOMPARE(a.collected(), std::size_t{1});
  }

  void a_new_step_drops_an_unfinished_round() {
    // The global step moved on without this round (an async push, or a ps
    // restored from a checkpoint): its sets belong to a step that is gone.
    SyncAggregator a({0, 1});
    QVERIFY(a.offer(gradients(0, 0, 1.0f), 0).accepted());
    QVERIFY(a.offer(gradients(1, 1, 4.0f), 1).accepted());
    QVERIFY(!a.has(0));
    QVERIFY(a.offer(gradients(0, 1, 2.0f), 1).accepted());
    const AggregatedStep step = a.take();
    QCOMPARE(step.step, int64_t{1});
    QCOMPARE(values(step.averages[0].value), (std::vector<float>{3.0f, 6.0f}));
  }

  void a_worker_leaving_and_returning() {
    SyncAggregator a({0, 1});
    QVERIFY(a.offer(gradients(0, 0, 1.0f), 0).accepted());
    QVERIFY(!a.complete());
    // Worker 1 is marked down: the live replica carries on alone.
    a.worker_left(1);
    QVERIFY(a.complete());
    QCOMPARE(a.target(), 1);
    QCOMPARE(values(a.take().averages[0].value), (std::vector<float>{1.0f, 2.0f}));
    QVERIFY(a.offer(gradients(0, 1, 3.0f), 1).accepted());
    QVERIFY(a.complete());
    a.take();
    // Back: the next step waits for it again.
    a.worker_returned(1);
    QVERIFY(a.offer(gradients(0, 2, 1.0f), 2).accepted());
    QVERIFY(!a.complete());
    QVERIFY(a.offer(gradients(1, 2, 5.0f), 2).accepted());
    QVERIFY(a.complete());
    QCOMPARE(values(a.take().averages[0].value), (std::vector<float>{3.0f, 6.0f}));
  }

  void a_finished_worker_in_the_round_still_counts() {
    // Its DONE arrives after its last gradients: the round must not close
    // before the other worker's set for that step.
    SyncAggregator a({0, 1});
    QVERIFY(a.offer(gradients(0, 7, 1.0f), 7).accepted());
    a.worker_left(0);
    QCOMPARE(a.target(), 2);
    QVERIFY(!a.complete());
    QVERIFY(a.offer(gradients(1, 7, 3.0f), 7).accepted());
    QVERIFY(a.complete());
    // The step after that needs only the worker still there.
    a.take();
    QVERIFY(a.offer(gradients(1, 8, 3.0f), 8).accepted());
    QVERIFY(a.complete());
  }

  void the_average_sums_in_worker_order_over_every_variable() {
    SyncAggregator a({0, 1});
    GradientSet first = gradients(1, 0, 2.0f);
    first.gradients.push_back({"b", Tensor::scalar<float>(10.0f)});
    GradientSet second = gradients(0, 0, 4.0f);
    second.gradients.insert(second.gradients.begin(), {"b", Tensor::scalar<float>(20.0f)});
    QVERIFY(a.offer(std::move(first), 0).accepted());
    QVERIFY(a.offer(std::move(second), 0).accepted());
    const AggregatedStep step = a.take();
    // In the lowest worker's order: worker 0 named "b" first.
    QCOMPARE(step.averages.size(), std::size_t{2});
    QCOMPARE(step.averages[0].name, std::string("b"));
    QCOMPARE(values(step.averages[0].value), (std::vector<float>{15.0f}));
    QCOMPARE(step.averages[1].name, std::string("w"));
    QCOMPARE(values(step.averages[1].value), (std::vector<float>{3.0f, 6.0f}));
  }

  void unknown_workers_never_count_as_away() {
    SyncAggregator a({0, 1});
    a.worker_left(7);
    QVERIFY(a.offer(gradients(0, 0, 1.0f), 0).accepted());
    QCOMPARE(a.target(), 2);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestSyncAggregator)
#include "test_sync_aggregator.moc"
