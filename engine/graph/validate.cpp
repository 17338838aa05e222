#include "graph/validate.h"

#include <unordered_map>
#include <unordered_set>

#include "graph/device_spec.h"
#include "ops/op_registry.h"

namespace flowlens {
namespace {

class Validator {
 public:
  Validator(const Graph& g, const OpRegistry& r) : graph_(g), registry_(r) {}

  std::vector<Diagnostic> run() {
    index_names();
    for (const Node& n : graph_.nodes()) check_node(n);
    check_cycles();
    return std::move(out_);
  }

 private:
  void error(const std::string& node, std::string msg) {
    out_.push_back({Diagnostic::Severity::Error, node, std::move(msg)});
  }
  void warning(const std::string& node, std::string msg) {
    out_.push_back({Diagnostic::Severity::Warning, node, std::move(msg)});
  }

  void index_names() {
    for (size_t i = 0; i < graph_.nodes().size(); ++i) {
      const Node& n = graph_.nodes()[i];
      if (n.name.empty()) {
        error("", "node #" + std::to_string(i) + " (op '" + n.op + "') has an empty name");
        continue;
      }
      if (!by_name_.emplace(n.name, &n).second) error(n.name, "duplicate node name '" + n.name + "'");
    }
  }

  bool is_function(const std::string& op) const {
    for (const auto& f : graph_.function_names)
      if (f == op) return true;
    return false;
  }

  void check_node(const Node& n) {
    if (n.op.empty()) error(n.name, "node '" + n.name + "' has no op");
    const OpDef* def = registry_.find(n.op);
    if (!def && !n.op.empty()) {
      if (is_function(n.op))
        warning(n.name, "op '" + n.op + "' is a function from the graph's library; it can be viewed but not run");
      else
        warning(n.name, "unknown op '" + n.op + "': the graph can be viewed and converted, but not run");
    }
    check_inputs(n, def);
    if (def) check_attrs(n, *def);
    if (!n.device.empty() && !DeviceSpec::try_parse(n.device))
      error(n.name, "device '" + n.device + "' is not a valid device name (expected e.g. /job:worker/task:0/device:GPU:0 or /cpu:0)");
  }

  void check_inputs(const Node& n, const OpDef* def) {
    bool seen_control = false;
    int data_inputs = 0;
    for (const std::string& text : n.inputs) {
      auto id = TensorId::parse(text);
      if (!id) {
        error(n.name, "input '" + text + "' is malformed (expected 'node', 'node:port' or '^node')");
        continue;
      }
      if (id->is_control()) {
        seen_control = true;
      } else {
        ++data_inputs;
        if (seen_control)
          error(n.name, "data input '" + text + "' follows a control input; control inputs (^x) must come last");
      }
      auto it = by_name_.find(id->node);
      if (it == by_name_.end()) {
        error(n.name, "input '" + text + "' names node '" + id->node + "', which is not in the graph");
        continue;
      }
      if (id->is_control()) continue;
      const Node& src = *it->second;
      if (const OpDef* sdef = registry_.find(src.op)) {
        int outputs = safe_outputs(*sdef, src);
        if (outputs >= 0 && id->index >= outputs)
          error(n.name, "input '" + text + "' asks for output " + std::to_string(id->index) + " of '" + src.name +
                            "' (" + src.op + "), which has " + std::to_string(outputs) + " output" +
                            (outputs == 1 ? "" : "s"));
      }
    }
    if (!def) return;
    if (data_inputs < def->min_inputs || (def->max_inputs >= 0 && data_inputs > def->max_inputs)) {
      std::string expected = def->max_inputs < 0 ? "at least " + std::to_string(def->min_inputs)
                             : def->min_inputs == def->max_inputs
                                 ? std::to_string(def->min_inputs)
                                 : std::to_string(def->min_inputs) + " to " + std::to_string(def->max_inputs);
      error(n.name, n.op + " takes " + expected + " data input" + (expected == "1" ? "" : "s") + ", got " +
                        std::to_string(data_inputs));
    }
  }

  int safe_outputs(const OpDef& def, const Node& n) const {
    try {
      return def.outputs_for(n);
    } catch (const Error&) {
      return -1;  // a bad attr; check_attrs reports it
    }
  }

  static bool kind_matches(AttrKind kind, const AttrValue& v) {
    const AttrList* list = v.get_if<AttrList>();
    switch (kind) {
      case AttrKind::String: return v.is<std::string>();
      case AttrKind::Int: return v.is<int64_t>();
      case AttrKind::Float: return v.is<float>();
      case AttrKind::Bool: return v.is<bool>();
      case AttrKind::Type: return v.is<DType>();
      case AttrKind::Shape: return v.is<Shape>();
      case AttrKind::Tensor: return v.is<Tensor>();
      case AttrKind::ListInt: return list && list->s.empty() && list->f.empty() && list->type.empty();
      case AttrKind::ListType: return list && list->i.empty() && list->s.empty();
      case AttrKind::ListShape: return list && list->i.empty() && list->s.empty();
      case AttrKind::Func: return v.is<std::shared_ptr<FuncRef>>();
      case AttrKind::Any: return true;
    }
    return false;
  }

  static const char* kind_text(AttrKind kind) {
    switch (kind) {
      case AttrKind::String: return "string";
      case AttrKind::Int: return "int";
      case AttrKind::Float: return "float";
      case AttrKind::Bool: return "bool";
      case AttrKind::Type: return "type";
      case AttrKind::Shape: return "shape";
      case AttrKind::Tensor: return "tensor";
      case AttrKind::ListInt: return "list(int)";
      case AttrKind::ListType: return "list(type)";
      case AttrKind::ListShape: return "list(shape)";
      case AttrKind::Func: return "func";
      case AttrKind::Any: return "any";
    }
    return "?";
  }

  void check_attrs(const Node& n, const OpDef& def) {
    for (const AttrSpec& spec : def.attrs) {
      const AttrValue* v = n.find_attr(spec.name);
      if (!v) {
        if (spec.required) error(n.name, n.op + " requires attr '" + spec.name + "' (" + kind_text(spec.kind) + ")");
        continue;
      }
      if (v->is<AttrPlaceholder>()) continue;
      if (!kind_matches(spec.kind, *v))
        error(n.name, "attr '" + spec.name + "' of " + n.op + " must be " + kind_text(spec.kind) + ", got " +
                          v->kind_name() + " " + v->to_string());
    }
  }

  // Iterative DFS (graphs may be deep chains). Edges leaving a NextIteration
  // node are TensorFlow's loop back edges and are not followed.
  void check_cycles() {
    const auto& nodes = graph_.nodes();
    std::unordered_map<const Node*, int> state;  // 0 new, 1 on stack, 2 done
    std::unordered_map<const Node*, std::vector<const Node*>> inputs_of;
    for (const Node& n : nodes) {
      auto& ins = inputs_of[&n];
      for (const std::string& text : n.inputs) {
        auto id = TensorId::parse(text);
        if (!id) continue;
        auto it = by_name_.find(id->node);
        if (it == by_name_.end() || it->second->op == "NextIteration") continue;
        ins.push_back(it->second);
      }
    }
    for (const Node& root : nodes) {
      if (state[&root]) continue;
      std::vector<std::pair<const Node*, size_t>> stack{{&root, 0}};
      state[&root] = 1;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const auto& ins = inputs_of[node];
        if (next == ins.size()) {
          state[node] = 2;
          stack.pop_back();
          continue;
        }
        const Node* in = ins[next++];
        int& s = state[in];
        if (s == 1) {
          error(in->name, "cycle through '" + in->name + "' and '" + node->name +
                              "' that does not pass through a NextIteration (loop back edge)");
          return;
        }
        if (s == 0) {
          s = 1;
          stack.emplace_back(in, 0);
        }
      }
    }
  }

  const Graph& graph_;
  const OpRegistry& registry_;
  std::unordered_map<std::string, const Node*> by_name_;
  std::vector<Diagnostic> out_;
};

}  // namespace

std::string Diagnostic::to_string() const {
  std::string s = is_error() ? "error: " : "warning: ";
  if (!node.empty()) s += "node '" + node + "': ";
  return s + message;
}

std::vector<Diagnostic> validate_graph(const Graph& graph, const OpRegistry& registry) {
  return Validator(graph, registry).run();
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics)
    if (d.is_error()) return true;
  return false;
}

}  // namespace flowlens
