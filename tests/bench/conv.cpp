// Conv2D forward and both backprops on ResNet-50 layer shapes (NHWC, float32)
// through the whole engine (a Session: plan, dispatch, attrs, output
// allocation, the filter reorder, the primitive cache) versus the same oneDNN
// primitive called directly (filter already in its layout, buffers and
// scratchpad preallocated: what no framework can beat), and versus the plain
// im2col + sgemm convolution (ops/kernels/nn/conv_reference.h). Also measures this
// machine's sgemm GFLOP/s and prints each pass's GFLOP/s as a fraction of it.
//
// Prints `conv_<layer>_<pass>: ratio` with ratio = direct oneDNN time /
// engine time (1.0 = no overhead; target >= 0.9), and im2col's time over the
// engine's (above 1: the engine is faster). Then a ResNet-50 training step from
// the CNN template (cnn_step.h): images/s and its GFLOP/s as a fraction of the
// sgemm peak. `--smoke` runs a tiny version.
//
// It re-executes itself with OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT=4
// unless they are set: otherwise oneDNN's OpenMP team and OpenBLAS's threads
// keep spinning after each call and take one of this machine's 2 cores from
// whatever runs next, so single ratios flipped between 0.5 and 2.0 with the
// order of the interleaved runs. (Both are read when the libraries load,
// before main, hence the re-exec.)
#include <cblas.h>
#include <dnnl.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

#include <unistd.h>

#include "bench_util.h"
#include "cnn_step.h"
#include "exec/session.h"
#include "ops/kernels/nn/conv_reference.h"

using namespace flowlens;
using ops::conv::Geometry;

namespace {

struct Layer {
  const char* name;
  int64_t hw, in, k, out, stride;
};

Tensor random(Shape s, unsigned seed) {
  Tensor t(DType::Float, std::move(s));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float& x : t.values<float>()) x = dist(rng);
  return t;
}

Node placeholder(const char* name) {
  Node p;
  p.name = name;
  p.op = "Placeholder";
  p.attrs["dtype"] = DType::Float;
  return p;
}

// One node `op` over placeholders a, b and a Const `sizes` where the backprops take one.
Graph conv_graph(const char* op, const Layer& l, const Shape& sizes_shape) {
  Graph g;
  g.add_node(placeholder("a"));
  g.add_node(placeholder("b"));
  Node n;
  n.name = "conv";
  n.op = op;
  n.attrs["T"] = DType::Float;
  n.attrs["padding"] = std::string("SAME");
  AttrList strides;
  strides.i = {1, l.stride, l.stride, 1};
  n.attrs["strides"] = strides;
  const std::string o = op;
  if (o == "Conv2D") {
    n.inputs = {"a", "b"};
  } else {
    Node c;
    c.name = "sizes";
    c.op = "Const";
    c.attrs["dtype"] = DType::Int32;
    std::vector<int32_t> v;
    for (int64_t d : sizes_shape.dims()) v.push_back(static_cast<int32_t>(d));
    c.attrs["value"] = Tensor::from_vector<int32_t>(Shape{4}, v);
    g.add_node(c);
    n.inputs = o == "Conv2DBackpropInput" ? std::vector<std::string>{"sizes", "a", "b"}
                                          : std::vector<std::string>{"a", "sizes", "b"};
  }
  g.add_node(n);
  return g;
}

Geometry geometry(const Layer& l, int64_t batch) {
  Geometry g;
  g.batch = batch;
  g.in_rows = g.in_cols = l.hw;
  g.in_depth = l.in;
  g.filter_rows = g.filter_cols = l.k;
  g.filter_depth = l.in;
  g.out_depth = l.out;
  g.stride_rows = g.stride_cols = l.stride;
  g.out_rows = g.out_cols = (l.hw + l.stride - 1) / l.stride;  // SAME
  const int64_t needed = std::max<int64_t>(0, (g.out_rows - 1) * l.stride + l.k - l.hw);
  g.pad_top = g.pad_left = needed / 2;
  g.pad_bottom = g.pad_right = needed - needed / 2;
  return g;
}

// The oneDNN primitive of one pass, called directly.
struct Direct {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{eng};
  dnnl::primitive prim;
  std::unordered_map<int, dnnl::memory> args;
  dnnl::memory out;  // the result, in the primitive's layout
  dnnl::memory user_out;
  void run() {
    prim.execute(stream, args);
    stream.wait();
  }
};

using dnnl::memory;

memory::desc act(const Geometry& g, int64_t hw, int64_t c) {
  return memory::desc({g.batch, c, hw, hw}, memory::data_type::f32, memory::format_tag::nhwc);
}

Direct make_direct(const char* pass, const Geometry& g, const Tensor& a, const Tensor& b) {
  Direct d;
  const auto f32 = memory::data_type::f32;
  const memory::desc src = act(g, g.in_rows, g.in_depth), dst = act(g, g.out_rows, g.out_depth);
  const memory::desc wany({g.out_depth, g.in_depth, g.filter_rows, g.filter_cols}, f32, memory::format_tag::any);
  const memory::desc wuser({g.out_depth, g.in_depth, g.filter_rows, g.filter_cols}, f32, memory::format_tag::hwio);
  const memory::dims strides{g.stride_rows, g.stride_cols}, dil{0, 0}, pl{g.pad_top, g.pad_left}, pr{g.pad_bottom, g.pad_right};
  const dnnl::convolution_forward::primitive_desc fwd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, src, wany,
                                      dst, strides, dil, pl, pr),
      d.eng);
  auto reordered = [&](const memory::desc& want, const Tensor& t) {
    memory user(wuser, d.eng, const_cast<float*>(t.data<float>()));
    memory m(want, d.eng);
    dnnl::reorder(user, m).execute(d.stream, user, m);
    d.stream.wait();
    return m;
  };
  auto wrap = [&](const memory::desc& md, const Tensor& t) { return memory(md, d.eng, const_cast<float*>(t.data<float>())); };
  const std::string p = pass;
  if (p == "fwd") {
    const dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                        wany, dst, strides, dil, pl, pr),
        d.eng);
    d.prim = dnnl::convolution_forward(pd);
    d.out = memory(pd.dst_desc(), d.eng);
    d.args = {{DNNL_ARG_SRC, wrap(src, a)}, {DNNL_ARG_WEIGHTS, reordered(pd.weights_desc(), b)}, {DNNL_ARG_DST, d.out}};
  } else if (p == "bwd_input") {  // a = filter, b = out_backprop
    const dnnl::convolution_backward_data::primitive_desc pd(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, src, wany, dst, strides, dil, pl, pr),
        d.eng, fwd);
    d.prim = dnnl::convolution_backward_data(pd);
    d.out = memory(pd.diff_src_desc(), d.eng);
    d.args = {{DNNL_ARG_DIFF_DST, wrap(dst, b)}, {DNNL_ARG_WEIGHTS, reordered(pd.weights_desc(), a)}, {DNNL_ARG_DIFF_SRC, d.out}};
  } else {  // a = input, b = out_backprop
    const dnnl::convolution_backward_weights::primitive_desc pd(
        dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, src, wany, dst, strides, dil, pl, pr),
        d.eng, fwd);
    d.prim = dnnl::convolution_backward_weights(pd);
    d.out = memory(pd.diff_weights_desc(), d.eng);
    d.args = {{DNNL_ARG_SRC, wrap(src, a)}, {DNNL_ARG_DIFF_DST, wrap(dst, b)}, {DNNL_ARG_DIFF_WEIGHTS, d.out}};
    d.user_out = memory(wuser, d.eng);
  }
  return d;
}

// The direct result in the engine's layout (the filter gradient reordered to HWIO).
std::vector<float> direct_result(Direct& d) {
  memory m = d.out;
  if (d.user_out) {
    dnnl::reorder(d.out, d.user_out).execute(d.stream, d.out, d.user_out);
    d.stream.wait();
    m = d.user_out;
  }
  const float* p = static_cast<const float*>(m.get_data_handle());
  return std::vector<float>(p, p + m.get_desc().get_size() / sizeof(float));
}

double max_relative_difference(const Tensor& t, const std::vector<float>& want) {
  double worst = 0;
  const float* got = t.data<float>();
  for (size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - want[i]) / (1.0 + std::fabs(want[i])));
  return worst;
}

double sgemm_gflops(int n, int reps) {
  const Tensor a = random(Shape{n, n}, 1), b = random(Shape{n, n}, 2);
  Tensor c(DType::Float, Shape{n, n});
  auto run = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data<float>(), n, b.data<float>(), n, 0.0f,
                c.data<float>(), n);
  };
  run();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(bench::seconds_of(run));
  return 2.0 * n * n * double(n) / bench::median(t) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
    execv("/proc/self/exe", argv);
    std::perror("bench_conv: re-exec with quiet thread pools failed; measuring as is");
  }
  const auto env = [](const char* name) { const char* v = std::getenv(name); return v ? v : "(unset)"; };
  std::printf("threads: OMP_WAIT_POLICY=%s OPENBLAS_THREAD_TIMEOUT=%s\n", env("OMP_WAIT_POLICY"),
              env("OPENBLAS_THREAD_TIMEOUT"));
  const bool smoke = bench::smoke_mode(argc, argv);
  const int64_t batch = smoke ? 1 : 8;
  const int reps = smoke ? 1 : 9;
  const std::vector<Layer> layers =
      smoke ? std::vector<Layer>{{"tiny3x3", 12, 8, 3, 8, 1}, {"tiny7x7s2", 16, 3, 7, 8, 2}}
            : std::vector<Layer>{{"conv1_224x3_7x7s2_64", 224, 3, 7, 64, 2},
                                 {"res2_56x64_3x3_64", 56, 64, 3, 64, 1},
                                 {"res2_56x64_1x1_256", 56, 64, 1, 256, 1},
                                 {"res3_28x128_3x3_128", 28, 128, 3, 128, 1},
                                 {"res4_14x256_3x3_256", 14, 256, 3, 256, 1},
                                 {"res5_7x512_3x3_512", 7, 512, 3, 512, 1}};
  const double peak = sgemm_gflops(smoke ? 128 : 1024, smoke ? 1 : 7);
  std::printf("sgemm_peak: %.1f GFLOP/s (cblas_sgemm %dx%d, this run); batch %lld\n", peak, smoke ? 128 : 1024,
              smoke ? 128 : 1024, static_cast<long long>(batch));
  int failures = 0;
  for (const Layer& l : layers) {
    const Geometry g = geometry(l, batch);
    const Shape in{batch, l.hw, l.hw, l.in}, filter{l.k, l.k, l.in, l.out}, out{batch, g.out_rows, g.out_cols, l.out};
    const Tensor x = random(in, 3), w = random(filter, 4), dy = random(out, 5);
    struct Pass {
      const char* name;
      const char* op;
      Tensor a, b;
      Shape sizes;
    };
    const Pass passes[] = {{"fwd", "Conv2D", x, w, {}},
                           {"bwd_input", "Conv2DBackpropInput", w, dy, in},
                           {"bwd_filter", "Conv2DBackpropFilter", x, dy, filter}};
    for (const Pass& p : passes) {
      Session session(conv_graph(p.op, l, p.sizes));
      Tensor engine_out;
      auto engine = [&] { engine_out = session.run({{"a", p.a}, {"b", p.b}}, {"conv"})[0]; };
      Direct d = make_direct(p.name, g, p.a, p.b);
      auto direct = [&] { d.run(); };
      std::vector<float> ref(static_cast<size_t>(std::string(p.name) == "fwd" ? out.num_elements()
                                                 : std::string(p.name) == "bwd_input" ? in.num_elements()
                                                                                       : filter.num_elements()));
      auto im2col = [&] {
        if (std::string(p.name) == "fwd") ops::conv::reference_forward(g, x.data<float>(), w.data<float>(), ref.data());
        else if (std::string(p.name) == "bwd_input") ops::conv::reference_backward_data(g, w.data<float>(), dy.data<float>(), ref.data());
        else ops::conv::reference_backward_filter(g, x.data<float>(), dy.data<float>(), ref.data());
      };
      // One warm-up round (plan, primitive, page faults), then rounds whose
      // order rotates: oneDNN's OpenMP threads and OpenBLAS's keep spinning
      // for a while after a call and slow whatever runs next, so each
      // function follows each other one equally often.
      const std::vector<std::vector<double>> rounds = bench::rotated_rounds(reps, {direct, engine, im2col});
      const bench::Comparison vs_direct{rounds[0], rounds[1]};
      const std::vector<double> t = {bench::median(rounds[0]), bench::median(rounds[1]), bench::median(rounds[2])};
      const double diff = std::max(max_relative_difference(engine_out, direct_result(d)), max_relative_difference(engine_out, ref));
      if (diff > 1e-3) {
        std::fprintf(stderr, "conv_%s_%s: engine result differs by %.3g\n", l.name, p.name, diff);
        ++failures;
      }
      const double gflops = 2.0 * g.macs() / t[1] / 1e9;
      std::printf("conv_%s_%s: %s   (onednn %.2f ms, engine %.2f ms, im2col+sgemm %.2f ms = %.2fx engine; "
                  "engine %.1f GFLOP/s = %.2f of sgemm peak)\n",
                  l.name, p.name, bench::speed_text(vs_direct).c_str(), t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, t[2] / t[1], gflops, gflops / peak);
      std::fflush(stdout);
    }
  }
  // A whole ResNet-50 training step (forward, gradients, SGD, moving averages)
  // from the template the editor and `flowlens-run template cnn` build.
  CnnTemplateOptions resnet;
  resnet.batch = smoke ? 2 : 8;
  resnet.image_size = smoke ? 32 : 224;
  resnet.classes = smoke ? 10 : 1000;
  resnet.resnet_stages = smoke ? std::vector<int>{1} : std::vector<int>{3, 4, 6, 3};
  // The peak again, just before: the best of both stands for this machine.
  const double step_peak = std::max(peak, sgemm_gflops(smoke ? 128 : 1024, smoke ? 1 : 7));
  const bench::CnnStepFigures f = bench::time_cnn_training_step(resnet, smoke ? 1 : 3, step_peak);
  std::printf("resnet50_train_step_%s: %.2f of sgemm peak   (batch %d at %dx%d: %.2f images/s, %.1f GFLOP/s of "
              "convolutions and matmuls, sgemm peak %.1f GFLOP/s)\n",
              smoke ? "smoke" : "224", f.fraction_of_peak, resnet.batch, resnet.image_size, resnet.image_size,
              f.images_per_second, f.gflops, step_peak);
  return failures ? 1 : 0;
}
