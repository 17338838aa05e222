#include "io/dot_reader.h"

#include <graphviz/cgraph.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "io/graphviz_lock.h"

namespace flowlens {
namespace {

// Graphviz reports errors through a process-wide callback; it only runs
// under graphviz_mutex(), so one static buffer is enough.
std::string& error_buffer() {
  static std::string text;
  return text;
}

int collect_error(char* message) {
  if (message) error_buffer() += message;
  return 0;
}

struct GraphCloser {
  void operator()(Agraph_t* g) const { agclose(g); }
};

std::string attr(void* object, const char* name) {
  const char* value = agget(object, const_cast<char*>(name));
  return value ? std::string(value) : std::string();
}

std::string trimmed(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// Line 2 of a label: DOT keeps the escapes "\n", "\l", "\r" (and real
// newlines) in the string, to be interpreted when drawn.
std::string second_label_line(const std::string& label) {
  std::vector<std::string> lines(1);
  for (std::size_t i = 0; i < label.size(); ++i) {
    if (label[i] == '\n' || (label[i] == '\\' && i + 1 < label.size() && std::string_view("nlr").find(label[i + 1]) != std::string_view::npos)) {
      if (label[i] == '\\') ++i;
      lines.emplace_back();
      continue;
    }
    lines.back() += label[i];
  }
  return lines.size() >= 2 ? trimmed(lines[1]) : std::string();
}

std::string op_of(Agnode_t* n) {
  if (std::string op = trimmed(attr(n, "op")); !op.empty()) return op;
  if (std::string op = second_label_line(attr(n, "label")); !op.empty() && op != "\\N") return op;
  return "dot";
}

// Devices from the export's per-device clusters, nested ones winning.
void collect_devices(Agraph_t* g, std::unordered_map<std::string, std::string>& device_of) {
  for (Agraph_t* sg = agfstsubg(g); sg; sg = agnxtsubg(sg)) {
    const std::string name = agnameof(sg);
    const std::string label = trimmed(attr(sg, "label"));
    if (name.rfind("cluster", 0) == 0 && !label.empty())
      for (Agnode_t* n = agfstnode(sg); n; n = agnxtnode(sg, n)) device_of[agnameof(n)] = label;
    collect_devices(sg, device_of);
  }
}

}  // namespace

std::mutex& graphviz_mutex() {
  static std::mutex m;
  return m;
}

Graph parse_dot_graph(std::string_view text, const std::string& source_name) {
  const std::string buffer(text);  // agmemread wants a NUL-terminated string
  std::lock_guard lock(graphviz_mutex());
  error_buffer().clear();
  const agusererrf previous = agseterrf(collect_error);
  agreseterrors();
  std::unique_ptr<Agraph_t, GraphCloser> g(agmemread(buffer.c_str()));
  agseterrf(previous);
  if (!g) {
    std::string message = trimmed(error_buffer());
    if (message.rfind("Error: ", 0) == 0) message = message.substr(7);
    throw Error(source_name + ": not a Graphviz DOT graph" + (message.empty() ? std::string() : ": " + message));
  }

  std::unordered_map<std::string, std::string> device_of;
  collect_devices(g.get(), device_of);
  Graph graph;
  graph.source_path = source_name;
  for (Agnode_t* n = agfstnode(g.get()); n; n = agnxtnode(g.get(), n)) {
    Node node;
    node.name = agnameof(n);
    node.op = op_of(n);
    if (auto it = device_of.find(node.name); it != device_of.end()) node.device = it->second;
    // Inputs in file order (edge sequence), data before control as a
    // NodeDef writes them.
    std::vector<Agedge_t*> in;
    for (Agedge_t* e = agfstin(g.get(), n); e; e = agnxtin(g.get(), e)) in.push_back(e);
    std::sort(in.begin(), in.end(), [](Agedge_t* a, Agedge_t* b) { return AGSEQ(a) < AGSEQ(b); });
    std::vector<std::string> control;
    for (Agedge_t* e : in) {
      const std::string producer = agnameof(agtail(e));
      const std::string label = trimmed(attr(e, "label"));
      if (label == "^" || attr(e, "style").find("dashed") != std::string::npos) {
        control.push_back("^" + producer);
      } else if (label.size() > 1 && label[0] == ':' &&
                 label.find_first_not_of("0123456789", 1) == std::string::npos && label.size() < 10) {
        node.inputs.push_back(label == ":0" ? producer : producer + label);
      } else {
        node.inputs.push_back(producer);
      }
    }
    node.inputs.insert(node.inputs.end(), control.begin(), control.end());
    graph.add_node(std::move(node));
  }
  return graph;
}

}  // namespace flowlens
