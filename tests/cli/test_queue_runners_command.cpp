// flowlens-run run on graphs with input queues: the queue runners start by
// default and the step gets its input; with --no-queue-runners (or a queue
// nothing fills) the step fails after --queue-timeout with a message naming
// the queue and its filler, and a non-zero exit, never a hang.
#include "test_main.h"
#include <QtTest>

#include <QFile>
#include <QTemporaryDir>

#include "cli/cli_runner.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;

namespace {

// input_producer (FIFOQueueV2, capacity 32) filled by an EnqueueMany of
// [1,2,3]; y = 2 * dequeue. `with_enqueue` false: nothing fills the queue.
QString write_graph(const QTemporaryDir& dir, bool with_enqueue) {
  QString text = R"(
node { name: 'input_producer' op: 'FIFOQueueV2'
  attr { key: 'component_types' value { list { type: DT_FLOAT } } }
  attr { key: 'shapes' value { list { shape { } } } }
  attr { key: 'capacity' value { i: 32 } } }
node { name: 'input_producer/Const' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 1 float_val: 2 float_val: 3 } } } }
node { name: 'x' op: 'QueueDequeueV2' input: 'input_producer'
  attr { key: 'component_types' value { list { type: DT_FLOAT } } } }
node { name: 'two' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: 'y' op: 'Mul' input: 'x' input: 'two' attr { key: 'T' value { type: DT_FLOAT } } }
)";
  if (with_enqueue)
    text += R"(
node { name: 'input_producer/input_producer_EnqueueMany' op: 'QueueEnqueueManyV2' input: 'input_producer'
  input: 'input_producer/Const' attr { key: 'Tcomponents' value { list { type: DT_FLOAT } } } }
node { name: 'input_producer/input_producer_Close' op: 'QueueCloseV2' input: 'input_producer' }
node { name: 'input_producer/input_producer_Close_1' op: 'QueueCloseV2' input: 'input_producer'
  attr { key: 'cancel_pending_enqueues' value { b: true } } }
)";
  const QString path = dir.filePath(with_enqueue ? "queue.pbtxt" : "unfed.pbtxt");
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(text.toUtf8());
  return path;
}

}  // namespace

class TestQueueRunnersCommand : public QObject {
  Q_OBJECT
 private slots:
  void run_starts_the_queue_runners() {
    QTemporaryDir dir;
    const QString graph = write_graph(dir, true);
    CliResult r = flowlens_run({"run", graph, "--fetch", "y", "--steps", "4", "--queue-timeout", "10"}, 60000);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("started 1 queue runner(s) (--no-queue-runners to skip): 'input_producer' (1 thread)"),
             qPrintable(r.err));
    // The runner cycles through 1, 2, 3: the fourth step gets 1 again.
    QVERIFY2(r.out.contains("step 1:\ny = 2\n") && r.out.contains("step 3:\ny = 6\n") && r.out.contains("step 4:\ny = 2\n"),
             qPrintable(r.out));
  }

  void without_runners_the_step_names_the_queue_and_fails() {
    QTemporaryDir dir;
    const QString graph = write_graph(dir, true);
    CliResult r = flowlens_run({"run", graph, "--fetch", "y", "--no-queue-runners", "--queue-timeout", "0.5"}, 60000);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("QueueDequeueV2 'x' waited") &&
                 r.err.contains("on FIFOQueue 'input_producer' (0 of 32 elements, open): nothing enqueued") &&
                 r.err.contains("its enqueue op 'input_producer/input_producer_EnqueueMany' runs only from a queue "
                                "runner: start queue runners (flowlens-run does by default)"),
             qPrintable(r.err));
    QVERIFY(r.err.contains("--no-queue-runners"));
  }

  void an_unfed_queue_fails_after_the_timeout() {
    QTemporaryDir dir;
    const QString graph = write_graph(dir, false);
    CliResult r = flowlens_run({"run", graph, "--fetch", "y", "--queue-timeout", "0.5"}, 60000);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("nothing in the graph enqueues to it") && !r.err.contains("started"), qPrintable(r.err));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestQueueRunnersCommand)
#include "test_queue_runners_command.moc"
