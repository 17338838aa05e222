#include "exec/session.h"

#include "exec/thread_budget.h"

#include <algorithm>
#include <optional>

#include "exec/executor.h"
#include "exec/function_body.h"
#include "graph/node_class.h"
#include "graph/variable_initializers.h"
#include "tensor/allocator.h"

namespace flowlens {
namespace {

// TensorFlow's ResourceMgr default container and ResourceHandle::ANONYMOUS_NAME.
constexpr const char* kDefaultContainer = "localhost";
constexpr const char* kAnonymousName = "cd2c89b7-88b7-44c8-ad83-06c2a9158347";

std::string container_of(const Node& var_handle) {
  std::string c = var_handle.attr_string("container", "");
  return c.empty() ? kDefaultContainer : c;
}

// A node whose state is a resource handle: VarHandleOp, or a resource _Arg.
bool makes_handle(const Node& node) { return is_resource_variable(node) || is_resource_arg(node); }

}  // namespace

namespace {

std::shared_ptr<const GraphAnalysis> analyse(Graph graph, const OpRegistry* registry) {
  graph.reindex();
  return std::make_shared<const GraphAnalysis>(std::make_shared<const Graph>(std::move(graph)), registry);
}

// Nodes whose op is a library function become the calls TensorFlow makes of
// them (exec/function_library.h), so the plan gives them the call kernel;
// node names and indices stay as they are.
std::shared_ptr<const GraphAnalysis> lower_calls(std::shared_ptr<const GraphAnalysis> analysis) {
  const OpRegistry& registry = analysis->registry();
  if (!has_function_call_nodes(analysis->graph(), registry)) return analysis;
  Graph graph = analysis->graph();
  lower_function_call_nodes(graph, decode_function_library(graph.library_bytes), registry);
  return std::make_shared<const GraphAnalysis>(std::make_shared<const Graph>(std::move(graph)), &registry);
}

}  // namespace

Session::Session(Graph graph, SessionOptions options)
    : Session(analyse(std::move(graph), options.registry), std::move(options)) {}

Session::Session(std::shared_ptr<const GraphAnalysis> analysis, SessionOptions options)
    : analysis_(lower_calls(std::move(analysis))), options_(std::move(options)),
      registry_(analysis_->registry()),
      devices_((limit_library_threads(),
                DeviceSet::local(LocalDeviceOptions{options_.inter_op_threads, options_.intra_op_threads,
                                                    options_.use_gpus, options_.virtual_gpus, options_.gpu_math}))) {
  if (options_.log_sink)
    for (int i = 0; i < devices_->size(); ++i) devices_->at(i).set_log_sink(options_.log_sink);
  if (analysis_->has_errors()) {
    std::string msg = "invalid graph" + (graph().source_path.empty() ? "" : " " + graph().source_path) + ":";
    for (const auto& d : analysis_->diagnostics())
      if (d.is_error()) msg += "\n  " + d.to_string();
    throw Error(msg);
  }
  // The session's own devices (threads, GPUs as configured) may differ from
  // the analysis's placement list, so placement is the session's own.
  placement_ = place_graph(graph(), *devices_, registry_, options_.allow_soft_placement);
  if (!graph().function_names.empty())
    functions_ = std::make_unique<FunctionLibraryRuntime>(
        graph(), *devices_, registry_, options_.allow_soft_placement,
        [this](const std::string& scope, const Node& node) { return body_variable_for(scope, node); });
}

namespace {
std::atomic<int> live_sessions{0};
}  // namespace

Session::LiveCount::LiveCount() { live_sessions.fetch_add(1, std::memory_order_relaxed); }

// Trimming at the last session, not at every one, is deliberate: the GUI and
// the CLI keep several sessions, and a session made while another lives
// reuses the cache.
Session::LiveCount::~LiveCount() {
  if (live_sessions.fetch_sub(1, std::memory_order_acq_rel) == 1) HostAllocator::trim();
}

Session::~Session() = default;

std::size_t Session::initialize_variables(const std::function<void(std::size_t count)>& before_running) {
  const std::vector<std::string> initializers = variable_initializers(graph());
  if (initializers.empty()) return 0;
  if (before_running) before_running(initializers.size());
  run({}, {}, initializers);
  return initializers.size();
}

std::string Session::device_of(const std::string& node) const {
  int i = graph().index_of(node);
  if (i < 0) return {};
  int d = placement_.device_of[static_cast<size_t>(i)];
  return d < 0 ? std::string() : devices_->at(d).short_name();
}

void Session::add_observer(ExecutionObserver* observer) {
  std::lock_guard lock(mu_);
  observers_.push_back(observer);
}

void Session::remove_observer(ExecutionObserver* observer) {
  std::lock_guard lock(mu_);
  observers_.erase(std::remove(observers_.begin(), observers_.end(), observer), observers_.end());
}

Variable* Session::find_variable(const std::string& name) {
  std::lock_guard lock(mu_);
  std::pair<std::string, std::string> key{kDefaultContainer, name};
  if (const Node* n = graph().find(name); n && makes_handle(*n)) {
    auto state = variables_.find(n->name + "#state");
    if (state != variables_.end()) return state->second->value.handles()[0].variable.get();
    key = {container_of(*n), is_resource_variable(*n) ? n->attr_string("shared_name", "") : n->name};
  } else if (auto it = variables_.find(name); it != variables_.end()) {
    return it->second.get();
  }
  auto r = resource_variables_.find(key);
  return r == resource_variables_.end() ? nullptr : r->second.get();
}

Variable* Session::variable_of_node(const std::string& name) {
  const Node* n = graph().find(name);
  if (!n) return nullptr;
  const bool ref_variable = is_ref_variable(*n);
  if (!ref_variable && !makes_handle(*n)) return nullptr;
  std::lock_guard lock(mu_);
  Variable* state = variable_for(*n);
  return ref_variable ? state : state->value.handles()[0].variable.get();
}

// Called with mu_ held. Like TensorFlow's VarHandleOp, which makes its handle
// once when the kernel is built: the container attr or the resource
// manager's default, and shared_name verbatim (empty included: VarHandleOps
// that leave it empty share one variable ""), except the anonymous name,
// which gets a variable of its own. A resource _Arg's variable is named
// after the node, in the default container, and declared by its handle attrs.
Tensor Session::resource_handle_for(const Node& node) {
  ResourceHandle h;
  if (!is_resource_variable(node)) {
    h.container = kDefaultContainer;
    h.name = node.name;
    resource_arg_handle_data(node, &h.dtype, &h.shape);
  } else {
    h.container = container_of(node);
    h.name = node.attr_string("shared_name", "");
    if (h.name == kAnonymousName) h.name = "_AnonymousVar" + std::to_string(anonymous_variables_++);
    h.dtype = dtype_base(node.attr_type("dtype", DType::Invalid));
    const AttrValue* shape = node.find_attr("shape");
    if (const Shape* s = shape ? shape->get_if<Shape>() : nullptr) h.shape = *s;
  }
  auto& storage = resource_variables_[{h.container, h.name}];
  if (!storage) {
    storage = std::make_shared<Variable>();
    storage->name = h.name;
  }
  h.variable = storage;
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

// Called with mu_ held (from plan_for).
Variable* Session::variable_for(const Node& node) {
  if (makes_handle(node)) {
    // The node's state is its handle, made on first use.
    auto& slot = variables_[node.name + "#state"];
    if (!slot) {
      slot = std::make_unique<Variable>();
      slot->name = node.name;
      slot->value = resource_handle_for(node);
    }
    return slot.get();
  }
  const bool ref_variable = is_ref_variable(node);
  std::string key = ref_variable ? node.attr_string("shared_name", "") : "";
  // '#' never appears in TensorFlow node names, so state of other ops
  // (random draw counters) cannot collide with a variable.
  if (key.empty()) key = ref_variable ? node.name : node.name + "#state";
  auto& slot = variables_[key];
  if (!slot) {
    slot = std::make_unique<Variable>();
    slot->name = key;
  }
  return slot.get();
}

// Like variable_for, for a node of a function body: a VarHandleOp's handle
// names the same (container, shared_name) variable as at top level, as
// TensorFlow's resource manager does; other state is the body node's own,
// under the function instance's scope.
Variable* Session::body_variable_for(const std::string& scope, const Node& node) {
  std::lock_guard lock(mu_);
  const bool handle = is_resource_variable(node);
  auto& slot = variables_[scope + "/" + node.name + "#state"];
  if (!slot) {
    slot = std::make_unique<Variable>();
    slot->name = node.name;
    if (handle) slot->value = resource_handle_for(node);
  }
  return slot.get();
}

const ExecutionPlan& Session::plan_for(const FeedList& feeds, const std::vector<std::string>& fetches,
                                       const std::vector<std::string>& targets) {
  std::string key;
  for (const auto& [name, value] : feeds) key += name + ",";
  key += "|";
  for (const auto& f : fetches) key += f + ",";
  key += "|";
  for (const auto& t : targets) key += t + ",";

  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;
  PlanRequest request;
  for (const auto& [name, value] : feeds) request.feeds.push_back(name);
  request.fetches = fetches;
  request.targets = targets;
  auto plan = std::make_unique<ExecutionPlan>(build_plan(
      graph(), placement_, *devices_, registry_, [this](const Node& n) { return variable_for(n); }, request));
  return *plans_.emplace(key, std::move(plan)).first->second;
}

// A fed Placeholder declares what it accepts; catching a mismatch here names
// the feed instead of failing somewhere downstream.
void Session::check_feed_matches_placeholder(const std::string& name, const Tensor& value) const {
  auto id = TensorId::parse(name);
  const Node* node = id ? graph().find(id->node) : nullptr;
  if (!node || !is_placeholder(*node)) return;
  DType want = node->attr_type("dtype", DType::Invalid);
  if (want != DType::Invalid && want != value.dtype())
    throw Error("feed '" + name + "': placeholder expects " + dtype_name(want) + ", got " + dtype_name(value.dtype()));
  const AttrValue* shape_attr = node->find_attr("shape");
  const Shape* want_shape = shape_attr ? shape_attr->get_if<Shape>() : nullptr;
  if (!want_shape || !want_shape->rank_known()) return;
  bool ok = want_shape->rank() == value.shape().rank();
  for (int i = 0; ok && i < want_shape->rank(); ++i)
    ok = want_shape->dim(i) < 0 || want_shape->dim(i) == value.shape().dim(i);
  if (!ok)
    throw Error("feed '" + name + "': placeholder expects shape " + want_shape->to_string() + ", got " +
                value.shape().to_string());
}

std::vector<Tensor> Session::run(const FeedList& feeds, const std::vector<std::string>& fetches,
                                 const std::vector<std::string>& targets) {
  return run_step(feeds, fetches, targets, nullptr);
}

std::vector<Tensor> Session::run(const FeedList& feeds, const std::vector<std::string>& fetches,
                                 const std::vector<std::string>& targets, const StepRendezvous& step) {
  if (!step.rendezvous) return run_step(feeds, fetches, targets, &step);
  try {
    return run_step(feeds, fetches, targets, &step);
  } catch (const std::exception& e) {
    // A run that fails before its executor starts (an unknown fetch, a bad
    // feed) never sends: the other partitions must not wait for it. The
    // executor aborted already when it failed; the first error stays.
    step.rendezvous->abort(step.step_id, e.what());
    throw;
  }
}

std::vector<Tensor> Session::run_step(const FeedList& feeds, const std::vector<std::string>& fetches,
                                      const std::vector<std::string>& targets, const StepRendezvous* step) {
  const ExecutionPlan* plan;
  std::vector<ExecutionObserver*> observers;
  {
    std::lock_guard lock(mu_);
    plan = &plan_for(feeds, fetches, targets);
    observers = observers_;
  }
  std::vector<Tensor> values;
  values.reserve(feeds.size());
  for (const auto& [name, value] : feeds) {
    if (!value.valid()) throw Error("feed '" + name + "' is an empty tensor");
    check_feed_matches_placeholder(name, value);
    values.push_back(value);
  }
  const int64_t run_id = next_run_id_.fetch_add(1);
  RunContext run;
  run.step_id = step ? step->step_id : run_id;
  run.rendezvous = step ? step->rendezvous : nullptr;
  run.resources = &resources_;
  run.graph = &graph();
  run.blocking_timeout_s = options_.blocking_op_timeout_s;
  std::optional<FunctionCallFrame> frame;
  if (functions_) {
    frame.emplace(*functions_, observers, run_id, run);
    run.functions = &*frame;
  }
  return execute_plan(*plan, values, observers, run_id, run);
}

}  // namespace flowlens
