#include "exec/execution_plan.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "graph/control_flow_frames.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "ops/framework/rendezvous.h"

namespace flowlens {
namespace {

constexpr std::size_t kMaxListedProblems = 100;

// A tensor as (node index, output port): feeds are matched against graph
// edges without rebuilding "node:port" strings.
struct TensorKey {
  int node = -1;
  int port = 0;
  bool operator==(const TensorKey&) const = default;
};
struct TensorKeyHash {
  std::size_t operator()(const TensorKey& k) const noexcept {
    return std::hash<std::uint64_t>{}((static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.node)) << 32) |
                                      static_cast<std::uint32_t>(k.port));
  }
};

// A node's data input in the plan: the producer's plan index and the tensor.
struct PlanInput {
  int src_plan = -1;
  TensorKey tensor;
};

class PlanBuilder {
 public:
  PlanBuilder(const Graph& g, const Placement& p, DeviceSet& d, const OpRegistry& r, const VariableResolver& v)
      : graph_(g), placement_(p), devices_(d), registry_(r), variables_(v) {}

  ExecutionPlan build(const PlanRequest& req) {
    resolve_request(req);
    if (problem_count_ > 0) fail("cannot run");
    prune();
    check_kernels();
    if (problem_count_ > 0) fail("cannot run: these nodes have no kernel to run on");
    assign_slots(req);
    wire_inputs();
    if (problem_count_ > 0) fail("cannot run");
    build_control_flow(req);
    if (problem_count_ > 0) fail("cannot run");
    return std::move(plan_);
  }

 private:
  [[noreturn]] void fail(const std::string& headline) {
    std::string msg = headline + ":";
    for (const auto& p : problems_) msg += "\n  " + p;
    if (problem_count_ > problems_.size())
      msg += "\n  ... and " + std::to_string(problem_count_ - problems_.size()) + " more";
    throw Error(msg);
  }
  // A garbage graph can give every one of a million nodes a problem; the
  // message lists the first kMaxListedProblems and counts the rest.
  void problem(std::string what) {
    if (problem_count_++ < kMaxListedProblems) problems_.push_back(std::move(what));
  }

  // The tensor a feed or fetch names, recording a problem (and returning a
  // key with node -1) if there is none.
  TensorKey resolve_tensor(const std::string& what, const std::string& text) {
    auto id = TensorId::parse(text);
    if (!id || id->is_control()) {
      problem(what + " '" + text + "' is not a tensor name (expected 'node' or 'node:port')");
      return {};
    }
    int idx = graph_.index_of(id->node);
    if (idx < 0) {
      problem(what + " '" + text + "': no node named '" + id->node + "' in the graph");
      return {};
    }
    const Node& n = graph_.nodes()[static_cast<size_t>(idx)];
    if (const OpDef* def = registry_.find(n.op)) {
      int outputs = def->outputs_for(n);
      if (id->index >= outputs) {
        problem(what + " '" + text + "': " + n.op + " node '" + n.name + "' has " +
                            std::to_string(outputs) + " output(s)" +
                            (outputs == 0 ? "; run it as a target instead" : ""));
        return {};
      }
    }
    return {idx, id->index};
  }

  void resolve_request(const PlanRequest& req) {
    for (const auto& f : req.feeds) {
      feed_keys_.push_back(resolve_tensor("feed", f));
      if (feed_keys_.back().node >= 0) fed_[feed_keys_.back()] = -1;
    }
    for (const auto& f : req.fetches) {
      fetch_keys_.push_back(resolve_tensor("fetch", f));
      const TensorKey& key = fetch_keys_.back();
      if (key.node >= 0 && !fed_.count(key)) wanted_.push_back(key.node);
    }
    for (const auto& t : req.targets) {
      int idx = graph_.index_of(t);
      if (idx < 0) problem("target '" + t + "': no node named '" + t + "' in the graph");
      else wanted_.push_back(idx);
    }
    if (req.fetches.empty() && req.targets.empty()) problem("nothing to fetch and no target given");
  }

  // Backwards reachability from fetches and targets; a fed tensor cuts the
  // edge to its producer, as in TensorFlow.
  void prune() {
    const auto& nodes = graph_.nodes();
    const EdgeIndex& edges = graph_.edges();
    in_plan_.assign(nodes.size(), -1);
    std::vector<int> stack = wanted_;
    std::vector<char> seen(nodes.size(), 0);
    for (int i : stack) seen[static_cast<size_t>(i)] = 1;
    std::vector<int> order;
    while (!stack.empty()) {
      int i = stack.back();
      stack.pop_back();
      order.push_back(i);
      for (const InputEdge& e : edges.inputs(i)) {
        if (!e.resolved()) continue;  // validation reported it
        if (!e.is_control() && fed_.count({e.producer, e.port})) continue;
        const int src = e.producer;
        if (!seen[static_cast<size_t>(src)]) {
          seen[static_cast<size_t>(src)] = 1;
          stack.push_back(src);
        }
      }
    }
    // Keep file order: deterministic plans and readable traces.
    plan_.nodes.reserve(static_cast<std::size_t>(std::count(seen.begin(), seen.end(), 1)));
    for (size_t i = 0; i < nodes.size(); ++i)
      if (seen[i]) {
        in_plan_[i] = static_cast<int>(plan_.nodes.size());
        PlanNode pn;
        pn.graph_index = static_cast<int>(i);
        pn.node = &nodes[i];
        plan_.nodes.push_back(pn);
      }
  }

  void check_kernels() {
    for (PlanNode& pn : plan_.nodes) {
      const Node& n = *pn.node;
      pn.def = registry_.find(n.op);
      if (!pn.def) {
        problem("'" + n.name + "' (" + n.op + "): unknown op");
        continue;
      }
      int d = placement_.device_of[static_cast<size_t>(pn.graph_index)];
      if (d < 0) {
        problem("'" + n.name + "' (" + n.op + "): no kernel for any available device");
        continue;
      }
      pn.device = &devices_.at(d);
      pn.kernel = pn.def->kernel_for(pn.device->type(), n);
      if (!pn.kernel)
        problem("'" + n.name + "' (" + n.op + "): no " + pn.device->type() + " kernel");
      pn.num_outputs = pn.def->outputs_for(n);
      if (is_recv(n)) {
        pn.receives = true;
        pn.receive_key = rendezvous_key(n);
        pn.receive_dtype = dtype_base(n.attr_type("tensor_type", DType::Invalid));
      }
      if (pn.def->keeps_state) pn.own_variable = variables_(n);
      if (is_constant(n) && pn.device->memory()) pn.device_constant = std::make_shared<DeviceConstant>();
      auto& async = plan_.async_devices;
      if (pn.device->memory() && std::find(async.begin(), async.end(), pn.device) == async.end())
        async.push_back(pn.device);
    }
  }

  void assign_slots(const PlanRequest& req) {
    int slot = 0;
    for (PlanNode& pn : plan_.nodes) {
      pn.first_slot = slot;
      slot += pn.num_outputs;
    }
    for (const TensorKey& key : feed_keys_) {
      int& s = fed_[key];
      if (s < 0) s = slot++;
      plan_.feed_slots.push_back(s);
    }
    plan_.num_slots = slot;
    for (size_t k = 0; k < fetch_keys_.size(); ++k) {
      const TensorKey& key = fetch_keys_[k];
      auto fed = fed_.find(key);
      int s = fed != fed_.end()
                  ? fed->second
                  : plan_.nodes[static_cast<size_t>(in_plan_[static_cast<size_t>(key.node)])].first_slot + key.port;
      plan_.fetch_slots.push_back(s);
      plan_.fetch_names.push_back(req.fetches[k]);
    }
  }

  // The variable behind output `port` of a plan node when it is a ref output:
  // a variable's own storage, or (Assign, Apply*: output_ref forwards input 0)
  // the variable of its first ref input.
  Variable* ref_output_variable(const PlanNode& pn, int port) const {
    if (!pn.def || !pn.def->is_ref_output(port)) return nullptr;
    if (pn.own_variable) return pn.own_variable;
    for (Variable* v : pn.input_refs)
      if (v) return v;
    return nullptr;
  }

  void wire_inputs() {
    // Ref inputs first, in dependency order, so a ref output of an Assign
    // (its input 0's variable) is known before its consumers are wired.
    const EdgeIndex& edges = graph_.edges();
    std::vector<std::vector<PlanInput>> data_inputs(plan_.nodes.size());
    for (size_t p = 0; p < plan_.nodes.size(); ++p) {
      PlanNode& pn = plan_.nodes[p];
      for (const InputEdge& e : edges.inputs(pn.graph_index)) {
        if (!e.resolved()) continue;
        const int src_plan = in_plan_[static_cast<size_t>(e.producer)];
        if (e.is_control()) {
          plan_.nodes[static_cast<size_t>(src_plan)].consumers.push_back(static_cast<int>(p));
          ++pn.initial_pending;
          continue;
        }
        data_inputs[p].push_back({src_plan, {e.producer, e.port}});
      }
    }
    std::vector<char> refs_done(plan_.nodes.size(), 0);
    for (size_t p = 0; p < plan_.nodes.size(); ++p) wire_refs(static_cast<int>(p), data_inputs, refs_done);
    for (size_t p = 0; p < plan_.nodes.size(); ++p) {
      PlanNode& pn = plan_.nodes[p];
      for (size_t i = 0; i < data_inputs[p].size(); ++i) {
        const PlanInput& in = data_inputs[p][i];
        auto fed = fed_.find(in.tensor);
        Variable* deref = nullptr;
        if (fed != fed_.end()) {
          pn.input_slots.push_back(fed->second);
        } else {
          PlanNode& producer = plan_.nodes[static_cast<size_t>(in.src_plan)];
          pn.input_slots.push_back(producer.first_slot + in.tensor.port);
          producer.consumers.push_back(static_cast<int>(p));
          ++pn.initial_pending;
          if (!pn.input_refs[i]) deref = ref_output_variable(producer, in.tensor.port);
        }
        pn.input_derefs.push_back(deref);
      }
    }
    for (size_t p = 0; p < plan_.nodes.size(); ++p)
      if (plan_.nodes[p].initial_pending == 0) plan_.roots.push_back(static_cast<int>(p));
  }

  // TensorFlow's ImmutableExecutorState for plans with control flow: the
  // frame every node runs in, pending and input-slot indices per frame, and
  // every edge with its ports (the flat path's consumers lists lose them).
  void build_control_flow(const PlanRequest& req) {
    bool any = false;
    for (const PlanNode& pn : plan_.nodes) any |= is_control_flow_op(pn.node->op);
    if (!any) return;
    using CF = ControlFlowPlan;
    const ControlFlowFrames frames = compute_frames(graph_);
    for (const std::string& p : frames.problems) problem(p);
    if (problem_count_ > 0) return;
    auto cf = std::make_shared<CF>();
    cf->frames.resize(frames.frames.size());
    for (size_t f = 0; f < frames.frames.size(); ++f) {
      cf->frames[f].name = frames.frames[f].name;
      cf->frames[f].parent = frames.frames[f].parent;
      cf->frames[f].parallel_iterations = f == 0 ? 1 : std::max(1, frames.frames[f].parallel_iterations);
    }
    cf->nodes.resize(plan_.nodes.size());
    // The frame a node's outputs live in: an Exit's go to the parent frame.
    std::vector<int> output_frame(plan_.nodes.size());
    for (size_t p = 0; p < plan_.nodes.size(); ++p) {
      const PlanNode& pn = plan_.nodes[p];
      CF::NodeInfo& info = cf->nodes[p];
      const std::string& op = pn.node->op;
      const int own = frames.frame_of[static_cast<size_t>(pn.graph_index)];
      switch (node_class(op)) {
        case NodeClass::Enter: info.kind = CF::Kind::Enter; break;
        case NodeClass::Exit: info.kind = CF::Kind::Exit; break;
        case NodeClass::NextIteration: info.kind = CF::Kind::NextIteration; break;
        case NodeClass::Merge: info.kind = CF::Kind::Merge; break;
        case NodeClass::Switch: info.kind = CF::Kind::Switch; break;
        case NodeClass::ControlTrigger: info.kind = CF::Kind::ControlTrigger; break;
        default: info.kind = CF::Kind::Normal;
      }
      info.frame = own;
      output_frame[p] = own;
      if (info.kind == CF::Kind::Enter) {
        info.enter_frame = own;
        info.frame = own > 0 ? frames.frames[static_cast<size_t>(own)].parent : 0;
        info.is_constant = pn.node->attr_bool("is_constant", false);
        if (own > 0) ++cf->frames[static_cast<size_t>(own)].num_enters;
      } else if (info.kind == CF::Kind::Exit && own > 0) {
        output_frame[p] = frames.frames[static_cast<size_t>(own)].parent;
      }
      // A rendezvous key has no frame or iteration part (rendezvous.h): one
      // inside a loop would meet every iteration's tensor under one key.
      if (own != 0 && is_send_recv(*pn.node))
        problem("'" + pn.node->name + "' (" + op + "): a transfer between tasks inside the while loop frame '" +
                cf->frames[static_cast<size_t>(own)].name +
                "' is not supported (rendezvous keys have no frame or iteration); keep loops within one task");
      CF::Frame& frame = cf->frames[static_cast<size_t>(info.frame)];
      info.local = frame.num_nodes++;
      info.num_data_inputs = static_cast<int>(pn.input_slots.size());
      info.input_base = frame.num_inputs;
      frame.num_inputs += info.num_data_inputs;
    }
    // Edges, in the graph's input order (the same order wire_inputs read).
    const EdgeIndex& edges = graph_.edges();
    std::unordered_map<int, int> feed_of_slot;
    for (size_t k = 0; k < plan_.feed_slots.size(); ++k) feed_of_slot.emplace(plan_.feed_slots[k], static_cast<int>(k));
    for (size_t p = 0; p < plan_.nodes.size(); ++p) {
      const PlanNode& pn = plan_.nodes[p];
      CF::NodeInfo& info = cf->nodes[p];
      int data = 0, control = 0;
      for (const InputEdge& e : edges.inputs(pn.graph_index)) {
        if (!e.resolved()) continue;
        const int src_plan = in_plan_[static_cast<size_t>(e.producer)];
        if (e.is_control()) {
          cf->nodes[static_cast<size_t>(src_plan)].out.push_back({static_cast<int>(p), -1, -1});
          ++control;
          continue;
        }
        const int input = data++;
        if (auto fed = fed_.find({e.producer, e.port}); fed != fed_.end()) {
          if (info.frame != 0)
            problem("feed '" + TensorId{graph_.nodes()[static_cast<size_t>(e.producer)].name, e.port}.to_string() +
                    "': its consumer '" + pn.node->name + "' is inside the while loop frame '" +
                    cf->frames[static_cast<size_t>(info.frame)].name + "'; only tensors outside loops can be fed");
          cf->fed_inputs.push_back({feed_of_slot.at(fed->second), static_cast<int>(p), input});
          continue;
        }
        cf->nodes[static_cast<size_t>(src_plan)].out.push_back({static_cast<int>(p), e.port, input});
      }
      info.initial_pending = info.kind == CF::Kind::Merge ? 1 + 2 * control
                                                          : control + data;
    }
    for (size_t k = 0; k < fetch_keys_.size(); ++k) {
      const TensorKey& key = fetch_keys_[k];
      if (auto fed = fed_.find(key); fed != fed_.end()) {
        cf->fetch_feeds.push_back(feed_of_slot.at(fed->second));
        continue;
      }
      cf->fetch_feeds.push_back(-1);
      const int p = in_plan_[static_cast<size_t>(key.node)];
      const int f = output_frame[static_cast<size_t>(p)];
      if (f != 0)
        problem("fetch '" + req.fetches[k] + "': cannot fetch a tensor inside a while loop frame ('" +
                cf->frames[static_cast<size_t>(f)].name + "'); fetch the loop's Exit output instead");
      cf->nodes[static_cast<size_t>(p)].fetches.emplace_back(static_cast<int>(k), key.port);
    }
    plan_.control_flow = std::move(cf);
  }

  // Binds node p's ref inputs to variables, its producers' first (a chain
  // Variable -> Assign -> Assign is resolved from the variable outwards).
  void wire_refs(int p, const std::vector<std::vector<PlanInput>>& data_inputs, std::vector<char>& done) {
    if (done[static_cast<size_t>(p)]) return;
    done[static_cast<size_t>(p)] = 1;
    PlanNode& pn = plan_.nodes[static_cast<size_t>(p)];
    const auto& ins = data_inputs[static_cast<size_t>(p)];
    pn.input_refs.assign(ins.size(), nullptr);
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!pn.def || !pn.def->is_ref_input(static_cast<int>(i))) continue;
      const PlanInput& in = ins[i];
      const Node& src_node = *plan_.nodes[static_cast<size_t>(in.src_plan)].node;
      const bool fed = fed_.count(in.tensor) > 0;
      if (!fed) wire_refs(in.src_plan, data_inputs, done);
      Variable* v = fed ? nullptr : ref_output_variable(plan_.nodes[static_cast<size_t>(in.src_plan)], in.tensor.port);
      if (!v)
        problem("'" + pn.node->name + "' (" + pn.node->op + "): input " + std::to_string(i) +
                            " must be a variable, but '" + TensorId{src_node.name, in.tensor.port}.to_string() +
                            "' is " + src_node.op +
                            (fed ? " (fed)" : ""));
      pn.input_refs[i] = v;
    }
  }

  const Graph& graph_;
  const Placement& placement_;
  DeviceSet& devices_;
  const OpRegistry& registry_;
  const VariableResolver& variables_;
  ExecutionPlan plan_;
  std::vector<std::string> problems_;
  std::size_t problem_count_ = 0;  // listed or not
  std::unordered_map<TensorKey, int, TensorKeyHash> fed_;  // fed tensor -> slot (-1 until assigned)
  std::vector<TensorKey> feed_keys_;   // per request feed
  std::vector<TensorKey> fetch_keys_;  // per request fetch
  std::vector<int> wanted_;
  std::vector<int> in_plan_;  // graph index -> plan index, -1 if pruned
};

}  // namespace

ExecutionPlan build_plan(const Graph& graph, const Placement& placement, DeviceSet& devices,
                         const OpRegistry& registry, const VariableResolver& variables, const PlanRequest& request) {
  return PlanBuilder(graph, placement, devices, registry, variables).build(request);
}

}  // namespace flowlens
