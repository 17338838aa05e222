#include "exec/function_library.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <set>

#include "analysis/validate.h"
#include "exec/device_outputs.h"
#include "io/function_defs.h"
#include "graph/node_class.h"

namespace flowlens {
namespace {

std::string where(const std::string& function) { return "function '" + function + "'"; }

// The signature attrs of `f` as the call gives them, else their defaults.
AttrMap resolve_attrs(const FunctionDefinition& f, const AttrMap& given) {
  AttrMap out;
  for (const FunctionAttrDef& a : f.attrs) {
    auto it = given.find(a.name);
    if (it != given.end() && !it->second.is<AttrPlaceholder>()) {
      out.emplace(a.name, it->second);
    } else if (a.has_default) {
      out.emplace(a.name, a.default_value);
    } else {
      throw Error(where(f.name) + ": attr '" + a.name + "' (" + a.type + ") is not given by the call");
    }
  }
  return out;
}

// The dtypes of one signature arg with resolved attrs (TensorFlow's ArgNumType).
std::vector<DType> arg_types(const std::string& function, const FunctionArgDef& arg, const AttrMap& attrs) {
  auto attr = [&](const std::string& name) -> const AttrValue& {
    auto it = attrs.find(name);
    if (it == attrs.end())
      throw Error(where(function) + ": argument '" + arg.name + "' needs attr '" + name + "', which is not given");
    return it->second;
  };
  if (!arg.type_list_attr.empty()) {
    const AttrList* l = attr(arg.type_list_attr).get_if<AttrList>();
    if (!l) throw Error(where(function) + ": attr '" + arg.type_list_attr + "' must be list(type)");
    return l->type;
  }
  DType t = arg.type;
  if (!arg.type_attr.empty()) {
    const DType* v = attr(arg.type_attr).get_if<DType>();
    if (!v) throw Error(where(function) + ": attr '" + arg.type_attr + "' must be a type");
    t = *v;
  }
  if (t == DType::Invalid) throw Error(where(function) + ": argument '" + arg.name + "' has no type");
  int64_t n = 1;
  if (!arg.number_attr.empty()) {
    const int64_t* v = attr(arg.number_attr).get_if<int64_t>();
    if (!v || *v < 0 || *v > 100000)
      throw Error(where(function) + ": attr '" + arg.number_attr + "' must be an int from 0 to 100000");
    n = *v;
  }
  return std::vector<DType>(static_cast<size_t>(n), t);
}

bool is_single(const FunctionArgDef& a) { return a.number_attr.empty() && a.type_list_attr.empty(); }

// An attr value with every placeholder ("$T") replaced by the call's attr.
AttrValue substitute(const AttrValue& v, const AttrMap& attrs, const std::string& function, const Node& node) {
  if (const AttrPlaceholder* p = v.get_if<AttrPlaceholder>()) {
    auto it = attrs.find(p->name);
    if (it == attrs.end())
      throw Error(where(function) + ": node '" + node.name + "' (" + node.op + ") uses attr placeholder '" + p->name +
                  "', which the function's attrs do not give");
    return it->second;
  }
  if (const auto* f = v.get_if<std::shared_ptr<FuncRef>>(); f && *f) {
    FuncRef r = **f;
    for (auto& [k, inner] : r.attrs) inner = substitute(inner, attrs, function, node);
    return AttrValue(std::move(r));
  }
  if (const AttrList* l = v.get_if<AttrList>(); l && !l->func.empty()) {
    AttrList copy = *l;
    for (FuncRef& r : copy.func)
      for (auto& [k, inner] : r.attrs) inner = substitute(inner, attrs, function, node);
    return AttrValue(std::move(copy));
  }
  return v;
}

// How many tensors an output arg of a registered op has for this node.
int64_t op_arg_size(const OpDef& def, const ArgDef& arg, const Node& node) {
  if (!arg.number_attr.empty()) {
    const AttrValue* v = def.attr_or_default(node, arg.number_attr);
    const int64_t* n = v ? v->get_if<int64_t>() : nullptr;
    if (!n) throw Error("node '" + node.name + "' (" + node.op + "): attr '" + arg.number_attr + "' is missing");
    return *n;
  }
  if (!arg.type_list_attr.empty()) {
    const AttrValue* v = def.attr_or_default(node, arg.type_list_attr);
    const AttrList* l = v ? v->get_if<AttrList>() : nullptr;
    if (!l) throw Error("node '" + node.name + "' (" + node.op + "): attr '" + arg.type_list_attr + "' is missing");
    return static_cast<int64_t>(l->type.size());
  }
  return 1;
}

// Builds a FunctionDef's body graph (TensorFlow's InstantiateFunction).
class Instantiator {
 public:
  Instantiator(const FunctionDefinition& f, const FunctionLibraryDefinition& lib, const OpRegistry& registry,
               AttrMap attrs)
      : f_(f), lib_(lib), registry_(registry), attrs_(std::move(attrs)) {}

  void build(FunctionInstance& out) {
    add_args(out);
    std::vector<Node> body;
    body.reserve(f_.nodes.size());
    for (const Node& n : f_.nodes) {
      Node copy = n;
      for (auto& [k, v] : copy.attrs) v = substitute(v, attrs_, f_.name, n);
      index_outputs(copy);
      body.push_back(std::move(copy));
    }
    for (Node& n : body) {
      std::vector<std::string> data, control;
      for (const std::string& in : n.inputs) {
        if (!in.empty() && in[0] == '^') {
          const std::string target = in.substr(1);
          if (!node_names_.count(target) && !arg_nodes_.count(target))
            throw Error(where(f_.name) + ": node '" + n.name + "' control input '" + in +
                        "' names no node of the function");
          // An argument is there before any body node runs: a control
          // dependency on it orders nothing (and its _Arg node never runs).
          if (!arg_nodes_.count(target)) control.push_back(in);
          continue;
        }
        for (std::string& t : resolve(in, "node '" + n.name + "' input")) data.push_back(std::move(t));
      }
      n.inputs = std::move(data);
      n.inputs.insert(n.inputs.end(), control.begin(), control.end());
      out.graph.add_node(std::move(n));
    }
    add_retvals(out);
  }

  std::vector<std::string> targets;  // control_ret nodes

 private:
  void add_args(FunctionInstance& out) {
    int64_t index = 0;
    for (size_t i = 0; i < f_.inputs.size(); ++i) {
      const FunctionArgDef& a = f_.inputs[i];
      const std::vector<DType> types = arg_types(f_.name, a, attrs_);
      auto arg_attrs = f_.arg_attrs.find(static_cast<uint32_t>(i));
      std::vector<std::string> names;
      for (size_t j = 0; j < types.size(); ++j) {
        Node n;
        n.name = is_single(a) ? a.name : a.name + "_" + std::to_string(j);
        n.op = "_Arg";
        if (arg_attrs != f_.arg_attrs.end()) n.attrs = arg_attrs->second;
        n.attrs["T"] = AttrValue(types[j]);
        n.attrs["index"] = AttrValue(index++);
        names.push_back(n.name);
        out.arg_types.push_back(types[j]);
        out.arg_nodes.push_back(n.name);
        arg_nodes_[a.name] = names.front();
        out.graph.add_node(std::move(n));
      }
      if (!outputs_.emplace(a.name, names).second)
        throw Error(where(f_.name) + ": argument name '" + a.name + "' is used twice");
    }
  }

  // "node:out_arg" -> its tensors, for every output arg of every body node.
  void index_outputs(const Node& n) {
    if (n.name.empty()) throw Error(where(f_.name) + ": a node has no name");
    if (outputs_.count(n.name) || !node_names_.insert(n.name).second)
      throw Error(where(f_.name) + ": node name '" + n.name + "' is used twice");
    int port = 0;
    auto add = [&](const std::string& arg, int64_t size) {
      std::vector<std::string> tensors;
      for (int64_t k = 0; k < size; ++k) tensors.push_back(n.name + ":" + std::to_string(port++));
      outputs_[n.name + ":" + arg] = std::move(tensors);
    };
    if (const OpDef* def = registry_.find(n.op)) {
      for (const ArgDef& a : def->outputs) add(a.name, op_arg_size(*def, a, n));
      return;
    }
    auto callee = lib_.functions.find(n.op);
    if (callee == lib_.functions.end())
      throw Error(where(f_.name) + ": node '" + n.name + "' has unknown op '" + n.op + "'");
    AttrMap node_attrs = resolve_attrs(callee->second, n.attrs);
    for (const FunctionArgDef& a : callee->second.outputs)
      add(a.name, static_cast<int64_t>(arg_types(callee->second.name, a, node_attrs).size()));
  }

  // An input or ret name: "arg", "arg:i", "node:out_arg", "node:out_arg:i".
  std::vector<std::string> resolve(const std::string& name, const std::string& what) {
    if (auto it = outputs_.find(name); it != outputs_.end()) return it->second;
    const auto colon = name.rfind(':');
    if (colon != std::string::npos) {
      auto it = outputs_.find(name.substr(0, colon));
      const std::string index = name.substr(colon + 1);
      if (it != outputs_.end() && !index.empty() && index.size() < 9 &&
          index.find_first_not_of("0123456789") == std::string::npos) {
        const size_t i = std::stoul(index);
        if (i >= it->second.size())
          throw Error(where(f_.name) + ": " + what + " '" + name + "': '" + it->first + "' has " +
                      std::to_string(it->second.size()) + " tensor(s)");
        return {it->second[i]};
      }
    }
    throw Error(where(f_.name) + ": " + what + " '" + name +
                "' names no argument and no node output (expected 'arg' or 'node:out_arg:index')");
  }

  void add_retvals(FunctionInstance& out) {
    int64_t index = 0;
    for (const FunctionArgDef& a : f_.outputs) {
      const std::vector<DType> types = arg_types(f_.name, a, attrs_);
      auto ret = f_.ret.find(a.name);
      if (ret == f_.ret.end()) throw Error(where(f_.name) + ": output '" + a.name + "' has no entry in ret");
      std::vector<std::string> tensors = resolve(ret->second, "ret '" + a.name + "'");
      if (tensors.size() != types.size())
        throw Error(where(f_.name) + ": output '" + a.name + "' has " + std::to_string(types.size()) +
                    " tensor(s), ret '" + ret->second + "' gives " + std::to_string(tensors.size()));
      for (size_t j = 0; j < types.size(); ++j) {
        Node n;
        n.name = a.name + "_RetVal" + (is_single(a) ? "" : "_" + std::to_string(j));
        n.op = "_Retval";
        n.inputs = {tensors[j]};
        n.attrs["T"] = AttrValue(types[j]);
        n.attrs["index"] = AttrValue(index++);
        out.ret_types.push_back(types[j]);
        out.graph.add_node(std::move(n));
      }
    }
    for (const std::string& c : f_.control_outputs) {
      auto it = f_.control_ret.find(c);
      if (it == f_.control_ret.end())
        throw Error(where(f_.name) + ": control output '" + c + "' has no entry in control_ret");
      if (!node_names_.count(it->second))
        throw Error(where(f_.name) + ": control_ret '" + c + "' names no node ('" + it->second + "')");
      targets.push_back(it->second);
    }
  }

  const FunctionDefinition& f_;
  const FunctionLibraryDefinition& lib_;
  const OpRegistry& registry_;
  AttrMap attrs_;
  std::map<std::string, std::vector<std::string>> outputs_;
  std::map<std::string, std::string> arg_nodes_;  // signature arg -> its (first) _Arg node
  std::set<std::string> node_names_;
};

std::string attrs_key(const AttrMap& attrs) {
  std::string key;
  for (const auto& [k, v] : attrs) key += k + "=" + v.kind_name() + ":" + v.to_string() + ";";
  return key;
}

std::string chain(const std::vector<CallSite>& stack) {
  std::string s;
  for (const CallSite& c : stack) s += (s.empty() ? "" : " > ") + c.function;
  return s;
}

}  // namespace

void function_signature_types(const FunctionDefinition& f, const AttrMap& attrs, std::vector<DType>* inputs,
                              std::vector<DType>* outputs) {
  const AttrMap resolved = resolve_attrs(f, attrs);
  for (const FunctionArgDef& a : f.inputs)
    for (DType t : arg_types(f.name, a, resolved)) inputs->push_back(t);
  for (const FunctionArgDef& a : f.outputs)
    for (DType t : arg_types(f.name, a, resolved)) outputs->push_back(t);
}

bool has_function_call_nodes(const Graph& graph, const OpRegistry& registry) {
  if (graph.function_names.empty()) return false;
  const std::set<std::string> names(graph.function_names.begin(), graph.function_names.end());
  for (const Node& n : graph.nodes())
    if (names.count(n.op) && !registry.find(n.op)) return true;
  return false;
}

int lower_function_call_nodes(Graph& graph, const FunctionLibraryDefinition& library, const OpRegistry& registry) {
  int count = 0;
  for (Node& n : graph.mutable_nodes()) {
    if (registry.find(n.op)) continue;
    auto f = library.functions.find(n.op);
    if (f == library.functions.end()) continue;
    AttrMap call_attrs, kept;
    for (auto& [k, v] : n.attrs) (k.starts_with("_") ? kept : call_attrs).emplace(k, v);
    AttrList tin, tout;
    try {
      function_signature_types(f->second, call_attrs, &tin.type, &tout.type);
    } catch (const Error& e) {
      throw Error("node '" + n.name + "' calls " + e.what());
    }
    kept["f"] = AttrValue(FuncRef{n.op, std::move(call_attrs)});
    kept["Tin"] = AttrValue(std::move(tin));
    kept["Tout"] = AttrValue(std::move(tout));
    n.op = f->second.is_stateful ? "StatefulPartitionedCall" : "PartitionedCall";
    n.attrs = std::move(kept);
    ++count;
  }
  return count;
}

std::vector<std::pair<std::string, AttrMap>> called_functions(const Graph& graph, const Node& node) {
  std::vector<std::pair<std::string, AttrMap>> calls;
  auto add = [&calls](const FuncRef& f) {
    if (!f.name.empty()) calls.emplace_back(f.name, AttrMap(f.attrs.begin(), f.attrs.end()));
  };
  // A While's body first: that is what opening a loop means; then its cond.
  for (const char* attr : {"f", "then_branch", "else_branch", "body", "cond"})
    if (const AttrValue* v = node.find_attr(attr))
      if (const auto* f = v->get_if<std::shared_ptr<FuncRef>>(); f && *f) add(**f);
  if (const AttrValue* v = node.find_attr("branches"))
    if (const auto* list = v->get_if<AttrList>())
      for (const FuncRef& f : list->func) add(f);
  if (calls.empty() && std::find(graph.function_names.begin(), graph.function_names.end(), node.op) !=
                           graph.function_names.end())
    calls.emplace_back(node.op, node.attrs);
  return calls;
}

Graph function_body_graph(const Graph& graph, const std::string& name, const AttrMap& attrs) {
  const FunctionLibraryDefinition lib = decode_function_library(graph.library_bytes);
  auto f = lib.functions.find(name);
  if (f == lib.functions.end()) throw Error("unknown function '" + name + "': the graph's library does not define it");
  FunctionInstance inst;
  inst.function = name;
  inst.graph.function_names = graph.function_names;
  inst.graph.library_bytes = graph.library_bytes;
  inst.graph.versions = graph.versions;
  Instantiator builder(f->second, lib, OpRegistry::global(), resolve_attrs(f->second, attrs));
  builder.build(inst);
  inst.graph.reindex();
  return std::move(inst.graph);
}

FunctionLibraryRuntime::FunctionLibraryRuntime(const Graph& graph, DeviceSet& devices, const OpRegistry& registry,
                                               bool allow_soft_placement, BodyVariableResolver variables)
    : graph_(graph), devices_(devices), registry_(registry), allow_soft_placement_(allow_soft_placement),
      variables_(std::move(variables)) {}

bool FunctionLibraryRuntime::has_function(std::string_view name) const {
  for (const auto& f : graph_.function_names)
    if (f == name) return true;
  return false;
}

const FunctionLibraryDefinition& FunctionLibraryRuntime::library() const {
  std::call_once(decoded_, [this] {
    library_ = std::make_unique<FunctionLibraryDefinition>();
    try {
      *library_ = decode_function_library(graph_.library_bytes);
    } catch (const Error& e) {
      decode_error_ = e.what();
    }
  });
  if (!decode_error_.empty()) throw Error(decode_error_);
  return *library_;
}

const FunctionInstance& FunctionLibraryRuntime::instantiate(std::string_view name, const AttrMap& attrs) {
  const FunctionLibraryDefinition& lib = library();
  auto f = lib.functions.find(std::string(name));
  if (f == lib.functions.end())
    throw Error("unknown function '" + std::string(name) + "': the graph's library does not define it");
  AttrMap resolved = resolve_attrs(f->second, attrs);
  const std::string key = std::string(name) + "[" + attrs_key(resolved) + "]";
  std::lock_guard lock(mu_);
  if (auto it = instances_.find(key); it != instances_.end()) return *it->second;

  auto inst = std::make_unique<FunctionInstance>();
  inst->function = std::string(name);
  inst->key = key;
  inst->graph.function_names = graph_.function_names;
  Instantiator builder(f->second, lib, registry_, resolved);
  builder.build(*inst);
  lower_function_call_nodes(inst->graph, lib, registry_);
  inst->graph.reindex();
  std::string problems;
  for (const Diagnostic& d : validate_graph(inst->graph, registry_))
    if (d.is_error()) problems += "\n  " + d.to_string();
  if (!problems.empty()) throw Error(where(inst->function) + " has an invalid body:" + problems);
  inst->placement = place_graph(inst->graph, devices_, registry_, allow_soft_placement_);

  PlanRequest request;
  request.feeds = inst->arg_nodes;
  for (const Node& n : inst->graph.nodes()) {
    if (is_retval(n)) {
      request.fetches.push_back(n.inputs.at(0));
      request.targets.push_back(n.name);
    } else if (!is_arg(n)) {
      const OpDef* def = registry_.find(n.op);
      if (def && def->stateful) request.targets.push_back(n.name);
    }
  }
  for (const std::string& t : builder.targets) request.targets.push_back(t);
  if (!request.fetches.empty() || !request.targets.empty()) {
    const BodyVariableResolver& variables = variables_;
    const std::string scope = key;
    try {
      inst->plan = std::make_unique<ExecutionPlan>(build_plan(
          inst->graph, inst->placement, devices_, registry_,
          [&variables, &scope](const Node& n) { return variables(scope, n); }, request));
    } catch (const Error& e) {
      throw Error(where(inst->function) + ": " + e.what());
    }
  }
  return *instances_.emplace(key, std::move(inst)).first->second;
}

FunctionCallFrame::FunctionCallFrame(FunctionLibraryRuntime& runtime, std::span<ExecutionObserver* const> observers,
                                     int64_t run_id, const RunContext& run, std::vector<CallSite> call_stack)
    : runtime_(runtime), observers_(observers), run_id_(run_id), run_(run), stack_(std::move(call_stack)) {}

bool FunctionCallFrame::has_function(std::string_view name) const { return runtime_.has_function(name); }

std::vector<Tensor> FunctionCallFrame::call(const Node& caller, std::string_view function, const AttrMap& attrs,
                                            std::span<const Tensor> args) {
  if (static_cast<int>(stack_.size()) >= kMaxCallDepth)
    throw Error("calling function '" + std::string(function) + "': calls nest deeper than " +
                std::to_string(kMaxCallDepth) + " (unbounded recursion?): " + chain(stack_));
  const FunctionInstance& inst = runtime_.instantiate(function, attrs);
  if (args.size() != inst.arg_types.size())
    throw Error(where(inst.function) + " takes " + std::to_string(inst.arg_types.size()) + " argument(s), " +
                caller.name + " passes " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i].valid() || args[i].dtype() != inst.arg_types[i])
      throw Error(where(inst.function) + ": argument " + std::to_string(i) + " ('" + inst.arg_nodes[i] +
                  "') must be " + dtype_name(inst.arg_types[i]) + ", got " +
                  (args[i].valid() ? dtype_name(args[i].dtype()) : std::string("no value")));
  return run_body(inst, caller, args);
}

// One body run on this thread, in dependency order (a node runs when its
// inputs are there), with the executor's input handling: values read through
// ref edges, copied onto the node's device.
std::vector<Tensor> FunctionCallFrame::run_body(const FunctionInstance& inst, const Node& caller,
                                                std::span<const Tensor> args) {
  std::vector<CallSite> stack = stack_;
  stack.push_back({caller.name, inst.function});
  if (!inst.plan) return {};
  const ExecutionPlan& plan = *inst.plan;
  FunctionCallFrame child(runtime_, observers_, run_id_, run_, stack);
  RunContext run = run_;
  run.functions = &child;

  std::vector<Tensor> values(static_cast<size_t>(plan.num_slots));
  for (size_t i = 0; i < plan.feed_slots.size(); ++i) values[static_cast<size_t>(plan.feed_slots[i])] = args[i];
  std::vector<int> pending(plan.nodes.size());
  for (size_t i = 0; i < plan.nodes.size(); ++i) pending[i] = plan.nodes[i].initial_pending;
  std::deque<int> ready(plan.roots.begin(), plan.roots.end());
  std::vector<Tensor> inputs;
  size_t ran = 0;
  const bool observed = !observers_.empty();
  while (!ready.empty()) {
    const PlanNode& pn = plan.nodes[static_cast<size_t>(ready.front())];
    ready.pop_front();
    if (run_.is_cancelled()) throw Error(where(inst.function) + ": the run was cancelled");
    const std::string at = where(inst.function) + ": node '" + pn.node->name + "' (" + pn.node->op + ") on " +
                           pn.device->short_name() + ": ";
    Device& device = *pn.device;
    inputs.assign(pn.input_slots.size(), Tensor());
    for (size_t i = 0; i < pn.input_slots.size(); ++i) {
      Tensor value;
      if (Variable* v = pn.input_derefs[i] ? pn.input_derefs[i] : pn.input_refs[i]) {
        std::lock_guard<std::mutex> lock(v->mu);
        value = v->value;
        if (!value.valid() && pn.input_derefs[i])
          throw Error(at + "input " + std::to_string(i) + ": Attempting to use uninitialized value " + v->name);
      } else {
        value = values[static_cast<size_t>(pn.input_slots[i])];
      }
      if (!value.valid() && !pn.input_refs[i])
        throw Error(at + "input " + std::to_string(i) + " has no value");
      try {
        inputs[i] = value.valid() ? device.accept_input(value) : value;
      } catch (const std::exception& e) {
        throw Error(at + "input " + std::to_string(i) + ": " + e.what());
      }
    }
    std::span<Tensor> outputs(values.data() + pn.first_slot, static_cast<size_t>(pn.num_outputs));
    KernelContext ctx(*pn.node, inputs, pn.input_refs, outputs, pn.own_variable, &device, device.memory(), pn.def,
                      &device.log_sink(), &run);
    int64_t start = observed ? node_event_clock_ns() : 0;
    std::string failure;
    try {
      if (observed) {
        NodeEvent ev{*pn.node, pn.graph_index, device, start, 0, inputs, {}, 0, stack};
        for (auto* o : observers_) o->on_node_start(run_id_, ev);
        start = node_event_clock_ns();
      }
      // As in the executor: a body's Const on a device is uploaded once per
      // instance, not once per call.
      if (!reuse_device_constant(pn, outputs)) {
        pn.kernel(ctx);
        if (device.memory()) adopt_outputs(pn, device, outputs);
      }
      if (observed && device.memory()) device.synchronize();
    } catch (const std::exception& e) {
      failure = at + e.what();
    }
    if (observed) {
      NodeEvent ev{*pn.node, pn.graph_index, device, start, node_event_clock_ns(), inputs, {}, 0, stack};
      try {
        for (auto* o : observers_) o->on_node_end(run_id_, ev, outputs);
      } catch (const std::exception& e) {
        if (failure.empty()) failure = at + e.what();
      }
    }
    if (!failure.empty()) throw Error(failure);
    ++ran;
    for (int c : pn.consumers)
      if (--pending[static_cast<size_t>(c)] == 0) ready.push_back(c);
  }
  if (ran != plan.nodes.size())
    throw Error(where(inst.function) + ": every remaining body node waits on another (a cycle)");
  for (Device* d : plan.async_devices) d->synchronize();
  std::vector<Tensor> results;
  results.reserve(plan.fetch_slots.size());
  for (size_t i = 0; i < plan.fetch_slots.size(); ++i) {
    const Tensor& t = values[static_cast<size_t>(plan.fetch_slots[i])];
    if (!t.valid()) throw Error(where(inst.function) + ": return value " + std::to_string(i) + " has no value");
    results.push_back(t.to_host());
  }
  return results;
}

}  // namespace flowlens
