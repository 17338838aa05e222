#include "observe/replica_compare.h"

#include <cmath>
#include <limits>
#include <memory>
#include <mutex>

#include "common/error.h"
#include "exec/session.h"
#include "graph/node_class.h"
#include "graph/variable_initializers.h"
#include "ops/framework/kernel_context.h"
#include "tensor/tensor_format.h"

namespace flowlens {
namespace {

// Element i as double; only for the dtypes max_abs_diff accepts.
double element(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::Float: return t.data<float>()[i];
    case DType::Double: return t.data<double>()[i];
    case DType::Int32: return t.data<int32_t>()[i];
    case DType::Int64: return static_cast<double>(t.data<int64_t>()[i]);
    default: throw Error("cannot compare " + describe_tensor(t) + " numerically");
  }
}

const Tensor* find_value(const std::map<std::string, Tensor>& values, const std::string& node) {
  auto it = values.find(node);
  if (it == values.end()) it = values.find(node + ":0");
  return it == values.end() ? nullptr : &it->second;
}

}  // namespace

double max_abs_diff(const Tensor& a, const Tensor& b) {
  if (!a.valid() || !b.valid()) throw Error("max_abs_diff: empty tensor");
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape()))
    throw Error("max_abs_diff: " + describe_tensor(a) + " vs " + describe_tensor(b));
  double worst = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    const double d = std::fabs(element(a, i) - element(b, i));
    if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
    worst = std::max(worst, d);
  }
  return worst;
}

std::vector<ReplicaDiff> compare_replicas(const ReplicaMap& map, const std::map<std::string, Tensor>& values) {
  std::vector<ReplicaDiff> result;
  for (const std::string& original : map.originals()) {
    const std::vector<std::string>& copies = map.copies_of(original);
    std::vector<const Tensor*> tensors;
    for (const std::string& c : copies)
      if (const Tensor* t = find_value(values, c)) tensors.push_back(t);
    if (tensors.size() != copies.size() || tensors.size() < 2) continue;
    ReplicaDiff d{original, copies, 0, 0};
    for (size_t i = 1; i < tensors.size(); ++i) {
      const double diff = max_abs_diff(*tensors[0], *tensors[i]);
      if (diff > d.max_abs_diff || std::isnan(diff)) {
        d.max_abs_diff = diff;
        d.worst_tower = static_cast<int>(i);
      }
    }
    result.push_back(std::move(d));
  }
  return result;
}

GradientSpread compare_to_average(std::span<const Tensor> tower_gradients, const Tensor& average) {
  GradientSpread spread;
  if (tower_gradients.empty()) return spread;
  Tensor mean = average;
  if (!mean.valid()) {
    const Tensor& first = tower_gradients[0];
    if (first.dtype() != DType::Float && first.dtype() != DType::Double)
      throw Error("compare_to_average: gradients must be float or double, got " + describe_tensor(first));
    mean = Tensor(DType::Double, first.shape());
    auto m = mean.values<double>();
    for (double& v : m) v = 0;
    for (const Tensor& g : tower_gradients) {
      if (!(g.shape() == first.shape()) || g.dtype() != first.dtype())
        throw Error("compare_to_average: " + describe_tensor(g) + " vs " + describe_tensor(first));
      for (int64_t i = 0; i < g.num_elements(); ++i) m[static_cast<size_t>(i)] += element(g, i);
    }
    for (double& v : m) v /= static_cast<double>(tower_gradients.size());
  }
  for (const Tensor& g : tower_gradients) {
    if (!(g.shape() == mean.shape()))
      throw Error("compare_to_average: " + describe_tensor(g) + " vs average " + describe_tensor(mean));
    double worst = 0;
    for (int64_t i = 0; i < g.num_elements(); ++i) worst = std::max(worst, std::fabs(element(g, i) - element(mean, i)));
    spread.per_tower.push_back(worst);
    spread.max = std::max(spread.max, worst);
  }
  return spread;
}

std::vector<std::string> tower_gradient_names(const Graph& replicated, const std::string& variable) {
  const Node* sum = replicated.find("average_gradients/" + variable + "/sum");
  if (!sum) return {};
  std::vector<std::string> names;
  for (const std::string& in : sum->inputs)
    if (!in.starts_with("^")) names.push_back(in);
  return names;
}

namespace {

// A fresh CPU session of `graph` with its variables initialized; when `start`
// is given, every variable it also has starts at that session's value
// instead (unseeded initializers draw different numbers in every session).
std::unique_ptr<Session> initialized_session(const Graph& graph, Session* start) {
  SessionOptions options;
  options.use_gpus = false;
  auto session = std::make_unique<Session>(graph, options);
  session->run({}, {}, variable_initializers(session->graph()));
  if (!start) return session;
  for (const Node& node : session->graph().nodes()) {
    if (!is_variable(node) || !start->graph().find(node.name)) continue;
    Variable* from = start->variable_of_node(node.name);
    Variable* to = session->variable_of_node(node.name);
    if (!from || !to || from == to) continue;
    std::scoped_lock lock(from->mu, to->mu);
    if (from->value.valid()) to->value = from->value.clone();
  }
  return session;
}

double loss_of(Session& session, const std::string& loss, const FeedList& feeds) {
  // Each graph gets the feeds that name its nodes (the replica drops what
  // only the original's optimizer read).
  FeedList own;
  for (const auto& [name, value] : feeds)
    if (const auto id = TensorId::parse(name); id && session.graph().find(id->node)) own.emplace_back(name, value);
  const Tensor value = session.run(own, {loss}, {})[0];
  if (value.num_elements() != 1) throw Error("the loss is " + describe_tensor(value) + ", not a scalar");
  return element(value, 0);
}

}  // namespace

TowerLossCheck compare_tower_loss(const Graph& original, const Graph& replicated, const std::string& loss,
                                  const FeedList& feeds) {
  const char* which = "original";
  try {
    std::unique_ptr<Session> first = initialized_session(original, nullptr);
    TowerLossCheck check;
    check.original = loss_of(*first, loss, feeds);
    which = "replicated";
    // The towers share the original's variables by name: same start, same loss.
    std::unique_ptr<Session> second = initialized_session(replicated, first.get());
    check.replicated = loss_of(*second, loss, feeds);
    return check;
  } catch (const Error& e) {
    throw Error(std::string("the ") + which + " graph's loss '" + loss + "': " + e.what());
  }
}

}  // namespace flowlens
