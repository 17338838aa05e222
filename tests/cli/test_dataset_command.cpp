// flowlens-run train and run --steps on a graph fed by a tf.data pipeline:
// the end of the input (OutOfRange "End of sequence") ends the loop cleanly.
#include "test_main.h"
#include <QtTest>

#include "cli/cli_runner.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;

namespace {

QString data(const char* name) { return QStringLiteral(FLOWLENS_TEST_DATA "/datasets/") + name; }

int count_lines(const QString& text, const QString& pattern) {
  const QRegularExpression re(pattern, QRegularExpression::MultilineOption);
  int n = 0;
  for (auto it = re.globalMatch(text); it.hasNext(); it.next()) ++n;
  return n;
}

}  // namespace

class TestDatasetCommand : public QObject {
  Q_OBJECT
 private slots:
  void train_stops_cleanly_at_the_end_of_the_input() {
    const CliResult r = flowlens_run({"train", data("linear_train.pbtxt"), "--steps", "10", "--lr", "0.01"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("initialized 1 iterator(s)"), qPrintable(r.err));
    // 8 examples in batches of 4: two steps ran, then the input ended.
    QCOMPARE(count_lines(r.out, QStringLiteral(R"(^step \d+: loss )")), 2);
    QVERIFY2(r.err.contains("input ended after 2 step(s): ") && r.err.contains("End of sequence"), qPrintable(r.err));
    QVERIFY2(r.err.contains("2 steps in "), qPrintable(r.err));
  }

  void train_with_fewer_steps_than_input_does_not_mention_the_end() {
    const CliResult r = flowlens_run({"train", data("linear_train.pbtxt"), "--steps", "1", "--lr", "0.01"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(count_lines(r.out, QStringLiteral(R"(^step \d+: loss )")), 1);
    QVERIFY(!r.err.contains("input ended"));
  }

  void run_steps_stops_at_the_end_of_the_input() {
    const CliResult r = flowlens_run({"run", data("linear_train.pbtxt"), "--init", "MakeIterator", "--fetch",
                                      "IteratorGetNext:1", "--steps", "5"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(count_lines(r.out, QStringLiteral(R"(^step \d+:$)")), 2);
    QVERIFY2(r.out.contains("15"), qPrintable(r.out));  // the last label, in the second batch
    QVERIFY2(r.err.contains("input ended after 2 step(s)"), qPrintable(r.err));
  }

  void a_single_run_past_the_end_is_an_error() {
    // Without the initializer the iterator has no dataset: an error, not the end.
    const CliResult r = flowlens_run({"run", data("linear_train.pbtxt"), "--fetch", "IteratorGetNext"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("has not been initialized"), qPrintable(r.err));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestDatasetCommand)
#include "test_dataset_command.moc"
