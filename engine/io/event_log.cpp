#include "io/event_log.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
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


// ---- Histograms and images from tensor summaries ---------------------------------

// The elements of a float or double TensorProto of `count` elements, from
// tensor_content or the typed field; nullopt with `why` when they are not there
// (checked against the bytes present before anything is allocated).
std::optional<std::vector<double>> event_tensor_doubles(const proto::TensorProto& t, uint64_t count, std::string& why) {
  const std::string& content = t.tensor_content();
  std::size_t element = 0;
  if (t.dtype() == proto::DT_DOUBLE) element = sizeof(double);
  else if (t.dtype() == proto::DT_FLOAT) element = sizeof(float);
  else {
    why = "a tensor of dtype " + std::to_string(static_cast<int>(t.dtype())) + ", expected float or double";
    return std::nullopt;
  }
  const uint64_t present = !content.empty() ? content.size() / element
                           : element == sizeof(double) ? static_cast<uint64_t>(t.double_val_size())
                                                       : static_cast<uint64_t>(t.float_val_size());
  // TensorFlow's rule for the typed fields: fewer values than elements repeat
  // the last one, none at all mean zeros; tensor_content must be whole.
  const bool typed_short_ok = content.empty() && present <= count;
  if ((!content.empty() && (content.size() % element != 0 || present != count)) ||
      (!typed_short_ok && present != count)) {
    why = std::to_string(!content.empty() ? content.size() : present) +
          (!content.empty() ? " content byte(s)" : " value(s)") + " for " + std::to_string(count) + " element(s)";
    return std::nullopt;
  }
  std::vector<double> out(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!content.empty()) {
      if (element == sizeof(double)) {
        std::memcpy(&out[i], content.data() + i * element, element);
      } else {
        float f;
        std::memcpy(&f, content.data() + i * element, element);
        out[i] = f;
      }
    } else if (present == 0) {
      out[i] = 0.0;
    } else {
      const int at = static_cast<int>(std::min<uint64_t>(i, present - 1));
      out[i] = element == sizeof(double) ? t.double_val(at) : t.float_val(at);
    }
  }
  return out;
}

// A TF2 histogram tensor ([k,3]: left, right, count) as a HistogramPoint.
std::optional<HistogramPoint> histogram_from_event_tensor(const proto::TensorProto& t, std::string& why) {
  const auto& shape = t.tensor_shape();
  if (shape.unknown_rank() || shape.dim_size() != 2 || shape.dim(1).size() != 3 || shape.dim(0).size() < 0) {
    why = "a tensor that is not [k, 3]";
    return std::nullopt;
  }
  const uint64_t rows = static_cast<uint64_t>(shape.dim(0).size());
  // 3 doubles a row at most: more rows than the message has bytes cannot be there.
  if (rows > t.ByteSizeLong()) {
    why = "a [" + std::to_string(rows) + ", 3] shape larger than its " + std::to_string(t.ByteSizeLong()) + " bytes";
    return std::nullopt;
  }
  auto values = event_tensor_doubles(t, rows * 3, why);
  if (!values) return std::nullopt;
  HistogramPoint h;
  h.bucket_limit.reserve(rows);
  h.bucket.reserve(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    const double left = (*values)[r * 3], right = (*values)[r * 3 + 1], count = (*values)[r * 3 + 2];
    if (r == 0) h.min = left;
    h.max = right;
    h.bucket_limit.push_back(right);
    h.bucket.push_back(count);
    h.num += count;
  }
  return h;
}

// A legacy HistogramProto, checked.
std::optional<HistogramPoint> histogram_from_event_proto(const proto::HistogramProto& p, std::string& why) {
  if (p.bucket_limit_size() != p.bucket_size()) {
    why = std::to_string(p.bucket_limit_size()) + " bucket limit(s) for " + std::to_string(p.bucket_size()) + " bucket(s)";
    return std::nullopt;
  }
  if (!std::isfinite(p.num()) || p.num() < 0) {
    why = "num " + std::to_string(p.num());
    return std::nullopt;
  }
  HistogramPoint h;
  h.min = p.min();
  h.max = p.max();
  h.num = p.num();
  h.sum = p.sum();
  h.sum_squares = p.sum_squares();
  h.bucket_limit.assign(p.bucket_limit().begin(), p.bucket_limit().end());
  h.bucket.assign(p.bucket().begin(), p.bucket().end());
  return h;
}

bool parse_event_image_dimension(const std::string& text, int& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out >= 0;
}

// A TF2 image tensor (strings: width, height, encoded images...): its first image.
std::optional<ImagePoint> image_from_event_tensor(const proto::TensorProto& t, std::string& why) {
  if (t.dtype() != proto::DT_STRING) {
    why = "a tensor of dtype " + std::to_string(static_cast<int>(t.dtype())) + ", expected strings";
    return std::nullopt;
  }
  if (t.string_val_size() < 3) {
    why = std::to_string(t.string_val_size()) + " string(s), expected width, height and an image";
    return std::nullopt;
  }
  ImagePoint image;
  if (!parse_event_image_dimension(t.string_val(0), image.width) ||
      !parse_event_image_dimension(t.string_val(1), image.height)) {
    why = "width and height that are not numbers";
    return std::nullopt;
  }
  image.encoded = t.string_val(2);
  return image;
}

// TensorBoard's reservoir (event_processing/reservoir.py): the first `size`
// items kept, then item n (0-based count seen) replaces a random kept one
// with probability size/(n+1), and otherwise replaces the last kept (always
// keep the last). `evicted` receives what was dropped.
struct EventReservoirState {
  uint64_t seen = 0;
  std::mt19937_64 rng{0};
};

template <class T, class OnEvict>
void reservoir_add(std::vector<T>& items, EventReservoirState& state, std::size_t size, T item, OnEvict&& evicted) {
  if (size == 0) return;
  if (items.size() < size) {
    items.push_back(std::move(item));
  } else {
    std::uniform_int_distribution<uint64_t> pick(0, state.seen);
    const uint64_t r = pick(state.rng);
    if (r < size) {
      evicted(items[static_cast<std::size_t>(r)]);
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(r));
      items.push_back(std::move(item));
    } else {
      evicted(items.back());
      items.back() = std::move(item);
    }
  }
  ++state.seen;
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
  RunReader(EventRun& run, const EventLimits& limits) : run_(run), limits_(limits) {}

  // Samples in step order (the reservoir keeps insertion order; a restarted
  // run's later values follow the earlier ones at the same step).
  void finish() {
    auto by_step = [](const auto& a, const auto& b) { return a.step < b.step; };
    for (auto& [tag, points] : run_.histograms) std::stable_sort(points.begin(), points.end(), by_step);
    for (auto& [tag, points] : run_.images) std::stable_sort(points.begin(), points.end(), by_step);
  }

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
        const std::string plugin = it != metadata_.end() ? it->second.plugin : std::string();
        if (plugin == "histograms") {
          count_other(tag, plugin);  // tensor summaries are listed by plugin, legacy values by kind
          std::string why;
          if (auto h = histogram_from_event_tensor(value.tensor(), why))
            add_histogram(tag, std::move(*h), event);
          else
            problem(file, offset, "histogram summary '" + tag + "' at step " + std::to_string(event.step()) +
                                      " holds " + why);
          return;
        }
        if (plugin == "images") {
          count_other(tag, plugin);
          std::string why;
          if (auto image = image_from_event_tensor(value.tensor(), why))
            add_image(tag, std::move(*image), event, file, offset);
          else
            problem(file, offset,
                    "image summary '" + tag + "' at step " + std::to_string(event.step()) + " holds " + why);
          return;
        }
        count_other(tag, plugin.empty() ? "tensor" : plugin);
        return;
      }
      case proto::Summary::Value::kHisto: {
        count_other(tag, "histogram");
        std::string why;
        if (auto h = histogram_from_event_proto(value.histo(), why))
          add_histogram(tag, std::move(*h), event);
        else
          problem(file, offset,
                  "histogram summary '" + tag + "' at step " + std::to_string(event.step()) + " has " + why);
        return;
      }
      case proto::Summary::Value::kImage: {
        count_other(tag, "image");
        const proto::Summary::Image& im = value.image();
        ImagePoint image;
        image.width = im.width();
        image.height = im.height();
        image.colorspace = im.colorspace();
        image.encoded = im.encoded_image_string();
        add_image(tag, std::move(image), event, file, offset);
        return;
      }
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

  void add_histogram(const std::string& tag, HistogramPoint h, const proto::Event& event) {
    h.step = event.step();
    h.wall_time = event.wall_time();
    reservoir_add(run_.histograms[tag], histogram_samplers_[tag], limits_.histograms, std::move(h),
                  [](const HistogramPoint&) {});
  }

  void add_image(const std::string& tag, ImagePoint image, const proto::Event& event, const std::string& file,
                 uint64_t offset) {
    image.step = event.step();
    image.wall_time = event.wall_time();
    const std::string where = "image summary '" + tag + "' at step " + std::to_string(event.step()) + ": ";
    if (image.width < 0 || image.height < 0) {
      problem(file, offset, where + "negative size " + std::to_string(image.width) + "x" + std::to_string(image.height));
      return;
    }
    const std::size_t size = image.encoded.size();
    if (size > limits_.image_bytes) {
      problem(file, offset, where + std::to_string(size) + " encoded bytes, more than the " +
                                std::to_string(limits_.image_bytes) + " an image may have; not kept");
      return;
    }
    if (size > limits_.run_image_bytes - std::min(image_bytes_, limits_.run_image_bytes)) {
      problem(file, offset, where + std::to_string(size) + " encoded bytes would pass the run's " +
                                std::to_string(limits_.run_image_bytes) + " bytes of images; not kept");
      return;
    }
    image_bytes_ += size;
    reservoir_add(run_.images[tag], image_samplers_[tag], limits_.images, std::move(image),
                  [this](const ImagePoint& gone) { image_bytes_ -= gone.encoded.size(); });
  }

  struct TagMetadata {
    std::string plugin;
    proto::DataClass data_class = proto::DATA_CLASS_UNKNOWN;
  };

  EventRun& run_;
  EventLimits limits_;
  std::map<std::string, TagMetadata> metadata_;
  std::map<std::string, EventReservoirState> histogram_samplers_;
  std::map<std::string, EventReservoirState> image_samplers_;
  std::size_t image_bytes_ = 0;  // encoded bytes of the images kept
};

std::string relative_name(const fs::path& dir, const fs::path& root) {
  std::error_code ec;
  fs::path rel = fs::relative(dir, root, ec);
  if (ec || rel.empty()) return dir.generic_string();
  return rel.generic_string();
}

}  // namespace

EventLog read_event_file(const std::string& path, const EventLimits& limits) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw Error(path + ": no such file");
  if (!fs::is_regular_file(status)) throw Error(path + ": not a regular file");
  EventLog log;
  EventRun& run = log.runs.emplace_back();
  run.name = ".";
  RunReader reader(run, limits);
  reader.read_file(path);
  reader.finish();
  return log;
}

EventLog read_log_directory(const std::string& dir, const EventLimits& limits) {
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
    RunReader reader(run, limits);
    for (const fs::path& file : files) reader.read_file(file.string());
    reader.finish();
  }
  return log;
}

Graph parse_event_graph(const EventGraph& graph) {
  return parse_graph_binary(graph.bytes, graph.file + "@" + std::to_string(graph.offset));
}

// ---- Histogram arithmetic ----------------------------------------------------------

std::vector<double> compress_histogram(const HistogramPoint& h) {
  constexpr std::size_t n = std::size(kDistributionBasisPoints);
  std::vector<double> out;
  out.reserve(n);
  if (h.num == 0) return std::vector<double>(n, 0.0);
  double total = 0;
  for (std::size_t i = 0; i < std::min(h.bucket.size(), h.bucket_limit.size()); ++i) total += h.bucket[i];
  if (total == 0) total = 1.0;
  // Cumulative weights in basis points.
  // Parallel arrays; a point built by hand may have them of different lengths.
  const std::size_t buckets = std::min(h.bucket.size(), h.bucket_limit.size());
  std::vector<double> weights(buckets);
  double acc = 0;
  for (std::size_t i = 0; i < buckets; ++i) weights[i] = acc += h.bucket[i] * 10000.0 / total;
  std::size_t j = 0;
  while (j < n) {
    const double bp = kDistributionBasisPoints[j];
    // searchsorted(weights, bp, side="right")
    std::size_t i = static_cast<std::size_t>(std::upper_bound(weights.begin(), weights.end(), bp) - weights.begin());
    bool found = false;
    for (; i < weights.size(); ++i) {
      const double cumsum = weights[i];
      const double cumsum_prev = i > 0 ? weights[i - 1] : 0.0;
      if (cumsum == cumsum_prev) continue;  // no lerp over an empty bucket
      const double lhs = (i == 0 || cumsum_prev == 0) ? h.min : std::max(h.bucket_limit[i - 1], h.min);
      const double rhs = std::min(h.bucket_limit[i], h.max);
      out.push_back(lhs + (bp - cumsum_prev) * (rhs - lhs) / (cumsum - cumsum_prev));
      ++j;
      found = true;
      break;
    }
    if (!found) break;
  }
  while (out.size() < n) out.push_back(h.max);
  return out;
}

std::vector<double> rebin_histogram(const HistogramPoint& h, double lo, double hi, int bins) {
  if (bins <= 0 || !(hi >= lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {};
  std::vector<double> out(static_cast<std::size_t>(bins), 0.0);
  const double width = (hi - lo) / bins;
  auto bin_of = [&](double x) {
    if (width <= 0) return 0;
    const double b = std::floor((x - lo) / width);
    return static_cast<int>(std::clamp(b, 0.0, static_cast<double>(bins - 1)));
  };
  for (std::size_t i = 0; i < h.bucket.size() && i < h.bucket_limit.size(); ++i) {
    const double count = h.bucket[i];
    if (count == 0 || !std::isfinite(count)) continue;
    double left = i == 0 ? h.min : std::max(h.bucket_limit[i - 1], h.min);
    double right = std::min(h.bucket_limit[i], h.max);
    if (right < left) right = left;  // a bucket wholly beyond max: at its edge
    if (right < lo || left > hi) continue;
    if (right == left || width <= 0) {
      out[static_cast<std::size_t>(bin_of(left))] += count;
      continue;
    }
    const double span = right - left;
    for (int b = bin_of(std::max(left, lo)); b < bins; ++b) {
      const double bin_left = lo + b * width, bin_right = b + 1 == bins ? hi : lo + (b + 1) * width;
      if (bin_left >= right) break;
      const double overlap = std::min(right, bin_right) - std::max(left, bin_left);
      if (overlap > 0) out[static_cast<std::size_t>(b)] += count * overlap / span;
    }
  }
  return out;
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
