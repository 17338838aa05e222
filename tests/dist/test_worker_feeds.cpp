// A worker's own input from .npy files: the name=path and shard-rule parsers,
// path placeholders, the three shard rules, wraparound into the next epoch,
// and the errors for files that do not fit. Fixtures are written with the
// engine's write_npy into a temporary folder; no processes or sockets.
#include "test_main.h"
#include <QtTest>

#include <numeric>

#include "dist/worker/worker_feeds.h"
#include "tensor/npy.h"

using namespace flowlens;
using namespace flowlens::dist;

namespace {

// Error's text for `f()`, or "" when it did not throw.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// 0, 1, ..., rows*cols-1 as a [rows, cols] (or [rows] when cols == 0) tensor.
template <class T>
Tensor iota(int64_t rows, int64_t cols, T offset = T{}) {
  const int64_t n = rows * (cols ? cols : 1);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>(i) + offset;
  return Tensor::from_vector<T>(cols ? Shape{rows, cols} : Shape{rows}, v);
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
  auto s = t.values<T>();
  return {s.begin(), s.end()};
}

// Rows of a [n, cols] tensor built by iota: row r holds r*cols .. r*cols+cols-1.
template <class T>
std::vector<T> rows_of(std::initializer_list<int64_t> rows, int64_t cols, T offset = T{}) {
  std::vector<T> out;
  for (int64_t r : rows)
    for (int64_t c = 0; c < (cols ? cols : 1); ++c) out.push_back(static_cast<T>(r * (cols ? cols : 1) + c) + offset);
  return out;
}

}  // namespace

class TestWorkerFeeds : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::string path(const std::string& name) { return dir_.filePath(QString::fromStdString(name)).toStdString(); }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void parses_name_equals_path() {
    FeedSpec s = parse_feed_spec("features=data/x.npy");
    QCOMPARE(s.tensor, std::string("features"));
    QCOMPARE(s.path_pattern, std::string("data/x.npy"));
    // Split at the first '=': tensor names have none, paths may.
    s = parse_feed_spec("x:0=runs/a=b/shard_{task}.npy");
    QCOMPARE(s.tensor, std::string("x:0"));
    QCOMPARE(s.path_pattern, std::string("runs/a=b/shard_{task}.npy"));
    s = parse_feed_spec("y=s_{index}_of_{workers}.npy");
    QCOMPARE(s.path_pattern, std::string("s_{index}_of_{workers}.npy"));
  }

  void rejects_bad_feed_specs() {
    std::string e = error_of([] { parse_feed_spec("features.npy"); });
    QVERIFY2(contains(e, "'features.npy'") && contains(e, "name=path") && contains(e, "no '='"), e.c_str());
    e = error_of([] { parse_feed_spec("=x.npy"); });
    QVERIFY2(contains(e, "'=x.npy'") && contains(e, "name") && contains(e, "empty"), e.c_str());
    e = error_of([] { parse_feed_spec("x="); });
    QVERIFY2(contains(e, "'x='") && contains(e, "path") && contains(e, "empty"), e.c_str());
    e = error_of([] { parse_feed_spec("x=shard_{rank}.npy"); });
    QVERIFY2(contains(e, "'x=shard_{rank}.npy'") && contains(e, "unknown placeholder '{rank}'") &&
                 contains(e, "{task}, {index}, {workers}"),
             e.c_str());
    e = error_of([] { parse_feed_spec("x=shard_{task.npy"); });
    QVERIFY2(contains(e, "unterminated placeholder '{task.npy'"), e.c_str());
  }

  void expands_placeholders() {
    QCOMPARE(expand_feed_path("d/{task}/{index}_of_{workers}.npy", 3, 1, 2), std::string("d/3/1_of_2.npy"));
    QCOMPARE(expand_feed_path("{task}{task}", 7, 0, 8), std::string("77"));
    QCOMPARE(expand_feed_path("plain/path.npy", 1, 1, 2), std::string("plain/path.npy"));
    QCOMPARE(expand_feed_path("", 0, 0, 1), std::string(""));
    const std::string e = error_of([] { expand_feed_path("a_{Task}.npy", 0, 0, 1); });
    QVERIFY2(contains(e, "'a_{Task}.npy'") && contains(e, "'{Task}'"), e.c_str());
  }

  void parses_shard_rules() {
    QCOMPARE(parse_shard_rule("none"), ShardRule::None);
    QCOMPARE(parse_shard_rule("contiguous"), ShardRule::Contiguous);
    QCOMPARE(parse_shard_rule("strided"), ShardRule::Strided);
    for (ShardRule r : {ShardRule::None, ShardRule::Contiguous, ShardRule::Strided})
      QCOMPARE(parse_shard_rule(to_string(r)), r);
    const std::string e = error_of([] { parse_shard_rule("Strided"); });
    QVERIFY2(contains(e, "'Strided'") && contains(e, "none, contiguous or strided"), e.c_str());
    QVERIFY(!error_of([] { parse_shard_rule(""); }).empty());
  }

  // Per-worker files: worker task 1 reads shard_1.npy whole, in order,
  // wrapping to its first row after the last.
  void rule_none_reads_the_workers_own_file_and_wraps() {
    write_npy(iota<int32_t>(5, 2), path("shard_0.npy"));
    write_npy(iota<int32_t>(5, 2, 100), path("shard_1.npy"));
    WorkerFeeds feeds({parse_feed_spec("x=" + path("shard_{task}.npy"))}, 1, 2, 1, 2, ShardRule::None);
    QCOMPARE(feeds.rows(), int64_t{5});
    QCOMPARE(feeds.epoch(), int64_t{0});
    QCOMPARE(feeds.paths(), std::vector<std::string>{path("shard_1.npy")});
    const std::vector<std::vector<int64_t>> expected = {{0, 1}, {2, 3}, {4, 0}, {1, 2}, {3, 4}, {0, 1}};
    const std::vector<int64_t> epochs = {0, 0, 1, 1, 2, 2};
    for (std::size_t step = 0; step < expected.size(); ++step) {
      FeedList batch = feeds.next_batch();
      QCOMPARE(batch.size(), std::size_t{1});
      QCOMPARE(batch[0].first, std::string("x"));
      QCOMPARE(batch[0].second.dtype(), DType::Int32);
      QCOMPARE(batch[0].second.shape(), (Shape{2, 2}));
      const auto& r = expected[step];
      QCOMPARE(values_of<int32_t>(batch[0].second), rows_of<int32_t>({r[0], r[1]}, 2, 100));
      QCOMPARE(feeds.epoch(), epochs[step]);
    }
  }

  // A shared file split in N consecutive ranges, the last taking the
  // remainder's share: 10 rows over 3 workers are [0,3), [3,6), [6,10).
  // Two feeds stay row-aligned.
  void rule_contiguous_takes_the_workers_range() {
    write_npy(iota<float>(10, 3, 0.5f), path("shared_x.npy"));
    write_npy(iota<int32_t>(10, 0), path("shared_y.npy"));
    const std::vector<FeedSpec> specs = {parse_feed_spec("features=" + path("shared_x.npy")),
                                         parse_feed_spec("labels=" + path("shared_y.npy"))};
    const int64_t expected_rows[] = {3, 3, 4};
    const int64_t expected_first[] = {0, 3, 6};
    for (int rank = 0; rank < 3; ++rank) {
      WorkerFeeds feeds(specs, rank, 3, rank, 3, ShardRule::Contiguous);
      QCOMPARE(feeds.rows(), expected_rows[rank]);
      FeedList b = feeds.next_batch();
      QCOMPARE(b.size(), std::size_t{2});
      QCOMPARE(b[0].first, std::string("features"));
      QCOMPARE(b[1].first, std::string("labels"));
      QCOMPARE(b[0].second.shape(), (Shape{3, 3}));
      QCOMPARE(b[1].second.shape(), (Shape{3}));
      const int64_t f = expected_first[rank];
      QCOMPARE(values_of<float>(b[0].second), rows_of<float>({f, f + 1, f + 2}, 3, 0.5f));
      QCOMPARE(values_of<int32_t>(b[1].second), rows_of<int32_t>({f, f + 1, f + 2}, 0));
    }
    // The last worker's 4 rows wrap: 6 7 8 | 9 6 7 | 8 9 6.
    WorkerFeeds last(specs, 2, 3, 2, 3, ShardRule::Contiguous);
    last.next_batch();
    FeedList b = last.next_batch();
    QCOMPARE(values_of<int32_t>(b[1].second), (std::vector<int32_t>{9, 6, 7}));
    QCOMPARE(values_of<float>(b[0].second), rows_of<float>({9, 6, 7}, 3, 0.5f));
    QCOMPARE(last.epoch(), int64_t{1});
    b = last.next_batch();
    QCOMPARE(values_of<int32_t>(b[1].second), (std::vector<int32_t>{8, 9, 6}));
    QCOMPARE(last.epoch(), int64_t{2});
  }

  // Rows rank, rank+N, ...: 10 rows over 3 workers give worker 0 rows
  // 0 3 6 9, worker 1 rows 1 4 7, worker 2 rows 2 5 8.
  void rule_strided_takes_every_nth_row() {
    write_npy(iota<int64_t>(10, 0, 1000), path("strided_1d.npy"));
    write_npy(iota<float>(10, 2), path("strided_2d.npy"));
    const std::vector<FeedSpec> specs = {parse_feed_spec("ids=" + path("strided_1d.npy")),
                                         parse_feed_spec("x=" + path("strided_2d.npy"))};
    WorkerFeeds w0(specs, 0, 3, 0, 4, ShardRule::Strided);
    QCOMPARE(w0.rows(), int64_t{4});
    FeedList b = w0.next_batch();
    QCOMPARE(values_of<int64_t>(b[0].second), (std::vector<int64_t>{1000, 1003, 1006, 1009}));
    QCOMPARE(values_of<float>(b[1].second), rows_of<float>({0, 3, 6, 9}, 2));
    QCOMPARE(w0.epoch(), int64_t{1});

    WorkerFeeds w1(specs, 1, 3, 1, 2, ShardRule::Strided);
    QCOMPARE(w1.rows(), int64_t{3});
    const std::vector<std::vector<int64_t>> expected = {{1, 4}, {7, 1}, {4, 7}, {1, 4}};
    for (const auto& r : expected) {
      b = w1.next_batch();
      QCOMPARE(values_of<int64_t>(b[0].second), (std::vector<int64_t>{1000 + r[0], 1000 + r[1]}));
      QCOMPARE(values_of<float>(b[1].second), rows_of<float>({r[0], r[1]}, 2));
    }
    QCOMPARE(w1.epoch(), int64_t{2});

    WorkerFeeds w2(specs, 2, 3, 2, 3, ShardRule::Strided);
    QCOMPARE(w2.rows(), int64_t{3});
    QCOMPARE(values_of<int64_t>(w2.next_batch()[0].second), (std::vector<int64_t>{1002, 1005, 1008}));
  }

  // String files (numpy 'S' arrays) batch the same way.
  void string_rows_are_copied() {
    write_npy(Tensor::from_strings(Shape{4}, {"a", "bb", "ccc", "dddd"}), path("words.npy"));
    WorkerFeeds feeds({parse_feed_spec("w=" + path("words.npy"))}, 1, 2, 1, 2, ShardRule::Strided);
    QCOMPARE(feeds.next_batch()[0].second.strings(), (std::vector<std::string>{"bb", "dddd"}));
    QCOMPARE(feeds.next_batch()[0].second.strings(), (std::vector<std::string>{"bb", "dddd"}));
    QCOMPARE(feeds.epoch(), int64_t{2});
  }

  // Every run hands out the same batches, each in storage of its own.
  void batches_are_deterministic_and_own_their_storage() {
    write_npy(iota<float>(7, 3), path("det.npy"));
    const std::vector<FeedSpec> specs = {parse_feed_spec("x=" + path("det.npy"))};
    WorkerFeeds a(specs, 0, 1, 0, 3, ShardRule::Contiguous), b(specs, 0, 1, 0, 3, ShardRule::Contiguous);
    std::vector<Tensor> kept;
    for (int step = 0; step < 10; ++step) {
      Tensor ta = a.next_batch()[0].second, tb = b.next_batch()[0].second;
      QVERIFY(ta.equals(tb));
      QVERIFY(!ta.shares_buffer_with(tb));
      kept.push_back(ta);
    }
    // Step 7 starts at row 7*3 mod 7 = 0 again, so it repeats step 0, and
    // later batches did not overwrite earlier ones.
    QVERIFY(kept[7].equals(kept[0]));
    QCOMPARE(values_of<float>(kept[0]), rows_of<float>({0, 1, 2}, 3));
    QCOMPARE(values_of<float>(kept[2]), rows_of<float>({6, 0, 1}, 3));
  }

  // Rows are compared after sharding: 10 and 9 rows split evenly for worker
  // 0 of 2 (5 and 5) but not for worker 1 (5 and 4).
  void mismatched_rows_name_both_files() {
    write_npy(iota<float>(10, 2), path("ten.npy"));
    write_npy(iota<int32_t>(9, 0), path("nine.npy"));
    const std::vector<FeedSpec> specs = {parse_feed_spec("x=" + path("ten.npy")),
                                         parse_feed_spec("y=" + path("nine.npy"))};
    QCOMPARE(WorkerFeeds(specs, 0, 2, 0, 1, ShardRule::Strided).rows(), int64_t{5});
    std::string e = error_of([&] { WorkerFeeds(specs, 1, 2, 1, 1, ShardRule::Strided); });
    QVERIFY2(contains(e, path("ten.npy")) && contains(e, path("nine.npy")) && contains(e, "has 5") &&
                 contains(e, "has 4") && contains(e, "of 10") && contains(e, "of 9"),
             e.c_str());
    e = error_of([&] { WorkerFeeds(specs, 0, 1, 0, 1, ShardRule::None); });
    QVERIFY2(contains(e, "'x'") && contains(e, "'y'") && contains(e, "has 10") && contains(e, "has 9"), e.c_str());
  }

  void shard_smaller_than_a_batch_names_file_rows_and_shard() {
    write_npy(iota<float>(5, 2), path("five.npy"));
    const std::vector<FeedSpec> specs = {parse_feed_spec("x=" + path("five.npy"))};
    std::string e = error_of([&] { WorkerFeeds(specs, 0, 2, 0, 3, ShardRule::Contiguous); });
    QVERIFY2(contains(e, path("five.npy")) && contains(e, "rows [0, 2) of 5") && contains(e, "worker 0 of 2") &&
                 contains(e, "has 2 rows") && contains(e, "batch of 3"),
             e.c_str());
    // The whole file is one batch exactly: fine, every step is one epoch.
    WorkerFeeds whole(specs, 0, 1, 0, 5, ShardRule::None);
    whole.next_batch();
    QCOMPARE(whole.epoch(), int64_t{1});
    e = error_of([&] { WorkerFeeds(specs, 0, 1, 0, 6, ShardRule::None); });
    QVERIFY2(contains(e, "all 5 rows") && contains(e, "batch of 6"), e.c_str());
    // More workers than rows: a strided worker past the end gets none.
    e = error_of([&] { WorkerFeeds(specs, 6, 7, 6, 1, ShardRule::Strided); });
    QVERIFY2(contains(e, "has 0 rows") && contains(e, "worker 6 of 7"), e.c_str());
  }

  void missing_file_names_the_path() {
    const std::string missing = path("no_such_shard_3.npy");
    const std::string e = error_of([&] {
      WorkerFeeds({parse_feed_spec("x=" + path("no_such_shard_{task}.npy"))}, 0, 4, 3, 1, ShardRule::None);
    });
    QVERIFY2(contains(e, "'x'") && contains(e, missing), e.c_str());
  }

  void rejects_bad_arguments() {
    write_npy(iota<float>(4, 1), path("four.npy"));
    write_npy(Tensor::scalar<float>(1.f), path("scalar.npy"));
    const FeedSpec four = parse_feed_spec("x=" + path("four.npy"));
    std::string e = error_of([&] { WorkerFeeds({}, 0, 1, 0, 1, ShardRule::None); });
    QVERIFY2(contains(e, "no feeds"), e.c_str());
    e = error_of([&] { WorkerFeeds({four, four}, 0, 1, 0, 1, ShardRule::None); });
    QVERIFY2(contains(e, "'x'") && contains(e, "twice"), e.c_str());
    e = error_of([&] { WorkerFeeds({four}, 2, 2, 0, 1, ShardRule::None); });
    QVERIFY2(contains(e, "rank 2"), e.c_str());
    e = error_of([&] { WorkerFeeds({four}, 0, 0, 0, 1, ShardRule::None); });
    QVERIFY2(contains(e, "0 workers"), e.c_str());
    e = error_of([&] { WorkerFeeds({four}, 0, 1, 0, 0, ShardRule::None); });
    QVERIFY2(contains(e, "batch 0"), e.c_str());
    e = error_of([&] { WorkerFeeds({parse_feed_spec("s=" + path("scalar.npy"))}, 0, 1, 0, 1, ShardRule::None); });
    QVERIFY2(contains(e, path("scalar.npy")) && contains(e, "scalar"), e.c_str());
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestWorkerFeeds)
#include "test_worker_feeds.moc"
