#include "io/tfrecord.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "common/crc32c.h"
#include "common/error.h"

namespace flowlens {
namespace {

uint64_t decode_fixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint32_t decode_fixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void encode_fixed64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i, v >>= 8) p[i] = static_cast<char>(v & 0xffu);
}

void encode_fixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i, v >>= 8) p[i] = static_cast<char>(v & 0xffu);
}

uint32_t masked_crc(std::string_view data) { return crc32c_mask(crc32c(data)); }

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace

// ---- Reader ------------------------------------------------------------------------

TFRecordReader::TFRecordReader(std::unique_ptr<std::istream> in, uint64_t size, std::string source_name)
    : in_(std::move(in)), size_(size), source_name_(std::move(source_name)) {}

TFRecordReader::TFRecordReader(std::string bytes, std::string source_name)
    : TFRecordReader(nullptr, bytes.size(), std::move(source_name)) {
  in_ = std::make_unique<std::istringstream>(std::move(bytes), std::ios::binary);
}

TFRecordReader::TFRecordReader(TFRecordReader&&) noexcept = default;
TFRecordReader& TFRecordReader::operator=(TFRecordReader&&) noexcept = default;
TFRecordReader::~TFRecordReader() = default;

TFRecordReader TFRecordReader::open(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw Error(path + ": no such file");
  if (!std::filesystem::is_regular_file(status)) throw Error(path + ": not a regular file");
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(path + ": cannot read its size: " + ec.message());
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) throw Error(path + ": cannot open for reading");
  return TFRecordReader(std::move(in), size, path);
}

bool TFRecordReader::read_exact(std::size_t n, std::string& out) {
  out.resize(n);
  if (n == 0) return true;
  in_->read(out.data(), static_cast<std::streamsize>(n));
  return in_->gcount() == static_cast<std::streamsize>(n);
}

void TFRecordReader::stop(uint64_t offset, std::string what) {
  problems_.push_back({offset, std::move(what)});
  done_ = true;
  stopped_early_ = true;
}

std::optional<TFRecord> TFRecordReader::next() {
  std::string header;
  while (!done_) {
    const uint64_t start = position_;
    const uint64_t remaining = size_ - position_;
    if (remaining == 0) {
      done_ = true;
      return std::nullopt;
    }
    if (remaining < kTFRecordHeaderSize) {
      stop(start, "truncated record at offset " + std::to_string(start) + ": " + std::to_string(remaining) +
                      " byte(s) left, a record header takes " + std::to_string(kTFRecordHeaderSize));
      return std::nullopt;
    }
    if (!read_exact(kTFRecordHeaderSize, header)) {
      stop(start, "read error at offset " + std::to_string(start));
      return std::nullopt;
    }
    const uint32_t stored_length_crc = decode_fixed32(header.data() + 8);
    const uint32_t length_crc = crc32c(std::string_view(header.data(), 8));
    if (crc32c_unmask(stored_length_crc) != length_crc) {
      stop(start, "corrupted record at offset " + std::to_string(start) + ": length checksum mismatch (stored " +
                      hex32(stored_length_crc) + ", expected " + hex32(crc32c_mask(length_crc)) +
                      "); the rest of the input cannot be framed");
      return std::nullopt;
    }
    const uint64_t length = decode_fixed64(header.data());
    const uint64_t after_header = remaining - kTFRecordHeaderSize;
    // Checked before allocating: a length the input cannot hold is truncation
    // (or a writer that has not finished), never a reason to allocate.
    if (after_header < kTFRecordFooterSize || length > after_header - kTFRecordFooterSize) {
      stop(start, "truncated record at offset " + std::to_string(start) + ": length " + std::to_string(length) +
                      " needs " + std::to_string(length) + "+" + std::to_string(kTFRecordFooterSize) +
                      " byte(s) after the header, " + std::to_string(after_header) + " left");
      return std::nullopt;
    }
    TFRecord record;
    record.offset = start;
    std::string footer;
    if (!read_exact(static_cast<std::size_t>(length), record.data) || !read_exact(kTFRecordFooterSize, footer)) {
      stop(start, "read error in the record at offset " + std::to_string(start));
      return std::nullopt;
    }
    position_ = start + kTFRecordHeaderSize + length + kTFRecordFooterSize;
    const uint32_t stored_data_crc = decode_fixed32(footer.data());
    const uint32_t data_crc = crc32c(record.data);
    if (crc32c_unmask(stored_data_crc) != data_crc) {
      // The length was intact, so the next record starts where this one ends.
      problems_.push_back({start, "corrupted record at offset " + std::to_string(start) +
                                      ": data checksum mismatch (stored " + hex32(stored_data_crc) + ", expected " +
                                      hex32(crc32c_mask(data_crc)) + ", " + std::to_string(length) +
                                      " data byte(s)); record skipped"});
      continue;
    }
    return record;
  }
  return std::nullopt;
}

namespace {

std::vector<TFRecord> drain(TFRecordReader& reader, std::vector<RecordProblem>* problems) {
  std::vector<TFRecord> records;
  while (auto record = reader.next()) records.push_back(std::move(*record));
  if (problems) problems->insert(problems->end(), reader.problems().begin(), reader.problems().end());
  return records;
}

}  // namespace

std::vector<TFRecord> read_tfrecords(const std::string& path, std::vector<RecordProblem>* problems) {
  TFRecordReader reader = TFRecordReader::open(path);
  return drain(reader, problems);
}

std::vector<TFRecord> parse_tfrecords(std::string_view bytes, std::vector<RecordProblem>* problems) {
  TFRecordReader reader(std::string(bytes), "<memory>");
  return drain(reader, problems);
}

// ---- Writer ------------------------------------------------------------------------

std::string frame_tfrecord(std::string_view data) {
  std::string out(kTFRecordHeaderSize + data.size() + kTFRecordFooterSize, '\0');
  encode_fixed64(out.data(), data.size());
  encode_fixed32(out.data() + 8, masked_crc(std::string_view(out.data(), 8)));
  if (!data.empty()) out.replace(kTFRecordHeaderSize, data.size(), data);
  encode_fixed32(out.data() + kTFRecordHeaderSize + data.size(), masked_crc(data));
  return out;
}

TFRecordWriter::TFRecordWriter(const std::string& path, Mode mode) : path_(path) {
  const auto flags = std::ios::binary | std::ios::out | (mode == Mode::Append ? std::ios::app : std::ios::trunc);
  out_ = std::make_unique<std::ofstream>(path, flags);
  if (!*out_) throw Error(path + ": cannot open for writing");
}

TFRecordWriter::TFRecordWriter(TFRecordWriter&&) noexcept = default;
TFRecordWriter& TFRecordWriter::operator=(TFRecordWriter&&) noexcept = default;
TFRecordWriter::~TFRecordWriter() = default;

void TFRecordWriter::write(std::string_view data) {
  const std::string framed = frame_tfrecord(data);
  out_->write(framed.data(), static_cast<std::streamsize>(framed.size()));
  if (!*out_) throw Error(path_ + ": write failed");
}

void TFRecordWriter::flush() {
  out_->flush();
  if (!*out_) throw Error(path_ + ": write failed");
}

}  // namespace flowlens
