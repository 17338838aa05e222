// The statistics every benchmark prints with (bench_util.h): pair ratios,
// alternating order, spread, and that a cost can never print as a speed-up.
#include "test_main.h"
#include <QtTest>

#include <string>

#include "bench_util.h"

using namespace flowlens::bench;

class BenchStatsTest : public QObject {
  Q_OBJECT
 private slots:
  void quantiles_interpolate() {
    QCOMPARE(median({3, 1, 2}), 2.0);
    QCOMPARE(median({4, 1, 3, 2}), 2.5);
    QCOMPARE(quantile({1, 2, 3, 4, 5}, 0.25), 2.0);
    QCOMPARE(spread({1, 2, 3, 4, 5}), 1.0);  // (4 - 2) / 2
    QCOMPARE(spread({7}), 0.0);
    QCOMPARE(median({}), 0.0);
  }

  void rounds_alternate_after_the_same_warm_up() {
    std::string order;
    auto a = [&] { order += 'a'; };
    auto b = [&] { order += 'b'; };
    const auto times = rotated_rounds(4, {a, b}, 2);
    QCOMPARE(order, std::string("ab" "ba" "ab" "ba" "ab" "ba"));  // 2 warm-up rounds, then 4 timed
    QCOMPARE(times.size(), std::size_t{2});
    QCOMPARE(times[0].size(), std::size_t{4});
    order.clear();
    auto c = [&] { order += 'c'; };
    rotated_rounds(3, {a, b, c}, 0);
    QCOMPARE(order, std::string("abc" "bca" "cab"));  // each follows each other equally often
  }

  void ratios_are_taken_within_pairs() {
    // The machine slowed down 3x in the middle pair: per-pair ratios ignore it.
    Comparison c{{1.0, 3.0, 1.0}, {1.1, 3.3, 1.1}};
    QCOMPARE(c.pairs(), 3);
    QVERIFY(std::abs(c.time_ratio() - 1.1) < 1e-12);
    QVERIFY(std::abs(c.speed_ratio() - 1 / 1.1) < 1e-12);
    QVERIFY(c.time_ratio_spread() < 1e-12);
    QCOMPARE(c.baseline_median(), 1.0);
  }

  void noise_is_named_when_the_spread_reaches_the_effect() {
    QCOMPARE(ratio_text(1.02, 0.03), std::string("1.020 ± 0.030 (noise)"));
    QCOMPARE(ratio_text(1.10, 0.01), std::string("1.100 ± 0.010"));
    QCOMPARE(ratio_text(0.90, 0.10), std::string("0.900 ± 0.100 (noise)"));
  }

  void a_cost_never_prints_as_a_speed_up() {
    // Time ratios: below 1 means "faster with the extra work".
    QCOMPARE(cost_text(1.05, 0.01, false), std::string("1.050 ± 0.010"));
    QCOMPARE(cost_text(0.99, 0.02, false), std::string("1.000 ± 0.020 (noise: measured 0.990)"));
    QVERIFY(cost_text(0.65, 0.02, false).starts_with("invalid (measured 0.650"));
    // Throughput ratios: above 1 is the impossible side.
    QCOMPARE(cost_text(0.93, 0.01, true), std::string("0.930 ± 0.010"));
    QCOMPARE(cost_text(1.01, 0.02, true), std::string("1.000 ± 0.020 (noise: measured 1.010)"));
    QVERIFY(cost_text(1.20, 0.02, true).starts_with("invalid"));
    // Through a Comparison: attached runs 1.5x faster in every pair.
    Comparison flattering{{1.5, 1.5, 1.5}, {1.0, 1.0, 1.0}};
    QVERIFY(overhead_text(flattering).starts_with("invalid"));
    QVERIFY(throughput_cost_text(flattering).starts_with("invalid"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(BenchStatsTest)
#include "test_stats.moc"
