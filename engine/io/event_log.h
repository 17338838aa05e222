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
// float/double/integer tensor), the tags of other summaries (histograms,
// images, audio, other tensors) with their counts, and tagged run metadata.
// Bad content never throws: each problem names the file, the byte offset of
// the record and what is wrong, and reading goes on wherever the framing
// allows (see io/tfrecord.h).
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
EventLog read_event_file(const std::string& path);
// Reads every run below `dir` (symbolic links to folders are not followed).
// Throws Error if `dir` is missing or not a directory.
EventLog read_log_directory(const std::string& dir);

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
