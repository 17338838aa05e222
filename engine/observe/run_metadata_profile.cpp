#include "observe/run_metadata_profile.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "common/error.h"
#include "io/run_metadata.pb.h"

namespace flowlens {
namespace {

constexpr int64_t kMaxMicros = std::numeric_limits<int64_t>::max() / 1000 / 4;  // sums stay in range

bool in_range(int64_t micros) { return micros <= kMaxMicros && micros >= -kMaxMicros; }

bool is_gpu_tracer_device(std::string_view device) {
  return device.find("/stream:") != std::string_view::npos || device.find("/memcpy") != std::string_view::npos;
}

std::string producer_name(std::string_view input) {
  auto colon = input.rfind(':');
  if (colon != std::string_view::npos) input = input.substr(0, colon);
  return std::string(input);
}

std::string shape_text(const proto::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "?";
  std::string s = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i) s += ',';
    const int64_t size = shape.dim(i).size();
    s += size < 0 ? "?" : std::to_string(size);
  }
  return s + "]";
}

}  // namespace

bool parse_timeline_label(std::string_view label, std::string* op, std::vector<std::string>* inputs) {
  // TensorFlow's timeline.py matches r'(.*) = (.*)\((.*)\)': greedy groups,
  // so the last " = " that still leaves "Op(...)" after it, the last "(" of
  // that rest that a ")" follows, and everything up to the last ")".
  for (size_t eq = label.rfind(" = "); eq != std::string_view::npos; eq = eq ? label.rfind(" = ", eq - 1) : std::string_view::npos) {
    const std::string_view rest = label.substr(eq + 3);
    const size_t close = rest.rfind(')');
    if (close == std::string_view::npos) continue;
    const size_t open = rest.rfind('(', close);
    if (open == std::string_view::npos) continue;
    if (op) *op = std::string(rest.substr(0, open));
    if (inputs) {
      inputs->clear();
      std::string_view args = rest.substr(open + 1, close - open - 1);
      while (!args.empty()) {
        const size_t comma = args.find(", ");
        inputs->emplace_back(args.substr(0, comma));
        if (comma == std::string_view::npos) break;
        args.remove_prefix(comma + 2);
      }
    }
    return true;
  }
  return false;
}

RunMetadataImport add_run_metadata(Profiler& profiler, std::string_view bytes, const std::string& source,
                                   const RunMetadataOptions& options) {
  proto::RunMetadata metadata;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !metadata.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw ParseError(source, 0, 0, "not a RunMetadata (" + std::to_string(bytes.size()) +
                                       " bytes that do not parse as tensorflow.RunMetadata)");
  RunMetadataImport result;
  auto note = [&result](std::string line) {
    if (result.notes.size() < RunMetadataImport::kMaxNotes) result.notes.push_back(std::move(line));
  };

  // Op types by node name: the graph given, then the partition graphs (which
  // hold the Send/Recv and renamed nodes the runtime actually executed).
  std::unordered_map<std::string, std::string> ops;
  if (options.graph)
    for (const Node& n : options.graph->nodes()) ops[n.name] = n.op;
  result.partition_graphs = metadata.partition_graphs_size();
  for (const proto::GraphDef& g : metadata.partition_graphs())
    for (const proto::NodeDef& n : g.node()) ops.try_emplace(n.name(), n.op());

  for (const proto::DeviceStepStats& dev : metadata.step_stats().dev_stats()) {
    ++result.devices;
    const std::string device = dev.device().empty() ? std::string("(unnamed device)") : dev.device();
    const bool gpu_tracer = is_gpu_tracer_device(device);
    for (const auto& [thread, name] : dev.thread_names()) profiler.name_recorded_thread(thread, name);
    for (const proto::NodeExecStats& ns : dev.node_stats()) {
      RecordedNode rec;
      rec.node = ns.node_name();
      rec.device = device;
      rec.run_id = options.run_id;
      rec.thread = ns.thread_id();
      const std::string where = "device " + device + ", node " + rec.node;

      int64_t start = 0, duration = 0;
      if (ns.all_start_nanos() != 0) {
        start = ns.all_start_nanos();
        duration = ns.all_end_rel_nanos();
      } else {
        if (!in_range(ns.all_start_micros()) || !in_range(ns.all_end_rel_micros())) {
          note(where + ": all_start_micros " + std::to_string(ns.all_start_micros()) + " or all_end_rel_micros " +
               std::to_string(ns.all_end_rel_micros()) + " out of range; skipped");
          continue;
        }
        start = ns.all_start_micros() * 1000;
        duration = ns.all_end_rel_micros() * 1000;
      }
      if (duration < 0) {
        note(where + ": negative duration (" + std::to_string(duration) + " ns) counted as 0");
        duration = 0;
      }
      if (start > std::numeric_limits<int64_t>::max() - duration) {
        note(where + ": end time out of range; skipped");
        continue;
      }
      rec.start_ns = start;
      rec.end_ns = start + duration;

      std::vector<std::string> inputs;
      if (gpu_tracer) {
        const size_t colon = rec.node.find(':');
        if (colon != std::string::npos) {
          const size_t next = rec.node.find(':', colon + 1);
          rec.op = rec.node.substr(colon + 1, next == std::string::npos ? std::string::npos : next - colon - 1);
          rec.node.resize(colon);
        }
      } else if (rec.node == "RecvTensor") {
        rec.op = "RecvTensor";
      } else {
        parse_timeline_label(ns.timeline_label(), &rec.op, &inputs);
      }
      if (rec.op.empty())
        if (auto it = ops.find(rec.node); it != ops.end()) rec.op = it->second;
      if (rec.op.empty()) rec.op = "unknown";
      for (const std::string& in : inputs)
        if (!in.starts_with("^")) rec.producers.push_back(producer_name(in));

      for (int i = 0; i < ns.output_size(); ++i) {
        const proto::TensorDescription& t = ns.output(i).tensor_description();
        rec.bytes += std::max<int64_t>(0, std::min(t.allocation_description().requested_bytes(), kMaxMicros));
        if (i) rec.shapes += ';';
        rec.shapes += t.has_shape() ? shape_text(t.shape()) : "?";
      }
      profiler.add_recorded(rec);
      ++result.node_stats;
    }
  }
  return result;
}

}  // namespace flowlens
