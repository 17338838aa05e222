// Random tensors: RandomStandardNormal, RandomUniform ([0,1)),
// TruncatedNormal (re-draws values beyond 2 standard deviations).
//
// Generator: std::mt19937_64 seeded through std::seed_seq from (seed, seed2)
// plus a per-node invocation counter; uniforms are built from the raw 64-bit
// words and normals by Box-Muller, so values are identical on every platform
// (std:: distributions are implementation-defined, hence not used). The
// stream differs from TensorFlow's Philox generator: same seeds give the same
// values run after run here, but not the numbers TensorFlow would produce.
//
// Seeds: seed == seed2 == 0 means nondeterministic (std::random_device).
// Otherwise a fresh node always starts the same sequence. If the executor
// binds a Variable to the node (ctx.own_variable()), it holds an int64 call
// counter so successive runs of the same node draw new values, like TF;
// without one, every run of the node repeats the first draw.
#include <cmath>
#include <mutex>
#include <random>

#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

enum class Dist { Normal, Uniform, Truncated };

uint64_t next_call(KernelContext& ctx) {
  Variable* v = ctx.own_variable();
  if (!v) return 0;
  std::lock_guard<std::mutex> lock(v->mu);
  int64_t n = 0;
  if (v->value.valid() && v->value.dtype() == DType::Int64 && v->value.num_elements() == 1)
    n = v->value.data<int64_t>()[0];
  v->value = Tensor::scalar<int64_t>(n + 1);
  return static_cast<uint64_t>(n);
}

std::mt19937_64 make_engine(KernelContext& ctx) {
  const Node& n = ctx.node();
  const auto seed = static_cast<uint64_t>(n.attr_int("seed", 0));
  const auto seed2 = static_cast<uint64_t>(n.attr_int("seed2", 0));
  const uint64_t call = next_call(ctx);
  if (seed == 0 && seed2 == 0) {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(), static_cast<unsigned>(call)};
    return std::mt19937_64(seq);
  }
  auto lo = [](uint64_t x) { return static_cast<uint32_t>(x & 0xffffffffu); };
  auto hi = [](uint64_t x) { return static_cast<uint32_t>(x >> 32); };
  std::seed_seq seq{lo(seed), hi(seed), lo(seed2), hi(seed2), lo(call), hi(call)};
  return std::mt19937_64(seq);
}

// Uniform in [0, 1).
inline double uniform_double(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }
inline float uniform_float(std::mt19937_64& g) { return static_cast<float>(g() >> 40) * 0x1.0p-24f; }

// Standard normal pairs by Box-Muller.
struct NormalSource {
  std::mt19937_64& g;
  double spare = 0;
  bool has_spare = false;
  double next() {
    if (has_spare) {
      has_spare = false;
      return spare;
    }
    const double u1 = 1.0 - uniform_double(g);  // (0, 1]: log is finite
    const double u2 = uniform_double(g);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double t = 2.0 * 3.14159265358979323846 * u2;
    spare = r * std::sin(t);
    has_spare = true;
    return r * std::cos(t);
  }
};

template <class T, Dist D>
void generate(std::mt19937_64& g, T* out, int64_t n) {
  if constexpr (D == Dist::Uniform) {
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, float>) out[i] = uniform_float(g);
      else out[i] = uniform_double(g);
    }
  } else {
    NormalSource src{g};
    for (int64_t i = 0; i < n; ++i) {
      double z = src.next();
      if constexpr (D == Dist::Truncated)
        while (std::fabs(z) > 2.0) z = src.next();
      out[i] = static_cast<T>(z);
    }
  }
}

std::vector<int64_t> output_dims(const char* op, const Tensor& shape) {
  if (shape.shape().rank() > 1) fail(std::string(op) + ": shape must be a vector, got shape " + shape_str(shape.shape()));
  std::vector<int64_t> dims = read_ints(op, "shape", shape);
  for (int64_t d : dims)
    if (d < 0) fail(std::string(op) + ": shape dims must be non-negative, got " + shape_str(Shape(dims)));
  return dims;
}

template <Dist D>
void random_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const char* op = ctx.node().op.c_str();
  const DType t = dtype_base(ctx.node().attr_type("dtype", DType::Float));
  if (!dtype_is_floating(t)) unsupported_dtype(op, t);
  Tensor& out = ctx.allocate_output(0, t, Shape(output_dims(op, input(ctx, 0))));
  std::mt19937_64 g = make_engine(ctx);
  if (t == DType::Float) generate<float, D>(g, out.data<float>(), out.num_elements());
  else generate<double, D>(g, out.data<double>(), out.num_elements());
}

void random_shape(ShapeContext& ctx) {
  const DType t = dtype_base(ctx.node().attr_type("dtype", DType::Float));
  if (!dtype_is_floating(t)) unsupported_dtype(ctx.node().op.c_str(), t);
  if (const Tensor* c = ctx.constant_input(0)) {
    ctx.set_output(0, t, Shape(output_dims(ctx.node().op.c_str(), *c)));
    return;
  }
  const Shape& s = ctx.input(0).shape;
  ctx.set_output(0, t, s.rank_known() && s.rank() == 1 ? unknown_shape(static_cast<int>(s.dim(0))) : Shape::unknown_rank());
}

}  // namespace

void register_random_ops(OpRegistry& r) {
  const std::tuple<const char*, KernelFn, const char*> ops[] = {
      {"RandomStandardNormal", random_kernel<Dist::Normal>, "Samples from the standard normal distribution."},
      {"RandomUniform", random_kernel<Dist::Uniform>, "Samples uniformly from [0, 1)."},
      {"TruncatedNormal", random_kernel<Dist::Truncated>,
       "Samples from the standard normal distribution, redrawing values beyond two standard deviations."}};
  for (const auto& [name, fn, doc] : ops)
    r.add(OpBuilder(name)
              .input("shape: T")
              .output("output: dtype")
              .attr("seed: int = 0")
              .attr("seed2: int = 0")
              .attr("dtype: {half, bfloat16, float, double}")
              .attr("T: {int32, int64}")
              .keeps_state()  // a draw counter, so each run gets fresh values
              .shape(random_shape)
              .cpu(fn, {DType::Float, DType::Double}, "dtype")
              .not_differentiable("a random source")
              .no_gpu("no GPU random generator yet: it draws on the CPU and the consumer copies the values over")
              .category("random")
              .doc(doc));
}

}  // namespace flowlens::ops
