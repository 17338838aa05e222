// V2 checkpoint reading and writing; the layouts follow TensorFlow's
// tensor_bundle.cc (see tensor_bundle.h). Data shards are read with pread-style
// seeks, never mapped, and every offset and size from the index is checked
// against the shard's length before anything is allocated.
#include "io/tensor_bundle.h"

#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/crc32c.h"
#include "io/meta_graph.pb.h"
#include "io/tensor_bundle.pb.h"
#include "io/table_guard.h"
#include "io/tensor_proto.h"

namespace flowlens {
namespace {

namespace fs = std::filesystem;

// tensor_bundle.h's kTensorBundleVersion / kTensorBundleMinConsumer.
constexpr int kBundleVersion = 1;
constexpr int kBundleMinConsumer = 0;
// A checkpoint with more shards than this is not something a Saver writes.
constexpr int kMaxShards = 1 << 20;

std::string status_text(const leveldb::Status& s) { return s.ToString(); }

// Owns a LevelDB table and the file it reads (the table does not own it).
struct IndexTable {
  std::unique_ptr<leveldb::RandomAccessFile> file;
  std::unique_ptr<leveldb::Table> table;
};

IndexTable open_index(const std::string& path) {
  leveldb::Env* env = leveldb::Env::Default();
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error("cannot open checkpoint: the index file '" + path + "' does not exist");
  uint64_t size = 0;
  if (leveldb::Status s = env->GetFileSize(path, &size); !s.ok())
    throw Error("cannot read checkpoint index '" + path + "': " + status_text(s));
  leveldb::RandomAccessFile* raw_file = nullptr;
  if (leveldb::Status s = env->NewRandomAccessFile(path, &raw_file); !s.ok())
    throw Error("cannot open checkpoint index '" + path + "': " + status_text(s));
  IndexTable index;
  index.file.reset(raw_file);
  if (const std::string problem = io_detail::table_layout_problem(path); !problem.empty())
    throw ParseError(path, 0, 0, "corrupt checkpoint index: " + problem);
  leveldb::Options options;
  options.paranoid_checks = true;  // verify the index and metaindex blocks' CRCs on open
  leveldb::Table* raw_table = nullptr;
  if (leveldb::Status s = leveldb::Table::Open(options, index.file.get(), size, &raw_table); !s.ok())
    throw ParseError(path, 0, 0,
                     "not a checkpoint index (a LevelDB-format table, as TensorFlow writes): " + status_text(s));
  index.table.reset(raw_table);
  return index;
}

std::string entry_problem(const std::string& index_path, const std::string& key, const std::string& what) {
  return index_path + ": entry for tensor '" + key + "': " + what;
}

CheckpointEntry entry_info(const std::string& index_path, const std::string& key, const proto::BundleEntryProto& e,
                           int num_shards) {
  CheckpointEntry info;
  info.name = key;
  if (!io_detail::is_known_dtype_value(e.dtype()) || e.dtype() == 0 || e.dtype() > 100)
    throw Error(entry_problem(index_path, key, "dtype " + std::to_string(e.dtype()) + " is not a tensor type"));
  info.dtype = static_cast<DType>(e.dtype());
  try {
    info.shape = io_detail::shape_from_proto(e.shape());
  } catch (const Error& err) {
    throw Error(entry_problem(index_path, key, std::string("invalid shape: ") + err.what()));
  }
  if (!info.shape.fully_defined() || !Shape::checked_num_elements(info.shape.dims()))
    throw Error(entry_problem(index_path, key, "invalid tensor shape " + info.shape.to_string()));
  info.num_slices = e.slices_size();
  info.shard = e.shard_id();
  info.offset = e.offset();
  info.size = e.size();
  info.masked_crc32c = e.crc32c();
  if (info.num_slices == 0) {
    if (info.shard < 0 || info.shard >= num_shards)
      throw Error(entry_problem(index_path, key,
                                "shard " + std::to_string(info.shard) + " outside the header's " +
                                    std::to_string(num_shards) + " shard(s)"));
    if (info.offset < 0 || info.size < 0 || info.offset > INT64_MAX - info.size)
      throw Error(entry_problem(index_path, key, "negative or overflowing offset/size"));
  }
  return info;
}

uint64_t read_varint64(const char*& p, const char* end, bool* ok) {
  uint64_t value = 0;
  for (int shift = 0; shift <= 63 && p < end; shift += 7) {
    const auto byte = static_cast<unsigned char>(*p++);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
  *ok = false;
  return 0;
}

void put_varint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// crc32c over a string length as TensorFlow sums it: 4 bytes when it fits
// (older checkpoints only had uint32 lengths), else 8; little-endian.
uint32_t extend_with_length(uint32_t crc, uint64_t length) {
  char bytes[8];
  for (int k = 0; k < 8; ++k) bytes[k] = static_cast<char>((length >> (8 * k)) & 0xff);
  return crc32c_extend(crc, std::string_view(bytes, length <= UINT32_MAX ? 4 : 8));
}

void put_fixed32(std::string* out, uint32_t v) {
  for (int k = 0; k < 4; ++k) out->push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

uint32_t get_fixed32(const char* p) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return v;
}

// The on-disk bytes of a string tensor:
//   [varint64 len0]..[varint64 lenN-1][masked crc of the lengths][bytes...]
// and the CRC over all of it that goes in the entry.
std::string encode_strings(const Tensor& t, uint32_t* crc) {
  std::string out;
  *crc = 0;
  for (const std::string& s : t.strings()) {
    put_varint64(&out, s.size());
    *crc = extend_with_length(*crc, s.size());
  }
  std::string checksum;
  put_fixed32(&checksum, crc32c_mask(*crc));
  out += checksum;
  *crc = crc32c_extend(*crc, checksum);
  for (const std::string& s : t.strings()) {
    out += s;
    *crc = crc32c_extend(*crc, s);
  }
  return out;
}

std::string read_shard_bytes(const std::string& path, const std::string& tensor, int64_t offset, int64_t size) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error("checkpoint data file '" + path + "' (holding tensor '" + tensor + "') does not exist");
  const auto file_size = fs::file_size(path, ec);
  if (ec) throw Error("cannot read checkpoint data file '" + path + "': " + ec.message());
  if (static_cast<uint64_t>(offset) > file_size || static_cast<uint64_t>(size) > file_size - offset)
    throw Error("checkpoint data file '" + path + "' is too short for tensor '" + tensor + "': it needs bytes " +
                std::to_string(offset) + ".." + std::to_string(offset + size) + " but holds " +
                std::to_string(file_size));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open checkpoint data file '" + path + "': " + std::strerror(errno));
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.seekg(offset);
  in.read(bytes.data(), size);
  if (in.gcount() != size) throw Error("cannot read tensor '" + tensor + "' from '" + path + "'");
  return bytes;
}

}  // namespace

// Outside the anonymous namespace: BundleWriter::Pending, a class with
// linkage, holds one.
namespace bundle_io {
// Writes `bytes` durably under `path` via a temporary name.
class TempFile {
 public:
  explicit TempFile(std::string final_path) : final_(std::move(final_path)), temp_(final_ + ".tempstate-flowlens") {}
  ~TempFile() {
    if (!committed_) {
      std::error_code ignored;
      fs::remove(temp_, ignored);
    }
  }
  const std::string& temp() const { return temp_; }
  void commit() {
    std::error_code ec;
    fs::rename(temp_, final_, ec);
    if (ec) throw Error("cannot write checkpoint file '" + final_ + "': " + ec.message());
    committed_ = true;
  }

 private:
  std::string final_;
  std::string temp_;
  bool committed_ = false;
};
}  // namespace bundle_io
using bundle_io::TempFile;

namespace {

void write_index(const std::string& index_path, int num_shards,
                 const std::map<std::string, proto::BundleEntryProto>& entries) {
  TempFile temp(index_path);
  leveldb::WritableFile* raw = nullptr;
  if (leveldb::Status s = leveldb::Env::Default()->NewWritableFile(temp.temp(), &raw); !s.ok())
    throw Error("cannot write checkpoint index '" + index_path + "': " + status_text(s));
  std::unique_ptr<leveldb::WritableFile> file(raw);
  leveldb::Options options;
  // TensorFlow writes indexes uncompressed (readers before 1.1 know no Snappy).
  options.compression = leveldb::kNoCompression;
  leveldb::TableBuilder builder(options, file.get());
  proto::BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(proto::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kBundleVersion);
  header.mutable_version()->set_min_consumer(kBundleMinConsumer);
  builder.Add("", header.SerializeAsString());
  for (const auto& [name, entry] : entries) builder.Add(name, entry.SerializeAsString());
  leveldb::Status s = builder.Finish();
  if (s.ok()) s = file->Sync();
  if (s.ok()) s = file->Close();
  if (!s.ok()) throw Error("cannot write checkpoint index '" + index_path + "': " + status_text(s));
  temp.commit();
}

std::string near_names(const std::vector<CheckpointEntry>& entries, const std::string& name) {
  // The entries sorted around where `name` would be: enough to spot a typo
  // or a scope difference without printing a 10,000-tensor checkpoint.
  auto at = std::lower_bound(entries.begin(), entries.end(), name,
                             [](const CheckpointEntry& e, const std::string& n) { return e.name < n; });
  auto from = at - std::min<std::ptrdiff_t>(at - entries.begin(), 3);
  std::string out;
  for (int k = 0; from != entries.end() && k < 6; ++from, ++k) out += (out.empty() ? "" : ", ") + from->name;
  return out;
}

void check_crc(const CheckpointEntry& entry, uint32_t actual, const std::string& shard) {
  const uint32_t stored = crc32c_unmask(entry.masked_crc32c);
  if (stored != actual) {
    char text[96];
    std::snprintf(text, sizeof text, "stored %08x, computed %08x", stored, actual);
    throw Error("checksum mismatch for tensor '" + entry.name + "' in '" + shard + "' (" +
                std::to_string(entry.size) + " bytes at offset " + std::to_string(entry.offset) + "): " + text +
                "; the checkpoint is corrupt");
  }
}

}  // namespace

std::string bundle_index_path(const std::string& prefix) { return prefix + ".index"; }

std::string bundle_data_path(const std::string& prefix, int shard, int num_shards) {
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", shard, num_shards);
  return prefix + suffix;
}

bool is_bundle_prefix(const std::string& prefix) {
  std::error_code ec;
  return fs::is_regular_file(bundle_index_path(prefix), ec);
}

BundleReader::BundleReader(std::string prefix) : prefix_(std::move(prefix)) {
  const std::string index_path = bundle_index_path(prefix_);
  IndexTable index = open_index(index_path);
  leveldb::ReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::unique_ptr<leveldb::Iterator> it(index.table->NewIterator(read_options));
  it->SeekToFirst();
  if (!it->Valid() || !it->key().empty()) {
    const std::string why = it->status().ok() ? "it has no header entry (the empty key)" : status_text(it->status());
    throw ParseError(index_path, 0, 0, "not a TensorFlow checkpoint index: " + why);
  }
  proto::BundleHeaderProto header;
  if (!header.ParseFromArray(it->value().data(), static_cast<int>(it->value().size())))
    throw ParseError(index_path, 0, 0, "the checkpoint header (BundleHeaderProto) does not parse");
  if (header.version().min_consumer() > kBundleVersion)
    throw ParseError(index_path, 0, 0,
                     "checkpoint format version " + std::to_string(header.version().producer()) +
                         " needs a reader of version " + std::to_string(header.version().min_consumer()) +
                         " or newer; FlowLens reads version " + std::to_string(kBundleVersion));
  for (int bad : header.version().bad_consumers())
    if (bad == kBundleVersion)
      throw ParseError(index_path, 0, 0, "the checkpoint disallows readers of version " + std::to_string(bad));
  if (header.endianness() != proto::BundleHeaderProto::LITTLE)
    throw ParseError(index_path, 0, 0, "the checkpoint was written on a big-endian machine; FlowLens reads "
                                       "little-endian checkpoints only");
  num_shards_ = header.num_shards();
  if (num_shards_ < 1 || num_shards_ > kMaxShards)
    throw ParseError(index_path, 0, 0, "the checkpoint header names " + std::to_string(num_shards_) +
                                           " data shards; expected 1 to " + std::to_string(kMaxShards));
  proto::BundleEntryProto entry;
  for (it->Next(); it->Valid(); it->Next()) {
    const std::string key = it->key().ToString();
    if (!entry.ParseFromArray(it->value().data(), static_cast<int>(it->value().size())))
      throw ParseError(index_path, 0, 0, "the entry for tensor '" + key + "' (BundleEntryProto) does not parse");
    entries_.push_back(entry_info(index_path, key, entry, num_shards_));
  }
  if (!it->status().ok()) throw ParseError(index_path, 0, 0, "corrupt checkpoint index: " + status_text(it->status()));
  // Slice entries ("name" + an encoded slice spec) are listed too; they are
  // the pieces of a partitioned tensor, whose own entry carries num_slices.
}

BundleReader::~BundleReader() = default;

Tensor BundleReader::read(const std::string& name) const {
  const CheckpointEntry* entry = find(name);
  if (!entry) {
    std::string message = "tensor '" + name + "' is not in checkpoint '" + prefix_ + "'";
    if (!entries_.empty()) message += " (nearby names: " + near_names(entries_, name) + ")";
    throw Error(message);
  }
  return read_entry(*entry);
}

Tensor BundleReader::read_entry(const CheckpointEntry& entry) const {
  const std::string where = "tensor '" + entry.name + "' of checkpoint '" + prefix_ + "'";
  if (entry.num_slices > 0)
    throw Error(where + " is stored as " + std::to_string(entry.num_slices) +
                " slices (a partitioned variable); reading sliced tensors is not supported");
  if (entry.dtype == DType::Resource || entry.dtype == DType::Variant)
    throw Error(where + " has dtype " + dtype_name(entry.dtype) + ", which FlowLens cannot restore");
  const int64_t elements = entry.shape.num_elements();
  const std::string shard = bundle_data_path(prefix_, entry.shard, num_shards_);
  if (entry.dtype != DType::String) {
    const std::size_t element_size = dtype_size(entry.dtype);
    if (element_size == 0) throw Error(where + ": dtype " + dtype_name(entry.dtype) + " has no fixed-size layout");
    if (elements > INT64_MAX / static_cast<int64_t>(element_size) ||
        entry.size != elements * static_cast<int64_t>(element_size))
      throw Error(where + ": stored size " + std::to_string(entry.size) + " bytes, but " + dtype_name(entry.dtype) +
                  entry.shape.to_string() + " needs " +
                  (elements > INT64_MAX / static_cast<int64_t>(element_size)
                       ? std::string("more than 2^63")
                       : std::to_string(elements * static_cast<int64_t>(element_size))));
    const std::string bytes = read_shard_bytes(shard, entry.name, entry.offset, entry.size);
    check_crc(entry, crc32c(bytes), shard);
    Tensor out(entry.dtype, entry.shape);
    if (!bytes.empty()) std::memcpy(out.raw_data(), bytes.data(), bytes.size());
    return out;
  }
  // Strings: at least one length byte per element, so a huge shape with a
  // small stored size is refused before anything is allocated.
  if (entry.size < elements)
    throw Error(where + ": stored size " + std::to_string(entry.size) + " bytes is too small for " +
                std::to_string(elements) + " strings");
  const std::string bytes = read_shard_bytes(shard, entry.name, entry.offset, entry.size);
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  std::vector<uint64_t> lengths(static_cast<std::size_t>(elements));
  uint32_t crc = 0;
  uint64_t total = 0;
  for (auto& length : lengths) {
    bool ok = true;
    length = read_varint64(p, end, &ok);
    if (!ok) throw Error(where + ": the string lengths run past the stored " + std::to_string(entry.size) + " bytes");
    crc = extend_with_length(crc, length);
    total += std::min<uint64_t>(length, bytes.size());
  }
  if (end - p < 4) throw Error(where + ": the string lengths leave no room for their checksum");
  const uint32_t stored_length_crc = get_fixed32(p);
  if (crc32c_unmask(stored_length_crc) != crc)
    throw Error(where + ": the string lengths' checksum does not match (stored " +
                std::to_string(crc32c_unmask(stored_length_crc)) + ", computed " + std::to_string(crc) + ")");
  crc = crc32c_extend(crc, std::string_view(p, 4));
  p += 4;
  if (total > static_cast<uint64_t>(end - p))
    throw Error(where + ": the strings need more bytes than the stored size holds");
  std::vector<std::string> values;
  values.reserve(lengths.size());
  for (uint64_t length : lengths) {
    if (length > static_cast<uint64_t>(end - p))
      throw Error(where + ": the strings need more bytes than the stored size holds");
    values.emplace_back(p, static_cast<std::size_t>(length));
    crc = crc32c_extend(crc, values.back());
    p += length;
  }
  check_crc(entry, crc, shard);
  return Tensor::from_strings(entry.shape, std::move(values));
}

// ---- writing -------------------------------------------------------------------

struct BundleWriter::Pending {
  explicit Pending(const std::string& data_path) : data(data_path) {}
  TempFile data;
  std::ofstream out;
  std::map<std::string, proto::BundleEntryProto> entries;
  int64_t size = 0;
};

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  const fs::path dir = fs::path(prefix_).parent_path();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  pending_ = std::make_unique<Pending>(bundle_data_path(prefix_, 0, 1));
  pending_->out.open(pending_->data.temp(), std::ios::binary | std::ios::trunc);
  if (!pending_->out)
    throw Error("cannot write checkpoint data file '" + bundle_data_path(prefix_, 0, 1) + "': " +
                std::strerror(errno));
}

BundleWriter::~BundleWriter() = default;

void BundleWriter::add(const std::string& name, const Tensor& tensor) {
  if (!pending_) throw Error("checkpoint '" + prefix_ + "' is already finished");
  if (name.empty()) throw Error("cannot save a tensor with an empty name: the empty key holds the checkpoint header");
  if (pending_->entries.count(name)) throw Error("cannot save tensor '" + name + "' twice in one checkpoint");
  const DType dtype = tensor.dtype();
  if (dtype == DType::Resource || dtype == DType::Variant || dtype == DType::Invalid || dtype_is_ref(dtype))
    throw Error("cannot save tensor '" + name + "': dtype " + dtype_name(dtype) + " has no checkpoint layout");
  proto::BundleEntryProto entry;
  entry.set_dtype(static_cast<proto::DataType>(dtype));
  io_detail::shape_to_proto(tensor.shape(), entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(pending_->size);
  uint32_t crc = 0;
  std::string encoded;
  std::string_view bytes;
  if (dtype == DType::String) {
    encoded = encode_strings(tensor, &crc);
    bytes = encoded;
  } else {
    bytes = std::string_view(static_cast<const char*>(tensor.raw_data()), tensor.byte_size());
    crc = crc32c(bytes);
  }
  pending_->out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!pending_->out) throw Error("cannot write checkpoint data for '" + prefix_ + "': " + std::strerror(errno));
  entry.set_size(static_cast<int64_t>(bytes.size()));
  entry.set_crc32c(crc32c_mask(crc));
  pending_->size += static_cast<int64_t>(bytes.size());
  pending_->entries.emplace(name, std::move(entry));
}

void BundleWriter::finish() {
  if (!pending_) throw Error("checkpoint '" + prefix_ + "' is already finished");
  pending_->out.flush();
  pending_->out.close();
  if (!pending_->out) throw Error("cannot write checkpoint data for '" + prefix_ + "': " + std::strerror(errno));
  pending_->data.commit();
  write_index(bundle_index_path(prefix_), 1, pending_->entries);
  pending_.reset();
}

void write_bundle(const std::string& prefix, const std::map<std::string, Tensor>& tensors) {
  BundleWriter writer(prefix);
  for (const auto& [name, tensor] : tensors) writer.add(name, tensor);
  writer.finish();
}

void merge_bundles(const std::vector<std::string>& prefixes, const std::string& merged_prefix) {
  if (prefixes.empty()) throw Error("MergeV2Checkpoints: no checkpoint prefixes to merge");
  std::map<std::string, proto::BundleEntryProto> merged;
  std::vector<std::string> data_files;  // new shard id -> current data file
  std::map<std::string, int> shard_ids;
  for (const std::string& prefix : prefixes) {
    const std::string index_path = bundle_index_path(prefix);
    IndexTable index = open_index(index_path);
    leveldb::ReadOptions read_options;
    read_options.verify_checksums = true;
    std::unique_ptr<leveldb::Iterator> it(index.table->NewIterator(read_options));
    it->SeekToFirst();
    proto::BundleHeaderProto header;
    if (!it->Valid() || !it->key().empty() ||
        !header.ParseFromArray(it->value().data(), static_cast<int>(it->value().size())))
      throw ParseError(index_path, 0, 0, "not a TensorFlow checkpoint index: no parseable header entry");
    const int num_shards = header.num_shards();
    if (num_shards < 1 || num_shards > kMaxShards)
      throw ParseError(index_path, 0, 0, "the header names " + std::to_string(num_shards) + " data shards");
    for (it->Next(); it->Valid(); it->Next()) {
      const std::string key = it->key().ToString();
      proto::BundleEntryProto entry;
      if (!entry.ParseFromArray(it->value().data(), static_cast<int>(it->value().size())))
        throw ParseError(index_path, 0, 0, "the entry for tensor '" + key + "' does not parse");
      auto existing = merged.find(key);
      if (existing != merged.end()) {
        if (existing->second.slices().empty() || entry.slices().empty())
          throw Error("MergeV2Checkpoints: tensor '" + key + "' is in more than one checkpoint (found again in '" +
                      prefix + "')");
        for (const auto& slice : entry.slices()) *existing->second.add_slices() = slice;
        continue;
      }
      if (entry.slices().empty()) {
        const std::string file = bundle_data_path(prefix, entry.shard_id(), num_shards);
        auto [at, inserted] = shard_ids.emplace(file, static_cast<int>(data_files.size()));
        if (inserted) data_files.push_back(file);
        entry.set_shard_id(at->second);
      }
      merged.emplace(key, std::move(entry));
    }
    if (!it->status().ok()) throw ParseError(index_path, 0, 0, "corrupt checkpoint index: " + status_text(it->status()));
  }
  const fs::path dir = fs::path(merged_prefix).parent_path();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  const int merged_shards = static_cast<int>(data_files.size());
  for (int k = 0; k < merged_shards; ++k) {
    fs::rename(data_files[static_cast<std::size_t>(k)], bundle_data_path(merged_prefix, k, merged_shards), ec);
    if (ec)
      throw Error("MergeV2Checkpoints: cannot move '" + data_files[static_cast<std::size_t>(k)] + "': " + ec.message());
  }
  write_index(bundle_index_path(merged_prefix), std::max(merged_shards, 1), merged);
  for (const std::string& prefix : prefixes)
    if (prefix != merged_prefix) fs::remove(bundle_index_path(prefix), ec);
}

// ---- naming ----------------------------------------------------------------------

std::string latest_checkpoint(const std::string& dir) {
  const fs::path state_path = fs::path(dir) / "checkpoint";
  std::error_code ec;
  if (!fs::is_regular_file(state_path, ec)) return "";
  std::ifstream in(state_path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) throw Error("cannot read '" + state_path.string() + "'");
  if (text.size() > (1u << 24)) throw ParseError(state_path.string(), 0, 0, "checkpoint state file larger than 16 MiB");
  proto::CheckpointState state;
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(true);
  if (!parser.ParseFromString(text, &state))
    throw ParseError(state_path.string(), 0, 0,
                     "not a checkpoint state file (text CheckpointState with model_checkpoint_path)");
  if (state.model_checkpoint_path().empty()) return "";
  fs::path prefix(state.model_checkpoint_path());
  if (prefix.is_relative()) prefix = fs::path(dir) / prefix;
  return prefix.string();
}

std::string resolve_checkpoint_prefix(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const std::string latest = latest_checkpoint(path);
    if (latest.empty())
      throw Error("no checkpoint in directory '" + path + "': it has no 'checkpoint' state file naming the latest one");
    if (!is_bundle_prefix(latest))
      throw Error("the 'checkpoint' file in '" + path + "' names '" + latest + "', but '" +
                  bundle_index_path(latest) + "' does not exist");
    return latest;
  }
  std::string prefix = path;
  if (prefix.ends_with(".index")) {
    prefix.resize(prefix.size() - 6);
  } else if (auto at = prefix.rfind(".data-"); at != std::string::npos) {
    const std::string tail = prefix.substr(at);  // ".data-00000-of-00001"
    if (tail.size() == 20 && tail.compare(11, 4, "-of-") == 0) prefix.resize(at);
  }
  if (is_bundle_prefix(prefix)) return prefix;
  throw Error("no checkpoint at '" + path + "': expected '" + bundle_index_path(prefix) +
              "' (a V2 checkpoint prefix, its .index or .data file, or a directory with a 'checkpoint' file)");
}

}  // namespace flowlens
