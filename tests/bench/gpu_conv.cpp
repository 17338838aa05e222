// GPU convolutions, in one run on one GPU:
// 1. Conv2D forward and both backprops on ResNet-50 layer shapes (NHWC,
//    float32) through the engine (a Session on /gpu:0 with resident
//    variables: dispatch, the HWIO filter transposed to cuDNN's layout each
//    call, the algorithm cache, workspace from the caching allocator) versus
//    cuDNN called directly, from the same library the engine loads, with the
//    filter already in its layout and descriptors, algorithm and workspace
//    prepared once. Prints `gpu_conv_<layer>_<pass>: ratio`, ratio = direct
//    time / engine time (target >= 0.95), and checks both give the same
//    numbers (a layout slip would show here first).
// 2. FlowLens's ResNet-50 training step from the CNN template on the GPU
//    (`gpu_resnet50_train_step`: images/s), the number device-check.sh puts
//    beside PyTorch's (pytorch_resnet50_anchor.py).
// Without a GPU it says so and exits 0; without cuDNN part 1 is skipped.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"
#include "cnn_step.h"
#include "exec/session.h"
#include "transform/graph_builder.h"
#if FLOWLENS_WITH_CUDNN
#include "cuda/cudnn_library.h"
#endif

using namespace flowlens;

namespace {

struct Layer {
  const char* name;
  int n, h, w, c, k, o, stride;  // SAME padding, even on both sides for these shapes
};

int out_size(const Layer& l, int x) { return (x + l.stride - 1) / l.stride; }

std::vector<float> values(std::size_t count, int seed) {
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = static_cast<float>((i * 7919 + seed * 104729) % 1000) / 1000.f - 0.5f;
  return v;
}

double max_relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0, scale = 1e-6;
  for (float x : b) scale = std::max(scale, static_cast<double>(std::fabs(x)));
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]) / scale);
  return a.size() == b.size() ? worst : 1e30;
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}

// x, w, dy resident on /gpu:0; "fwd", "bwd_data", "bwd_filter" compute the
// three passes and leave their results there.
struct EngineConv {
  std::unique_ptr<Session> session;
  EngineConv(const Layer& l, const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& dy) {
    const int oh = out_size(l, l.h), ow = out_size(l, l.w);
    const Shape xs{l.n, l.h, l.w, l.c}, ws{l.k, l.k, l.c, l.o}, ys{l.n, oh, ow, l.o};
    Graph g;
    GraphBuilder b(g, "", "/gpu:0");
    const std::vector<std::pair<const char*, Shape>> vars = {{"x", xs}, {"w", ws}, {"dy", ys}};
    for (const auto& [v, s] : vars) {
      b.add("VariableV2", v, {}, {{"dtype", AttrValue(DType::Float)}, {"shape", AttrValue(s)}});
      b.add("Placeholder", std::string(v) + "_init", {}, {{"dtype", AttrValue(DType::Float)}});
      b.add("Assign", std::string(v) + "/Assign", {v, std::string(v) + "_init"}, {{"T", AttrValue(DType::Float)}});
    }
    AttrList strides;
    strides.i = {1, l.stride, l.stride, 1};
    const AttrMap conv = {{"T", AttrValue(DType::Float)}, {"strides", AttrValue(strides)},
                          {"padding", AttrValue(std::string("SAME"))}};
    b.add("Conv2D", "fwd", {"x", "w"}, conv);
    b.add("Const", "input_sizes", {}, {{"dtype", AttrValue(DType::Int32)},
                                       {"value", AttrValue(Tensor::from_vector<int32_t>(Shape{4}, {l.n, l.h, l.w, l.c}))}});
    b.add("Const", "filter_sizes", {}, {{"dtype", AttrValue(DType::Int32)},
                                        {"value", AttrValue(Tensor::from_vector<int32_t>(Shape{4}, {l.k, l.k, l.c, l.o}))}});
    b.add("Conv2DBackpropInput", "bwd_data", {"input_sizes", "w", "dy"}, conv);
    b.add("Conv2DBackpropFilter", "bwd_filter", {"x", "filter_sizes", "dy"}, conv);
    SessionOptions options;
    options.allow_soft_placement = false;
    session = std::make_unique<Session>(std::move(g), options);
    session->run({{"x_init", Tensor::from_vector<float>(xs, x)}, {"w_init", Tensor::from_vector<float>(ws, w)},
                  {"dy_init", Tensor::from_vector<float>(ys, dy)}},
                 {}, {"x/Assign", "w/Assign", "dy/Assign"});
  }
  void step(const char* pass) { session->run({}, {}, {pass}); }
  std::vector<float> fetch(const char* pass) {
    const Tensor t = session->run({}, {pass}, {}).at(0);
    return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
  }
};

#if FLOWLENS_WITH_CUDNN
void check(cudnnStatus_t s, const char* what) { cuda::check_cudnn(s, what); }

// The three passes through cuDNN with everything prepared up front.
struct DirectConv {
  const cuda::CudnnLibrary& api;
  cudaStream_t stream = nullptr;
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t xd = nullptr, yd = nullptr;
  cudnnFilterDescriptor_t wd = nullptr;
  cudnnConvolutionDescriptor_t cd = nullptr;
  float *x = nullptr, *w = nullptr, *dy = nullptr, *y = nullptr, *dx = nullptr, *dw = nullptr;
  void* workspace = nullptr;
  cudnnConvolutionFwdAlgo_t fwd_algo{};
  cudnnConvolutionBwdDataAlgo_t data_algo{};
  cudnnConvolutionBwdFilterAlgo_t filter_algo{};
  std::size_t xn, wn, yn;

  DirectConv(const cuda::CudnnLibrary& a, const Layer& l, const std::vector<float>& hx,
             const std::vector<float>& hwio, const std::vector<float>& hdy)
      : api(a) {
    const int oh = out_size(l, l.h), ow = out_size(l, l.w);
    xn = hx.size(), wn = hwio.size(), yn = hdy.size();
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(api.create(&handle), "cudnnCreate");
    check(api.set_stream(handle, stream), "cudnnSetStream");
    for (auto [p, n] : {std::pair{&x, xn}, {&w, wn}, {&dy, yn}, {&y, yn}, {&dx, xn}, {&dw, wn}})
      check(cudaMalloc(reinterpret_cast<void**>(p), n * sizeof(float)), "cudaMalloc");
    // HWIO -> OHWI on the host, once.
    std::vector<float> ohwi(wn);
    for (int kh = 0; kh < l.k; ++kh)
      for (int kw = 0; kw < l.k; ++kw)
        for (int i = 0; i < l.c; ++i)
          for (int o = 0; o < l.o; ++o)
            ohwi[((static_cast<std::size_t>(o) * l.k + kh) * l.k + kw) * l.c + i] =
                hwio[((static_cast<std::size_t>(kh) * l.k + kw) * l.c + i) * l.o + o];
    check(cudaMemcpy(x, hx.data(), xn * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(w, ohwi.data(), wn * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(dy, hdy.data(), yn * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    auto tensor = [&](cudnnTensorDescriptor_t& d, int n, int c, int h, int wd_) {
      check(api.create_tensor(&d), "cudnnCreateTensorDescriptor");
      const int dims[4] = {n, c, h, wd_}, strides[4] = {h * wd_ * c, 1, wd_ * c, c};
      check(api.set_tensor_nd(d, CUDNN_DATA_FLOAT, 4, dims, strides), "cudnnSetTensorNdDescriptor");
    };
    tensor(xd, l.n, l.c, l.h, l.w);
    tensor(yd, l.n, l.o, oh, ow);
    check(api.create_filter(&wd), "cudnnCreateFilterDescriptor");
    check(api.set_filter_4d(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, l.o, l.c, l.k, l.k), "cudnnSetFilter4dDescriptor");
    check(api.create_convolution(&cd), "cudnnCreateConvolutionDescriptor");
    const int pad = ((oh - 1) * l.stride + l.k - l.h) / 2;
    check(api.set_convolution_2d(cd, pad, pad, l.stride, l.stride, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
          "cudnnSetConvolution2dDescriptor");
    check(api.set_math_type(cd, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
    int count = 0;
    std::size_t most = 0;
    cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    check(api.forward_algorithms(handle, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, fp), "fwd algos");
    fwd_algo = first(fp, count, most);
    cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    check(api.backward_data_algorithms(handle, wd, yd, cd, xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, dp),
          "bwd data algos");
    data_algo = first(dp, count, most);
    cudnnConvolutionBwdFilterAlgoPerf_t wp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    check(api.backward_filter_algorithms(handle, xd, yd, cd, wd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, wp),
          "bwd filter algos");
    filter_algo = first(wp, count, most);
    workspace_bytes = most;
    if (most) check(cudaMalloc(&workspace, most), "cudaMalloc");
  }
  ~DirectConv() {
    for (void* p : {static_cast<void*>(x), static_cast<void*>(w), static_cast<void*>(dy), static_cast<void*>(y),
                    static_cast<void*>(dx), static_cast<void*>(dw), workspace})
      cudaFree(p);
    api.destroy_tensor(xd);
    api.destroy_tensor(yd);
    api.destroy_filter(wd);
    api.destroy_convolution(cd);
    cudaStreamDestroy(stream);
  }
  template <typename Perf>
  static auto first(const Perf* p, int count, std::size_t& most) -> decltype(p->algo) {
    for (int i = 0; i < count; ++i)
      if (p[i].status == CUDNN_STATUS_SUCCESS && p[i].memory <= (std::size_t{1} << 30)) {
        most = std::max(most, p[i].memory);
        return p[i].algo;
      }
    throw Error("cuDNN offers no algorithm for this layer");
  }
  std::size_t workspace_bytes = 0;

  void step(const std::string& pass) {
    const float one = 1.f, zero = 0.f;
    if (pass == "fwd")
      check(api.forward(handle, &one, xd, x, wd, w, cd, fwd_algo, workspace, workspace_bytes, &zero, yd, y), "fwd");
    else if (pass == "bwd_data")
      check(api.backward_data(handle, &one, wd, w, yd, dy, cd, data_algo, workspace, workspace_bytes, &zero, xd, dx),
            "bwd data");
    else
      check(api.backward_filter(handle, &one, xd, x, yd, dy, cd, filter_algo, workspace, workspace_bytes, &zero, wd,
                                dw),
            "bwd filter");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  // The pass's result, in the engine's layout (HWIO for the filter gradient).
  std::vector<float> fetch(const std::string& pass, const Layer& l) {
    const float* src = pass == "fwd" ? y : pass == "bwd_data" ? dx : dw;
    const std::size_t n = pass == "fwd" ? yn : pass == "bwd_data" ? xn : wn;
    std::vector<float> out(n);
    check(cudaMemcpy(out.data(), src, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (pass != "bwd_filter") return out;
    std::vector<float> hwio(n);
    for (int o = 0; o < l.o; ++o)
      for (int kh = 0; kh < l.k; ++kh)
        for (int kw = 0; kw < l.k; ++kw)
          for (int i = 0; i < l.c; ++i)
            hwio[((static_cast<std::size_t>(kh) * l.k + kw) * l.c + i) * l.o + o] =
                out[((static_cast<std::size_t>(o) * l.k + kh) * l.k + kw) * l.c + i];
    return hwio;
  }
};
#endif

int compare_layers(bool smoke) {
#if FLOWLENS_WITH_CUDNN
  const cuda::CudnnLibrary* api = cuda::cudnn_library();
  if (!api) {
    std::printf("gpu_conv: cuDNN comparison skipped (%s)\n", cuda::cudnn_unavailable_reason().c_str());
    return 0;
  }
  const std::vector<Layer> layers =
      smoke ? std::vector<Layer>{{"smoke", 2, 8, 8, 4, 3, 8, 1}}
            : std::vector<Layer>{{"res2_3x3", 32, 56, 56, 64, 3, 64, 1},
                                 {"res3_1x1", 32, 28, 28, 512, 1, 128, 1},
                                 {"res4_3x3", 32, 14, 14, 256, 3, 256, 1}};
  int failures = 0;
  for (const Layer& l : layers) {
    const int oh = out_size(l, l.h), ow = out_size(l, l.w);
    const auto x = values(static_cast<std::size_t>(l.n) * l.h * l.w * l.c, 1);
    const auto w = values(static_cast<std::size_t>(l.k) * l.k * l.c * l.o, 2);
    const auto dy = values(static_cast<std::size_t>(l.n) * oh * ow * l.o, 3);
    EngineConv engine(l, x, w, dy);
    DirectConv direct(*api, l, x, w, dy);
    for (const char* pass : {"fwd", "bwd_data", "bwd_filter"}) {
      engine.step(pass);
      direct.step(pass);
      const double diff = max_relative_difference(engine.fetch(pass), direct.fetch(pass, l));
      if (diff > 1e-4) {
        std::fprintf(stderr, "gpu_conv_%s_%s: engine and cuDNN differ by %.3g\n", l.name, pass, diff);
        ++failures;
      }
      const int steps = smoke ? 1 : 20;
      const bench::Comparison c =
          bench::compare(smoke ? 1 : 7, [&] { for (int i = 0; i < steps; ++i) direct.step(pass); },
                         [&] { for (int i = 0; i < steps; ++i) engine.step(pass); });
      std::printf("gpu_conv_%s_%s: %s   (cuDNN %.3f ms, engine %.3f ms, results within %.1e)\n", l.name, pass,
                  bench::speed_text(c).c_str(), c.baseline_median() / steps * 1e3,
                  c.candidate_median() / steps * 1e3, diff);
      std::fflush(stdout);
    }
  }
  return failures;
#else
  (void)smoke;
  std::printf("gpu_conv: cuDNN comparison skipped (built without cuDNN's header)\n");
  return 0;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = bench::smoke_mode(argc, argv);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("gpu_conv: skipped (%s)\n", DeviceSet::local()->gpu_status().c_str());
    return 0;
  }
  try {
    const int failures = compare_layers(smoke);
    CnnTemplateOptions resnet;
    resnet.batch = smoke ? 2 : 32;
    resnet.image_size = smoke ? 32 : 224;
    resnet.classes = smoke ? 10 : 1000;
    resnet.resnet_stages = smoke ? std::vector<int>{1} : std::vector<int>{3, 4, 6, 3};
    const bench::CnnStepFigures f = bench::time_cnn_training_step(resnet, smoke ? 1 : 5, 1.0, /*use_gpus=*/true);
    std::printf("gpu_resnet50_train_step: %.1f images/s   (batch %d at %dx%d, float32, %.0f GFLOP/s of convolutions "
                "and matmuls)\n",
                f.images_per_second, resnet.batch, resnet.image_size, resnet.image_size, f.gflops);
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_conv: %s\n", e.what());
    return 1;
  }
}
