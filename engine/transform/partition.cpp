#include "transform/partition.h"

#include <map>

#include "analysis/infer_shapes.h"
#include "common/error.h"
#include "graph/control_flow_frames.h"
#include "graph/device_spec.h"
#include "graph/edge_index.h"
#include "ops/framework/op_registry.h"

namespace flowlens {
namespace {

// Fills what a device request leaves open from the default device, so
// "/cpu:0" and "/job:localhost/replica:0/task:0/device:CPU:0" agree.
std::string canonical_device(const std::string& requested, const DeviceSpec& fallback) {
  DeviceSpec spec = DeviceSpec::parse(requested);
  DeviceSpec full = fallback;
  full.merge_from(spec, /*override_conflicts=*/true);
  return full.to_string();
}

class Partitioner {
 public:
  Partitioner(const Graph& g, const OpRegistry& r, const PartitionOptions& o)
      : graph_(g), default_(DeviceSpec::parse(o.default_device)), by_task_(o.by_task), shapes_(infer_shapes(g, r)) {
    for (const Node& n : g.nodes())
      if (is_control_flow_op(n.op)) {
        frames_ = compute_frames(g);
        break;
      }
  }

  PartitionResult run() {
    const auto& nodes = graph_.nodes();
    device_of_.reserve(nodes.size());
    for (const Node& n : nodes) {
      device_of_.push_back(canonical_device(n.device, default_));
      part_of_.push_back(by_task_ ? task_of(device_of_.back()) : device_of_.back());
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node copy = nodes[i];
      copy.device = device_of_[i];
      copy.inputs.clear();
      for (std::size_t k = 0; k < nodes[i].inputs.size(); ++k) copy.inputs.push_back(route_input(static_cast<int>(i), k));
      partition(part_of_[i]).graph.add_node(std::move(copy));
    }
    for (auto& p : result_.partitions) p.graph.versions = graph_.versions;
    return std::move(result_);
  }

 private:
  GraphPartition& partition(const std::string& device) {
    auto it = index_.find(device);
    if (it != index_.end()) return result_.partitions[it->second];
    index_[device] = result_.partitions.size();
    result_.partitions.push_back({device, Graph{}});
    return result_.partitions.back();
  }

  // The input string a node in `consumer`'s partition uses for its input
  // `k`: unchanged when the producer is local, else a _Recv (created once).
  std::string route_input(int consumer, std::size_t k) {
    const std::string& text = graph_.nodes()[static_cast<size_t>(consumer)].inputs[k];
    const InputEdge& edge = graph_.edges().inputs(consumer)[k];
    if (!edge.resolved()) return text;  // dangling: validation reports it; keep it visible
    const int src = edge.producer;
    const TensorId id{graph_.nodes()[static_cast<size_t>(src)].name, edge.port};
    const std::string& from = device_of_[static_cast<size_t>(src)];
    const std::string& to = device_of_[static_cast<size_t>(consumer)];
    const std::string& from_part = part_of_[static_cast<size_t>(src)];
    const std::string& to_part = part_of_[static_cast<size_t>(consumer)];
    if (from_part == to_part) return text;
    check_not_in_loop(src, consumer, id, from, to);
    // One pair per (tensor, receiving partition): by task, the first
    // consumer's device names the receiving end.
    std::string key = id.to_string() + "->" + to_part;
    auto done = recv_of_.find(key);
    if (done != recv_of_.end()) return id.is_control() ? "^" + done->second : done->second;

    std::string sent = id.to_string();  // tensor the pair carries
    DType dtype = DType::Float;
    int64_t bytes = -1;
    if (id.is_control()) {
      // A dummy scalar made after the producer carries the dependency.
      Node dummy;
      dummy.name = id.node + "/_control_to_" + device_file_stem(to);
      dummy.op = "Const";
      dummy.device = from;
      dummy.inputs = {"^" + id.node};
      dummy.attrs["dtype"] = DType::Float;
      dummy.attrs["value"] = Tensor::scalar<float>(0.0f);
      sent = dummy.name;
      bytes = 4;
      partition(from_part).graph.add_node(std::move(dummy));
    } else {
      const auto& outs = shapes_.outputs[static_cast<size_t>(src)];
      if (id.index < static_cast<int>(outs.size())) {
        const TensorInfo& info = outs[static_cast<size_t>(id.index)];
        if (info.dtype != DType::Invalid) dtype = info.dtype;
        int64_t n = info.shape.num_elements();
        if (n >= 0 && info.dtype != DType::Invalid && dtype_size(info.dtype) > 0)
          bytes = n * static_cast<int64_t>(dtype_size(info.dtype));
      }
    }
    // A control edge's pair is named after its dummy: the same node may
    // also send data to that partition, and the two pairs need two names.
    std::string stem = id.is_control() ? sent : TensorId{id.node, id.index}.to_string();
    for (char& c : stem)
      if (c == ':') c = '_';

    Node send;
    send.name = stem + "/_send_to_" + device_file_stem(to);
    send.op = "_Send";
    send.device = from;
    send.inputs = {sent};
    send.attrs["T"] = dtype;
    send.attrs["tensor_name"] = sent;
    send.attrs["send_device"] = from;
    send.attrs["recv_device"] = to;
    send.attrs["send_device_incarnation"] = int64_t{1};
    send.attrs["client_terminated"] = false;
    send.attrs["_bytes"] = bytes;
    Node recv = send;
    recv.name = stem + "/_recv_from_" + device_file_stem(from);
    recv.op = "_Recv";
    recv.device = to;
    recv.inputs.clear();
    recv.attrs.erase("T");
    recv.attrs["tensor_type"] = dtype;

    GraphPartition& sender = partition(from_part);
    sender.graph.add_node(std::move(send));
    ++sender.sends;
    GraphPartition& receiver = partition(to_part);
    ++receiver.recvs;
    if (bytes >= 0) receiver.bytes_received += bytes;
    else ++result_.unknown_size_transfers;
    ++result_.transfers;
    recv_of_[key] = recv.name;
    std::string name = recv.name;
    receiver.graph.add_node(std::move(recv));
    return id.is_control() ? "^" + name : name;
  }

  // A _Send/_Recv pair inside a tf.while_loop needs TensorFlow's control-loop
  // machinery (a per-partition loop skeleton driving the other side's
  // iterations), which this partitioner does not build: refuse rather than
  // emit partitions that would run each loop body once.
  void check_not_in_loop(int src, int consumer, const TensorId& id, const std::string& from, const std::string& to) {
    if (frames_.frame_of.empty()) return;
    int frame = frames_.frame_of[static_cast<size_t>(src)];
    if (is_exit_op(graph_.nodes()[static_cast<size_t>(src)].op) && frame > 0)
      frame = frames_.frames[static_cast<size_t>(frame)].parent;  // an Exit's output is in the parent frame
    if (frame <= 0) return;
    throw Error("partition: the edge from '" + id.to_string() + "' to '" +
                graph_.nodes()[static_cast<size_t>(consumer)].name + "' crosses from " + from + " to " + to +
                " inside the while loop frame '" + frames_.frames[static_cast<size_t>(frame)].name +
                "'; partitioning a loop across devices or tasks needs TensorFlow's control-loop machinery, "
                "which is not supported yet (place the whole loop on one device)");
  }

  // "/job:ps/replica:0/task:0/device:CPU:0" -> "/job:ps/replica:0/task:0".
  static std::string task_of(const std::string& device) {
    DeviceSpec spec = DeviceSpec::parse(device);
    spec.type.reset();
    spec.id.reset();
    return spec.to_string();
  }

  const Graph& graph_;
  ControlFlowFrames frames_;
  DeviceSpec default_;
  bool by_task_ = false;
  ShapeInferenceResult shapes_;
  std::vector<std::string> device_of_;
  std::vector<std::string> part_of_;  // the partition of each node: its device, or its task (by_task)
  PartitionResult result_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> recv_of_;  // "tensor->device" -> recv node name
};

}  // namespace

std::string device_file_stem(const std::string& device) {
  std::string s;
  for (char c : device) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (keep) s += c;
    else if (!s.empty() && s.back() != '_') s += '_';
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  return s.empty() ? "default" : s;
}

PartitionResult partition_graph(const Graph& graph, const OpRegistry& registry, const PartitionOptions& options) {
  return Partitioner(graph, registry, options).run();
}

}  // namespace flowlens
