#pragma once
// Running the same graph on the CPU reference and on a GPU, and comparing
// what comes back. The CPU is the reference (as in ggml's test-backend-ops):
// every GPU kernel must match it within float32 rounding.
#include <QtTest/QtTest>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/backend_parity.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "transform/graph_builder.h"

namespace flowlens::testing {

// The samples folder: FLOWLENS_SAMPLES_DIR when set (a bundle run on another
// machine, see device-check.sh), else the source tree's.
inline std::string sample_path(const std::string& file) {
  const char* dir = std::getenv("FLOWLENS_SAMPLES_DIR");
  return std::string(dir && *dir ? dir : FLOWLENS_SAMPLES) + "/" + file;
}

inline int gpu_count(std::string* status = nullptr) {
  auto devices = DeviceSet::local();
  if (status) *status = devices->gpu_status();
  return devices->count("GPU");
}

// Deterministic values in [lo, hi).
inline Tensor random_floats(Shape shape, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(DType::Float, std::move(shape));
  for (float& v : t.values<float>()) v = dist(gen);
  return t;
}

struct RunConfig {
  bool gpu = false;
  int virtual_gpus = 0;
};

// Runs `graph` (whose nodes carry devices already) and fetches `fetches`,
// after running its variable initializers. GPU runs are strict: a node that
// cannot run where it asked fails instead of moving to the CPU.
inline std::vector<Tensor> run_graph(Graph graph, const std::vector<std::string>& fetches, const RunConfig& config,
                                     const std::vector<std::string>& targets = {}, int steps = 1) {
  SessionOptions options;
  options.use_gpus = config.gpu;
  options.virtual_gpus = config.virtual_gpus;
  options.allow_soft_placement = !config.gpu;
  Session session(std::move(graph), options);
  std::vector<std::string> init = variable_initializers(session.graph());
  if (!init.empty()) session.run({}, {}, init);
  for (int i = 1; i < steps; ++i) session.run({}, {}, targets);
  return session.run({}, fetches, targets);
}

// Builds one op node fed by Consts, everything on `device`.
inline Graph single_op_graph(const std::string& device, const std::string& op, const std::vector<Tensor>& inputs,
                             AttrMap attrs) {
  Graph g;
  GraphBuilder b(g, "", device);
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) names.push_back(b.constant("in" + std::to_string(i), inputs[i]));
  b.add(op, "op", names, std::move(attrs));
  return g;
}

// Runs op on /cpu:0 and /gpu:0 and compares every output; returns what
// differs ("" when all match within `tolerance`).
inline std::string op_parity_problem(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {},
                                     int num_outputs = 1, double tolerance = 2e-5) {
  std::vector<std::string> fetches;
  for (int i = 0; i < num_outputs; ++i) fetches.push_back(tensor_name("op", i));
  std::vector<Tensor> cpu, gpu;
  try {
    cpu = run_graph(single_op_graph("/cpu:0", op, inputs, attrs), fetches, {false});
    gpu = run_graph(single_op_graph("/gpu:0", op, inputs, attrs), fetches, {true});
  } catch (const std::exception& e) {
    return op + ": " + e.what();
  }
  for (int i = 0; i < num_outputs; ++i) {
    const Tensor& c = cpu[static_cast<size_t>(i)];
    const double diff = parity_difference(gpu[static_cast<size_t>(i)], c);
    if (!(diff <= tolerance))
      return op + " output " + std::to_string(i) + " (shape " + c.shape().to_string() +
             "): max relative difference " + std::to_string(diff) + " > " + std::to_string(tolerance);
  }
  return {};
}

#define CHECK_OP_PARITY(...)                                            \
  do {                                                                  \
    const std::string problem = ::flowlens::testing::op_parity_problem(__VA_ARGS__); \
    QVERIFY2(problem.empty(), problem.c_str());                         \
  } while (0)

}  // namespace flowlens::testing
