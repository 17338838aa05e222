// In-graph replication (see replicate_in_graph.h). The transform works on node
// indices of the input graph: it finds the split tensors, the compute subgraph
// between them and the merge outputs (or the loss), then emits a new graph in
// input order where each subgraph node is replaced by its tower copies, so a
// topologically ordered input stays topologically ordered.
#include "transform/replicate_in_graph.h"

#include <algorithm>
#include <cctype>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "common/error.h"
#include "exec/feed_values.h"
#include "graph/control_flow_frames.h"
#include "graph/device_spec.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "graph/subgraph.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"

namespace flowlens {
namespace {

std::string tower_name(int tower, const std::string& name) { return "tower_" + std::to_string(tower) + "/" + name; }

// tf.gradients puts its nodes under "gradients/", "gradients_1/", ...
bool in_gradient_scope(const std::string& name) {
  if (!name.starts_with("gradients")) return false;
  size_t i = 9;
  if (i < name.size() && name[i] == '_') {
    const size_t digits = ++i;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
    if (i == digits) return false;
  }
  return i < name.size() && name[i] == '/';
}

std::string format_sizes(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? "," : "") + std::to_string(sizes[i]);
  return s + "]";
}

// Rows per tower; the first batch % n towers take one more (numpy's array_split).
std::vector<int64_t> tower_sizes(int64_t batch, int n) {
  std::vector<int64_t> sizes(n, batch / n);
  for (int64_t i = 0; i < batch % n; ++i) ++sizes[i];
  return sizes;
}

Node make_node(std::string name, std::string op, std::vector<std::string> inputs, std::string device, AttrMap attrs) {
  return Node{std::move(name), std::move(op), std::move(inputs), std::move(device), std::move(attrs)};
}

Node make_const(std::string name, std::string device, const Tensor& value) {
  return make_node(std::move(name), "Const", {}, std::move(device), {{"dtype", value.dtype()}, {"value", value}});
}

// 1/N for averaging, in the dtype of what it scales (float unless double).
Tensor reciprocal(int n, DType dtype) {
  if (dtype == DType::Double) return Tensor::scalar<double>(1.0 / n);
  return Tensor::scalar<float>(1.0f / static_cast<float>(n));
}

// Names used in the output graph; helper nodes get TF-style "_1" suffixes.
class NameSet {
 public:
  explicit NameSet(const Graph& graph) {
    for (const Node& n : graph.nodes()) taken_.insert(n.name);
  }
  std::string unique(const std::string& base) {
    if (taken_.insert(base).second) return base;
    for (int i = 1;; ++i)
      if (std::string c = base + "_" + std::to_string(i); taken_.insert(c).second) return c;
  }
  bool taken(const std::string& name) const { return taken_.count(name) > 0; }

 private:
  std::unordered_set<std::string> taken_;
};

// Everything reachable from `seeds` (included): next(i, visit) calls visit(j)
// for each neighbour j of i worth following.
template <class Next>
std::vector<char> flood(size_t size, std::vector<int> seeds, Next next) {
  std::vector<char> seen(size, 0);
  for (int i : seeds) seen[i] = 1;
  auto visit = [&](int j) {
    if (!seen[j]) seen[j] = 1, seeds.push_back(j);
  };
  while (!seeds.empty()) {
    const int i = seeds.back();
    seeds.pop_back();
    next(i, visit);
  }
  return seen;
}

class Replicator {
 public:
  Replicator(const Graph& graph, const ReplicateOptions& options, const OpRegistry& registry)
      : in_(graph), opt_(options), registry_(registry), n_(options.replicas), names_(graph) {}

  ReplicationResult run() {
    check_options_and_graph();
    mark_old_training_nodes();
    find_split_points();
    find_ends();
    find_compute_subgraph();
    find_needed_originals();
    emit_graph();
    if (loss_ >= 0) build_training();
    result_.graph = std::move(out_);
    return std::move(result_);
  }

 private:
  const Node& node(int i) const { return in_.nodes()[i]; }
  size_t count() const { return in_.nodes().size(); }

  int require(const std::string& name, const char* role) const {
    int i = in_.index_of(name);
    if (i < 0) throw Error("replicate: unknown " + std::string(role) + " '" + name + "'");
    return i;
  }

  void check_options_and_graph() {
    if (n_ < 1) throw Error("replicate: replicas must be at least 1, got " + std::to_string(n_));
    devices_ = opt_.devices;
    if (devices_.empty())
      for (int t = 0; t < n_; ++t) devices_.push_back("/gpu:" + std::to_string(t));
    if (static_cast<int>(devices_.size()) != n_)
      throw Error("replicate: " + std::to_string(devices_.size()) + " device(s) given for " + std::to_string(n_) +
                  " replicas");
    for (const std::string& d : devices_) DeviceSpec::parse(d);  // bad syntax throws here, naming it
    DeviceSpec::parse(opt_.host_device);
    if (opt_.split_inputs.empty()) throw Error("replicate: give at least one split input");
    if (opt_.merge_outputs.empty() && opt_.loss.empty())
      throw Error("replicate: give at least one merge output or a loss");

    std::vector<Diagnostic> diagnostics = validate_graph(in_, registry_);
    for (const Diagnostic& d : diagnostics)
      if (d.is_error()) throw Error("replicate: the graph is invalid: " + d.to_string());
    shapes_ = infer_shapes(in_, registry_);
  }

  // Validation guarantees every input resolves to a node of the graph.
  std::span<const InputEdge> inputs_of(int i) const { return in_.edges().inputs(i); }
  // Every edge leaving i, data and control (a consumer may repeat).
  std::span<const OutputEdge> uses_of(int i) const { return in_.edges().outputs(i); }

  // Training input may already hold tf.gradients output and an optimizer:
  // the gradient scopes and everything that depends on them are rebuilt.
  void mark_old_training_nodes() {
    std::vector<int> scoped;
    for (int i = 0; i < static_cast<int>(count()) && !opt_.loss.empty(); ++i)
      if (in_gradient_scope(node(i).name)) scoped.push_back(i);
    old_training_ = flood(count(), scoped, [&](int i, auto visit) {
      for (const OutputEdge& use : uses_of(i)) visit(use.consumer);
    });
    const int loss = opt_.loss.empty() ? -1 : in_.index_of(opt_.loss);
    if (loss < 0) return;
    // What fed only the old step through data edges goes with it (the
    // optimizer's learning-rate Const), so no disconnected remnant of the
    // original train op is left. Kept: the loss and all it is computed from,
    // placeholders (a feed stays valid in both graphs), and ops the old step
    // only ran through control edges (tf.control_dependencies' UPDATE_OPS),
    // which can still be run by name.
    const std::vector<char> forward = flood(count(), {loss}, [&](int i, auto visit) {
      for (const InputEdge& in : inputs_of(i))
        if (in.resolved()) visit(in.producer);
    });
    auto only_feeds_old = [&](int i) {
      if (old_training_[i] || forward[i] || uses_of(i).empty() || is_placeholder_op(node(i).op)) return false;
      for (const OutputEdge& use : uses_of(i))
        if (use.is_control() || !old_training_[use.consumer]) return false;
      return true;
    };
    // A worklist over producers: each node is looked at when one of its
    // consumers is dropped, so a chain costs its length, not passes over the graph.
    std::vector<int> work;
    for (int i = 0; i < static_cast<int>(count()); ++i)
      if (old_training_[i])
        for (const InputEdge& in : inputs_of(i))
          if (in.resolved()) work.push_back(in.producer);
    while (!work.empty()) {
      const int i = work.back();
      work.pop_back();
      if (!only_feeds_old(i)) continue;
      old_training_[i] = 1;
      for (const InputEdge& in : inputs_of(i))
        if (in.resolved()) work.push_back(in.producer);
    }
  }

  // A variable is split at the value its consumers read: a ref variable's
  // Identity read, preferring the conventional "<v>/read" when there are
  // several; a resource variable's ReadVariableOp, preferring
  // "<v>/Read/ReadVariableOp".
  int split_source(int x) const {
    const Node& var = node(x);
    if (!is_variable(var)) return x;
    const bool ref = is_ref_variable(var);
    const std::string read_op = ref ? "Identity" : "ReadVariableOp";
    const std::string conventional = var.name + (ref ? "/read" : "/Read/ReadVariableOp");
    int read = -1;
    for (const OutputEdge& use : uses_of(x)) {
      const int c = use.consumer;
      const Node& cn = node(c);
      if (cn.op != read_op || use.input != 0 || use.port != 0) continue;
      if (cn.name == conventional) return c;
      if (read < 0) read = c;
    }
    return read >= 0 ? read : x;
  }

  // Dim 0 of the split tensor: inferred, else the node's declared shape.
  int64_t static_batch(const ReplicaSplit& sp, int x, int src) const {
    const auto& outs = shapes_.outputs[src];
    if (!outs.empty() && outs[0].shape.rank_known()) {
      if (outs[0].shape.rank() == 0) throw Error("replicate: cannot split scalar '" + sp.input + "'");
      return outs[0].shape.dim(0);
    }
    const Node& xn = node(x);
    if (const AttrValue* shape = xn.find_attr("shape"))
      if (const Shape* s = shape->get_if<Shape>(); s && s->rank_known() && s->rank() > 0) return s->dim(0);
    if (is_constant(xn))
      if (const AttrValue* value = xn.find_attr("value"))
        if (const Tensor* t = value->get_if<Tensor>(); t && t->shape().rank() > 0) return t->shape().dim(0);
    return -1;
  }

  void find_split_points() {
    for (const std::string& name : opt_.split_inputs) {
      const int x = require(name, "split input");
      const int src = split_source(x);
      ReplicaSplit sp;
      sp.input = name;
      sp.tensor = node(src).name;
      if (split_of_tensor_.count(sp.tensor)) throw Error("replicate: split input '" + name + "' given twice");
      sp.batch = static_batch(sp, x, src);
      if (sp.batch < 0 && opt_.batch_size > 0) sp.batch = opt_.batch_size;
      if (sp.batch >= 0 && opt_.batch_size > 0 && sp.batch != opt_.batch_size)
        throw Error("replicate: batch_size " + std::to_string(opt_.batch_size) + " does not match '" + name +
                    "' (batch " + std::to_string(sp.batch) + ")");
      if (sp.batch >= 0) {
        if (sp.batch < n_)
          throw Error("replicate: cannot split '" + name + "' (batch " + std::to_string(sp.batch) + ") into " +
                      std::to_string(n_) + " replicas: fewer rows than replicas");
        sp.sizes = tower_sizes(sp.batch, n_);
        if (sp.batch % n_ != 0 && !opt_.allow_uneven)
          throw Error("replicate: cannot split '" + name + "' (batch " + std::to_string(sp.batch) + ") into " +
                      std::to_string(n_) + " replicas evenly; pass allow_uneven to use SplitV sizes " +
                      format_sizes(sp.sizes));
      } else if (opt_.allow_uneven) {
        throw Error("replicate: the batch of '" + name + "' is not known statically; allow_uneven needs batch_size");
      }
      sp.split_node = names_.unique(name + "/split");
      const auto& outs = shapes_.outputs[src];
      DType dtype = outs.empty() ? DType::Invalid : dtype_base(outs[0].dtype);
      if (dtype == DType::Invalid) dtype = node(x).attr_type("dtype", DType::Invalid);
      split_dtypes_.push_back(dtype);
      split_of_tensor_[sp.tensor] = result_.splits.size();
      splits_after_[src].push_back(result_.splits.size());
      result_.splits.push_back(std::move(sp));
    }
  }

  void find_ends() {
    is_end_.assign(count(), 0);
    for (const std::string& name : opt_.merge_outputs) {
      const int m = require(name, "merge output");
      const OpDef* def = registry_.find(node(m).op);
      if (def && def->outputs_for(node(m)) != 1)
        throw Error("replicate: merge output '" + name + "' has " + std::to_string(def->outputs_for(node(m))) +
                    " outputs; only single-output nodes can be merged");
      if (is_end_[m]) throw Error("replicate: merge output '" + name + "' given twice");
      is_end_[m] = 1;
    }
    if (!opt_.loss.empty()) {
      loss_ = require(opt_.loss, "loss");
      if (is_end_[loss_]) throw Error("replicate: '" + opt_.loss + "' is both loss and merge output");
      is_end_[loss_] = 1;
    }
  }

  // Forward from the split tensors' consumers, intersected with backward from
  // the ends: exactly the nodes whose value differs per tower.
  // A tower copies a tf.while_loop whole: a loop's counter (Enter, Merge,
  // LoopCond) depends on no split input, yet every tower's frame needs its
  // own. A node of a loop in the subgraph brings in every node of its
  // outermost loop, nested loops included.
  void include_whole_loops() {
    bool any = false;
    for (const Node& n : in_.nodes()) any |= is_control_flow_op(n.op);
    if (!any) return;
    const ControlFlowFrames frames = compute_frames(in_);
    auto outermost = [&](int f) {
      while (f > 0 && frames.frames[static_cast<size_t>(f)].parent > 0) f = frames.frames[static_cast<size_t>(f)].parent;
      return f;
    };
    std::vector<char> copied(frames.frames.size(), 0);
    for (size_t i = 0; i < count(); ++i)
      if (in_subgraph_[i] && frames.frame_of[i] > 0) copied[static_cast<size_t>(outermost(frames.frame_of[i]))] = 1;
    for (size_t i = 0; i < count(); ++i)
      if (frames.frame_of[i] > 0 && copied[static_cast<size_t>(outermost(frames.frame_of[i]))]) in_subgraph_[i] = 1;
  }

  void find_compute_subgraph() {
    std::vector<int> consumers, ends;
    for (const ReplicaSplit& sp : result_.splits) {
      const int src = in_.index_of(sp.tensor);
      for (const OutputEdge& use : uses_of(src))
        if (use.port == 0 && !old_training_[use.consumer]) consumers.push_back(use.consumer);
    }
    const std::vector<char> forward = flood(count(), consumers, [&](int i, auto visit) {
      for (const OutputEdge& use : uses_of(i))
        if (!old_training_[use.consumer]) visit(use.consumer);
    });
    for (int i = 0; i < static_cast<int>(count()); ++i)
      if (is_end_[i]) {
        if (!forward[i])
          throw Error("replicate: " + std::string(i == loss_ ? "loss" : "merge output") + " '" + node(i).name +
                      "' does not depend on any split input");
        ends.push_back(i);
      }
    const std::vector<char> backward = flood(count(), ends, [&](int i, auto visit) {
      for (const InputEdge& in : inputs_of(i)) visit(in.producer);
    });
    in_subgraph_.assign(count(), 0);
    for (size_t i = 0; i < count(); ++i) in_subgraph_[i] = forward[i] && backward[i];
    include_whole_loops();
    for (size_t i = 0; i < count(); ++i) {
      for (int t = 0; in_subgraph_[i] && t < n_; ++t)
        if (names_.taken(tower_name(t, in_.nodes()[i].name)))
          throw Error("replicate: tower copy name '" + tower_name(t, in_.nodes()[i].name) + "' is already taken");
    }
  }

  // Originals stay only where a kept node outside the subgraph still reads
  // them (a summary of an intermediate); the ends are replaced by name.
  void find_needed_originals() {
    std::vector<int> kept;
    for (int i = 0; i < static_cast<int>(count()); ++i)
      if (!in_subgraph_[i] && !old_training_[i]) kept.push_back(i);
    needed_ = flood(count(), kept, [&](int i, auto visit) {
      for (const InputEdge& in : inputs_of(i))
        if (in_subgraph_[in.producer] && !is_end_[in.producer]) visit(in.producer);
    });
    for (size_t i = 0; i < count(); ++i) needed_[i] = needed_[i] && in_subgraph_[i];
  }

  // devices[t] wins field by field; the user's spelling is kept when nothing
  // of the original request survives.
  std::string tower_device(const std::string& requested, int t) const {
    const DeviceSpec want = DeviceSpec::parse(devices_[t]);
    DeviceSpec merged = DeviceSpec::parse(requested);
    merged.merge_from(want, true);
    return merged == want ? devices_[t] : merged.to_string();
  }

  Node copy_for_tower(int i, int t) const {
    Node c = node(i);
    c.name = tower_name(t, c.name);
    c.device = tower_device(c.device, t);
    // Each tower's copy of a tf.while_loop is its own frame, named like its nodes.
    if (is_enter_op(c.op))
      if (auto it = c.attrs.find("frame_name"); it != c.attrs.end())
        if (const std::string* frame = it->second.get_if<std::string>()) it->second = AttrValue(tower_name(t, *frame));
    const std::span<const InputEdge> ins = inputs_of(i);
    for (size_t k = 0; k < ins.size(); ++k) {
      const std::string& producer = node(ins[k].producer).name;
      if (!ins[k].is_control() && ins[k].port == 0)
        if (auto it = split_of_tensor_.find(producer); it != split_of_tensor_.end()) {
          c.inputs[k] = TensorId{result_.splits[it->second].split_node, t}.to_string();
          continue;
        }
      if (in_subgraph_[ins[k].producer]) c.inputs[k] = TensorId{tower_name(t, producer), ins[k].port}.to_string();
    }
    // Colocation with a copied node means the same tower's copy.
    if (auto it = c.attrs.find("_class"); it != c.attrs.end())
      if (const AttrList* list = it->second.get_if<AttrList>()) {
        AttrList remapped = *list;
        for (std::string& s : remapped.s)
          if (s.starts_with("loc:@"))
            if (int target = in_.index_of(s.substr(5)); target >= 0 && in_subgraph_[target])
              s = "loc:@" + tower_name(t, s.substr(5));
        it->second = AttrValue(std::move(remapped));
      }
    return c;
  }

  DType output_dtype(int i) const {
    const auto& outs = shapes_.outputs[i];
    return outs.empty() ? DType::Invalid : dtype_base(outs[0].dtype);
  }

  void emit_split(size_t s) {
    ReplicaSplit& sp = result_.splits[s];
    const std::string& host = opt_.host_device;
    const std::string dim = names_.unique(sp.split_node + "/split_dim");
    out_.add_node(make_const(dim, host, Tensor::scalar<int32_t>(0)));
    AttrMap attrs{{"num_split", AttrValue(n_)}};
    if (split_dtypes_[s] != DType::Invalid) attrs["T"] = split_dtypes_[s];
    const bool uneven = sp.batch >= 0 && sp.batch % n_ != 0;
    if (!uneven) {
      out_.add_node(make_node(sp.split_node, "Split", {dim, sp.tensor}, host, std::move(attrs)));
      return;
    }
    const std::string sizes = names_.unique(sp.split_node + "/size_splits");
    out_.add_node(make_const(sizes, host, Tensor::from_vector<int64_t>(Shape{static_cast<int64_t>(n_)}, sp.sizes)));
    attrs["Tlen"] = DType::Int64;
    out_.add_node(make_node(sp.split_node, "SplitV", {sp.tensor, sizes, dim}, host, std::move(attrs)));
  }

  std::vector<std::string> tower_copies(int i) const {
    std::vector<std::string> names;
    for (int t = 0; t < n_; ++t) names.push_back(tower_name(t, node(i).name));
    return names;
  }

  // ConcatV2 of the towers along axis 0, under the original name.
  void emit_merge(int i) {
    const std::string& name = node(i).name;
    const std::string axis = names_.unique(name + "/axis");
    out_.add_node(make_const(axis, opt_.host_device, Tensor::scalar<int32_t>(0)));
    std::vector<std::string> inputs = tower_copies(i);
    inputs.push_back(axis);
    AttrMap attrs{{"N", AttrValue(n_)}, {"Tidx", DType::Int32}};
    if (output_dtype(i) != DType::Invalid) attrs["T"] = output_dtype(i);
    out_.add_node(make_node(name, "ConcatV2", std::move(inputs), opt_.host_device, std::move(attrs)));
    result_.merges.push_back(name);
  }

  // Sum of `inputs` times 1/N, the last node named `name`.
  void emit_average(const std::string& name, std::vector<std::string> inputs, DType dtype, const std::string& device) {
    if (dtype == DType::Invalid) dtype = DType::Float;
    const std::string sum = names_.unique(name + "/sum"), scale = names_.unique(name + "/scale");
    const int n = static_cast<int>(inputs.size());
    out_.add_node(make_node(sum, "AddN", std::move(inputs), device, {{"N", AttrValue(n)}, {"T", dtype}}));
    out_.add_node(make_const(scale, device, reciprocal(n, dtype)));
    out_.add_node(make_node(name, "Mul", {sum, scale}, device, {{"T", dtype}}));
  }

  void emit_graph() {
    copy_graph_metadata(in_, out_);
    for (int i = 0; i < static_cast<int>(count()); ++i) {
      if (old_training_[i]) continue;
      if (!in_subgraph_[i]) {
        out_.add_node(node(i));
        if (auto it = splits_after_.find(i); it != splits_after_.end())
          for (size_t s : it->second) emit_split(s);
        continue;
      }
      for (int t = 0; t < n_; ++t) {
        Node copy = copy_for_tower(i, t);
        result_.map.add(node(i).name, copy.name);
        out_.add_node(std::move(copy));
      }
      if (i == loss_) {
        result_.tower_losses = tower_copies(i);
        emit_average(node(i).name, result_.tower_losses, output_dtype(i), opt_.host_device);
        result_.loss = node(i).name;
      } else if (is_end_[i]) {
        emit_merge(i);
      } else if (needed_[i]) {
        out_.add_node(node(i));
      }
    }
  }

  // The Variables the loss reads through data edges, split inputs excluded
  // (a split Variable is data, not a parameter).
  std::vector<int> trainable_variables() const {
    const std::vector<char> seen = flood(count(), {loss_}, [&](int i, auto visit) {
      for (const InputEdge& in : inputs_of(i))
        if (!in.is_control()) visit(in.producer);
    });
    std::vector<int> vars;
    for (int i = 0; i < static_cast<int>(count()); ++i)
      if (seen[i] && is_variable(node(i)) &&
          std::find(opt_.split_inputs.begin(), opt_.split_inputs.end(), node(i).name) == opt_.split_inputs.end())
        vars.push_back(i);
    return vars;
  }

  // One gradient set per tower, averaged per variable on the variable's
  // device, then a single optimizer applies the averages.
  void build_training() {
    const std::vector<int> vars = trainable_variables();
    std::vector<std::string> var_names;
    for (int v : vars) var_names.push_back(node(v).name);
    std::vector<std::vector<std::string>> grads;  // [tower][variable]
    for (int t = 0; t < n_; ++t) {
      GradientOptions g;
      g.name_scope = "tower_" + std::to_string(t) + "/gradients";
      grads.push_back(add_gradients(out_, {result_.tower_losses[t]}, var_names, registry_, g));
    }
    names_ = NameSet(out_);  // the gradient nodes took names too
    std::vector<std::pair<std::string, std::string>> var_grads;
    for (size_t v = 0; v < vars.size(); ++v) {
      std::vector<std::string> tower_grads;
      for (int t = 0; t < n_; ++t)
        if (!grads[t][v].empty()) tower_grads.push_back(grads[t][v]);
      if (tower_grads.empty()) continue;
      const Node& var = node(vars[v]);
      const std::string avg = names_.unique("average_gradients/" + var.name);
      emit_average(avg, std::move(tower_grads), var.attr_type("dtype", DType::Float), var.device);
      var_grads.emplace_back(var.name, avg);
      result_.trainable.push_back(var.name);
    }
    if (var_grads.empty()) throw Error("replicate: loss '" + opt_.loss + "' depends on no trainable variable");
    result_.train_op = add_optimizer(out_, var_grads, opt_.optimizer, "train");
  }

  const Graph& in_;
  const ReplicateOptions& opt_;
  const OpRegistry& registry_;
  const int n_;
  std::vector<std::string> devices_;
  ShapeInferenceResult shapes_;
  std::vector<char> old_training_, is_end_, in_subgraph_, needed_;
  std::unordered_map<std::string, size_t> split_of_tensor_;  // split tensor's node -> index in result_.splits
  std::unordered_map<int, std::vector<size_t>> splits_after_;  // node index -> splits emitted right after it
  std::vector<DType> split_dtypes_;
  int loss_ = -1;
  NameSet names_;
  Graph out_;
  ReplicationResult result_;
};

}  // namespace

ReplicationResult replicate_in_graph(const Graph& graph, const ReplicateOptions& options, const OpRegistry& registry) {
  return Replicator(graph, options, registry).run();
}

}  // namespace flowlens
