// A worker's own input from .npy files: the name=path and shard-rule parsers
// and path placeholders.
#include <QtTest>

#include "dist/worker_feeds.h"

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

}  // namespace

class TestWorkerFeeds : public QObject {
  Q_OBJECT

 private slots:
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
};

QTEST_GUILESS_MAIN(TestWorkerFeeds)
#include "test_worker_feeds.moc"
