#include "observe/profiler.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "exec/device.h"
#include "observe/chrome_trace_writer.h"
#include "tensor/allocator.h"

namespace flowlens {
namespace {

std::string shapes_of(std::span<const Tensor> outputs) {
  std::string s;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (i) s += ';';
    s += outputs[i].valid() ? outputs[i].shape().to_string() : "?";
  }
  return s;
}

int64_t bytes_of(std::span<const Tensor> outputs) {
  int64_t bytes = 0;
  for (const Tensor& t : outputs)
    if (t.valid() && t.dtype() != DType::String) bytes += static_cast<int64_t>(t.byte_size());
  return bytes;
}

std::string producer_of(const std::string& input) {
  std::string name = input.starts_with("^") ? input.substr(1) : input;
  auto colon = name.rfind(':');
  if (colon != std::string::npos) name.resize(colon);
  return name;
}

}  // namespace

int Profiler::intern_node(const Node& node, std::span<const CallSite> call_stack) {
  if (!call_stack.empty()) {
    std::string prefix;
    for (const CallSite& c : call_stack) prefix += c.node + "/";
    auto [it, inserted] = body_node_index_.try_emplace({&node, prefix}, static_cast<int>(nodes_.size()));
    if (!inserted && nodes_[static_cast<size_t>(it->second)].name == prefix + node.name) return it->second;
    NodeInfo info{prefix + node.name, node.op, {}, call_stack.back().function};
    for (const std::string& in : node.inputs)
      if (!in.starts_with("^")) info.producers.push_back(prefix + producer_of(in));
    it->second = static_cast<int>(nodes_.size());
    nodes_.push_back(std::move(info));
    return it->second;
  }
  auto it = node_index_.find(&node);
  // Same address but another name: a node of a newer graph reusing memory.
  if (it != node_index_.end() && nodes_[static_cast<size_t>(it->second)].name == node.name) return it->second;
  NodeInfo info{node.name, node.op, {}, {}};
  for (const std::string& in : node.inputs)
    if (!in.starts_with("^")) info.producers.push_back(producer_of(in));
  nodes_.push_back(std::move(info));
  const int index = static_cast<int>(nodes_.size()) - 1;
  node_index_[&node] = index;
  return index;
}

int Profiler::intern_device(const Device& device) {
  auto it = device_index_.find(&device);
  const std::string name = device.short_name();
  if (it != device_index_.end() && devices_[static_cast<size_t>(it->second)] == name) return it->second;
  auto same = std::find(devices_.begin(), devices_.end(), name);
  int index = static_cast<int>(same - devices_.begin());
  if (same == devices_.end()) devices_.push_back(name);
  device_index_[&device] = index;
  return index;
}

int Profiler::thread_index() {
  auto [it, inserted] = threads_.try_emplace(std::this_thread::get_id(), thread_count_);
  if (inserted) ++thread_count_;
  return it->second;
}

int Profiler::recorded_thread_index(int64_t thread) {
  auto [it, inserted] = recorded_threads_.try_emplace(thread, thread_count_);
  if (inserted) ++thread_count_;
  return it->second;
}

int Profiler::intern_device_name(const std::string& name) {
  auto same = std::find(devices_.begin(), devices_.end(), name);
  const int index = static_cast<int>(same - devices_.begin());
  if (same == devices_.end()) devices_.push_back(name);
  return index;
}

void Profiler::add_recorded(const RecordedNode& node) {
  ProfiledNode rec;
  rec.run_id = node.run_id;
  rec.start_ns = node.start_ns;
  rec.end_ns = std::max(node.start_ns, node.end_ns);
  rec.bytes = node.bytes;
  rec.shapes = node.shapes;
  std::lock_guard lock(mu_);
  auto [it, inserted] = recorded_nodes_.try_emplace({node.node, node.op}, static_cast<int>(nodes_.size()));
  if (inserted) nodes_.push_back({node.node, node.op, node.producers, {}});
  rec.node = it->second;
  rec.device = intern_device_name(node.device);
  rec.thread = recorded_thread_index(node.thread);
  events_.push_back(std::move(rec));
}

void Profiler::name_recorded_thread(int64_t thread, const std::string& name) {
  std::lock_guard lock(mu_);
  thread_names_[recorded_thread_index(thread)] = name;
}

void Profiler::on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) {
  ProfiledNode rec;
  rec.run_id = run_id;
  rec.start_ns = event.start_ns;
  rec.end_ns = event.end_ns;
  rec.bytes = bytes_of(outputs);
  rec.shapes = shapes_of(outputs);  // formatted outside the lock
  rec.iteration = event.iteration;
  std::lock_guard lock(mu_);
  rec.frame = intern_frame(event.frame);
  rec.node = intern_node(event.node, event.call_stack);
  rec.device = intern_device(event.device);
  rec.thread = thread_index();
  events_.push_back(std::move(rec));
}

int Profiler::intern_frame(std::string_view frame) {
  if (frame.empty()) return 0;
  auto [it, inserted] = frame_index_.try_emplace(std::string(frame), static_cast<int>(frames_.size()));
  if (inserted) frames_.push_back(it->first);
  return it->second;
}

std::vector<std::string> Profiler::frame_names() const {
  std::lock_guard lock(mu_);
  return frames_;
}

std::vector<NodeTiming> Profiler::node_summary() const {
  std::lock_guard lock(mu_);
  std::vector<NodeTiming> by_node(nodes_.size());
  for (const ProfiledNode& e : events_) {
    NodeTiming& t = by_node[static_cast<size_t>(e.node)];
    ++t.count;
    t.total_ms += static_cast<double>(e.end_ns - e.start_ns) / 1e6;
    if (e.frame > 0) {
      t.frame = frames_[static_cast<size_t>(e.frame)];
      t.max_iteration = std::max(t.max_iteration, e.iteration);
    }
  }
  std::vector<NodeTiming> result;
  for (size_t i = 0; i < by_node.size(); ++i) {
    NodeTiming& t = by_node[i];
    if (t.count == 0) continue;
    t.node = nodes_[i].name;
    t.op = nodes_[i].op;
    t.mean_us = t.total_ms * 1e3 / static_cast<double>(t.count);
    result.push_back(std::move(t));
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const NodeTiming& a, const NodeTiming& b) { return a.total_ms > b.total_ms; });
  return result;
}

void Profiler::clear() {
  std::lock_guard lock(mu_);
  events_.clear();
  host_allocator_ = {};
}

void Profiler::on_run_start(int64_t, int) { HostAllocator::reset_peak(); }

void Profiler::on_run_end(int64_t, bool) {
  const AllocatorStats s = HostAllocator::stats();
  std::lock_guard lock(mu_);
  host_allocator_.measured = true;
  host_allocator_.peak_in_use_bytes =
      std::max(host_allocator_.peak_in_use_bytes, static_cast<int64_t>(s.peak_bytes_in_use));
}

HostAllocatorMemory Profiler::host_allocator() const {
  HostAllocatorMemory h;
  {
    std::lock_guard lock(mu_);
    h = host_allocator_;
  }
  if (h.measured) h.cached_bytes = static_cast<int64_t>(HostAllocator::stats().cached_bytes);
  return h;
}

std::vector<ProfiledNode> Profiler::events() const {
  std::lock_guard lock(mu_);
  return events_;
}

size_t Profiler::size() const {
  std::lock_guard lock(mu_);
  return events_.size();
}

std::vector<std::string> Profiler::node_names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> names;
  for (const NodeInfo& n : nodes_) names.push_back(n.name);
  return names;
}

std::vector<std::string> Profiler::node_ops() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> ops;
  for (const NodeInfo& n : nodes_) ops.push_back(n.op);
  return ops;
}

std::vector<std::string> Profiler::device_names() const {
  std::lock_guard lock(mu_);
  return devices_;
}

std::vector<OpTiming> Profiler::op_summary() const {
  std::lock_guard lock(mu_);
  std::map<std::string, OpTiming> by_op;
  double total_ns = 0;
  for (const ProfiledNode& e : events_) {
    OpTiming& t = by_op[nodes_[static_cast<size_t>(e.node)].op];
    const double ns = static_cast<double>(e.end_ns - e.start_ns);
    ++t.count;
    t.total_ms += ns / 1e6;
    total_ns += ns;
  }
  std::vector<OpTiming> result;
  for (auto& [op, t] : by_op) {
    t.op = op;
    t.mean_us = t.total_ms * 1e3 / static_cast<double>(t.count);
    t.percent = total_ns > 0 ? 100.0 * t.total_ms * 1e6 / total_ns : 0;
    result.push_back(t);
  }
  std::stable_sort(result.begin(), result.end(), [](const OpTiming& a, const OpTiming& b) { return a.total_ms > b.total_ms; });
  return result;
}

std::vector<FunctionTiming> Profiler::function_summary() const {
  std::lock_guard lock(mu_);
  std::map<std::string, FunctionTiming> by_function;
  for (const ProfiledNode& e : events_) {
    const std::string& f = nodes_[static_cast<size_t>(e.node)].function;
    if (f.empty()) continue;
    FunctionTiming& t = by_function[f];
    t.function = f;
    ++t.nodes;
    t.total_ms += static_cast<double>(e.end_ns - e.start_ns) / 1e6;
  }
  std::vector<FunctionTiming> result;
  for (auto& [f, t] : by_function) result.push_back(t);
  std::stable_sort(result.begin(), result.end(),
                   [](const FunctionTiming& a, const FunctionTiming& b) { return a.total_ms > b.total_ms; });
  return result;
}

std::vector<DeviceMemory> Profiler::memory() const {
  std::lock_guard lock(mu_);
  std::vector<DeviceMemory> result(devices_.size());
  for (size_t d = 0; d < devices_.size(); ++d) result[d].device = devices_[d];
  std::map<int64_t, std::vector<size_t>> runs;
  for (size_t i = 0; i < events_.size(); ++i) runs[events_[i].run_id].push_back(i);
  for (const auto& [run, members] : runs) {
    std::unordered_map<std::string, size_t> by_name;  // node name -> event
    int64_t run_end = std::numeric_limits<int64_t>::min();
    for (size_t i : members) {
      by_name.emplace(nodes_[static_cast<size_t>(events_[i].node)].name, i);
      run_end = std::max(run_end, events_[i].end_ns);
    }
    std::unordered_map<size_t, int64_t> release;  // producer event -> end of its last consumer
    for (size_t c : members)
      for (const std::string& p : nodes_[static_cast<size_t>(events_[c].node)].producers)
        if (auto it = by_name.find(p); it != by_name.end())
          release[it->second] = std::max(release[it->second], events_[c].end_ns);
    // Sweep per device: +bytes when produced, -bytes when released; at equal
    // times allocations come first (an output exists before inputs are freed).
    std::vector<std::vector<std::pair<int64_t, int64_t>>> changes(devices_.size());
    for (size_t i : members) {
      const ProfiledNode& e = events_[i];
      auto it = release.find(i);
      const int64_t freed_at = it == release.end() ? run_end : std::max(it->second, e.end_ns);
      changes[static_cast<size_t>(e.device)].push_back({e.end_ns * 2, e.bytes});
      changes[static_cast<size_t>(e.device)].push_back({freed_at * 2 + 1, -e.bytes});
      result[static_cast<size_t>(e.device)].produced_bytes += e.bytes;
    }
    for (size_t d = 0; d < devices_.size(); ++d) {
      std::sort(changes[d].begin(), changes[d].end());
      int64_t live = 0;
      for (auto [time, delta] : changes[d]) {
        live += delta;
        result[d].peak_live_bytes = std::max(result[d].peak_live_bytes, live);
      }
    }
  }
  return result;
}

std::string Profiler::summary_table(int top) const {
  std::vector<OpTiming> ops = op_summary();
  if (static_cast<int>(ops.size()) > top) ops.resize(static_cast<size_t>(top));
  int width = 2;
  for (const OpTiming& t : ops) width = std::max(width, static_cast<int>(t.op.size()));
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %8s %12s %12s %7s\n", width, "op", "count", "total ms", "mean us", "% time");
  out += line;
  for (size_t i = 0; i < ops.size(); ++i) {
    std::snprintf(line, sizeof line, "%-*.200s %8lld %12.3f %12.2f %6.1f%%\n", width, ops[i].op.c_str(),
                  static_cast<long long>(ops[i].count), ops[i].total_ms, ops[i].mean_us, ops[i].percent);
    out += line;
  }
  for (const FunctionTiming& f : function_summary()) {
    std::snprintf(line, sizeof line, "function %.200s: %lld body node runs, %.3f ms\n", f.function.c_str(),
                  static_cast<long long>(f.nodes), f.total_ms);
    out += line;
  }
  for (const DeviceMemory& m : memory()) {
    std::snprintf(line, sizeof line, "%s: peak live ~%.3f MiB (approx.), produced %.3f MiB\n", m.device.c_str(),
                  static_cast<double>(m.peak_live_bytes) / (1 << 20), static_cast<double>(m.produced_bytes) / (1 << 20));
    out += line;
  }
  if (const HostAllocatorMemory h = host_allocator(); h.measured) {
    std::snprintf(line, sizeof line, "host allocator (whole process): peak in use %.3f MiB, cached %.3f MiB\n",
                  static_cast<double>(h.peak_in_use_bytes) / (1 << 20), static_cast<double>(h.cached_bytes) / (1 << 20));
    out += line;
  }
  return out;
}

void Profiler::write_chrome_trace(const std::string& path) const {
  std::lock_guard lock(mu_);
  ChromeTraceWriter writer(path);
  for (size_t d = 0; d < devices_.size(); ++d) writer.process_name(static_cast<int>(d), devices_[d]);
  // Thread names per device that used them, so Perfetto labels each track.
  std::vector<std::vector<char>> used(devices_.size(), std::vector<char>(static_cast<size_t>(thread_count_), 0));
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const ProfiledNode& e : events_) {
    used[static_cast<size_t>(e.device)][static_cast<size_t>(e.thread)] = 1;
    origin = std::min(origin, e.start_ns);
  }
  for (size_t d = 0; d < used.size(); ++d)
    for (size_t t = 0; t < used[d].size(); ++t)
      if (used[d][t]) {
        auto name = thread_names_.find(static_cast<int>(t));
        writer.thread_name(static_cast<int>(d), static_cast<int>(t),
                           name != thread_names_.end() ? name->second : "worker " + std::to_string(t));
      }
  for (const ProfiledNode& e : events_) {
    const NodeInfo& n = nodes_[static_cast<size_t>(e.node)];
    writer.slice({n.name, n.op, e.shapes, e.device, e.thread, e.start_ns - origin, e.end_ns - e.start_ns, e.bytes,
                  e.run_id, frames_[static_cast<size_t>(e.frame)], e.iteration});
  }
  writer.finish();
}

}  // namespace flowlens
