// V2 checkpoints (tensor bundles). The first fixture is assembled byte by byte
// from the documented formats — LevelDB's table layout (doc/table_format.md:
// prefix-compressed blocks, restarts, a type byte and masked CRC-32C per block,
// a 48-byte footer with its magic), BundleHeaderProto / BundleEntryProto wire
// bytes, and tensor_bundle.cc's string layout — so the reader is checked against
// the format, not against our own writer. The writer is then checked by round
// trips and by decoding its index's footer and block trailers by hand.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/crc32c.h"
#include "io/tensor_bundle.h"

using namespace flowlens;
namespace fs = std::filesystem;

namespace {

std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

std::string fixed32(uint32_t v) {
  std::string out;
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  return out;
}

std::string fixed64(uint64_t v) { return fixed32(static_cast<uint32_t>(v)) + fixed32(static_cast<uint32_t>(v >> 32)); }

uint32_t read_fixed32(const std::string& s, std::size_t at) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(static_cast<unsigned char>(s[at + k])) << (8 * k);
  return v;
}

// A LevelDB block with a restart point at every entry (shared prefix 0).
std::string block(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out;
  std::vector<uint32_t> restarts;
  for (const auto& [key, value] : entries) {
    restarts.push_back(static_cast<uint32_t>(out.size()));
    out += varint(0) + varint(key.size()) + varint(value.size()) + key + value;
  }
  if (restarts.empty()) restarts.push_back(0);  // an empty block still has one restart
  for (uint32_t r : restarts) out += fixed32(r);
  return out + fixed32(static_cast<uint32_t>(restarts.size()));
}

// Appends `contents` with its trailer (type 0 = uncompressed, masked CRC of
// contents + type) and returns its BlockHandle encoding.
std::string append_block(std::string* file, const std::string& contents) {
  const std::string handle = varint(file->size()) + varint(contents.size());
  const std::string typed = contents + std::string(1, '\0');
  *file += typed + fixed32(crc32c_mask(crc32c(typed)));
  return handle;
}

std::string table(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string file;
  const std::string data_handle = append_block(&file, block(entries));
  const std::string meta_handle = append_block(&file, block({}));
  const std::string index_handle = append_block(&file, block({{entries.back().first, data_handle}}));
  std::string footer = meta_handle + index_handle;
  footer.resize(40, '\0');
  return file + footer + fixed64(0xdb4775248b80fb57ull);
}

std::string field(int number, int wire_type) { return varint(static_cast<uint64_t>(number << 3 | wire_type)); }
std::string bytes_field(int number, const std::string& payload) { return field(number, 2) + varint(payload.size()) + payload; }

// BundleEntryProto: dtype=1, shape=2 {dim=2 {size=1}}, shard_id=3, offset=4, size=5, crc32c=6 (fixed32).
std::string entry_proto(int dtype, const std::vector<int64_t>& dims, int64_t offset, int64_t size, uint32_t crc) {
  std::string shape;
  for (int64_t d : dims) shape += bytes_field(2, field(1, 0) + varint(static_cast<uint64_t>(d)));
  std::string out = field(1, 0) + varint(static_cast<uint64_t>(dtype)) + bytes_field(2, shape);
  if (offset) out += field(4, 0) + varint(static_cast<uint64_t>(offset));
  out += field(5, 0) + varint(static_cast<uint64_t>(size));
  return out + field(6, 5) + fixed32(crc32c_mask(crc));
}

// BundleHeaderProto: num_shards=1, version=3 {producer=1}.
std::string header_proto(int num_shards) {
  return field(1, 0) + varint(static_cast<uint64_t>(num_shards)) + bytes_field(3, field(1, 0) + varint(1));
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string float_bytes(std::initializer_list<float> values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

// The fixture: bias float32[2] = {1.5, -2}, global_step int64 = 42,
// names string[2] = {"ab", ""}, all in one data shard.
struct HandBuilt {
  std::string prefix;
  std::size_t names_offset = 0;
};

HandBuilt write_hand_built(const QTemporaryDir& dir) {
  HandBuilt out;
  out.prefix = dir.filePath("model.ckpt-7").toStdString();
  std::string data = float_bytes({1.5f, -2.0f});
  const std::string bias = data;
  int64_t step = 42;
  std::string step_bytes(8, '\0');
  std::memcpy(step_bytes.data(), &step, 8);
  data += step_bytes;
  // tensor_bundle.cc's string layout: varint lengths, the masked CRC of the
  // lengths (summed as uint32 LE), then the bytes; the entry's CRC covers all.
  uint32_t length_crc = crc32c_extend(crc32c(fixed32(2)), fixed32(0));
  const std::string names = varint(2) + varint(0) + fixed32(crc32c_mask(length_crc)) + "ab";
  const uint32_t names_crc = crc32c_extend(length_crc, names.substr(2));
  out.names_offset = data.size();
  data += names;
  write_file(bundle_data_path(out.prefix, 0, 1), data);
  write_file(bundle_index_path(out.prefix),
             table({{"", header_proto(1)},
                    {"bias", entry_proto(1, {2}, 0, 8, crc32c(bias))},
                    {"global_step", entry_proto(9, {}, 8, 8, crc32c(step_bytes))},
                    {"names", entry_proto(7, {2}, static_cast<int64_t>(out.names_offset),
                                          static_cast<int64_t>(names.size()), names_crc)}}));
  return out;
}

template <class F>
QString error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestTensorBundle : public QObject {
  Q_OBJECT
 private slots:
  void reads_a_hand_built_bundle() {
    QTemporaryDir dir;
    const HandBuilt fixture = write_hand_built(dir);
    BundleReader reader(fixture.prefix);
    QCOMPARE(reader.num_shards(), 1);
    QCOMPARE(reader.entries().size(), std::size_t{3});
    const CheckpointEntry* bias = reader.find("bias");
    QVERIFY(bias);
    QCOMPARE(bias->dtype, DType::Float);
    QCOMPARE(bias->shape, (Shape{2}));
    QCOMPARE(bias->size, int64_t{8});
    const Tensor b = reader.read("bias");
    QCOMPARE(b.data<float>()[0], 1.5f);
    QCOMPARE(b.data<float>()[1], -2.0f);
    const Tensor step = reader.read("global_step");
    QCOMPARE(step.dtype(), DType::Int64);
    QCOMPARE(step.shape(), Shape{});
    QCOMPARE(step.data<int64_t>()[0], int64_t{42});
    const Tensor names = reader.read("names");
    QCOMPARE(names.strings(), (std::vector<std::string>{"ab", ""}));
  }

  void missing_tensor_names_near_ones() {
    QTemporaryDir dir;
    const HandBuilt fixture = write_hand_built(dir);
    BundleReader reader(fixture.prefix);
    const QString message = error_of([&] { reader.read("biass"); });
    QVERIFY2(message.contains("'biass' is not in checkpoint") && message.contains("bias"), qPrintable(message));
  }

  void corrupt_data_fails_its_checksum() {
    QTemporaryDir dir;
    const HandBuilt fixture = write_hand_built(dir);
    const std::string data_path = bundle_data_path(fixture.prefix, 0, 1);
    std::string data = read_file(data_path);
    data[1] ^= 0x10;                           // inside bias
    data[fixture.names_offset + 6] ^= 0x01;   // inside "ab"
    write_file(data_path, data);
    BundleReader reader(fixture.prefix);
    QString message = error_of([&] { reader.read("bias"); });
    QVERIFY2(message.contains("checksum mismatch for tensor 'bias'") && message.contains("data-00000-of-00001"),
             qPrintable(message));
    message = error_of([&] { reader.read("names"); });
    QVERIFY2(message.contains("checksum mismatch for tensor 'names'"), qPrintable(message));
    QCOMPARE(reader.read("global_step").data<int64_t>()[0], int64_t{42});  // the others still read
  }

  void short_or_missing_shard_is_named() {
    QTemporaryDir dir;
    const HandBuilt fixture = write_hand_built(dir);
    const std::string data_path = bundle_data_path(fixture.prefix, 0, 1);
    write_file(data_path, read_file(data_path).substr(0, 10));
    BundleReader reader(fixture.prefix);
    QVERIFY(reader.read("bias").valid());
    QString message = error_of([&] { reader.read("global_step"); });
    QVERIFY2(message.contains("too short for tensor 'global_step'"), qPrintable(message));
    fs::remove(data_path);
    message = error_of([&] { reader.read("bias"); });
    QVERIFY2(message.contains("does not exist") && message.contains(".data-00000-of-00001"), qPrintable(message));
  }

  void bad_index_files_are_refused_with_their_name() {
    QTemporaryDir dir;
    const HandBuilt fixture = write_hand_built(dir);
    const std::string index_path = bundle_index_path(fixture.prefix);
    const std::string index = read_file(index_path);
    // Truncated: the footer is gone.
    write_file(index_path, index.substr(0, index.size() - 10));
    QString message = error_of([&] { BundleReader reader(fixture.prefix); });
    QVERIFY2(message.contains("model.ckpt-7.index"), qPrintable(message));
    // One flipped bit inside the data block: the block's CRC catches it.
    std::string flipped = index;
    flipped[5] ^= 0x04;
    write_file(index_path, flipped);
    message = error_of([&] {
      BundleReader reader(fixture.prefix);
      for (const auto& e : reader.entries()) reader.read(e.name);
    });
    QVERIFY2(message.contains("model.ckpt-7"), qPrintable(message));
    // Garbage and an empty file.
    write_file(index_path, std::string(100, 'x'));
    QVERIFY(!error_of([&] { BundleReader reader(fixture.prefix); }).isEmpty());
    write_file(index_path, "");
    QVERIFY(!error_of([&] { BundleReader reader(fixture.prefix); }).isEmpty());
    fs::remove(index_path);
    message = error_of([&] { BundleReader reader(fixture.prefix); });
    QVERIFY2(message.contains("does not exist"), qPrintable(message));
  }

  void hostile_entries_allocate_nothing() {
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("hostile").toStdString();
    write_file(bundle_data_path(prefix, 0, 1), std::string(16, '\0'));
    write_file(bundle_index_path(prefix),
               table({{"", header_proto(1)},
                      {"huge", entry_proto(1, {1 << 30, 1 << 30}, 0, 16, 0)},
                      {"lies", entry_proto(1, {4}, 0, int64_t{1} << 40, 0)},
                      {"strings", entry_proto(7, {int64_t{1} << 40}, 0, 16, 0)}}));
    BundleReader reader(prefix);
    QVERIFY(error_of([&] { reader.read("huge"); }).contains("needs"));
    QVERIFY(!error_of([&] { reader.read("lies"); }).isEmpty());
    QVERIFY(error_of([&] { reader.read("strings"); }).contains("too small"));
    // An entry pointing at a shard the header does not have is refused on open.
    write_file(bundle_index_path(prefix),
               table({{"", header_proto(1)}, {"wrong_shard", entry_proto(1, {1}, 0, 4, 0) + field(3, 0) + varint(5)}}));
    QVERIFY(error_of([&] { BundleReader r(prefix); }).contains("shard 5"));
    write_file(bundle_index_path(prefix), table({{"", header_proto(-3)}}));
    QVERIFY(error_of([&] { BundleReader r(prefix); }).contains("data shards"));
  }

  void block_handles_outside_the_file_are_refused_before_reading() {
    // LevelDB allocates a block's buffer from its handle before reading:
    // a handle naming a terabyte must be refused first.
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("huge").toStdString();
    std::string file;
    const std::string data_handle = append_block(&file, block({{"", header_proto(1)}}));
    const std::string meta_handle = append_block(&file, block({}));
    const std::string bad_data = varint(0) + varint(uint64_t{1} << 40);  // a terabyte at offset 0
    const std::string index_handle = append_block(&file, block({{"", bad_data}}));
    std::string footer = meta_handle + index_handle;
    footer.resize(40, '\0');
    write_file(bundle_index_path(prefix), file + footer + fixed64(0xdb4775248b80fb57ull));
    QString message = error_of([&] { BundleReader reader(prefix); });
    QVERIFY2(message.contains("huge.index") && message.contains("outside the file"), qPrintable(message));
    // The footer's own index handle.
    footer = meta_handle + varint(0) + varint(uint64_t{1} << 41);
    footer.resize(40, '\0');
    write_file(bundle_index_path(prefix), file + footer + fixed64(0xdb4775248b80fb57ull));
    message = error_of([&] { BundleReader reader(prefix); });
    QVERIFY2(message.contains("footer names a block outside the file"), qPrintable(message));
    (void)data_handle;
  }

  void writer_round_trips_every_dtype() {
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("sub/dir/ckpt").toStdString();
    std::map<std::string, Tensor> tensors;
    tensors["a/float"] = Tensor::from_vector<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
    tensors["b/double"] = Tensor::from_vector<double>(Shape{1}, {3.25});
    tensors["c/int32"] = Tensor::from_vector<int32_t>(Shape{}, {-7});
    tensors["d/int64"] = Tensor::from_vector<int64_t>(Shape{0}, {});
    tensors["e/bool"] = Tensor::from_vector<bool>(Shape{3}, {true, false, true});
    tensors["f/strings"] = Tensor::from_strings(Shape{3}, {"", std::string(300, 'z'), std::string("a\0b", 3)});
    write_bundle(prefix, tensors);
    BundleReader reader(prefix);
    QCOMPARE(reader.entries().size(), tensors.size());
    for (const auto& [name, expected] : tensors) {
      const Tensor got = reader.read(name);
      QCOMPARE(got.dtype(), expected.dtype());
      QCOMPARE(got.shape(), expected.shape());
      if (expected.dtype() == DType::String)
        QCOMPARE(got.strings(), expected.strings());
      else
        QCOMPARE(std::memcmp(got.raw_data(), expected.raw_data(), expected.byte_size()), 0);
    }
    // No temporary files are left behind.
    for (const auto& f : fs::directory_iterator(fs::path(prefix).parent_path()))
      QVERIFY2(f.path().string().find("tempstate") == std::string::npos, f.path().c_str());
  }

  void written_index_is_an_uncompressed_leveldb_table() {
    // TensorFlow's reader handles no compression or Snappy; TensorFlow writes
    // none, and so must we. Decode the footer and the index block's trailer.
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("plain").toStdString();
    write_bundle(prefix, {{"w", Tensor::from_vector<float>(Shape{1}, {1})}});
    const std::string index = read_file(bundle_index_path(prefix));
    QVERIFY(index.size() >= 48);
    QCOMPARE(read_fixed32(index, index.size() - 8), 0x8b80fb57u);
    QCOMPARE(read_fixed32(index, index.size() - 4), 0xdb477524u);
    // The first block starts at 0; find its size from the footer's index handle
    // is overkill: the data block is first, so check the trailer after it by
    // scanning for a type byte 0 followed by a valid masked CRC.
    bool found = false;
    for (std::size_t end = 1; end + 5 <= index.size() - 48 && !found; ++end)
      found = index[end] == '\0' &&
              crc32c_unmask(read_fixed32(index, end + 1)) == crc32c(std::string_view(index.data(), end + 1));
    QVERIFY2(found, "no uncompressed block with a valid masked CRC at the start of the index");
    // And the data file is the tensor's raw little-endian bytes.
    QCOMPARE(read_file(bundle_data_path(prefix, 0, 1)), float_bytes({1.0f}));
  }

  void writer_refuses_duplicates_and_bad_names() {
    QTemporaryDir dir;
    BundleWriter writer(dir.filePath("dup").toStdString());
    writer.add("x", Tensor::from_vector<float>(Shape{}, {1}));
    QVERIFY(error_of([&] { writer.add("x", Tensor::from_vector<float>(Shape{}, {2})); }).contains("twice"));
    QVERIFY(error_of([&] { writer.add("", Tensor::from_vector<float>(Shape{}, {2})); }).contains("header"));
  }

  void unfinished_writer_leaves_no_checkpoint() {
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("never").toStdString();
    {
      BundleWriter writer(prefix);
      writer.add("x", Tensor::from_vector<float>(Shape{}, {1}));
    }
    QVERIFY(!is_bundle_prefix(prefix));
    QVERIFY(fs::is_empty(dir.path().toStdString()));
  }

  void merge_renames_shards_and_lists_everything() {
    QTemporaryDir dir;
    const std::string part0 = dir.filePath("tmp/part-0").toStdString();
    const std::string part1 = dir.filePath("tmp/part-1").toStdString();
    write_bundle(part0, {{"a", Tensor::from_vector<float>(Shape{1}, {1})}});
    write_bundle(part1, {{"b", Tensor::from_vector<float>(Shape{1}, {2})},
                         {"c", Tensor::from_strings(Shape{}, {"text"})}});
    const std::string merged = dir.filePath("model.ckpt").toStdString();
    merge_bundles({part0, part1}, merged);
    QVERIFY(!is_bundle_prefix(part0));
    QVERIFY(!is_bundle_prefix(part1));
    QVERIFY(fs::exists(bundle_data_path(merged, 0, 2)));
    QVERIFY(fs::exists(bundle_data_path(merged, 1, 2)));
    BundleReader reader(merged);
    QCOMPARE(reader.num_shards(), 2);
    QCOMPARE(reader.read("a").data<float>()[0], 1.0f);
    QCOMPARE(reader.read("b").data<float>()[0], 2.0f);
    QCOMPARE(reader.read("c").strings()[0], std::string("text"));
    // A tensor in two inputs is an error, as in TensorFlow.
    write_bundle(part0, {{"a", Tensor::from_vector<float>(Shape{1}, {1})}});
    write_bundle(part1, {{"a", Tensor::from_vector<float>(Shape{1}, {2})}});
    QVERIFY(error_of([&] { merge_bundles({part0, part1}, merged); }).contains("more than one"));
  }

  void resolves_what_users_name() {
    QTemporaryDir dir;
    const HandBuilt fixture = write_hand_built(dir);
    QCOMPARE(resolve_checkpoint_prefix(fixture.prefix), fixture.prefix);
    QCOMPARE(resolve_checkpoint_prefix(fixture.prefix + ".index"), fixture.prefix);
    QCOMPARE(resolve_checkpoint_prefix(bundle_data_path(fixture.prefix, 0, 1)), fixture.prefix);
    // The state file tf.train.Saver writes, with a relative path.
    write_file(dir.filePath("checkpoint").toStdString(),
               "model_checkpoint_path: \"model.ckpt-7\"\nall_model_checkpoint_paths: \"model.ckpt-7\"\n");
    QCOMPARE(resolve_checkpoint_prefix(dir.path().toStdString()), fixture.prefix);
    QCOMPARE(latest_checkpoint(dir.path().toStdString()), fixture.prefix);
    write_file(dir.filePath("checkpoint").toStdString(), "model_checkpoint_path: \"gone\"\n");
    QVERIFY(error_of([&] { resolve_checkpoint_prefix(dir.path().toStdString()); }).contains("gone.index"));
    write_file(dir.filePath("checkpoint").toStdString(), "this is { not a state");
    QVERIFY(error_of([&] { latest_checkpoint(dir.path().toStdString()); }).contains("checkpoint state"));
    QVERIFY(error_of([&] { resolve_checkpoint_prefix(dir.filePath("nothing").toStdString()); })
                .contains("nothing.index"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestTensorBundle)
#include "test_tensor_bundle.moc"
