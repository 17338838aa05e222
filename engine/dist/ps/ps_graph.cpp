#include "dist/ps/ps_graph.h"

#include "exec/local_rendezvous.h"

#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "io/graph_io.h"

namespace flowlens::dist {

PsGraph::PsGraph(const std::string& partition, const std::string& label, const SessionOptions& options)
    : bytes_(partition), label_(label) {
  Graph graph = parse_graph_binary(partition, "the partition registered with " + label);
  const PartitionExchange ex = describe_exchange(graph);
  for (const TransferEnd& s : ex.sends) {
    if (s.after_receiving) continue;  // to a worker op that only groups the step's updates
    pull_keys_.push_back(s.key);
    pull_tensor_[s.key] = s.tensor;
    const auto inputs = graph.edges().inputs(graph.index_of(s.node));
    if (!inputs.empty() && inputs[0].resolved() && !inputs[0].is_control() && inputs[0].port == 0)
      if (const int v = variable_read_by(graph, inputs[0].producer); v >= 0)
        pull_variable_[s.key] = graph.nodes()[static_cast<std::size_t>(v)].name;
  }
  for (const TransferEnd& r : ex.recvs) {
    if (push_index_.count(r.key)) throw Error("the partition registered with " + label + " receives '" + r.key + "' twice");
    push_index_[r.key] = push_ends_.size();
    push_ends_.push_back(r);
  }
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.nodes()[i];
    if (is_variable_op(n.op)) variables_.push_back(n.name);
    if (!ex.read_phase[i] && !is_send_recv(n)) update_targets_.push_back(n.name);
    if (graph.edges().consumers(static_cast<int>(i)).empty()) step_targets_.push_back(n.name);
  }
  if (variables_.empty()) throw Error("the partition registered with " + label + " holds no variable");
  // The partition as partitioned, _Send and _Recv included: a distributed
  // step runs it whole; the phases run parts of it, the update phase with
  // the pushed tensors waiting in a rendezvous of its own.
  session_ = std::make_unique<Session>(std::move(graph), options);
}

std::size_t PsGraph::node_count() const { return session_->graph().size(); }

Variable* PsGraph::storage(const std::string& variable) {
  if (std::find(variables_.begin(), variables_.end(), variable) == variables_.end())
    throw Error("no variable '" + variable + "' on " + label_);
  Variable* v = session_->variable_of_node(variable);
  if (!v) throw Error("no storage for variable '" + variable + "' on " + label_);
  return v;
}

Tensor PsGraph::value(const std::string& variable) {
  Variable* v = storage(variable);
  std::lock_guard lock(v->mu);
  return v->value;
}

std::vector<std::string> PsGraph::uninitialized() {
  std::vector<std::string> out;
  for (const std::string& name : variables_)
    if (!value(name).valid()) out.push_back(name);
  return out;
}

bool PsGraph::initialize(const std::string& variable, const Tensor& value) {
  Variable* v = storage(variable);
  const Node& node = *session_->graph().find(variable);
  const DType want = node.attr_type("dtype", DType::Invalid);
  if (want != DType::Invalid && value.dtype() != want)
    throw Error("variable '" + variable + "' on " + label_ + " is " + dtype_name(want) + ", the initial value " +
                dtype_name(value.dtype()));
  std::lock_guard lock(v->mu);
  if (v->value.valid()) return false;
  v->value = value;
  return true;
}

std::string PsGraph::check_pull(const std::vector<std::string>& keys) const {
  // No keys: a ps whose partition sends the worker nothing; the PULL is
  // still the sync barrier and the readiness check.
  for (const std::string& k : keys)
    if (!pull_tensor_.count(k)) return "'" + k + "' is not a tensor " + label_ + "'s partition sends before the update";
  return {};
}

std::vector<NamedTensor> PsGraph::read(const std::vector<std::string>& keys) {
  std::vector<NamedTensor> out(keys.size());
  std::vector<std::string> fetches;
  std::vector<std::size_t> fetched_at;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i].name = keys[i];
    if (auto direct = pull_variable_.find(keys[i]); direct != pull_variable_.end()) {
      // A variable's value needs no run (a run costs tens of microseconds,
      // as much as the round trip of a small pull). Copied: the update
      // phase changes it in place.
      Variable* v = storage(direct->second);
      std::lock_guard lock(v->mu);
      if (!v->value.valid()) throw Error("variable '" + direct->second + "' on " + label_ + " is not initialized");
      out[i].value = v->value.clone();
      continue;
    }
    fetches.push_back(pull_tensor_.at(keys[i]));
    fetched_at.push_back(i);
  }
  if (fetches.empty()) return out;
  std::vector<Tensor> values = session_->run({}, fetches);
  for (std::size_t k = 0; k < values.size(); ++k) {
    bool shared = false;
    for (const std::string& name : variables_) {
      Variable* v = session_->variable_of_node(name);
      std::lock_guard lock(v->mu);
      shared = shared || (v->value.valid() && v->value.byte_size() > 0 && v->value.raw_data() == values[k].raw_data());
    }
    out[fetched_at[k]].value = shared ? values[k].clone() : std::move(values[k]);
  }
  return out;
}

std::string PsGraph::check_push(const std::vector<std::string>& names, const std::vector<DType>& dtypes) const {
  if (names.size() != push_ends_.size())
    return "PUSH carries " + std::to_string(names.size()) + " tensor(s); " + label_ + "'s partition receives " +
           std::to_string(push_ends_.size()) + " per step";
  std::vector<bool> seen(push_ends_.size(), false);
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto it = push_index_.find(names[i]);
    if (it == push_index_.end()) return "'" + names[i] + "' is not a tensor " + label_ + "'s partition receives";
    if (seen[it->second]) return "PUSH carries '" + names[i] + "' twice";
    seen[it->second] = true;
    const DType want = push_ends_[it->second].dtype;
    if (dtypes[i] != want)
      return "'" + names[i] + "' is " + dtype_name(dtypes[i]) + "; " + label_ + "'s partition receives " + dtype_name(want);
  }
  return {};
}

void PsGraph::update(const std::vector<NamedTensor>& pushed) {
  if (update_targets_.empty()) return;
  // Every _Recv of the update phase finds its tensor already there, so a
  // control edge from another task is met like a data edge.
  LocalRendezvous pushes;
  constexpr int64_t kUpdateStep = 1;
  for (const NamedTensor& t : pushed) pushes.send(t.name, kUpdateStep, t.value);
  session_->run({}, {}, update_targets_, StepRendezvous{&pushes, kUpdateStep});
}

void PsGraph::run_step(Rendezvous& rendezvous, int64_t step_id) {
  session_->run({}, {}, step_targets_, StepRendezvous{&rendezvous, step_id});
}

}  // namespace flowlens::dist
