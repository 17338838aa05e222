// SyntheticClassification, a deterministic source of labelled batches for
// training demos and tests. The optimizer ops are in apply_ops.cpp,
// ftrl_ops.cpp and sparse_apply_ops.cpp.
#include <cmath>
#include <mutex>
#include <random>

#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

// ---- SyntheticClassification ----------------------------------------------------

inline double uniform01(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

double normal(std::mt19937_64& g) {  // Box-Muller, one value per call (portable)
  const double u1 = 1.0 - uniform01(g);
  const double u2 = uniform01(g);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

std::mt19937_64 engine_for(uint64_t seed, uint64_t stream) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(stream),
                    static_cast<uint32_t>(stream >> 32), 0x5eedu};
  return std::mt19937_64(seq);
}

struct SyntheticAttrs {
  int64_t batch, features, classes, seed;
};

SyntheticAttrs synthetic_attrs(const Node& n) {
  SyntheticAttrs a{n.attr_int("batch_size", 32), n.attr_int("num_features", 2), n.attr_int("num_classes", 2),
                   n.attr_int("seed", 0)};
  if (a.batch < 0 || a.features < 1 || a.classes < 1)
    fail("SyntheticClassification: batch_size must be >= 0 and num_features, num_classes >= 1");
  return a;
}

void synthetic_kernel(KernelContext& ctx) {
  const SyntheticAttrs a = synthetic_attrs(ctx.node());
  int64_t batch_index = 0;
  if (Variable* v = ctx.own_variable()) {
    std::lock_guard lock(v->mu);
    if (v->value.valid() && v->value.dtype() == DType::Int64 && v->value.num_elements() == 1)
      batch_index = v->value.data<int64_t>()[0];
    v->value = Tensor::scalar<int64_t>(batch_index + 1);
  }
  const auto seed = static_cast<uint64_t>(a.seed);
  // Class centers: fixed by the seed, coordinates N(0, 3^2); held in a float64
  // tensor so its size is checked like any other.
  std::mt19937_64 cg = engine_for(seed, ~uint64_t{0});
  Tensor center_storage(DType::Double, Shape{a.classes, a.features});
  std::span<double> centers = center_storage.values<double>();
  for (double& c : centers) c = 3.0 * normal(cg);
  std::mt19937_64 g = engine_for(seed, static_cast<uint64_t>(batch_index));
  Tensor& x = ctx.allocate_output(0, DType::Float, Shape{a.batch, a.features});
  Tensor& y = ctx.allocate_output(1, DType::Int32, Shape{a.batch});
  float* px = x.data<float>();
  int32_t* py = y.data<int32_t>();
  for (int64_t i = 0; i < a.batch; ++i) {
    const auto label = static_cast<int64_t>(uniform01(g) * static_cast<double>(a.classes));
    py[i] = static_cast<int32_t>(label < a.classes ? label : a.classes - 1);
    const double* c = centers.data() + py[i] * a.features;
    for (int64_t j = 0; j < a.features; ++j) px[i * a.features + j] = static_cast<float>(c[j] + normal(g));
  }
}

void synthetic_shape(ShapeContext& ctx) {
  const SyntheticAttrs a = synthetic_attrs(ctx.node());
  ctx.set_output(0, DType::Float, Shape{a.batch, a.features});
  ctx.set_output(1, DType::Int32, Shape{a.batch});
}

}  // namespace

void register_training_ops(OpRegistry& r) {
  r.add(OpBuilder("SyntheticClassification")
            .output("features: float")
            .output("labels: int32")
            .attr("batch_size: int >= 1")
            .attr("num_features: int >= 1")
            .attr("num_classes: int >= 1")
            .attr("seed: int = 0")
            .keeps_state()  // the batch counter
            .shape(synthetic_shape)
            .cpu(synthetic_kernel)
            .not_differentiable("an input source")
            .no_gpu("a FlowLens input source for the cluster demos; runs on the CPU")
            .category("training")
            .doc("FlowLens-only: batches of a synthetic classification problem (Gaussian clusters)."));
}

}  // namespace flowlens::ops
