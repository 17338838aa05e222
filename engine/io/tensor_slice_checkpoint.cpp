#include "io/tensor_slice_checkpoint.h"

#include <glob.h>
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "io/tensor_bundle.pb.h"
#include "io/table_guard.h"
#include "io/tensor_proto.h"

namespace flowlens {
namespace {

namespace fs = std::filesystem;

// tensorflow/core/public/version.h: TF_CHECKPOINT_VERSION(_MIN_CONSUMER).
constexpr int kCheckpointVersion = 1;
constexpr int kCheckpointMinConsumer = 0;

// ---- OrderedCode (tensorflow/core/lib/strings/ordered_code.cc), writing only --

void write_num_increasing(std::string* dest, uint64_t value) {
  unsigned char buf[9];
  int len = 0;
  while (value > 0) {
    ++len;
    buf[9 - len] = static_cast<unsigned char>(value & 0xff);
    value >>= 8;
  }
  dest->push_back(static_cast<char>(len));
  dest->append(reinterpret_cast<const char*>(buf + 9 - len), static_cast<std::size_t>(len));
}

void write_string(std::string* dest, const std::string& s) {
  for (char c : s) {
    if (c == '\0') {
      dest->append("\x00\xff", 2);
    } else if (c == '\xff') {
      dest->append("\xff\x00", 2);
    } else {
      dest->push_back(c);
    }
  }
  dest->append("\x00\x01", 2);  // the separator
}

void write_signed_num_increasing(std::string* dest, int64_t value) {
  static const unsigned char kLengthToHeaderBits[11][2] = {{0, 0},    {0x80, 0}, {0xc0, 0},    {0xe0, 0},
                                                           {0xf0, 0}, {0xf8, 0}, {0xfc, 0},    {0xfe, 0},
                                                           {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
  const uint64_t x = value < 0 ? ~static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  if (x < 64) {
    dest->push_back(static_cast<char>(kLengthToHeaderBits[1][0] ^ static_cast<unsigned char>(value)));
    return;
  }
  // Length from the number of significant bits: 7 per byte, minus the header.
  int bits = 64;
  while (bits > 0 && !((x >> (bits - 1)) & 1)) --bits;
  static const int kBitsToLength[64] = {1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4,
                                        4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7,
                                        7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10};
  const int len = kBitsToLength[bits];
  unsigned char buf[10];
  buf[0] = buf[1] = value < 0 ? 0xff : 0;
  for (int i = 0; i < 8; ++i) buf[2 + i] = static_cast<unsigned char>(static_cast<uint64_t>(value) >> (56 - 8 * i));
  unsigned char* begin = buf + 10 - len;
  begin[0] ^= kLengthToHeaderBits[len][0];
  begin[1] ^= kLengthToHeaderBits[len][1];
  dest->append(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(len));
}

// ---- reading --------------------------------------------------------------------

struct Table {
  std::unique_ptr<leveldb::RandomAccessFile> file;
  std::unique_ptr<leveldb::Table> table;
};

// nullptr when the file is not a LevelDB table.
std::unique_ptr<Table> open_table(const std::string& path, std::string* why) {
  leveldb::Env* env = leveldb::Env::Default();
  uint64_t size = 0;
  leveldb::RandomAccessFile* raw = nullptr;
  leveldb::Status s = env->GetFileSize(path, &size);
  if (s.ok()) s = env->NewRandomAccessFile(path, &raw);
  if (!s.ok()) {
    *why = s.ToString();
    return nullptr;
  }
  auto table = std::make_unique<Table>();
  table->file.reset(raw);
  if (std::string problem = io_detail::table_layout_problem(path); !problem.empty()) {
    *why = "corrupt table: " + problem;
    return nullptr;
  }
  leveldb::Options options;
  options.paranoid_checks = true;
  leveldb::Table* opened = nullptr;
  s = leveldb::Table::Open(options, table->file.get(), size, &opened);
  if (!s.ok()) {
    *why = s.ToString();
    return nullptr;
  }
  table->table.reset(opened);
  return table;
}

bool read_meta(const Table& table, proto::SavedTensorSliceMeta* meta, std::string* why) {
  leveldb::ReadOptions read;
  read.verify_checksums = true;
  std::unique_ptr<leveldb::Iterator> it(table.table->NewIterator(read));
  it->SeekToFirst();
  proto::SavedTensorSlices sts;
  if (!it->Valid() || !it->key().empty()) {
    *why = it->status().ok() ? "no meta entry (the empty key)" : it->status().ToString();
    return false;
  }
  if (!sts.ParseFromArray(it->value().data(), static_cast<int>(it->value().size())) || !sts.has_meta()) {
    *why = "the meta entry is not a SavedTensorSlices with meta";
    return false;
  }
  *meta = sts.meta();
  return true;
}

// Extents of a TensorSliceProto against the full shape: (start, length),
// a missing length meaning the whole dimension.
std::vector<std::pair<int64_t, int64_t>> extents_of(const proto::TensorSliceProto& slice, const Shape& full,
                                                   const std::string& where) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (slice.extent_size() != 0 && slice.extent_size() != full.rank())
    throw Error(where + ": a slice of rank " + std::to_string(slice.extent_size()) + " for a tensor of shape " +
                full.to_string());
  for (int d = 0; d < full.rank(); ++d) {
    if (slice.extent_size() == 0 || !slice.extent(d).has_length()) {
      out.push_back({0, full.dim(d)});
      continue;
    }
    const int64_t start = slice.extent(d).start(), length = slice.extent(d).length();
    if (start < 0 || length < 0 || start > full.dim(d) || length > full.dim(d) - start)
      throw Error(where + ": slice extent " + std::to_string(start) + "," + std::to_string(length) +
                  " outside dimension " + std::to_string(d) + " of size " + std::to_string(full.dim(d)));
    out.push_back({start, length});
  }
  return out;
}

// Values held in the typed field TensorFlow's Fill() writes for `dtype`.
int64_t typed_value_count(const proto::TensorProto& p, DType dtype) {
  if (!p.tensor_content().empty()) {
    const std::size_t size = dtype_size(dtype);
    return size ? static_cast<int64_t>(p.tensor_content().size() / size) : -1;
  }
  switch (dtype) {
    case DType::Float: return p.float_val_size();
    case DType::Double: return p.double_val_size();
    case DType::Int32: case DType::Int16: case DType::Int8: case DType::UInt8: case DType::UInt16:
    case DType::QInt8: case DType::QUInt8: case DType::QInt32: case DType::QInt16: case DType::QUInt16:
      return p.int_val_size();
    case DType::Int64: return p.int64_val_size();
    case DType::Bool: return p.bool_val_size();
    case DType::String: return p.string_val_size();
    case DType::Half: case DType::BFloat16: return p.half_val_size();
    case DType::UInt32: return p.uint32_val_size();
    case DType::UInt64: return p.uint64_val_size();
    case DType::Complex64: return p.scomplex_val_size() / 2;
    case DType::Complex128: return p.dcomplex_val_size() / 2;
    default: return -1;
  }
}

// Copies `block` (the slice's values, dense in its own shape) into `full` at `extents`.
void place_block(Tensor& full, const Tensor& block, const std::vector<std::pair<int64_t, int64_t>>& extents) {
  const int rank = full.shape().rank();
  std::vector<int64_t> stride(static_cast<std::size_t>(rank), 1);
  for (int k = rank - 2; k >= 0; --k)
    stride[static_cast<std::size_t>(k)] = stride[static_cast<std::size_t>(k) + 1] * full.shape().dim(k + 1);
  const std::size_t element = full.dtype() == DType::String ? 0 : dtype_size(full.dtype());
  std::vector<int64_t> index(static_cast<std::size_t>(rank), 0);
  for (int64_t n = 0; n < block.num_elements(); ++n) {
    int64_t target = 0;
    for (int k = 0; k < rank; ++k)
      target += (extents[static_cast<std::size_t>(k)].first + index[static_cast<std::size_t>(k)]) *
                stride[static_cast<std::size_t>(k)];
    if (element == 0)
      full.strings()[static_cast<std::size_t>(target)] = block.strings()[static_cast<std::size_t>(n)];
    else
      std::memcpy(static_cast<char*>(full.raw_data()) + target * static_cast<int64_t>(element),
                  static_cast<const char*>(block.raw_data()) + n * static_cast<int64_t>(element), element);
    for (int k = rank - 1; k >= 0; --k) {
      if (++index[static_cast<std::size_t>(k)] < extents[static_cast<std::size_t>(k)].second) break;
      index[static_cast<std::size_t>(k)] = 0;
    }
  }
}

}  // namespace

struct TensorSliceReader::Slice {
  std::string file;
  std::string key;
  std::vector<std::pair<int64_t, int64_t>> extents;
};

std::vector<std::string> match_checkpoint_files(const std::string& pattern) {
  std::vector<std::string> files;
  if (pattern.find_first_of("*?[") == std::string::npos) {
    std::error_code ec;
    if (fs::is_regular_file(pattern, ec)) files.push_back(pattern);
    return files;
  }
  glob_t matches{};
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0)
    for (std::size_t k = 0; k < matches.gl_pathc; ++k) files.emplace_back(matches.gl_pathv[k]);
  ::globfree(&matches);
  std::sort(files.begin(), files.end());
  return files;
}

bool is_tensor_slice_file(const std::string& path) {
  std::string why;
  const auto table = open_table(path, &why);
  proto::SavedTensorSliceMeta meta;
  return table && read_meta(*table, &meta, &why);
}

TensorSliceReader::TensorSliceReader(std::string pattern) : pattern_(std::move(pattern)) {
  files_ = match_checkpoint_files(pattern_);
  if (files_.empty()) throw Error("no V1 checkpoint file matches '" + pattern_ + "'");
  std::map<std::string, CheckpointEntry> by_name;
  for (const std::string& file : files_) {
    std::string why;
    const auto table = open_table(file, &why);
    if (!table) throw ParseError(file, 0, 0, "not a TensorFlow checkpoint (a LevelDB-format table): " + why);
    proto::SavedTensorSliceMeta meta;
    if (!read_meta(*table, &meta, &why)) throw ParseError(file, 0, 0, "not a V1 checkpoint: " + why);
    if (meta.versions().min_consumer() > kCheckpointVersion)
      throw ParseError(file, 0, 0, "checkpoint needs a reader of version " +
                                       std::to_string(meta.versions().min_consumer()) + "; FlowLens reads version " +
                                       std::to_string(kCheckpointVersion));
    for (const proto::SavedSliceMeta& t : meta.tensor()) {
      const std::string where = file + ": tensor '" + t.name() + "'";
      if (!io_detail::is_known_dtype_value(t.type()) || t.type() == 0 || t.type() > 100)
        throw ParseError(file, 0, 0, "tensor '" + t.name() + "': dtype " + std::to_string(t.type()) +
                                         " is not a tensor type");
      Shape shape;
      try {
        shape = io_detail::shape_from_proto(t.shape());
      } catch (const Error& e) {
        throw ParseError(file, 0, 0, "tensor '" + t.name() + "': " + e.what());
      }
      if (!shape.fully_defined() || !Shape::checked_num_elements(shape.dims()))
        throw ParseError(file, 0, 0, "tensor '" + t.name() + "' has the invalid shape " + shape.to_string());
      CheckpointEntry& entry = by_name[t.name()];
      if (entry.name.empty()) {
        entry.name = t.name();
        entry.dtype = static_cast<DType>(t.type());
        entry.shape = shape;
      } else if (entry.dtype != static_cast<DType>(t.type()) || !(entry.shape == shape)) {
        throw ParseError(file, 0, 0, "tensor '" + t.name() + "' is " + dtype_name(static_cast<DType>(t.type())) +
                                         shape.to_string() + " here but " + dtype_name(entry.dtype) +
                                         entry.shape.to_string() + " in another shard");
      }
      for (const auto& slice : t.slice()) {
        Slice s{file, "", extents_of(slice, shape, where)};
        std::string key;
        write_num_increasing(&key, 0);
        write_string(&key, t.name());
        write_num_increasing(&key, static_cast<uint64_t>(shape.rank()));
        for (int d = 0; d < shape.rank(); ++d) {
          const bool full = slice.extent_size() == 0 || !slice.extent(d).has_length();
          write_signed_num_increasing(&key, full ? 0 : slice.extent(d).start());
          write_signed_num_increasing(&key, full ? -1 : slice.extent(d).length());
        }
        s.key = std::move(key);
        slices_[t.name()].push_back(std::move(s));
        ++entry.num_slices;
      }
    }
  }
  for (auto& [name, entry] : by_name) {
    // One full slice is a whole tensor, not a partitioned one.
    const auto& pieces = slices_[name];
    if (pieces.size() == 1) {
      bool whole = true;
      for (int d = 0; d < entry.shape.rank(); ++d)
        whole &= pieces[0].extents[static_cast<std::size_t>(d)] == std::pair<int64_t, int64_t>{0, entry.shape.dim(d)};
      if (whole) entry.num_slices = 0;
    }
    const std::size_t element = entry.dtype == DType::String ? 1 : dtype_size(entry.dtype);
    entry.size = entry.shape.num_elements() * static_cast<int64_t>(element);
    entries_.push_back(entry);
  }
}

TensorSliceReader::~TensorSliceReader() = default;

Tensor TensorSliceReader::read(const std::string& name) const {
  const CheckpointEntry* entry = find(name);
  if (!entry) throw Error("tensor '" + name + "' is not in checkpoint '" + pattern_ + "'");
  const auto pieces = slices_.find(name);
  if (pieces == slices_.end() || pieces->second.empty())
    throw Error("tensor '" + name + "' of checkpoint '" + pattern_ + "' has no stored slices");
  Tensor full(entry->dtype, entry->shape);
  int64_t covered = 0;
  for (const Slice& slice : pieces->second) {
    std::string why;
    const auto table = open_table(slice.file, &why);
    if (!table) throw ParseError(slice.file, 0, 0, why);
    leveldb::ReadOptions read_options;
    read_options.verify_checksums = true;
    std::unique_ptr<leveldb::Iterator> it(table->table->NewIterator(read_options));
    it->Seek(slice.key);
    if (!it->Valid() || it->key().ToString() != slice.key)
      throw Error(slice.file + ": the data of tensor '" + name + "' is missing (its meta lists a slice not stored)" +
                  (it->status().ok() ? "" : ": " + it->status().ToString()));
    proto::SavedTensorSlices sts;
    if (!sts.ParseFromArray(it->value().data(), static_cast<int>(it->value().size())) || !sts.has_data())
      throw Error(slice.file + ": the data of tensor '" + name + "' does not parse");
    std::vector<int64_t> dims;
    for (const auto& [start, length] : slice.extents) dims.push_back(length);
    const Shape block_shape(dims);
    proto::TensorProto values = sts.data().data();
    if (typed_value_count(values, entry->dtype) != block_shape.num_elements())
      throw Error(slice.file + ": tensor '" + name + "' has " +
                  std::to_string(typed_value_count(values, entry->dtype)) + " stored values for a slice of shape " +
                  block_shape.to_string());
    // TensorFlow stores the values without dtype or shape: the meta has them.
    values.set_dtype(static_cast<proto::DataType>(entry->dtype));
    io_detail::shape_to_proto(block_shape, values.mutable_tensor_shape());
    Tensor block;
    try {
      block = io_detail::tensor_from_proto(values);
    } catch (const Error& e) {
      throw Error(slice.file + ": tensor '" + name + "': " + e.what());
    }
    place_block(full, block, slice.extents);
    covered += block.num_elements();
  }
  if (covered < entry->shape.num_elements())
    throw Error("the slices of tensor '" + name + "' in '" + pattern_ + "' cover " + std::to_string(covered) +
                " of its " + std::to_string(entry->shape.num_elements()) + " elements");
  return full;
}

std::string encode_full_slice_key(const std::string& name, int rank) {
  std::string key;
  write_num_increasing(&key, 0);
  write_string(&key, name);
  write_num_increasing(&key, static_cast<uint64_t>(rank));
  for (int d = 0; d < rank; ++d) {
    write_signed_num_increasing(&key, 0);
    write_signed_num_increasing(&key, -1);
  }
  return key;
}

void write_tensor_slice_checkpoint(const std::string& path, const std::map<std::string, Tensor>& tensors) {
  proto::SavedTensorSlices meta_entry;
  proto::SavedTensorSliceMeta* meta = meta_entry.mutable_meta();
  meta->mutable_versions()->set_producer(kCheckpointVersion);
  meta->mutable_versions()->set_min_consumer(kCheckpointMinConsumer);
  std::map<std::string, std::string> data;  // sorted keys, as the table needs
  for (const auto& [name, tensor] : tensors) {
    if (name.empty()) throw Error("cannot save a tensor with an empty name in a V1 checkpoint");
    const Tensor host = tensor.to_host();
    if (host.dtype() == DType::Resource || host.dtype() == DType::Variant)
      throw Error("cannot save tensor '" + name + "': dtype " + dtype_name(host.dtype()) + " has no checkpoint layout");
    proto::SavedSliceMeta* m = meta->add_tensor();
    m->set_name(name);
    io_detail::shape_to_proto(host.shape(), m->mutable_shape());
    m->set_type(static_cast<proto::DataType>(host.dtype()));
    proto::TensorSliceProto* full = m->add_slice();
    for (int d = 0; d < host.shape().rank(); ++d) full->add_extent();
    proto::SavedTensorSlices sts;
    proto::SavedSlice* slice = sts.mutable_data();
    slice->set_name(name);
    *slice->mutable_slice() = *full;
    // Values in the typed field, without shape, as TensorFlow's Fill() writes them.
    proto::TensorProto encoded;
    io_detail::tensor_to_proto(host, &encoded);
    if (!encoded.tensor_content().empty() && host.dtype() != DType::String) {
      // tensor_to_proto packs big tensors; V1 readers expect typed values.
      encoded.clear_tensor_content();
      const char* bytes = static_cast<const char*>(host.raw_data());
      for (int64_t k = 0; k < host.num_elements(); ++k) {
        switch (host.dtype()) {
          case DType::Float: encoded.add_float_val(reinterpret_cast<const float*>(bytes)[k]); break;
          case DType::Double: encoded.add_double_val(reinterpret_cast<const double*>(bytes)[k]); break;
          case DType::Int32: encoded.add_int_val(reinterpret_cast<const int32_t*>(bytes)[k]); break;
          case DType::Int64: encoded.add_int64_val(reinterpret_cast<const int64_t*>(bytes)[k]); break;
          case DType::Bool: encoded.add_bool_val(reinterpret_cast<const bool*>(bytes)[k]); break;
          case DType::Int8: encoded.add_int_val(reinterpret_cast<const int8_t*>(bytes)[k]); break;
          case DType::UInt8: encoded.add_int_val(reinterpret_cast<const uint8_t*>(bytes)[k]); break;
          case DType::Int16: encoded.add_int_val(reinterpret_cast<const int16_t*>(bytes)[k]); break;
          case DType::UInt16: encoded.add_int_val(reinterpret_cast<const uint16_t*>(bytes)[k]); break;
          default:
            throw Error("cannot save tensor '" + name + "' of dtype " + dtype_name(host.dtype()) +
                        " in a V1 checkpoint");
        }
      }
    }
    encoded.clear_tensor_shape();
    *slice->mutable_data() = std::move(encoded);
    data.emplace(encode_full_slice_key(name, host.shape().rank()), sts.SerializeAsString());
  }
  const std::string temp = path + ".tempstate-flowlens";
  {
    const fs::path dir = fs::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty()) fs::create_directories(dir, ec);
    leveldb::WritableFile* raw = nullptr;
    leveldb::Status s = leveldb::Env::Default()->NewWritableFile(temp, &raw);
    if (!s.ok()) throw Error("cannot write checkpoint '" + path + "': " + s.ToString());
    std::unique_ptr<leveldb::WritableFile> file(raw);
    leveldb::Options options;
    options.compression = leveldb::kNoCompression;
    leveldb::TableBuilder builder(options, file.get());
    builder.Add("", meta_entry.SerializeAsString());
    for (const auto& [key, value] : data) builder.Add(key, value);
    s = builder.Finish();
    if (s.ok()) s = file->Sync();
    if (s.ok()) s = file->Close();
    if (!s.ok()) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw Error("cannot write checkpoint '" + path + "': " + s.ToString());
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) throw Error("cannot write checkpoint '" + path + "': " + ec.message());
}

}  // namespace flowlens
