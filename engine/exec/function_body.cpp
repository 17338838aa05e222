#include "exec/function_body.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string_view>

#include "common/trim.h"
#include "exec/feed_values.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "io/checkpoint_reader.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/kernel_context.h"
#include "ops/framework/op_registry.h"

namespace flowlens {
namespace {

bool is_arg_op(const std::string& op) { return node_class(op) == NodeClass::Arg; }
bool is_retval_op(const std::string& op) { return node_class(op) == NodeClass::Retval; }

std::string type_and_shape(DType dtype, const Shape& shape) { return dtype_name(dtype) + " " + shape.to_string(); }

// "arg:3" -> 3; nullopt when `spec` does not start with "prefix:". Throws
// for a prefix with something other than a number after it.
std::optional<int64_t> parse_index(const std::string& spec, const std::string& prefix, size_t count) {
  if (!spec.starts_with(prefix + ":")) return std::nullopt;
  const std::string digits = spec.substr(prefix.size() + 1);
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
    throw Error("'" + spec + "': expected " + prefix + ":N with N a number");
  const int64_t index = std::stoll(digits);
  if (index >= static_cast<int64_t>(count))
    throw Error("'" + spec + "': the graph has " + std::to_string(count) + " " +
                (prefix == "arg" ? "argument(s)" : "return value(s)") +
                (count == 0 ? "" : ", " + prefix + ":0 to " + prefix + ":" + std::to_string(count - 1)));
  return index;
}

// TensorFlow's argument naming (a function's input names): lower case, any
// character outside [a-z0-9] an underscore.
std::string normalized(std::string name) {
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::string without_suffix(const std::string& s, std::string_view suffix) {
  return s.ends_with(suffix) ? s.substr(0, s.size() - suffix.size()) : s;
}

// Keras's fans (initializers._compute_fans).
void keras_fans(const Shape& shape, double* fan_in, double* fan_out) {
  const int rank = shape.rank();
  if (rank < 1) {
    *fan_in = *fan_out = 1;
  } else if (rank == 1) {
    *fan_in = *fan_out = static_cast<double>(shape.dim(0));
  } else if (rank == 2) {
    *fan_in = static_cast<double>(shape.dim(0));
    *fan_out = static_cast<double>(shape.dim(1));
  } else {
    double receptive = 1;
    for (int d = 0; d < rank - 2; ++d) receptive *= static_cast<double>(shape.dim(d));
    *fan_in = static_cast<double>(shape.dim(rank - 2)) * receptive;
    *fan_out = static_cast<double>(shape.dim(rank - 1)) * receptive;
  }
}

Tensor zeros(DType dtype, const Shape& shape) {
  Tensor t(dtype, shape);
  if (dtype != DType::String && t.byte_size() > 0) std::memset(t.raw_data(), 0, t.byte_size());
  return t;
}

// Whether --init-args random gives `arg` its role's default.
bool fills_by_role(const FunctionArg& arg, ArgFill fill) {
  return fill == ArgFill::Random && arg.role && dtype_is_floating(arg.var_dtype);
}

// The value `arg`'s variable starts with when no checkpoint gives it.
Tensor fill_value(const FunctionArg& arg, ArgFill fill, std::mt19937_64& random) {
  Tensor t = zeros(arg.var_dtype, arg.var_shape);
  if (fills_by_role(arg, fill)) {
    ops::dispatch<ops::FloatTypes>(arg.var_dtype, "--init-args random", [&](auto tag) {
      using T = decltype(tag);
      std::fill_n(t.data<T>(), t.num_elements(), static_cast<T>(arg.role->value));
    });
    return t;
  }
  const bool weight = fill == ArgFill::Random && dtype_is_floating(arg.var_dtype) && arg.var_shape.rank() >= 2 &&
                      !arg.optimizer_slot;
  if (!weight) return t;
  double fan_in = 0, fan_out = 0;
  keras_fans(arg.var_shape, &fan_in, &fan_out);
  const double limit = fan_in + fan_out > 0 ? std::sqrt(6.0 / (fan_in + fan_out)) : 0.0;
  ops::dispatch<ops::FloatTypes>(arg.var_dtype, "--init-args random", [&](auto tag) {
    using T = decltype(tag);
    T* out = t.data<T>();
    for (int64_t i = 0, n = t.num_elements(); i < n; ++i) {
      // 53 random bits in [0, 1): the same values on every platform.
      const double u = static_cast<double>(random() >> 11) * 0x1.0p-53;
      out[i] = static_cast<T>((2 * u - 1) * limit);
    }
  });
  return t;
}

// The ports of a value-preserving op that carry its data input `input` on
// (ReadVariableOp: the variable's value); nullopt for any other op.
std::optional<std::vector<int>> passed_through(const std::string& op, int input) {
  static const std::set<std::string, std::less<>> one_to_one = {
      "ReadVariableOp", "Identity",     "Cast",        "Snapshot", "StopGradient", "PreventGradient",
      "CheckNumerics",  "CheckNumericsV2", "EnsureShape", "Enter",    "Exit",         "NextIteration"};
  if (op == "IdentityN") return std::vector<int>{input};
  if (op == "Merge") return std::vector<int>{0};
  if (op == "Switch") return input == 0 ? std::vector<int>{0, 1} : std::vector<int>{};  // not the predicate
  if (one_to_one.count(op)) return input == 0 ? std::vector<int>{0} : std::vector<int>{};
  return std::nullopt;
}

// TensorFlow's and Keras's defaults by consumer and input name (see
// FunctionBody::initialize_resource_args). `family` is the op without its
// Resource / Sparse / Apply prefixes.
struct RoleDefault {
  const char* family;
  const char* input;
  double value;
};
constexpr RoleDefault kRoleDefaults[] = {
    // Keras's BatchNormalization: gamma_initializer and moving_variance_initializer "ones".
    {"FusedBatchNorm", "scale", 1.0},
    {"FusedBatchNorm", "variance", 1.0},
    // Keras's Adam(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7);
    // TF1's AdamOptimizer creates beta1_power and beta2_power with values beta1, beta2.
    {"Adam", "lr", 0.001},
    {"Adam", "beta1", 0.9},
    {"Adam", "beta2", 0.999},
    {"Adam", "epsilon", 1e-7},
    {"Adam", "beta1_power", 0.9},
    {"Adam", "beta2_power", 0.999},
    // Keras's SGD(learning_rate=0.01, momentum=0.0).
    {"GradientDescent", "alpha", 0.01},
    {"Momentum", "lr", 0.01},
    {"Momentum", "momentum", 0.0},
    {"KerasMomentum", "lr", 0.01},
    {"KerasMomentum", "momentum", 0.0},
    // Keras's RMSprop(learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7).
    {"RMSProp", "lr", 0.001},
    {"RMSProp", "rho", 0.9},
    {"RMSProp", "momentum", 0.0},
    {"RMSProp", "epsilon", 1e-7},
    // Keras's Adagrad(learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7).
    {"Adagrad", "lr", 0.001},
    {"Adagrad", "accum", 0.1},
    {"AdagradV2", "lr", 0.001},
    {"AdagradV2", "epsilon", 1e-7},
    {"AdagradV2", "accum", 0.1},
    // Keras's Ftrl(learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1).
    {"Ftrl", "lr", 0.001},
    {"Ftrl", "lr_power", -0.5},
    {"Ftrl", "accum", 0.1},
    {"FtrlV2", "lr", 0.001},
    {"FtrlV2", "lr_power", -0.5},
    {"FtrlV2", "accum", 0.1},
};

// "ResourceSparseApplyAdagradV2" -> "AdagradV2", "FusedBatchNormV3" ->
// "FusedBatchNorm"; "" for an op no default is for.
std::string role_family(std::string_view op) {
  if (op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3") return "FusedBatchNorm";
  if (op.starts_with("Resource")) op.remove_prefix(8);
  if (op.starts_with("Sparse")) op.remove_prefix(6);
  if (!op.starts_with("Apply")) return {};
  op.remove_prefix(5);
  return std::string(op);
}

// The role the value of node `arg` (a resource argument) plays: followed
// through value-preserving ops to the inputs that consume it. None when it
// reaches no input with a default, or inputs whose defaults differ.
std::optional<ArgRole> role_of(const Graph& graph, const EdgeIndex& edges, int arg) {
  const OpRegistry& registry = OpRegistry::global();
  std::vector<ArgRole> roles;
  std::set<std::pair<int, int>> seen{{arg, 0}};
  std::vector<std::pair<int, int>> work{{arg, 0}};
  while (!work.empty()) {
    const auto [node, port] = work.back();
    work.pop_back();
    for (const OutputEdge& e : edges.outputs(node)) {
      if (e.is_control() || e.port != port) continue;
      const Node& consumer = graph.nodes()[static_cast<size_t>(e.consumer)];
      if (const auto ports = passed_through(consumer.op, e.input)) {
        for (int p : *ports)
          if (seen.insert({e.consumer, p}).second) work.emplace_back(e.consumer, p);
        continue;
      }
      const std::string family = role_family(consumer.op);
      if (family.empty()) continue;
      const OpDef* def = registry.find(consumer.op);
      const ArgDef* input = def ? def->input_arg(consumer, e.input) : nullptr;
      if (!input) continue;
      for (const RoleDefault& d : kRoleDefaults)
        if (family == d.family && input->name == d.input) roles.push_back({family + " " + d.input, d.value});
    }
  }
  if (roles.empty()) return std::nullopt;
  for (const ArgRole& r : roles)
    if (r.value != roles[0].value) return std::nullopt;
  return roles[0];
}

}  // namespace

std::string FunctionArg::describe() const {
  return "arg:" + std::to_string(index) + " '" + node + "' (" +
         (resource ? "resource variable " + type_and_shape(var_dtype, var_shape) : type_and_shape(dtype, shape)) + ")";
}

bool is_resource_arg(const Node& node) {
  return is_arg_op(node.op) && dtype_base(node.attr_type("T", DType::Invalid)) == DType::Resource;
}

void resource_arg_handle_data(const Node& node, DType* dtype, Shape* shape) {
  *dtype = DType::Invalid;
  *shape = Shape::unknown_rank();
  const AttrValue* dtypes = node.find_attr("_handle_dtypes");
  const AttrValue* shapes = node.find_attr("_handle_shapes");
  const AttrList* d = dtypes ? dtypes->get_if<AttrList>() : nullptr;
  const AttrList* s = shapes ? shapes->get_if<AttrList>() : nullptr;
  if (d && !d->type.empty()) *dtype = dtype_base(d->type[0]);
  if (s && !s->shape.empty()) *shape = s->shape[0];
}

std::map<std::string, std::string> read_arg_map(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the argument map");
  std::map<std::string, std::string> map;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text{trimmed(line)};
    if (text.empty() || text[0] == '#') continue;
    size_t split = text.find('=');
    if (split == std::string::npos) split = text.find_first_of(" \t");
    const std::string arg{split == std::string::npos ? std::string() : std::string(trimmed(text.substr(0, split)))};
    const std::string key{split == std::string::npos ? std::string() : std::string(trimmed(text.substr(split + 1)))};
    if (arg.empty() || key.empty() || key.find_first_of(" \t") != std::string::npos)
      throw Error(path + ":" + std::to_string(number) + ": expected 'ARG CHECKPOINT_KEY' or 'ARG=CHECKPOINT_KEY', got '" +
                  text + "'");
    if (!map.emplace(arg, key).second)
      throw Error(path + ":" + std::to_string(number) + ": argument '" + arg + "' is mapped twice");
  }
  return map;
}

bool FunctionBody::is_function_body(const Graph& graph) {
  return std::any_of(graph.nodes().begin(), graph.nodes().end(),
                     [](const Node& n) { return is_arg_op(n.op) || is_retval_op(n.op); });
}

FunctionBody::FunctionBody(const Graph& graph) {
  std::map<int64_t, std::vector<std::string>> arg_nodes, retval_nodes;
  const EdgeIndex& edges = graph.edges();
  const OpRegistry& registry = OpRegistry::global();
  for (size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.nodes()[i];
    const bool arg = is_arg_op(n.op), retval = is_retval_op(n.op);
    if (!arg && !retval) {
      const OpDef* def = registry.find(n.op);
      if (def && def->stateful && edges.outputs(static_cast<int>(i)).empty()) targets_.push_back(n.name);
      continue;
    }
    const AttrValue* index = n.find_attr("index");
    if (!index || !index->get_if<int64_t>() || *index->get_if<int64_t>() < 0)
      throw Error(n.op + " '" + n.name + "': needs attr 'index' (an int >= 0)");
    const int64_t k = *index->get_if<int64_t>();
    const DType t = dtype_base(n.attr_type("T", DType::Invalid));
    if (t == DType::Invalid) throw Error(n.op + " '" + n.name + "': needs attr 'T' (a type)");
    if (arg) {
      FunctionArg a;
      a.node = n.name;
      a.index = k;
      a.dtype = t;
      a.resource = t == DType::Resource;
      if (a.resource) {
        resource_arg_handle_data(n, &a.var_dtype, &a.var_shape);
        // A slot is input 1.. of a ResourceApply* / ResourceSparseApply* op.
        for (const OutputEdge& e : edges.outputs(static_cast<int>(i))) {
          const std::string& op = graph.nodes()[static_cast<size_t>(e.consumer)].op;
          if (!e.is_control() && e.input > 0 && (op.starts_with("ResourceApply") || op.starts_with("ResourceSparseApply")))
            a.optimizer_slot = true;
        }
        a.role = role_of(graph, edges, static_cast<int>(i));
      } else if (const AttrValue* shapes = n.find_attr("_output_shapes")) {
        if (const AttrList* l = shapes->get_if<AttrList>(); l && !l->shape.empty()) a.shape = l->shape[0];
      }
      arg_nodes[k].push_back(n.name);
      args_.push_back(std::move(a));
    } else {
      FunctionRetval r;
      r.node = n.name;
      r.index = k;
      r.dtype = t;
      for (const std::string& input : n.inputs)
        if (!input.starts_with("^")) {
          r.tensor = input;
          break;
        }
      if (r.tensor.empty()) throw Error(n.op + " '" + n.name + "': has no data input to return");
      retval_nodes[k].push_back(n.name);
      retvals_.push_back(std::move(r));
      targets_.push_back(n.name);
    }
  }
  // Indices must be 0..N-1, each once, as a function's signature numbers them.
  auto check = [](const std::map<int64_t, std::vector<std::string>>& by_index, const char* what) {
    std::string problems;
    for (const auto& [index, nodes] : by_index)
      if (nodes.size() > 1) {
        problems += "\n  index " + std::to_string(index) + " is shared by";
        for (const std::string& n : nodes) problems += " '" + n + "'";
      }
    const int64_t count = by_index.empty() ? 0 : by_index.rbegin()->first + 1;
    std::string missing;
    int listed = 0;
    for (int64_t k = 0; k < count && listed < 20; ++k)
      if (!by_index.count(k)) {
        missing += (missing.empty() ? "" : ", ") + std::to_string(k);
        ++listed;
      }
    if (!missing.empty())
      problems += "\n  no " + std::string(what) + " node has index " + missing + " (the highest is " +
                  std::to_string(count - 1) + " '" + by_index.rbegin()->second[0] + "')";
    if (!problems.empty()) throw Error(std::string("function body: bad ") + what + " indices:" + problems);
  };
  check(arg_nodes, "_Arg");
  check(retval_nodes, "_Retval");
  std::sort(args_.begin(), args_.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  std::sort(retvals_.begin(), retvals_.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
}

const FunctionArg* FunctionBody::find_arg(const std::string& spec) const {
  if (auto index = parse_index(spec, "arg", args_.size())) return &args_[static_cast<size_t>(*index)];
  const std::string node = spec.ends_with(":0") ? spec.substr(0, spec.size() - 2) : spec;
  for (const FunctionArg& a : args_)
    if (a.node == node) return &a;
  return nullptr;
}

const FunctionRetval* FunctionBody::find_retval(const std::string& spec) const {
  if (auto index = parse_index(spec, "retval", retvals_.size())) return &retvals_[static_cast<size_t>(*index)];
  for (const FunctionRetval& r : retvals_)
    if (r.node == spec) return &r;
  return nullptr;
}

FeedList FunctionBody::feeds_for(const FeedList& feeds) const {
  FeedList out;
  std::set<std::string> fed;
  for (const auto& [spec, value] : feeds) {
    const FunctionArg* arg = find_arg(spec);
    if (!arg) {
      out.emplace_back(spec, value);
      continue;
    }
    if (arg->resource)
      throw Error("feed '" + spec + "': " + arg->describe() +
                  " is a variable the session owns; initialize it (from a checkpoint, or zeros/random) instead of "
                  "feeding it");
    if (!fed.insert(arg->node).second) throw Error("feed '" + spec + "': " + arg->describe() + " is fed twice");
    if (!value.valid()) throw Error("feed '" + spec + "': " + arg->describe() + " is fed an empty tensor");
    if (value.dtype() != arg->dtype)
      throw Error("feed '" + spec + "': " + arg->describe() + " expects " + dtype_name(arg->dtype) + ", got " +
                  dtype_name(value.dtype()));
    if (!shape_fits(arg->shape, value.shape()))
      throw Error("feed '" + spec + "': " + arg->describe() + " expects shape " + arg->shape.to_string() + ", got " +
                  value.shape().to_string());
    out.emplace_back(arg->node, value);
  }
  std::string missing;
  for (const FunctionArg& a : args_)
    if (!a.resource && !fed.count(a.node)) missing += "\n  " + a.describe();
  if (!missing.empty())
    throw Error("these function arguments are not fed (feed them as arg:N=VALUE or NAME=VALUE):" + missing);
  return out;
}

std::vector<std::string> FunctionBody::fetches_for(const std::vector<std::string>& specs) const {
  std::vector<std::string> out;
  if (specs.empty()) {
    for (const FunctionRetval& r : retvals_) out.push_back(r.tensor);
    return out;
  }
  for (const std::string& spec : specs) {
    const FunctionRetval* r = find_retval(spec);
    out.push_back(r ? r->tensor : spec);
  }
  return out;
}

std::vector<Tensor> FunctionBody::run(Session& session, const FeedList& feeds,
                                      const std::vector<std::string>& fetch_specs) const {
  return session.run(feeds_for(feeds), fetches_for(fetch_specs), targets_);
}

ArgInitReport FunctionBody::initialize_resource_args(Session& session, const ArgInitOptions& options) const {
  ArgInitReport report;
  std::unique_ptr<CheckpointReader> reader;
  if (!options.checkpoint.empty()) reader = open_checkpoint(options.checkpoint);
  // Explicit map entries by argument node.
  std::map<std::string, std::string> mapped;
  for (const auto& [spec, key] : options.name_map) {
    const FunctionArg* arg = find_arg(spec);
    if (!arg) throw Error("argument map: no argument '" + spec + "' in the graph");
    if (!arg->resource) throw Error("argument map: " + arg->describe() + " is not a resource variable");
    if (!mapped.emplace(arg->node, key).second) throw Error("argument map: " + arg->describe() + " is mapped twice");
  }
  if (!mapped.empty() && !reader) throw Error("an argument map needs a checkpoint to read the values from");
  // The name heuristic: normalized checkpoint keys, each to the keys it comes from.
  std::map<std::string, std::vector<std::string>> by_normal;
  if (reader)
    for (const CheckpointEntry& e : reader->entries())
      by_normal[normalized(without_suffix(e.name, "/.ATTRIBUTES/VARIABLE_VALUE"))].push_back(e.name);

  std::mt19937_64 random(options.seed);
  std::string unmatched_detail;
  struct Pending {
    const FunctionArg* arg;
    Tensor value;
    std::string key;
  };
  std::vector<Pending> values;
  for (const FunctionArg& arg : args_) {
    if (!arg.resource) continue;
    std::string key;
    if (auto m = mapped.find(arg.node); m != mapped.end()) {
      if (!reader->find(m->second))
        throw Error("argument map: " + arg.describe() + " is mapped to '" + m->second + "', which checkpoint " +
                    reader->prefix() + " does not have");
      key = m->second;
    } else if (reader && reader->find(arg.node)) {
      key = arg.node;
    } else if (reader) {
      std::set<std::string> candidates;
      for (const std::string& name : {arg.node, without_suffix(arg.node, "_resource")})
        if (auto it = by_normal.find(normalized(name)); it != by_normal.end())
          candidates.insert(it->second.begin(), it->second.end());
      if (candidates.size() == 1) key = *candidates.begin();
    }
    if (!key.empty()) {
      Tensor value = reader->read(key);
      if ((arg.var_dtype != DType::Invalid && value.dtype() != arg.var_dtype) || !shape_fits(arg.var_shape, value.shape()))
        throw Error(arg.describe() + ": checkpoint key '" + key + "' holds " +
                    type_and_shape(value.dtype(), value.shape()));
      values.push_back({&arg, std::move(value), key});
      continue;
    }
    if (reader) {
      report.unmatched.push_back(arg.node);
      std::string same;
      int shown = 0;
      for (const CheckpointEntry& e : reader->entries())
        if (e.dtype == arg.var_dtype && e.shape == arg.var_shape && shown++ < 5) same += (same.empty() ? "" : ", ") + e.name;
      unmatched_detail += "\n  " + arg.describe() + (same.empty() ? "" : "; keys of that dtype and shape: " + same);
    }
    if (options.fill == ArgFill::None) continue;
    if (arg.var_dtype == DType::Invalid || !arg.var_shape.fully_defined())
      throw Error(arg.describe() + ": its _handle_dtypes / _handle_shapes attrs do not give a dtype and a fully "
                  "known shape to make the variable with; give its value in the checkpoint");
    Tensor value;
    try {
      value = fill_value(arg, options.fill, random);
    } catch (const Error& e) {
      throw Error(arg.describe() + ": cannot be filled: " + e.what());
    }
    values.push_back({&arg, std::move(value), {}});
  }
  if (options.fill == ArgFill::None && (!reader || !report.unmatched.empty())) {
    if (!reader) {
      std::string list;
      for (const FunctionArg& a : args_)
        if (a.resource) list += "\n  " + a.describe();
      if (list.empty()) return report;
      throw Error("the function body's resource arguments need values: give a checkpoint or zeros/random "
                  "(--checkpoint, --init-args):" + list);
    }
    throw Error("checkpoint " + reader->prefix() + " gives no value for " + std::to_string(report.unmatched.size()) +
                " resource argument(s); map them to checkpoint keys (--arg-map FILE, lines 'ARG KEY') or fill the "
                "rest (--init-args zeros|random):" + unmatched_detail);
  }
  // Every check passed: now the variables change.
  for (Pending& p : values) {
    Variable* v = session.variable_of_node(p.arg->node);
    if (!v) throw Error(p.arg->describe() + ": the session made no variable for it");
    {
      std::lock_guard lock(v->mu);
      v->value = std::move(p.value);
    }
    if (!p.key.empty()) {
      report.restored.emplace_back(p.arg->node, p.key);
      continue;
    }
    report.filled.push_back(p.arg->node);
    if (!fills_by_role(*p.arg, options.fill)) continue;
    auto kind = std::find_if(report.by_role.begin(), report.by_role.end(),
                             [&](const auto& r) { return r.first.kind == p.arg->role->kind; });
    if (kind == report.by_role.end()) {
      report.by_role.emplace_back(*p.arg->role, std::vector<std::string>{});
      kind = std::prev(report.by_role.end());
    }
    kind->second.push_back(p.arg->node);
  }
  return report;
}

}  // namespace flowlens
