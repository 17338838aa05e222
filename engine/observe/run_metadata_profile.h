#pragma once
// A step TensorFlow traced (RunOptions.trace_level = FULL_TRACE) into a
// RunMetadata, read into a Profiler (observe/profiler.h) so its timeline,
// op summary, memory estimate and Chrome trace show that step as they show
// FlowLens's own runs. The RunMetadata bytes come from a TensorBoard log's
// tagged_run_metadata events (io/event_log.h) or from a serialized
// tf.RunMetadata file; the schema is io/run_metadata.proto.
//
// Per NodeExecStats, as TensorFlow's python/client/timeline.py reads them:
//   - times: all_start (nanos when all_start_nanos is set, else micros) to
//     all_start + all_end_rel; a negative duration counts as zero;
//   - op: parsed from timeline_label "name = Op(in, in)"; on GPU tracer
//     devices ("/stream:", "/memcpy") from node_name "name:Op"; "RecvTensor"
//     for RPC receives; else the node's op in the partition graphs or in
//     `graph`, else "unknown";
//   - producers: the inputs of the timeline label ("^x" and ":N" dropped);
//   - bytes: the sum of the outputs' allocation_description.requested_bytes;
//     shapes: the outputs' tensor_description shapes ("?" for unknown rank);
//   - thread: thread_id, named by the device's thread_names.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "observe/profiler.h"

namespace flowlens {

struct RunMetadataOptions {
  int64_t run_id = 0;            // the recorded events' run (a log's step)
  const Graph* graph = nullptr;  // op types for stats whose label names none
};

struct RunMetadataImport {
  int devices = 0;            // DeviceStepStats read
  int64_t node_stats = 0;     // NodeExecStats added to the profiler
  int partition_graphs = 0;
  // What could not be used as is, one line each ("device /cpu:0, node x:
  // negative duration counted as 0"), at most kMaxNotes.
  std::vector<std::string> notes;
  static constexpr size_t kMaxNotes = 20;
};

// Parses serialized RunMetadata bytes and adds every NodeExecStats to
// `profiler`. Throws ParseError naming `source` when the bytes are not a
// RunMetadata; a RunMetadata without step stats adds nothing.
RunMetadataImport add_run_metadata(Profiler& profiler, std::string_view bytes, const std::string& source,
                                   const RunMetadataOptions& options = {});

// The op of a timeline label "name = Op(a, b)" and its inputs; false when the
// label has another form. Exposed for tests.
bool parse_timeline_label(std::string_view label, std::string* op, std::vector<std::string>* inputs);

}  // namespace flowlens
