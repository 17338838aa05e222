// TFRecord framing against frames assembled by hand (engine/event_fixtures.h,
// CRCs computed independently), and the reader's behaviour on corrupt,
// truncated and hostile input, which follows TensorFlow's record_reader.cc:
// a bad data CRC skips the record, a bad length CRC or a short read stops.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include <string>

#include "common/crc32c.h"
#include "common/error.h"
#include "engine/event_fixtures.h"
#include "io/tfrecord.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

std::string payload(const std::string& frame) {
  return frame.substr(kTFRecordHeaderSize, frame.size() - kTFRecordHeaderSize - kTFRecordFooterSize);
}

std::string three_frames() { return framed_file_version_event() + framed_scalar_event() + framed_graph_event(); }

}  // namespace

class TestTFRecord : public QObject {
  Q_OBJECT

 private slots:
  void frames_match_hand_assembled_bytes() {
    for (const std::string& frame : {framed_file_version_event(), framed_scalar_event(), framed_graph_event()})
      QCOMPARE(frame_tfrecord(payload(frame)), frame);
    // The first 12 bytes of every real events file.
    QCOMPARE(framed_file_version_event().substr(0, 12), hex_bytes("18 00 00 00 00 00 00 00 a3 7f 4b 22"));
    // An empty record: mask(crc32c("")) = mask(0) = 0xa282ead8.
    QCOMPARE(frame_tfrecord(""), hex_bytes("00 00 00 00 00 00 00 00 29 03 98 07 d8 ea 82 a2"));
  }

  void crcs_are_masked_crc32c() {
    const std::string frame = framed_scalar_event();
    auto le32 = [](const std::string& s, std::size_t at) {
      uint32_t v = 0;
      for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<std::size_t>(i)]);
      return v;
    };
    QCOMPARE(crc32c_unmask(le32(frame, 8)), crc32c(frame.substr(0, 8)));
    QCOMPARE(crc32c_unmask(le32(frame, frame.size() - 4)), crc32c(payload(frame)));
  }

  void reads_records_with_offsets() {
    std::vector<RecordProblem> problems;
    const auto records = parse_tfrecords(three_frames(), &problems);
    QVERIFY(problems.empty());
    QCOMPARE(records.size(), std::size_t{3});
    QCOMPARE(records[0].offset, uint64_t{0});
    QCOMPARE(records[1].offset, uint64_t{40});
    QCOMPARE(records[2].offset, uint64_t{82});
    QCOMPARE(records[0].data, payload(framed_file_version_event()));
    QCOMPARE(records[1].data, payload(framed_scalar_event()));
    QCOMPARE(records[2].data, payload(framed_graph_event()));
  }

  void empty_input_and_empty_record() {
    std::vector<RecordProblem> problems;
    QVERIFY(parse_tfrecords("", &problems).empty());
    QVERIFY(problems.empty());
    const auto records = parse_tfrecords(frame_tfrecord("") + frame_tfrecord("a"), &problems);
    QVERIFY(problems.empty());
    QCOMPARE(records.size(), std::size_t{2});
    QCOMPARE(records[0].data, std::string());
    QCOMPARE(records[1].data, std::string("a"));
  }

  void bad_data_crc_skips_the_record_and_goes_on() {
    std::string bytes = three_frames();
    bytes[40 + 12 + 5] ^= 0x01;  // a data byte of the second record
    TFRecordReader reader(bytes, "mem");
    std::vector<TFRecord> records;
    while (auto r = reader.next()) records.push_back(*r);
    QCOMPARE(records.size(), std::size_t{2});
    QCOMPARE(records[0].offset, uint64_t{0});
    QCOMPARE(records[1].offset, uint64_t{82});
    QCOMPARE(reader.problems().size(), std::size_t{1});
    QCOMPARE(reader.problems()[0].offset, uint64_t{40});
    QVERIFY2(reader.problems()[0].what.find("data checksum mismatch") != std::string::npos, reader.problems()[0].what.c_str());
    QVERIFY(reader.problems()[0].what.find("offset 40") != std::string::npos);
    QVERIFY(!reader.stopped_early());

    // A corrupt footer is the same problem.
    bytes = three_frames();
    bytes[81] ^= 0x80;
    std::vector<RecordProblem> problems;
    QCOMPARE(parse_tfrecords(bytes, &problems).size(), std::size_t{2});
    QCOMPARE(problems.size(), std::size_t{1});
    QCOMPARE(problems[0].offset, uint64_t{40});
  }

  void bad_length_crc_stops() {
    for (std::size_t byte : {std::size_t{40 + 0}, std::size_t{40 + 9}}) {  // the length, its CRC
      std::string bytes = three_frames();
      bytes[byte] ^= 0x04;
      TFRecordReader reader(bytes, "mem");
      std::vector<TFRecord> records;
      while (auto r = reader.next()) records.push_back(*r);
      QCOMPARE(records.size(), std::size_t{1});
      QCOMPARE(reader.problems().size(), std::size_t{1});
      QCOMPARE(reader.problems()[0].offset, uint64_t{40});
      QVERIFY2(reader.problems()[0].what.find("length checksum mismatch") != std::string::npos,
               reader.problems()[0].what.c_str());
      QVERIFY(reader.stopped_early());
      QVERIFY(!reader.next());  // stays stopped
    }
  }

  void truncated_tail_at_every_cut() {
    const std::string bytes = three_frames();
    for (std::size_t cut = 83; cut < bytes.size(); ++cut) {
      std::vector<RecordProblem> problems;
      const auto records = parse_tfrecords(bytes.substr(0, cut), &problems);
      QCOMPARE(records.size(), std::size_t{2});
      QCOMPARE(problems.size(), std::size_t{1});
      QCOMPARE(problems[0].offset, uint64_t{82});
      QVERIFY2(problems[0].what.find("truncated record at offset 82") != std::string::npos, problems[0].what.c_str());
    }
    std::vector<RecordProblem> problems;
    QCOMPARE(parse_tfrecords(bytes.substr(0, 82), &problems).size(), std::size_t{2});
    QVERIFY(problems.empty());  // a cut between records is a clean end
  }

  void huge_length_is_truncation_not_allocation() {
    // Length 0xffffffffffffff00 with a valid length CRC, then a few bytes.
    const std::string huge = hex_bytes("00 ff ff ff ff ff ff ff bc 99 47 99") + std::string(64, 'x');
    std::vector<RecordProblem> problems;
    QVERIFY(parse_tfrecords(framed_file_version_event() + huge, &problems).size() == 1);
    QCOMPARE(problems.size(), std::size_t{1});
    QCOMPARE(problems[0].offset, uint64_t{40});
    QVERIFY2(problems[0].what.find("truncated") != std::string::npos, problems[0].what.c_str());
    QVERIFY(problems[0].what.find("18446744073709551360") != std::string::npos);

    // Lengths just past what the input holds, through a file as well.
    QTemporaryDir dir;
    for (uint64_t length : {uint64_t{1} << 62, uint64_t{1} << 40, uint64_t{65}}) {
      std::string header(8, '\0');
      for (int i = 0; i < 8; ++i) header[static_cast<std::size_t>(i)] = static_cast<char>(length >> (8 * i));
      const uint32_t crc = crc32c_mask(crc32c(header));
      for (int i = 0; i < 4; ++i) header.push_back(static_cast<char>(crc >> (8 * i)));
      const std::string path = dir.filePath("huge").toStdString();
      write_file(path, header + std::string(64, 'y') + "zzzz");
      std::vector<RecordProblem> file_problems;
      QVERIFY(read_tfrecords(path, &file_problems).empty());
      QCOMPARE(file_problems.size(), std::size_t{1});
      QVERIFY2(file_problems[0].what.find("truncated") != std::string::npos, file_problems[0].what.c_str());
    }
  }

  void short_header_is_truncation() {
    std::vector<RecordProblem> problems;
    QVERIFY(parse_tfrecords(std::string(5, '\0'), &problems).empty());
    QCOMPARE(problems.size(), std::size_t{1});
    QCOMPARE(problems[0].offset, uint64_t{0});
    QVERIFY(problems[0].what.find("5 byte(s) left") != std::string::npos);
  }

  void writer_round_trips_and_appends() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.tfrecord").toStdString();
    const std::string big(100000, 'b');
    {
      TFRecordWriter writer(path);
      writer.write(payload(framed_file_version_event()));
      writer.write("");
      writer.write(big);
    }
    {
      TFRecordWriter writer(path, TFRecordWriter::Mode::Append);
      writer.write("tail");
      writer.flush();
    }
    std::vector<RecordProblem> problems;
    const auto records = read_tfrecords(path, &problems);
    QVERIFY(problems.empty());
    QCOMPARE(records.size(), std::size_t{4});
    QCOMPARE(records[0].data, payload(framed_file_version_event()));
    QCOMPARE(records[1].data, std::string());
    QCOMPARE(records[2].data, big);
    QCOMPARE(records[3].data, std::string("tail"));
    QCOMPARE(records[3].offset, uint64_t{40 + 16 + 100016});
    // The file starts with the hand-assembled frame.
    QFile file(QString::fromStdString(path));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.read(40).toStdString(), framed_file_version_event());
  }

  void open_errors_name_the_path() {
    QTemporaryDir dir;
    const std::string missing = dir.filePath("missing").toStdString();
    try {
      TFRecordReader::open(missing);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find(missing) != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(Error, TFRecordReader::open(dir.path().toStdString()));
    QVERIFY_THROWS_EXCEPTION(Error, TFRecordWriter(dir.filePath("no/such/dir/x").toStdString()));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestTFRecord)
#include "test_tfrecord.moc"
