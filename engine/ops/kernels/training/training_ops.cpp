// SyntheticClassification and SyntheticImages, deterministic sources of
// labelled batches for training demos, templates and tests. The optimizer ops are in apply_ops.cpp,
// ftrl_ops.cpp and sparse_apply_ops.cpp.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

#include "ops/framework/op_helpers.h"

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

// The node's own counter (its session-owned state): 0 on the first run, then
// 1, 2 ...; each batch index draws a different, reproducible batch.
int64_t next_batch_index(KernelContext& ctx) {
  int64_t batch_index = 0;
  if (Variable* v = ctx.own_variable()) {
    std::lock_guard lock(v->mu);
    if (v->value.valid() && v->value.dtype() == DType::Int64 && v->value.num_elements() == 1)
      batch_index = v->value.data<int64_t>()[0];
    v->value = Tensor::scalar<int64_t>(batch_index + 1);
  }
  return batch_index;
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
  const int64_t batch_index = next_batch_index(ctx);
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

// ---- SyntheticImages ----------------------------------------------------------------

// Each class is a fixed pattern (fixed by the seed): per channel a plane wave
// with a class-specific spatial frequency and phase, plus a bright square at a
// class-specific spot. An image is its class's pattern plus N(0, noise^2)
// pixel noise, so a small CNN learns the classes in tens of steps while a
// linear model on the raw pixels does noticeably worse (the patterns overlap).
struct ImageAttrs {
  int64_t batch, height, width, channels, classes, seed;
  float noise;
  bool nchw;
};

ImageAttrs image_attrs(const Node& n) {
  ImageAttrs a{n.attr_int("batch_size", 32), n.attr_int("height", 32),   n.attr_int("width", 32),
               n.attr_int("channels", 3),    n.attr_int("num_classes", 10), n.attr_int("seed", 0),
               0.5f,                         false};
  if (const AttrValue* v = n.find_attr("noise"))
    if (const float* f = v->get_if<float>()) a.noise = *f;
  const std::string format = n.attr_string("data_format", "NHWC");
  if (format != "NHWC" && format != "NCHW")
    fail("SyntheticImages: data_format must be NHWC or NCHW, not '" + format + "'");
  a.nchw = format == "NCHW";
  if (a.batch < 1 || a.height < 1 || a.width < 1 || a.channels < 1 || a.classes < 1)
    fail("SyntheticImages: batch_size, height, width, channels and num_classes must be >= 1");
  if (!(a.noise >= 0) || !std::isfinite(a.noise)) fail("SyntheticImages: noise must be finite and >= 0");
  return a;
}

Shape image_shape(const ImageAttrs& a) {
  Shape s = a.nchw ? Shape{a.batch, a.channels, a.height, a.width} : Shape{a.batch, a.height, a.width, a.channels};
  if (s.num_elements() < 0) fail("SyntheticImages: the image batch " + s.to_string() + " has too many elements");
  return s;
}

// Class k's pattern, [channels, height, width]: its own random stream (fixed by
// the seed and k), so any class can be drawn without drawing the others.
std::vector<float> class_pattern(const ImageAttrs& a, int64_t k) {
  std::mt19937_64 cg = engine_for(static_cast<uint64_t>(a.seed), (uint64_t{1} << 63) | static_cast<uint64_t>(k));
  constexpr double kTwoPi = 2.0 * 3.14159265358979323846;
  const int64_t plane = a.height * a.width;
  std::vector<float> pattern(static_cast<std::size_t>(a.channels * plane));
  const double fy = 1.0 + std::floor(uniform01(cg) * 3.0);
  const double fx = 1.0 + std::floor(uniform01(cg) * 3.0);
  const int64_t side = std::max<int64_t>(1, std::min(a.height, a.width) / 4);
  const auto sy = static_cast<int64_t>(uniform01(cg) * static_cast<double>(a.height - side + 1));
  const auto sx = static_cast<int64_t>(uniform01(cg) * static_cast<double>(a.width - side + 1));
  for (int64_t c = 0; c < a.channels; ++c) {
    const double phase = kTwoPi * uniform01(cg);
    float* p = pattern.data() + c * plane;
    for (int64_t y = 0; y < a.height; ++y)
      for (int64_t x = 0; x < a.width; ++x) {
        const double wave = std::sin(kTwoPi * (fy * static_cast<double>(y) / static_cast<double>(a.height) +
                                               fx * static_cast<double>(x) / static_cast<double>(a.width)) +
                                     phase);
        const bool in_square = y >= sy && y < sy + side && x >= sx && x < sx + side;
        p[y * a.width + x] = static_cast<float>(0.5 * wave + (in_square ? 1.0 : 0.0));
      }
  }
  return pattern;
}

void synthetic_images_kernel(KernelContext& ctx) {
  const ImageAttrs a = image_attrs(ctx.node());
  const Shape shape = image_shape(a);
  const int64_t batch_index = next_batch_index(ctx);
  const auto seed = static_cast<uint64_t>(a.seed);
  const int64_t plane = a.height * a.width;
  // Only the classes this batch draws are drawn as patterns (1,000 classes of
  // 224x224 would cost more than the step they feed).
  std::unordered_map<int64_t, std::vector<float>> patterns;
  std::mt19937_64 g = engine_for(seed, static_cast<uint64_t>(batch_index));
  Tensor& images = ctx.allocate_output(0, DType::Float, shape);
  Tensor& labels = ctx.allocate_output(1, DType::Int32, Shape{a.batch});
  float* out = images.data<float>();
  int32_t* py = labels.data<int32_t>();
  for (int64_t i = 0; i < a.batch; ++i) {
    const auto label = std::min(static_cast<int64_t>(uniform01(g) * static_cast<double>(a.classes)), a.classes - 1);
    py[i] = static_cast<int32_t>(label);
    auto [it, fresh] = patterns.try_emplace(label);
    if (fresh) it->second = class_pattern(a, label);
    const float* p = it->second.data();
    float* img = out + i * a.channels * plane;
    for (int64_t c = 0; c < a.channels; ++c)
      for (int64_t yx = 0; yx < plane; ++yx) {
        const float value = p[c * plane + yx] + a.noise * static_cast<float>(normal(g));
        // NCHW keeps the pattern's order; NHWC interleaves the channels.
        img[a.nchw ? c * plane + yx : yx * a.channels + c] = value;
      }
  }
}

void synthetic_images_shape(ShapeContext& ctx) {
  const ImageAttrs a = image_attrs(ctx.node());
  ctx.set_output(0, DType::Float, image_shape(a));
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
  r.add(OpBuilder("SyntheticImages")
            .output("images: float")
            .output("labels: int32")
            .attr("batch_size: int >= 1")
            .attr("height: int >= 1")
            .attr("width: int >= 1")
            .attr("channels: int >= 1")
            .attr("num_classes: int >= 1")
            .attr("noise: float = 0.5")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .attr("seed: int = 0")
            .keeps_state()  // the batch counter
            .shape(synthetic_images_shape)
            .cpu(synthetic_images_kernel)
            .not_differentiable("an input source")
            .no_gpu("a FlowLens input source for templates and tests; runs on the CPU")
            .category("training")
            .doc("FlowLens-only: labelled image batches, one seeded pattern per class plus noise (the CNN template's data)."));
}

}  // namespace flowlens::ops
