#pragma once
// TFRecord framing, as TensorFlow writes and reads it
// (tensorflow/core/lib/io/record_writer.cc, record_reader.cc):
//
//   uint64 length              little-endian
//   uint32 masked CRC-32C      of the 8 length bytes
//   byte   data[length]
//   uint32 masked CRC-32C      of data
//
// (mask: common/crc32c.h). TensorBoard event files, tf.data TFRecord files
// and tf.io.TFRecordWriter output all use it; compression (ZLIB/GZIP) is not
// supported here.
//
// The reader never throws on bad content: it reports a RecordProblem with the
// byte offset of the record and goes on where the framing is still known.
//   - bad data CRC: the length was trusted, so the record is skipped and
//     reading continues with the next one;
//   - bad length CRC: the next record's position is unknown (TensorFlow's
//     reader cannot resynchronise either): reading stops;
//   - truncated header, data or footer (a log still being written, or cut
//     short): reading stops.
// A length larger than what remains of the input is reported as truncation
// before anything is allocated.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flowlens {

inline constexpr std::size_t kTFRecordHeaderSize = 12;  // length + its CRC
inline constexpr std::size_t kTFRecordFooterSize = 4;   // CRC of the data

struct TFRecord {
  uint64_t offset = 0;  // where the record's header starts in the input
  std::string data;
};

struct RecordProblem {
  uint64_t offset = 0;  // start of the record at fault
  std::string what;
};

class TFRecordReader {
 public:
  // Reads the file at `path`; throws Error naming it if it cannot be opened
  // or is not a regular file. The size is taken at open: bytes appended
  // later are not read (a record cut by that size is reported as truncated).
  static TFRecordReader open(const std::string& path);
  // Reads records from memory; `source_name` only labels the input.
  TFRecordReader(std::string bytes, std::string source_name);

  TFRecordReader(TFRecordReader&&) noexcept;
  TFRecordReader& operator=(TFRecordReader&&) noexcept;
  ~TFRecordReader();

  // The next intact record, or nullopt at the end of the input or once
  // reading has stopped on a problem. Corrupt records are skipped and
  // reported in problems().
  std::optional<TFRecord> next();

  // Problems met so far, in input order.
  const std::vector<RecordProblem>& problems() const { return problems_; }
  // True once next() stopped because the rest could not be framed (as
  // opposed to a clean end of input).
  bool stopped_early() const { return stopped_early_; }
  // Offset of the first byte not yet consumed.
  uint64_t position() const { return position_; }
  uint64_t size() const { return size_; }
  const std::string& source_name() const { return source_name_; }

 private:
  TFRecordReader(std::unique_ptr<std::istream> in, uint64_t size, std::string source_name);
  // Reads exactly n bytes at position_ into out; false on an I/O error.
  bool read_exact(std::size_t n, std::string& out);
  void stop(uint64_t offset, std::string what);

  std::unique_ptr<std::istream> in_;
  uint64_t size_ = 0;
  uint64_t position_ = 0;
  std::string source_name_;
  std::vector<RecordProblem> problems_;
  bool done_ = false;
  bool stopped_early_ = false;
};

// Reads every intact record of a file or a buffer; problems are appended to
// `problems` when given. open() errors still throw.
std::vector<TFRecord> read_tfrecords(const std::string& path, std::vector<RecordProblem>* problems = nullptr);
std::vector<TFRecord> parse_tfrecords(std::string_view bytes, std::vector<RecordProblem>* problems = nullptr);

// The framed bytes of one record: header, data, footer.
std::string frame_tfrecord(std::string_view data);

// Appends framed records to a file. Errors throw Error naming the file.
class TFRecordWriter {
 public:
  enum class Mode { Truncate, Append };
  explicit TFRecordWriter(const std::string& path, Mode mode = Mode::Truncate);
  TFRecordWriter(TFRecordWriter&&) noexcept;
  TFRecordWriter& operator=(TFRecordWriter&&) noexcept;
  ~TFRecordWriter();

  void write(std::string_view data);
  // Pushes buffered records to the operating system.
  void flush();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<std::ostream> out_;
};

}  // namespace flowlens
