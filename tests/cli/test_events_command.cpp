// flowlens-run events: a TensorBoard log directory summarized per run, with
// damaged records listed by file and offset.
#include "test_main.h"
#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli/cli_runner.h"
#include "engine/event_fixtures.h"
#include "io/tfrecord.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestEventsCommand : public QObject {
  Q_OBJECT

 private slots:
  void summarizes_runs_tags_and_graphs() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("train"));
    QVERIFY(QDir(dir.path()).mkpath("eval"));
    write_file(dir.filePath("train/events.out.tfevents.100.host").toStdString(),
               framed_file_version_event() + framed_scalar_event() + framed_graph_event() +
                   frame_tfrecord(simple_value_event(4.0, 2, "loss", 0.125f)));
    write_file(dir.filePath("eval/events.out.tfevents.100.host").toStdString(),
               frame_tfrecord(file_version_event(1.0)) +
                   frame_tfrecord(tensor_scalar_event(2.0, 3, "accuracy", 0.75f, true)) +
                   frame_tfrecord(tensor_scalar_event(3.0, 3, "weights", 1.0f, true, "pr_curves")));
    const CliResult r = flowlens_run({"events", dir.path()});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("2 run(s)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("run train  (1 file(s), 4 event(s), brain.Event:2)"), qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression("loss +2 point\\(s\\)  last 0.125 at step 2")), qPrintable(r.out));
    QVERIFY2(r.out.contains("graphs: 1") && r.out.contains("step 0: 1 node(s)"), qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression("accuracy +1 point\\(s\\)  last 0.75 at step 3")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression("weights +pr_curves, 1 value\\(s\\)")), qPrintable(r.out));
    QVERIFY(r.out.indexOf("run eval") < r.out.indexOf("run train"));
    QVERIFY(!r.out.contains("problems"));
  }

  void lists_damaged_records_and_fails() {
    QTemporaryDir dir;
    std::string bytes = framed_file_version_event() + framed_scalar_event() + framed_graph_event();
    bytes[40 + 20] ^= 0x10;
    bytes += framed_scalar_event().substr(0, 10);
    const QString file = dir.filePath("events.out.tfevents.7.host");
    write_file(file.toStdString(), bytes);
    const CliResult r = flowlens_run({"events", file});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("problems: 2"), qPrintable(r.out));
    QVERIFY2(r.out.contains(file + "@40: corrupted record at offset 40: data checksum mismatch"), qPrintable(r.out));
    QVERIFY2(r.out.contains(file + "@120: truncated record at offset 120"), qPrintable(r.out));
    QVERIFY2(r.out.contains("step 0: 1 node(s)"), qPrintable(r.out));  // read past the damage
  }

  void unreadable_graph_is_a_problem_not_a_crash() {
    QTemporaryDir dir;
    const QString file = dir.filePath("events.out.tfevents.8.host");
    // graph_def = 4 holding bytes that are no GraphDef.
    write_file(file.toStdString(), framed_file_version_event() +
                                       frame_tfrecord(event_bytes(1.0, 0, field_bytes(4, hex_bytes("ff ff ff")))));
    const CliResult r = flowlens_run({"events", file});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("unreadable GraphDef (3 bytes)"), qPrintable(r.out));
    QVERIFY2(r.out.contains(file + "@40: graph_def:"), qPrintable(r.out));
  }

  void summarizes_the_step_stats_of_run_metadata() {
    QTemporaryDir dir;
    const QString file = dir.filePath("events.out.tfevents.9.host");
    // RunMetadata{step_stats = 1 {dev_stats = 1 {device = 1, node_stats = 2
    // {node_name = 1, all_start_micros = 2, all_end_rel_micros = 5, timeline_label = 8}}}}.
    auto node = [](const char* name, int start, int rel, const char* label) {
      return field_bytes(2, field_bytes(1, name) + field_varint(2, start) + field_varint(5, rel) + field_bytes(8, label));
    };
    const std::string dev = field_bytes(1, "/device:CPU:0") + node("a", 10, 30, "a = MatMul(x, y)") +
                            node("b", 45, 10, "b = Add(a, a)") + node("c", 60, 10, "c = Add(b, a)");
    const std::string metadata = field_bytes(1, field_bytes(1, dev));
    const std::string first = framed_file_version_event() + frame_tfrecord(run_metadata_event(2.0, 7, "step_7", metadata));
    write_file(file.toStdString(), first + frame_tfrecord(run_metadata_event(3.0, 8, "bad", hex_bytes("ff ff"))));
    const CliResult r = flowlens_run({"events", file});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("step_7 at step 7: "), qPrintable(r.out));
    QVERIFY2(r.out.contains("3 node execution(s) on 1 device(s), 0.050 ms; top ops: MatMul 0.030 ms (60.0%), Add "
                            "0.020 ms (40.0%)"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("unreadable RunMetadata"), qPrintable(r.out));
    QVERIFY2(r.out.contains(file + QStringLiteral("@%1: tagged_run_metadata 'bad': not a RunMetadata").arg(first.size())),
             qPrintable(r.out));
  }

  void empty_directory_and_missing_path() {
    QTemporaryDir dir;
    CliResult r = flowlens_run({"events", dir.path()});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("0 run(s)") && r.out.contains("no events.out.tfevents.* files found"), qPrintable(r.out));
    r = flowlens_run({"events", dir.filePath("missing")});
    QVERIFY(r.code != 0);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestEventsCommand)
#include "test_events_command.moc"
