#pragma once
// TensorBoard log files: events.out.tfevents.* files of TFRecord-framed Event
// protos (io/event.proto, io/tfrecord.h), read the way TensorBoard's event
// accumulator reads them.
//
// A log directory holds runs: the directory itself and each subdirectory
// that directly contains events.out.tfevents.* files, named by their path
// relative to the log directory ("." for the directory itself). A run's files
// are read in name order (their names start with the creation time).
//
// Per run the reader keeps graphs (GraphDef / MetaGraphDef bytes), scalar
// series per tag (legacy simple_value, and TF2 tensor summaries whose tag's
// plugin is "scalars" or whose data class is scalar, holding a rank-0
// float/double/integer tensor), histogram series per tag (legacy
// HistogramProto, and TF2 tensor summaries of plugin "histograms": a [k,3]
// tensor of left edge, right edge, count), image series per tag (legacy
// Summary.Image, and TF2 "images" string tensors [width, height, encoded...],
// whose first image is kept), the tags of every non-scalar summary (those
// too, and audio, other tensors) with their counts, and tagged run metadata.
//
// Histograms and images are sampled per tag the way TensorBoard's event
// accumulator does (its reservoir: a uniform sample of the steps, the last
// step always kept, a fixed seed so a log reads the same every time), to at
// most EventLimits::histograms and ::images values; an image's encoded bytes
// over EventLimits::image_bytes, or over what is left of the run's
// EventLimits::run_image_bytes, are not kept and are reported as a problem.
// Bad content never throws: each problem names the file, the byte offset of
// the record and what is wrong, and reading goes on wherever the framing
// allows (see io/tfrecord.h).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

struct EventProblem {
  std::string file;
  uint64_t offset = 0;  // byte offset of the record at fault (0: the file as a whole)
  std::string what;
  std::string to_string() const;  // "file@offset: what"
};

struct ScalarPoint {
  int64_t step = 0;
  double wall_time = 0;
  double value = 0;
};

// A serialized GraphDef or MetaGraphDef and where it was found.
struct EventGraph {
  int64_t step = 0;
  double wall_time = 0;
  std::string file;
  uint64_t offset = 0;  // of its record
  std::string bytes;
};

struct EventRunMetadata {
  std::string tag;
  int64_t step = 0;
  double wall_time = 0;
  std::string bytes;  // a serialized RunMetadata (observe/run_metadata_profile.h reads it)
  std::string file;   // where it was found
  uint64_t offset = 0;  // of its record
};

// One histogram of a tag at one step. Bucket i counts the values in
// (bucket_limit[i-1], bucket_limit[i]] (the first from -inf); TF2 histograms
// become the same form: bucket_limit the right edges, min the first left edge.
struct HistogramPoint {
  int64_t step = 0;
  double wall_time = 0;
  double min = 0;
  double max = 0;
  double num = 0;
  double sum = 0;
  double sum_squares = 0;
  std::vector<double> bucket_limit;
  std::vector<double> bucket;  // as many as bucket_limit
};

// One image of a tag at one step: the encoded file (PNG, JPEG or GIF bytes as
// the writer stored them) and the size and colorspace it declares.
struct ImagePoint {
  int64_t step = 0;
  double wall_time = 0;
  int width = 0;
  int height = 0;
  int colorspace = 0;  // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA; 0 unknown (TF2)
  std::string encoded;
};

// How much a run keeps: TensorBoard's reservoir sizes per tag, and bounds on
// the image bytes held.
struct EventLimits {
  std::size_t histograms = 500;                 // per tag
  std::size_t images = 10;                      // per tag
  std::size_t image_bytes = 32u << 20;          // one encoded image
  std::size_t run_image_bytes = 256u << 20;     // every image a run keeps
};

// TensorBoard's distribution basis points (its histogram compressor): the
// percentiles, in hundredths of a percent, of a compressed histogram.
inline constexpr int kDistributionBasisPoints[9] = {0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000};

// The value at each of kDistributionBasisPoints, as TensorBoard's
// compress_histogram_proto interpolates it in the buckets (all zero when
// num is zero).
std::vector<double> compress_histogram(const HistogramPoint& h);

// The counts of `h` spread over `bins` equal bins of [lo, hi], each bucket's
// count shared among the bins it overlaps in proportion to the overlap (the
// bucket clipped to [h.min, h.max], as TensorBoard's histogram view rebins);
// a bucket of zero width goes to the bin it lies in. What lies outside
// [lo, hi] is left out. Empty when bins <= 0 or hi < lo.
std::vector<double> rebin_histogram(const HistogramPoint& h, double lo, double hi, int bins);

// Summary values of kinds other than scalars, per tag.
struct EventTagInfo {
  std::string kind;  // "histogram", "image", "audio", "tensor", or the tensor's plugin name
  int64_t count = 0;
};

struct EventRun {
  std::string name;                // relative to the log directory; "." for itself
  std::vector<std::string> files;  // in the order read
  std::string file_version;        // of the first file_version event ("brain.Event:2")
  int64_t events = 0;              // Event records decoded
  std::vector<EventGraph> graphs;       // Event.graph_def
  std::vector<EventGraph> meta_graphs;  // Event.meta_graph_def
  std::map<std::string, std::vector<ScalarPoint>> scalars;  // in file order
  std::map<std::string, std::vector<HistogramPoint>> histograms;  // sampled, in step order
  std::map<std::string, std::vector<ImagePoint>> images;          // sampled, in step order
  // Every non-scalar tag with how many values it had (all of them, sampled or not).
  std::map<std::string, EventTagInfo> other_tags;
  std::vector<EventRunMetadata> run_metadata;
  std::vector<EventProblem> problems;
};

struct EventLog {
  std::vector<EventRun> runs;  // sorted by name
  // Problems of the directory walk (unreadable folders); those of a file are
  // in its run's problems.
  std::vector<EventProblem> problems;

  const EventRun* find_run(std::string_view name) const;
  // Every problem: the walk's, then each run's.
  std::vector<EventProblem> all_problems() const;
};

// Reads one event file as a run named ".". Throws Error if the path is missing
// or not a regular file; bad content is reported in the run's problems.
EventLog read_event_file(const std::string& path, const EventLimits& limits = {});
// Reads every run below `dir` (symbolic links to folders are not followed).
// Throws Error if `dir` is missing or not a directory.
EventLog read_log_directory(const std::string& dir, const EventLimits& limits = {});

// Decodes a graph_def found in a log (parse_graph_binary); throws ParseError
// naming the file and record offset.
Graph parse_event_graph(const EventGraph& graph);

// Sniffing, for the format registry.
// The prefix every TensorFlow/TensorBoard event file name carries.
inline constexpr std::string_view kEventFileNameMarker = "events.out.tfevents.";
// True if the file name (not the folder) contains kEventFileNameMarker.
bool has_event_file_name(std::string_view path);
// True if `head` (the first bytes of a file; 64 KiB is plenty) starts with an
// intact TFRecord holding an Event whose file_version is "brain.Event:N".
bool starts_with_event_record(std::string_view head);
// A regular file whose name has the marker, or whose first record is such a
// file_version event. Never throws.
bool looks_like_event_file(const std::string& path);

}  // namespace flowlens
