#include "io/event_log.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "common/error.h"
#include "io/event.pb.h"
#include "io/graph_io.h"
#include "io/tfrecord.h"

namespace fs = std::filesystem;

namespace flowlens {

std::string EventProblem::to_string() const { return file + "@" + std::to_string(offset) + ": " + what; }

const EventRun* EventLog::find_run(std::string_view name) const {
  for (const EventRun& run : runs)
    if (run.name == name) return &run;
  return nullptr;
}

std::vector<EventProblem> EventLog::all_problems() const {
  std::vector<EventProblem> out = problems;
  for (const EventRun& run : runs) out.insert(out.end(), run.problems.begin(), run.problems.end());
  return out;
}

namespace {

// ---- Scalars from tensor summaries -------------------------------------------------

float half_to_float(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0) magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;
  else magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

float bfloat16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <class T>
std::optional<T> from_content(const std::string& content) {
  if (content.size() != sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, content.data(), sizeof v);
  return v;
}

// The value of a rank-0 numeric TensorProto, with TensorFlow's rules: the
// typed field or tensor_content, and no values at all meaning zero. On
// failure `why` says what the tensor is instead.
std::optional<double> scalar_from_tensor(const proto::TensorProto& t, std::string& why) {
  if (t.tensor_shape().unknown_rank() || t.tensor_shape().dim_size() != 0) {
    why = t.tensor_shape().unknown_rank() ? "a tensor of unknown rank"
                                          : "a rank-" + std::to_string(t.tensor_shape().dim_size()) + " tensor";
    return std::nullopt;
  }
  const std::string& content = t.tensor_content();
  const bool use_content = !content.empty();
  auto pick = [&](auto typed, int typed_size, auto content_type) -> std::optional<double> {
    using C = decltype(content_type);
    if (use_content) {
      auto v = from_content<C>(content);
      if (!v) why = "tensor_content of " + std::to_string(content.size()) + " bytes for one element";
      return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
    }
    return typed_size > 0 ? static_cast<double>(typed()) : 0.0;
  };
  switch (t.dtype()) {
    case proto::DT_FLOAT: return pick([&] { return t.float_val(0); }, t.float_val_size(), float{});
    case proto::DT_DOUBLE: return pick([&] { return t.double_val(0); }, t.double_val_size(), double{});
    case proto::DT_INT32: return pick([&] { return t.int_val(0); }, t.int_val_size(), int32_t{});
    case proto::DT_INT16: return pick([&] { return t.int_val(0); }, t.int_val_size(), int16_t{});
    case proto::DT_INT8: return pick([&] { return t.int_val(0); }, t.int_val_size(), int8_t{});
    case proto::DT_UINT8: return pick([&] { return t.int_val(0); }, t.int_val_size(), uint8_t{});
    case proto::DT_UINT16: return pick([&] { return t.int_val(0); }, t.int_val_size(), uint16_t{});
    case proto::DT_INT64: return pick([&] { return t.int64_val(0); }, t.int64_val_size(), int64_t{});
    case proto::DT_UINT32: return pick([&] { return t.uint32_val(0); }, t.uint32_val_size(), uint32_t{});
    case proto::DT_UINT64: return pick([&] { return t.uint64_val(0); }, t.uint64_val_size(), uint64_t{});
    case proto::DT_HALF:
    case proto::DT_BFLOAT16: {
      const bool half = t.dtype() == proto::DT_HALF;
      uint16_t bits = 0;
      if (use_content) {
        auto v = from_content<uint16_t>(content);
        if (!v) {
          why = "tensor_content of " + std::to_string(content.size()) + " bytes for one element";
          return std::nullopt;
        }
        bits = *v;
      } else if (t.half_val_size() > 0) {
        bits = static_cast<uint16_t>(t.half_val(0));
      }
      return half ? half_to_float(bits) : bfloat16_to_float(bits);
    }
    default:
      why = "a tensor of dtype " + proto::DataType_Name(t.dtype());
      if (why.size() == std::string("a tensor of dtype ").size()) why += std::to_string(static_cast<int>(t.dtype()));
      return std::nullopt;
  }
}

bool is_brain_event_version(const std::string& v) {
  constexpr std::string_view prefix = "brain.Event:";
  if (v.size() <= prefix.size() || v.compare(0, prefix.size(), prefix) != 0) return false;
  return std::all_of(v.begin() + static_cast<std::ptrdiff_t>(prefix.size()), v.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// ---- Reading one run ---------------------------------------------------------------

class RunReader {
 public:
  explicit RunReader(EventRun& run) : run_(run) {}

  void read_file(const std::string& path) {
    run_.files.push_back(path);
    const std::size_t first_problem = run_.problems.size();
    read_records(path);
    // Framing problems are collected by the reader, content problems on the
    // way: list them in file order.
    std::stable_sort(run_.problems.begin() + static_cast<std::ptrdiff_t>(first_problem), run_.problems.end(),
                     [](const EventProblem& a, const EventProblem& b) { return a.offset < b.offset; });
  }

 private:
  void read_records(const std::string& path) {
    std::optional<TFRecordReader> reader;
    try {
      reader.emplace(TFRecordReader::open(path));
    } catch (const Error& e) {
      problem(path, 0, e.what());
      return;
    }
    while (auto record = reader->next()) {
      proto::Event event;
      if (!event.ParseFromString(record->data)) {
        problem(path, record->offset,
                "record of " + std::to_string(record->data.size()) + " byte(s) is not an Event protocol buffer");
        continue;
      }
      ++run_.events;
      add_event(event, path, record->offset);
    }
    for (const RecordProblem& p : reader->problems()) problem(path, p.offset, p.what);
  }

  void problem(const std::string& file, uint64_t offset, std::string what) {
    run_.problems.push_back({file, offset, std::move(what)});
  }

  void add_event(const proto::Event& event, const std::string& file, uint64_t offset) {
    switch (event.what_case()) {
      case proto::Event::kFileVersion:
        if (!is_brain_event_version(event.file_version()))
          problem(file, offset, "file_version '" + event.file_version() + "' is not brain.Event:N");
        if (run_.file_version.empty()) run_.file_version = event.file_version();
        break;
      case proto::Event::kGraphDef:
        run_.graphs.push_back({event.step(), event.wall_time(), file, offset, event.graph_def()});
        break;
      case proto::Event::kMetaGraphDef:
        run_.meta_graphs.push_back({event.step(), event.wall_time(), file, offset, event.meta_graph_def()});
        break;
      case proto::Event::kTaggedRunMetadata:
        run_.run_metadata.push_back({event.tagged_run_metadata().tag(), event.step(), event.wall_time(),
                                     event.tagged_run_metadata().run_metadata(), file, offset});
        break;
      case proto::Event::kSummary:
        for (const proto::Summary::Value& value : event.summary().value()) add_value(value, event, file, offset);
        break;
      default:
        break;  // log_message, session_log, nothing: counted only
    }
  }

  void add_value(const proto::Summary::Value& value, const proto::Event& event, const std::string& file,
                 uint64_t offset) {
    const std::string& tag = value.tag();
    if (value.has_metadata()) {
      // Writers keep the metadata only on a tag's first value; remember it.
      TagMetadata& meta = metadata_[tag];
      if (!value.metadata().plugin_data().plugin_name().empty())
        meta.plugin = value.metadata().plugin_data().plugin_name();
      if (value.metadata().data_class() != proto::DATA_CLASS_UNKNOWN) meta.data_class = value.metadata().data_class();
    }
    switch (value.value_case()) {
      case proto::Summary::Value::kSimpleValue:
        run_.scalars[tag].push_back({event.step(), event.wall_time(), static_cast<double>(value.simple_value())});
        return;
      case proto::Summary::Value::kTensor: {
        const auto it = metadata_.find(tag);
        const bool scalar_series =
            it != metadata_.end() && (it->second.plugin == "scalars" || it->second.data_class == proto::DATA_CLASS_SCALAR);
        if (scalar_series) {
          std::string why;
          if (auto v = scalar_from_tensor(value.tensor(), why)) {
            run_.scalars[tag].push_back({event.step(), event.wall_time(), *v});
          } else {
            problem(file, offset, "scalar summary '" + tag + "' at step " + std::to_string(event.step()) + " holds " +
                                      why + ", expected a rank-0 number");
          }
          return;
        }
        count_other(tag, it != metadata_.end() && !it->second.plugin.empty() ? it->second.plugin : "tensor");
        return;
      }
      case proto::Summary::Value::kHisto: count_other(tag, "histogram"); return;
      case proto::Summary::Value::kImage: count_other(tag, "image"); return;
      case proto::Summary::Value::kAudio: count_other(tag, "audio"); return;
      case proto::Summary::Value::kObsoleteOldStyleHistogram: count_other(tag, "old-style histogram"); return;
      case proto::Summary::Value::VALUE_NOT_SET: return;
    }
  }

  void count_other(const std::string& tag, const std::string& kind) {
    EventTagInfo& info = run_.other_tags[tag];
    if (info.kind.empty()) info.kind = kind;
    ++info.count;
  }

  struct TagMetadata {
    std::string plugin;
    proto::DataClass data_class = proto::DATA_CLASS_UNKNOWN;
  };

  EventRun& run_;
  std::map<std::string, TagMetadata> metadata_;
};

std::string relative_name(const fs::path& dir, const fs::path& root) {
  std::error_code ec;
  fs::path rel = fs::relative(dir, root, ec);
  if (ec || rel.empty()) return dir.generic_string();
  return rel.generic_string();
}

}  // namespace

EventLog read_event_file(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw Error(path + ": no such file");
  if (!fs::is_regular_file(status)) throw Error(path + ": not a regular file");
  EventLog log;
  EventRun& run = log.runs.emplace_back();
  run.name = ".";
  RunReader(run).read_file(path);
  return log;
}

EventLog read_log_directory(const std::string& dir) {
  std::error_code ec;
  const auto status = fs::status(dir, ec);
  if (ec || !fs::exists(status)) throw Error(dir + ": no such directory");
  if (!fs::is_directory(status)) throw Error(dir + ": not a directory");

  EventLog log;
  const fs::path root(dir);
  // run name -> event files (full paths)
  std::map<std::string, std::vector<fs::path>> runs;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw Error(dir + ": cannot list: " + ec.message());
  for (const fs::recursive_directory_iterator end; it != end;) {
    const fs::path path = it->path();
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && has_event_file_name(path.filename().string()))
      runs[relative_name(path.parent_path(), root)].push_back(path);
    it.increment(ec);
    if (ec) {
      log.problems.push_back({path.string(), 0, "cannot list what follows: " + ec.message()});
      break;  // the iterator is unusable after an error
    }
  }
  for (auto& [name, files] : runs) {
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
    EventRun& run = log.runs.emplace_back();
    run.name = name;
    RunReader reader(run);
    for (const fs::path& file : files) reader.read_file(file.string());
  }
  return log;
}

Graph parse_event_graph(const EventGraph& graph) {
  return parse_graph_binary(graph.bytes, graph.file + "@" + std::to_string(graph.offset));
}

// ---- Sniffing ----------------------------------------------------------------------

bool has_event_file_name(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return name.find(kEventFileNameMarker) != std::string_view::npos;
}

bool starts_with_event_record(std::string_view head) {
  if (head.size() < kTFRecordHeaderSize + kTFRecordFooterSize) return false;
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(head[static_cast<std::size_t>(i)]);
  if (length > head.size() - kTFRecordHeaderSize - kTFRecordFooterSize) return false;
  // Only the first record's bytes go to the reader, so a short head suffices.
  std::vector<RecordProblem> problems;
  const auto records =
      parse_tfrecords(head.substr(0, kTFRecordHeaderSize + length + kTFRecordFooterSize), &problems);
  if (records.size() != 1 || !problems.empty()) return false;
  proto::Event event;
  return event.ParseFromString(records[0].data) && event.what_case() == proto::Event::kFileVersion &&
         is_brain_event_version(event.file_version());
}

bool looks_like_event_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || ec) return false;
  if (has_event_file_name(path)) return true;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return starts_with_event_record(head);
}

}  // namespace flowlens
