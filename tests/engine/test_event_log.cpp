// TensorBoard event files and log directories, from events assembled byte by
// byte (engine/event_fixtures.h): file_version, legacy simple_value scalars,
// TF2 tensor scalars whose plugin metadata comes only with a tag's first
// value, graphs, run metadata; corrupt and truncated files; sniffing.
#include "test_main.h"
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

#include "common/error.h"
#include "engine/event_fixtures.h"
#include "io/event_log.h"
#include "io/tfrecord.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

std::string join(const QTemporaryDir& dir, const QString& rel) { return dir.filePath(rel).toStdString(); }

std::string problems_text(const std::vector<EventProblem>& problems) {
  std::string out;
  for (const auto& p : problems) out += p.to_string() + "\n";
  return out;
}

}  // namespace

class TestEventLog : public QObject {
  Q_OBJECT

 private slots:
  void reads_hand_assembled_events() {
    QTemporaryDir dir;
    const std::string path = join(dir, "events.out.tfevents.1700000000.host.1.v2");
    write_file(path, framed_file_version_event() + framed_scalar_event() + framed_graph_event());
    const EventLog log = read_event_file(path);
    QCOMPARE(log.runs.size(), std::size_t{1});
    const EventRun& run = log.runs[0];
    QVERIFY2(run.problems.empty(), problems_text(run.problems).c_str());
    QCOMPARE(run.name, std::string("."));
    QCOMPARE(run.file_version, std::string("brain.Event:2"));
    QCOMPARE(run.events, int64_t{3});
    QCOMPARE(run.scalars.size(), std::size_t{1});
    const auto& loss = run.scalars.at("loss");
    QCOMPARE(loss.size(), std::size_t{1});
    QCOMPARE(loss[0].step, int64_t{1});
    QCOMPARE(loss[0].wall_time, 2.0);
    QCOMPARE(loss[0].value, 0.25);
    QCOMPARE(run.graphs.size(), std::size_t{1});
    QCOMPARE(run.graphs[0].offset, uint64_t{82});
    QCOMPARE(run.graphs[0].wall_time, 3.0);
    const Graph graph = parse_event_graph(run.graphs[0]);
    QCOMPARE(graph.size(), std::size_t{1});
    QCOMPARE(graph.nodes().front().op, std::string("NoOp"));
  }

  void tensor_scalars_remember_the_first_values_metadata() {
    QTemporaryDir dir;
    const std::string path = join(dir, "events.out.tfevents.1.h");
    std::string bytes = frame_tfrecord(file_version_event(10.0));
    bytes += frame_tfrecord(tensor_scalar_event(11.0, 0, "epoch_loss", 0.5f, true));
    bytes += frame_tfrecord(tensor_scalar_event(12.0, 1, "epoch_loss", 0.375f, false));
    // No plugin known for this tag: a tensor, not a scalar.
    bytes += frame_tfrecord(tensor_scalar_event(13.0, 1, "raw", 7.0f, false));
    bytes += frame_tfrecord(tensor_scalar_event(14.0, 1, "words", 1.0f, true, "text"));
    bytes += frame_tfrecord(run_metadata_event(15.0, 3, "step3", "\x01\x02\x03"));
    bytes += frame_tfrecord(event_bytes(16.0, 4, field_bytes(9, "meta")));
    write_file(path, bytes);
    const EventLog log = read_event_file(path);
    const EventRun& run = log.runs.at(0);
    QVERIFY2(run.problems.empty(), problems_text(run.problems).c_str());
    QCOMPARE(run.scalars.size(), std::size_t{1});
    const auto& series = run.scalars.at("epoch_loss");
    QCOMPARE(series.size(), std::size_t{2});
    QCOMPARE(series[0].value, 0.5);
    QCOMPARE(series[1].value, 0.375);
    QCOMPARE(series[1].step, int64_t{1});
    QCOMPARE(series[1].wall_time, 12.0);
    QCOMPARE(run.other_tags.at("raw").kind, std::string("tensor"));
    QCOMPARE(run.other_tags.at("words").kind, std::string("text"));
    QCOMPARE(run.other_tags.at("words").count, int64_t{1});
    QCOMPARE(run.run_metadata.size(), std::size_t{1});
    QCOMPARE(run.run_metadata[0].tag, std::string("step3"));
    QCOMPARE(run.run_metadata[0].step, int64_t{3});
    QCOMPARE(run.run_metadata[0].bytes, std::string("\x01\x02\x03"));
    QCOMPARE(run.meta_graphs.size(), std::size_t{1});
    QCOMPARE(run.meta_graphs[0].bytes, std::string("meta"));
    QCOMPARE(run.meta_graphs[0].step, int64_t{4});
  }

  void non_scalar_tensor_under_scalars_plugin_is_a_problem() {
    // tensor {dtype: DT_FLOAT, tensor_shape {dim {size: 2}}, float_val: [1, 2]}
    std::string packed = hex_bytes("00 00 80 3f 00 00 00 40");
    const std::string tensor =
        field_varint(1, 1) + field_bytes(2, field_bytes(2, field_varint(1, 2))) + field_bytes(5, packed);
    const std::string value = field_bytes(1, "acc") + field_bytes(9, field_bytes(1, field_bytes(1, "scalars"))) +
                              field_bytes(8, tensor);
    std::string bytes = frame_tfrecord(file_version_event(1.0));
    const uint64_t offset = bytes.size();
    bytes += frame_tfrecord(event_bytes(2.0, 5, field_bytes(5, field_bytes(1, value))));
    QTemporaryDir dir;
    const std::string path = join(dir, "events.out.tfevents.2.h");
    write_file(path, bytes);
    const EventRun run = read_event_file(path).runs.at(0);
    QVERIFY(run.scalars.empty());
    QCOMPARE(run.problems.size(), std::size_t{1});
    QCOMPARE(run.problems[0].offset, offset);
    QCOMPARE(run.problems[0].file, path);
    QVERIFY2(run.problems[0].what.find("'acc'") != std::string::npos &&
                 run.problems[0].what.find("rank-1") != std::string::npos,
             run.problems[0].what.c_str());
  }

  void corrupt_record_reported_and_later_ones_read() {
    std::string bytes = framed_file_version_event() + framed_scalar_event() + framed_graph_event();
    bytes[40 + 20] ^= 0x10;  // inside the scalar event's data
    // Then a record that frames fine but is no protobuf (a truncated varint),
    // and a truncated tail.
    bytes += frame_tfrecord(hex_bytes("10 ff ff"));
    const uint64_t bad_proto = 120;
    bytes += framed_scalar_event().substr(0, 20);
    QTemporaryDir dir;
    const std::string path = join(dir, "events.out.tfevents.3.h");
    write_file(path, bytes);
    const EventRun run = read_event_file(path).runs.at(0);
    QCOMPARE(run.events, int64_t{2});
    QCOMPARE(run.graphs.size(), std::size_t{1});
    QVERIFY(run.scalars.empty());
    QCOMPARE(run.problems.size(), std::size_t{3});
    const std::string text = problems_text(run.problems);
    QVERIFY2(run.problems[0].offset == 40 && run.problems[0].what.find("data checksum") != std::string::npos,
             text.c_str());
    QVERIFY2(run.problems[1].offset == bad_proto && run.problems[1].what.find("not an Event") != std::string::npos,
             text.c_str());
    QVERIFY2(run.problems[2].offset == bad_proto + 19 && run.problems[2].what.find("truncated") != std::string::npos,
             text.c_str());
  }

  void every_single_byte_damage_is_reported_not_thrown() {
    const std::string good = framed_file_version_event() + framed_scalar_event() + framed_graph_event() +
                             frame_tfrecord(tensor_scalar_event(4.0, 2, "acc", 0.5f, true));
    QTemporaryDir dir;
    const std::string path = join(dir, "events.out.tfevents.9.h");
    for (std::size_t i = 0; i < good.size(); ++i) {
      for (unsigned char flip : {0x01, 0x80, 0xff}) {
        std::string bytes = good;
        bytes[i] = static_cast<char>(bytes[i] ^ flip);
        write_file(path, bytes);
        const EventRun run = read_event_file(path).runs.at(0);
        // CRC-32C catches every change of up to 8 bits in one byte: the damaged
        // record is reported, the records before it are read.
        QVERIFY2(!run.problems.empty(), qPrintable(QString("byte %1 ^ %2").arg(i).arg(flip)));
        QVERIFY(run.events >= (i < 40 ? 0 : 1));
      }
    }
  }

  void log_directory_with_two_runs() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("train"));
    QVERIFY(QDir(dir.path()).mkpath("eval/nested"));
    QVERIFY(QDir(dir.path()).mkpath("empty"));
    // train: two files, read in name order whatever the creation order.
    write_file(join(dir, "train/events.out.tfevents.200.host"),
               frame_tfrecord(file_version_event(200)) + frame_tfrecord(simple_value_event(201, 2, "loss", 0.5f)));
    write_file(join(dir, "train/events.out.tfevents.100.host"),
               framed_file_version_event() + framed_scalar_event() + framed_graph_event());
    write_file(join(dir, "train/notes.txt"), "not an event file");
    write_file(join(dir, "eval/nested/events.out.tfevents.300.host.v2"),
               frame_tfrecord(file_version_event(300)) + frame_tfrecord(tensor_scalar_event(301, 7, "acc", 0.75f, true)));
    write_file(join(dir, "empty/other.bin"), "x");

    const EventLog log = read_log_directory(dir.path().toStdString());
    QVERIFY2(log.all_problems().empty(), problems_text(log.all_problems()).c_str());
    QCOMPARE(log.runs.size(), std::size_t{2});
    QCOMPARE(log.runs[0].name, std::string("eval/nested"));
    QCOMPARE(log.runs[1].name, std::string("train"));
    const EventRun* train = log.find_run("train");
    QVERIFY(train);
    QCOMPARE(train->files.size(), std::size_t{2});
    QVERIFY(has_event_file_name(train->files[0]) && train->files[0].find("tfevents.100") != std::string::npos);
    const auto& loss = train->scalars.at("loss");
    QCOMPARE(loss.size(), std::size_t{2});
    QCOMPARE(loss[0].step, int64_t{1});
    QCOMPARE(loss[1].step, int64_t{2});
    QCOMPARE(train->graphs.size(), std::size_t{1});
    QCOMPARE(train->events, int64_t{5});
    const EventRun* eval = log.find_run("eval/nested");
    QVERIFY(eval);
    QCOMPARE(eval->scalars.at("acc").at(0).value, 0.75);
    QCOMPARE(eval->scalars.at("acc").at(0).step, int64_t{7});
    QVERIFY(!log.find_run("empty"));

    // Files directly in the log directory make the run ".".
    write_file(join(dir, "events.out.tfevents.1.host"), framed_file_version_event());
    const EventLog again = read_log_directory(dir.path().toStdString());
    QCOMPARE(again.runs.size(), std::size_t{3});
    QCOMPARE(again.runs[0].name, std::string("."));
  }

  void missing_paths_throw() {
    QTemporaryDir dir;
    QVERIFY_THROWS_EXCEPTION(Error, read_log_directory(join(dir, "nope")));
    QVERIFY_THROWS_EXCEPTION(Error, read_event_file(join(dir, "nope")));
    QVERIFY_THROWS_EXCEPTION(Error, read_event_file(dir.path().toStdString()));
    write_file(join(dir, "f"), "x");
    QVERIFY_THROWS_EXCEPTION(Error, read_log_directory(join(dir, "f")));
  }

  void sniffing() {
    QVERIFY(has_event_file_name("/logs/run1/events.out.tfevents.1700000000.host.123.0.v2"));
    QVERIFY(has_event_file_name("events.out.tfevents.1"));
    QVERIFY(!has_event_file_name("/logs/events.out.tfevents.dir/model.pb"));
    QVERIFY(!has_event_file_name("model.pb"));

    QVERIFY(starts_with_event_record(framed_file_version_event()));
    QVERIFY(starts_with_event_record(framed_file_version_event() + framed_scalar_event().substr(0, 7)));
    QVERIFY(starts_with_event_record(frame_tfrecord(file_version_event(1, "brain.Event:1"))));
    QVERIFY(!starts_with_event_record(framed_file_version_event().substr(0, 39)));
    QVERIFY(!starts_with_event_record(framed_scalar_event()));  // first record is not file_version
    QVERIFY(!starts_with_event_record(frame_tfrecord(file_version_event(1, "brain.Event:"))));
    QVERIFY(!starts_with_event_record(frame_tfrecord(file_version_event(1, "other:2"))));
    QVERIFY(!starts_with_event_record(hex_bytes("00 ff ff ff ff ff ff ff bc 99 47 99") + std::string(40, 'x')));
    QVERIFY(!starts_with_event_record("node { name: 'x' op: 'NoOp' }"));
    QVERIFY(!starts_with_event_record(""));

    QTemporaryDir dir;
    const std::string renamed = join(dir, "log.bin");
    write_file(renamed, framed_file_version_event() + framed_scalar_event());
    QVERIFY(looks_like_event_file(renamed));
    const std::string named = join(dir, "events.out.tfevents.5.h");
    write_file(named, "");
    QVERIFY(looks_like_event_file(named));
    const std::string other = join(dir, "graph.pb");
    write_file(other, hex_bytes("0a 09 0a 01 78 12 04 4e 6f 4f 70"));
    QVERIFY(!looks_like_event_file(other));
    QVERIFY(!looks_like_event_file(join(dir, "missing")));
    QVERIFY(!looks_like_event_file(dir.path().toStdString()));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestEventLog)
#include "test_event_log.moc"
