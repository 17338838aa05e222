#include "analysis/validate.h"

#include <algorithm>
#include <cstdint>

#include "analysis/pass_counts.h"
#include "graph/control_flow_frames.h"
#include "graph/device_spec.h"
#include "graph/edge_index.h"
#include "ops/framework/op_registry.h"

namespace flowlens {
namespace {

constexpr std::size_t kMaxListedDiagnostics = 1000;

class Validator {
 public:
  Validator(const Graph& g, const OpRegistry& r) : graph_(g), registry_(r) {}

  std::vector<Diagnostic> run() {
    index_names();
    for (std::size_t i = 0; i < graph_.nodes().size(); ++i) check_node(static_cast<int>(i));
    check_cycles();
    check_frames();
    summarize_unlisted(Diagnostic::Severity::Error);
    summarize_unlisted(Diagnostic::Severity::Warning);
    return std::move(out_);
  }

 private:
  using Kind = Diagnostic::Kind;
  void error(Kind kind, const Node& n, std::string msg) { add(Diagnostic::Severity::Error, kind, n, std::move(msg)); }
  void warning(Kind kind, const Node& n, std::string msg) { add(Diagnostic::Severity::Warning, kind, n, std::move(msg)); }
  // A garbage file can hold a million bad nodes; listing each would cost
  // more memory than the graph. The first kMaxListedDiagnostics of each
  // severity are listed, the rest counted.
  void add(Diagnostic::Severity severity, Kind kind, const Node& n, std::string msg) {
    std::size_t& count = counts_[static_cast<int>(severity)];
    if (count++ < kMaxListedDiagnostics) out_.push_back({severity, n.name, std::move(msg), kind, n.op});
  }
  void summarize_unlisted(Diagnostic::Severity severity) {
    const std::size_t count = counts_[static_cast<int>(severity)];
    if (count <= kMaxListedDiagnostics) return;
    const bool is_error = severity == Diagnostic::Severity::Error;
    out_.push_back({severity, "",
                    std::to_string(count - kMaxListedDiagnostics) + " more " + (is_error ? "error" : "warning") +
                        "s like those above are not listed (" + std::to_string(count) + " in all)",
                    Kind::Unlisted});
  }

  void index_names() {
    for (size_t i = 0; i < graph_.nodes().size(); ++i) {
      const Node& n = graph_.nodes()[i];
      if (n.name.empty()) {
        add(Diagnostic::Severity::Error, Kind::EmptyName, n, "node #" + std::to_string(i) + " (op '" + n.op + "') has an empty name");
        continue;
      }
      // The graph's index holds each name's first node.
      if (graph_.index_of(n.name) != static_cast<int>(i)) error(Kind::DuplicateName, n, "duplicate node name '" + n.name + "'");
    }
  }

  bool is_function(const std::string& op) const {
    for (const auto& f : graph_.function_names)
      if (f == op) return true;
    return false;
  }

  void check_node(int index) {
    const Node& n = graph_.nodes()[static_cast<std::size_t>(index)];
    if (n.op.empty()) error(Kind::NoOp, n, "node '" + n.name + "' has no op");
    const OpDef* def = registry_.find(n.op);
    if (!def && !n.op.empty()) {
      if (is_function(n.op))
        warning(Kind::LibraryFunction, n, "op '" + n.op + "' is a function from the graph's library; a session runs it as a call (StatefulPartitionedCall)");
      else
        warning(Kind::UnknownOp, n, "unknown op '" + n.op + "': the graph can be viewed and converted, but not run");
    }
    check_inputs(index, def);
    if (def) {
      const size_t before = out_.size();
      check_attrs(n, *def);
      // The signature's list sizes (num_split, N ...) bounded before anything
      // is sized from them; reported here unless check_attrs already did.
      if (out_.size() == before) {
        try {
          def->inputs_for(n);
          def->outputs_for(n);
        } catch (const Error& e) {
          error(Kind::AttrValue, n, e.what());  // a list size out of bounds
        }
      }
    }
    if (!n.device.empty() && !DeviceSpec::try_parse(n.device))
      error(Kind::InvalidDevice, n, "device '" + n.device + "' is not a valid device name (expected e.g. /job:worker/task:0/device:GPU:0 or /cpu:0)");
  }

  void check_inputs(int index, const OpDef* def) {
    const Node& n = graph_.nodes()[static_cast<std::size_t>(index)];
    const std::span<const InputEdge> edges = graph_.edges().inputs(index);
    bool seen_control = false;
    int data_inputs = 0;
    for (std::size_t k = 0; k < edges.size(); ++k) {
      const std::string& text = n.inputs[k];
      const InputEdge& edge = edges[k];
      if (edge.producer == InputEdge::kMalformed) {
        error(Kind::MalformedInput, n, "input '" + text + "' is malformed (expected 'node', 'node:port' or '^node')");
        continue;
      }
      if (edge.is_control()) {
        seen_control = true;
      } else {
        ++data_inputs;
        if (seen_control)
          error(Kind::ControlBeforeData, n, "data input '" + text + "' follows a control input; control inputs (^x) must come last");
      }
      if (!edge.resolved()) {
        error(Kind::MissingInput, n, "input '" + text + "' names node '" + std::string(TensorIdView::parse(text)->node) +
                          "', which is not in the graph");
        continue;
      }
      if (edge.is_control()) continue;
      const Node& src = graph_.nodes()[static_cast<std::size_t>(edge.producer)];
      if (const OpDef* sdef = registry_.find(src.op)) {
        int outputs = safe_outputs(*sdef, src);
        if (outputs >= 0 && edge.port >= outputs)
          error(Kind::PortOutOfRange, n, "input '" + text + "' asks for output " + std::to_string(edge.port) + " of '" + src.name +
                            "' (" + src.op + "), which has " + std::to_string(outputs) + " output" +
                            (outputs == 1 ? "" : "s"));
      }
    }
    if (!def) return;
    int expected = -1;
    try {
      expected = def->inputs_for(n);
    } catch (const Error&) {
      return;  // a bad size attr; check_attrs reports it
    }
    const int min = def->min_inputs(), max = def->max_inputs();
    const bool ok = expected >= 0 ? data_inputs == expected : data_inputs >= min && (max < 0 || data_inputs <= max);
    if (!ok) {
      const std::string want = expected >= 0 ? std::to_string(expected)
                               : max < 0      ? "at least " + std::to_string(min)
                                              : std::to_string(min) + " to " + std::to_string(max);
      error(Kind::InputCount, n, n.op + " takes " + want + " data input" + (want == "1" ? "" : "s") + ", got " +
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
    // A list attr matches when it is empty or holds the kind's field; `field`
    // is read only once `list` is known to be a list.
    auto only = [&](auto field) { return list && (list->empty() || !(list->*field).empty()); };
    switch (kind) {
      case AttrKind::String: return v.is<std::string>();
      case AttrKind::Int: return v.is<int64_t>();
      case AttrKind::Float: return v.is<float>();
      case AttrKind::Bool: return v.is<bool>();
      case AttrKind::Type: return v.is<DType>();
      case AttrKind::Shape: return v.is<Shape>();
      case AttrKind::Tensor: return v.is<Tensor>();
      case AttrKind::Func: return v.is<std::shared_ptr<FuncRef>>();
      case AttrKind::ListString: return only(&AttrList::s);
      case AttrKind::ListInt: return only(&AttrList::i);
      case AttrKind::ListFloat: return only(&AttrList::f) || only(&AttrList::i);
      case AttrKind::ListBool: return only(&AttrList::b);
      case AttrKind::ListType: return only(&AttrList::type);
      case AttrKind::ListShape: return only(&AttrList::shape);
      case AttrKind::ListTensor: return only(&AttrList::tensor);
      case AttrKind::ListFunc: return only(&AttrList::func);
    }
    return false;
  }

  static size_t list_length(const AttrList& l) {
    return std::max({l.s.size(), l.i.size(), l.f.size(), l.b.size(), l.type.size(), l.shape.size(), l.tensor.size(),
                     l.func.size()});
  }

  // TensorFlow's ValidateAttrValue wording: allowed values and minimums.
  void check_attr_value(const Node& n, const AttrDef& a, const AttrValue& v) {
    if (const DType* t = v.get_if<DType>(); t && !a.allowed_types.empty()) {
      if (std::find(a.allowed_types.begin(), a.allowed_types.end(), dtype_base(*t)) == a.allowed_types.end()) {
        std::string allowed;
        for (DType x : a.allowed_types) allowed += (allowed.empty() ? "" : ", ") + dtype_name(x);
        error(Kind::AttrValue, n, "Value for attr '" + a.name + "' of " + dtype_name(*t) +
                          " is not in the list of allowed values: " + allowed);
      }
    }
    if (const AttrList* l = v.get_if<AttrList>(); l && !a.allowed_types.empty())
      for (DType t : l->type)
        if (std::find(a.allowed_types.begin(), a.allowed_types.end(), dtype_base(t)) == a.allowed_types.end())
          error(Kind::AttrValue, n, "Value for attr '" + a.name + "' of " + dtype_name(t) + " is not in the list of allowed values");
    if (const std::string* s = v.get_if<std::string>(); s && !a.allowed_strings.empty()) {
      if (std::find(a.allowed_strings.begin(), a.allowed_strings.end(), *s) == a.allowed_strings.end()) {
        std::string allowed;
        for (const std::string& x : a.allowed_strings) allowed += (allowed.empty() ? "\"" : ", \"") + x + "\"";
        error(Kind::AttrValue, n, "Value for attr '" + a.name + "' of \"" + *s + "\" is not in the list of allowed values: " + allowed);
      }
    }
    if (a.minimum) {
      if (const int64_t* i = v.get_if<int64_t>(); i && *i < *a.minimum)
        error(Kind::AttrValue, n, "Value for attr '" + a.name + "' of " + std::to_string(*i) + " must be at least minimum " +
                          std::to_string(*a.minimum));
      if (const AttrList* l = v.get_if<AttrList>(); l && static_cast<int64_t>(list_length(*l)) < *a.minimum)
        error(Kind::AttrValue, n, "Length for attr '" + a.name + "' of " + std::to_string(list_length(*l)) +
                          " must be at least minimum " + std::to_string(*a.minimum));
    }
  }

  void check_attrs(const Node& n, const OpDef& def) {
    for (const AttrDef& a : def.attrs) {
      const AttrValue* v = n.find_attr(a.name);
      if (!v) {
        // Type attrs named by inputs and list sizes are told from the inputs.
        if (!a.default_value && !a.inferable)
          error(Kind::MissingAttr, n, n.op + " requires attr '" + a.name + "' (" + attr_kind_name(a.kind) + ")");
        continue;
      }
      if (v->is<AttrPlaceholder>()) continue;
      if (!kind_matches(a.kind, *v)) {
        error(Kind::AttrKindMismatch, n, "attr '" + a.name + "' of " + n.op + " must be " + attr_kind_name(a.kind) + ", got " +
                          v->kind_name() + " " + v->to_string());
        continue;
      }
      check_attr_value(n, a, *v);
    }
  }

  // TensorFlow 1 control flow: compute_frames' inconsistencies (inputs from
  // two frames, an Exit outside any loop, an Enter without frame_name) make
  // the graph unrunnable, as TensorFlow's executor refuses it.
  void check_frames() {
    if (!has_control_flow()) return;
    const ControlFlowFrames frames = compute_frames(graph_);
    for (const std::string& p : frames.problems) {
      std::size_t& count = counts_[static_cast<int>(Diagnostic::Severity::Error)];
      if (count++ < kMaxListedDiagnostics) out_.push_back({Diagnostic::Severity::Error, "", "inconsistent loop frames: " + p, Kind::Other});
    }
  }

  bool has_control_flow() const {
    for (const Node& n : graph_.nodes())
      if (is_control_flow_op(n.op)) return true;
    return false;
  }

  // Iterative DFS (graphs may be deep chains). The edges from a NextIteration
  // to a Merge are TensorFlow's loop back edges and are not followed; any
  // other cycle is an error naming the frame it is in.
  void check_cycles() {
    const auto& nodes = graph_.nodes();
    const EdgeIndex& edges = graph_.edges();
    enum : uint8_t { kNew, kOnStack, kDone };
    std::vector<uint8_t> state(nodes.size(), kNew);
    for (std::size_t root = 0; root < nodes.size(); ++root) {
      if (state[root] != kNew) continue;
      // (node, how many of its inputs have been followed)
      std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
      state[root] = kOnStack;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const std::span<const InputEdge> inputs = edges.inputs(static_cast<int>(node));
        if (next == inputs.size()) {
          state[node] = kDone;
          stack.pop_back();
          continue;
        }
        const InputEdge& edge = inputs[next++];
        if (!edge.resolved()) continue;
        if (is_next_iteration_op(nodes[static_cast<std::size_t>(edge.producer)].op) && is_merge_op(nodes[node].op))
          continue;
        const auto in = static_cast<std::size_t>(edge.producer);
        if (state[in] == kOnStack) {
          std::string where;
          if (has_control_flow()) {
            const ControlFlowFrames frames = compute_frames(graph_);
            where = " in " + frames.describe(frames.frame_of[in]);
          }
          error(Kind::Cycle, nodes[in], "cycle through '" + nodes[in].name + "' and '" + nodes[node].name + "'" +
                                            where +
                                            " that does not pass through a NextIteration -> Merge loop back edge");
          return;
        }
        if (state[in] == kNew) {
          state[in] = kOnStack;
          stack.emplace_back(in, 0);
        }
      }
    }
  }

  const Graph& graph_;
  const OpRegistry& registry_;
  std::vector<Diagnostic> out_;
  std::size_t counts_[2] = {0, 0};  // by Severity, listed or not
};

}  // namespace

std::string Diagnostic::to_string() const {
  std::string s = is_error() ? "error: " : "warning: ";
  if (!node.empty()) s += "node '" + node + "': ";
  return s + message;
}

std::vector<Diagnostic> validate_graph(const Graph& graph, const OpRegistry& registry) {
  count_graph_pass(GraphPass::Validation);
  return Validator(graph, registry).run();
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics)
    if (d.is_error()) return true;
  return false;
}

}  // namespace flowlens
