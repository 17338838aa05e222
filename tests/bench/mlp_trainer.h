#pragma once
// A training loop over the benchmark MLP: one tower, or in-graph towers on
// the given devices (per-tower gradients averaged, one update), shared by the
// replica benchmarks on CPUs and GPUs.
#include <memory>
#include <string>
#include <vector>

#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "mlp_bench_model.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/optimizers.h"
#include "transform/replicate_in_graph.h"

namespace flowlens::bench {

struct Trainer {
  std::unique_ptr<Session> session;
  std::string train_op;
  void step() { session->run({}, {"loss"}, {train_op}); }
};

// `devices` has one entry per tower; a single "" means one tower placed by
// the session's defaults.
inline Trainer make_trainer(Graph g, const std::vector<std::string>& devices, SessionOptions options = {}) {
  const OpRegistry& registry = OpRegistry::global();
  std::string train_op;
  OptimizerOptions sgd;
  sgd.learning_rate = 0.05f;
  if (devices.size() == 1) {
    if (!devices[0].empty())
      for (Node& n : g.mutable_nodes()) n.device = devices[0];
    const std::vector<std::string>& vars = mlp_variables();
    std::vector<std::string> grads = add_gradients(g, {"loss"}, vars, registry);
    std::vector<std::pair<std::string, std::string>> pairs;
    for (size_t i = 0; i < vars.size(); ++i) pairs.emplace_back(vars[i], grads[i]);
    train_op = add_optimizer(g, pairs, sgd);
  } else {
    ReplicateOptions r;
    r.replicas = static_cast<int>(devices.size());
    r.devices = devices;
    r.split_inputs = {"features", "labels"};
    r.loss = "loss";
    r.optimizer = sgd;
    ReplicationResult result = replicate_in_graph(g, r, registry);
    g = std::move(result.graph);
    train_op = result.train_op;
  }
  Trainer t{std::make_unique<Session>(std::move(g), options), train_op};
  t.session->run({}, {}, variable_initializers(t.session->graph()));
  return t;
}

}  // namespace flowlens::bench
