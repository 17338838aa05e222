// Image resizing as TensorFlow defines it (core/ops/image_ops.cc,
// kernels/image/resize_bilinear_op.cc, resize_nearest_neighbor_op.cc,
// image_resizer_state.h): ResizeBilinear, ResizeBilinearGrad,
// ResizeNearestNeighbor and ResizeNearestNeighborGrad on NHWC images, with
// align_corners and half_pixel_centers.
//
// scale = (align_corners && out > 1) ? (in - 1) / (out - 1) : in / out, in float.
// Bilinear samples at y * scale, or (y + 0.5) * scale - 0.5 with half-pixel
// centers, between floor (clamped at 0) and ceil (clamped at in - 1); its output is
// float32 whatever the input type, computed in float. Nearest neighbour takes
// floor(y * scale) (round with align_corners; (y + 0.5) * scale with half-pixel
// centers, clamped at 0), clamped at in - 1. The gradients scatter back along the
// same weights; float16/bfloat16 gradients accumulate in float.
#include <cmath>
#include <limits>
#include <vector>

#include "ops/framework/dtype_dispatch.h"

namespace flowlens::ops {
namespace {

using BilinearTypes = TypeList<int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t, bfloat16, float16, float, double>;
using BilinearGradTypes = TypeList<float, bfloat16, float16, double>;
using NearestTypes = BilinearTypes;
using NearestGradTypes = TypeList<uint8_t, int8_t, int32_t, float16, float, double, bfloat16>;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

float resize_scale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

struct ResizeAttrs {
  bool align = false, half_pixel = false;
};

ResizeAttrs resize_attrs(const KernelContext& ctx) {
  const AttrReader r = ctx.attrs();
  ResizeAttrs a{r.boolean("align_corners"), r.boolean("half_pixel_centers")};
  if (a.half_pixel && a.align) fail("If half_pixel_centers is True, align_corners must be False.");
  return a;
}

// The size input: 1-D, two int32 values.
std::pair<int64_t, int64_t> size_input(const KernelContext& ctx, int i) {
  const Tensor& s = input(ctx, i);
  if (s.shape().rank() != 1) fail("shape_t must be 1-dimensional" + shape_str(s.shape()));
  if (s.num_elements() != 2) fail("shape_t must have two elements" + shape_str(s.shape()));
  const std::vector<int64_t> v = read_ints(ctx.node().op.c_str(), "size", s);
  return {v[0], v[1]};
}

// ImageResizerState::ValidateAndCalculateOutputSize.
struct Resize {
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  float hs = 0, ws = 0;
};

Resize forward_geometry(const KernelContext& ctx, const ResizeAttrs& a) {
  const Tensor& x = input(ctx, 0);
  if (x.shape().rank() != 4) fail("input must be 4-dimensional" + shape_str(x.shape()));
  const auto [oh, ow] = size_input(ctx, 1);
  Resize r;
  r.batch = x.shape().dim(0), r.in_h = x.shape().dim(1), r.in_w = x.shape().dim(2), r.channels = x.shape().dim(3);
  r.out_h = oh, r.out_w = ow;
  if (r.in_h > kInt32Max || r.in_w > kInt32Max) fail("input sizes must be between 0 and max int32");
  if (oh <= 0 || ow <= 0) fail("output dimensions must be positive");
  if (r.channels <= 0) fail("image must have at least one channel");
  if (r.in_h <= 0 || r.in_w <= 0) fail("input image must be of non-zero size");
  r.hs = resize_scale(r.in_h, oh, a.align);
  r.ws = resize_scale(r.in_w, ow, a.align);
  if (std::ceil(static_cast<float>(oh - 1) * r.hs) > static_cast<float>(std::numeric_limits<int64_t>::max()))
    fail("input image height scale would cause an overflow");
  if (std::ceil(static_cast<float>(ow - 1) * r.ws) > static_cast<float>(std::numeric_limits<int32_t>::max()))
    fail("input image width scale would cause an overflow");
  checked_elements(ctx.node().op, {r.batch, oh, ow, r.channels});
  return r;
}

// ---- bilinear -------------------------------------------------------------------------

struct Lerp {
  int64_t lower = 0, upper = 0;
  float lerp = 0;
};

// compute_interpolation_weights.
std::vector<Lerp> lerps(int64_t out, int64_t in, float scale, bool half_pixel) {
  std::vector<Lerp> v(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float pos = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const float f = std::floor(pos);
    Lerp& l = v[static_cast<size_t>(i)];
    // Clamped above too: float rounding must never index past the image.
    l.lower = std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(f), 0), in - 1);
    l.upper = std::min<int64_t>(static_cast<int64_t>(std::ceil(pos)), in - 1);
    l.lerp = pos - f;
  }
  return v;
}

void resize_bilinear_kernel(KernelContext& ctx) {
  const ResizeAttrs a = resize_attrs(ctx);
  const Resize r = forward_geometry(ctx, a);
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, DType::Float, Shape{r.batch, r.out_h, r.out_w, r.channels});
  if (out.num_elements() == 0) return;
  const std::vector<Lerp> ys = lerps(r.out_h, r.in_h, r.hs, a.half_pixel);
  const std::vector<Lerp> xs = lerps(r.out_w, r.in_w, r.ws, a.half_pixel);
  dispatch<BilinearTypes>(x.dtype(), "ResizeBilinear", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    float* o = out.data<float>();
    const int64_t C = r.channels;
    for (int64_t b = 0; b < r.batch; ++b)
      for (int64_t y = 0; y < r.out_h; ++y) {
        const Lerp& ly = ys[static_cast<size_t>(y)];
        const T* top = in + ((b * r.in_h + ly.lower) * r.in_w) * C;
        const T* bottom = in + ((b * r.in_h + ly.upper) * r.in_w) * C;
        for (int64_t xo = 0; xo < r.out_w; ++xo) {
          const Lerp& lx = xs[static_cast<size_t>(xo)];
          for (int64_t c = 0; c < C; ++c) {
            const float tl = static_cast<float>(top[lx.lower * C + c]), tr = static_cast<float>(top[lx.upper * C + c]);
            const float bl = static_cast<float>(bottom[lx.lower * C + c]),
                        br = static_cast<float>(bottom[lx.upper * C + c]);
            const float t = tl + (tr - tl) * lx.lerp;
            const float bo = bl + (br - bl) * lx.lerp;
            *o++ = t + (bo - t) * ly.lerp;
          }
        }
      }
  });
}

void resize_bilinear_grad_kernel(KernelContext& ctx) {
  const ResizeAttrs a = resize_attrs(ctx);
  const Tensor& g = input(ctx, 0);
  const Tensor& orig = input(ctx, 1);
  if (g.shape().rank() != 4) fail("input_grad must be 4-dimensional" + shape_str(g.shape()));
  if (g.dtype() != DType::Float) fail("input_grad must be of type float" + dtype_name(g.dtype()));
  if (orig.shape().rank() != 4) fail("original_image must be 4-dimensional" + shape_str(orig.shape()));
  const int64_t batch = g.shape().dim(0), channels = g.shape().dim(3);
  const int64_t rh = g.shape().dim(1), rw = g.shape().dim(2);
  const int64_t oh = orig.shape().dim(1), ow = orig.shape().dim(2);
  if (rh <= 0 || rw <= 0) fail("resized dimensions must be positive");
  if (oh > kInt32Max || ow > kInt32Max) fail("original sizes must be between 0 and max int32");
  Tensor& out = ctx.allocate_output(0, orig.dtype(), Shape{batch, oh, ow, channels});
  const float hs = resize_scale(oh, rh, a.align), ws = resize_scale(ow, rw, a.align);
  dispatch<BilinearGradTypes>(orig.dtype(), "ResizeBilinearGrad", [&](auto tag) {
    using T = decltype(tag);
    using A = accumulator_t<T>;
    std::vector<A> acc(static_cast<size_t>(out.num_elements()), A(0));
    if (!acc.empty()) {
      const std::vector<Lerp> ys = lerps(rh, oh, hs, a.half_pixel);
      const std::vector<Lerp> xs = lerps(rw, ow, ws, a.half_pixel);
      const float* gp = g.data<float>();
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t y = 0; y < rh; ++y) {
          const Lerp& ly = ys[static_cast<size_t>(y)];
          A* top = acc.data() + ((b * oh + ly.lower) * ow) * channels;
          A* bottom = acc.data() + ((b * oh + ly.upper) * ow) * channels;
          for (int64_t x = 0; x < rw; ++x) {
            const Lerp& lx = xs[static_cast<size_t>(x)];
            const float iy = 1.0f - ly.lerp, ix = 1.0f - lx.lerp;
            for (int64_t c = 0; c < channels; ++c) {
              const float v = *gp++;
              top[lx.lower * channels + c] += static_cast<A>(v * iy * ix);
              top[lx.upper * channels + c] += static_cast<A>(v * iy * lx.lerp);
              bottom[lx.lower * channels + c] += static_cast<A>(v * ly.lerp * ix);
              bottom[lx.upper * channels + c] += static_cast<A>(v * ly.lerp * lx.lerp);
            }
          }
        }
    }
    T* o = out.data<T>();
    for (size_t i = 0; i < acc.size(); ++i) o[i] = static_cast<T>(acc[i]);
  });
}

// ---- nearest neighbour ----------------------------------------------------------------

std::vector<int64_t> nearest(int64_t out, int64_t in, float scale, const ResizeAttrs& a) {
  std::vector<int64_t> v(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float pos = a.half_pixel ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    int64_t k = std::min<int64_t>(static_cast<int64_t>(a.align ? std::round(pos) : std::floor(pos)), in - 1);
    if (a.half_pixel) k = std::max<int64_t>(k, 0);
    v[static_cast<size_t>(i)] = k;
  }
  return v;
}

void resize_nearest_kernel(KernelContext& ctx) {
  const ResizeAttrs a = resize_attrs(ctx);
  const Resize r = forward_geometry(ctx, a);
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape{r.batch, r.out_h, r.out_w, r.channels});
  if (out.num_elements() == 0) return;
  const std::vector<int64_t> ys = nearest(r.out_h, r.in_h, r.hs, a), xs = nearest(r.out_w, r.in_w, r.ws, a);
  dispatch<NearestTypes>(x.dtype(), "ResizeNearestNeighbor", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* o = out.data<T>();
    for (int64_t b = 0; b < r.batch; ++b)
      for (int64_t y = 0; y < r.out_h; ++y)
        for (int64_t xo = 0; xo < r.out_w; ++xo) {
          const T* src = in + ((b * r.in_h + ys[static_cast<size_t>(y)]) * r.in_w + xs[static_cast<size_t>(xo)]) * r.channels;
          o = std::copy_n(src, r.channels, o);
        }
  });
}

void resize_nearest_grad_kernel(KernelContext& ctx) {
  const ResizeAttrs a = resize_attrs(ctx);
  const Tensor& g = input(ctx, 0);
  if (g.shape().rank() != 4) fail("input must be 4-dimensional" + shape_str(g.shape()));
  // Plain names, not a structured binding: the lambda below reads them (C++20
  // lets lambdas capture bindings, clang 14 does not yet).
  const std::pair<int64_t, int64_t> size = size_input(ctx, 1);
  const int64_t oh = size.first, ow = size.second;
  const int64_t batch = g.shape().dim(0), ih = g.shape().dim(1), iw = g.shape().dim(2), channels = g.shape().dim(3);
  if (ih > kInt32Max || iw > kInt32Max) fail("input sizes must be between 0 and max int32");
  checked_elements("ResizeNearestNeighborGrad", {batch, oh, ow, channels});
  Tensor& out = ctx.allocate_output(0, g.dtype(), Shape{batch, oh, ow, channels});
  dispatch<NearestGradTypes>(g.dtype(), "ResizeNearestNeighborGrad", [&](auto tag) {
    using T = decltype(tag);
    using A = accumulator_t<T>;
    std::vector<A> acc(static_cast<size_t>(out.num_elements()), A(0));
    if (!acc.empty()) {
      const std::vector<int64_t> ys = nearest(ih, oh, resize_scale(oh, ih, a.align), a);
      const std::vector<int64_t> xs = nearest(iw, ow, resize_scale(ow, iw, a.align), a);
      const T* gp = g.data<T>();
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t y = 0; y < ih; ++y)
          for (int64_t x = 0; x < iw; ++x) {
            A* dst = acc.data() + ((b * oh + ys[static_cast<size_t>(y)]) * ow + xs[static_cast<size_t>(x)]) * channels;
            for (int64_t c = 0; c < channels; ++c) dst[c] += static_cast<A>(*gp++);
          }
    }
    T* o = out.data<T>();
    for (size_t i = 0; i < acc.size(); ++i) o[i] = static_cast<T>(acc[i]);
  });
}

// ---- shape functions ------------------------------------------------------------------

Shape rank4(const Shape& s) {
  if (s.rank_known() && s.rank() != 4) fail("Shape must be rank 4 but is rank " + std::to_string(s.rank()));
  return s.rank_known() ? s : unknown_shape(4);
}

// SetOutputToSizedImage: [batch, size[0], size[1], channels].
Shape sized_image(const ShapeContext& ctx, const Shape& in) {
  const Shape& size = ctx.input(1).shape;
  if (size.rank_known() && size.rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(size.rank()));
  if (size.rank_known() && size.dim(0) >= 0 && size.dim(0) != 2)
    fail("Dimension must be 2 but is " + std::to_string(size.dim(0)));
  Shape out = in;
  out.dim(1) = out.dim(2) = -1;
  if (const Tensor* c = ctx.constant_input(1)) {
    if (c->num_elements() != 2) fail("size must have two elements");
    const std::vector<int64_t> v = read_ints(ctx.node().op.c_str(), "size", *c);
    if (v[0] < 0 || v[1] < 0) fail("size must be non-negative, got [" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "]");
    out.dim(1) = v[0], out.dim(2) = v[1];
  }
  return out;
}

void resize_bilinear_shape(ShapeContext& ctx) {
  ctx.set_output(0, DType::Float, sized_image(ctx, rank4(ctx.input(0).shape)));
}
void resize_nearest_shape(ShapeContext& ctx) {
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), sized_image(ctx, rank4(ctx.input(0).shape)));
}
void resize_nearest_grad_shape(ShapeContext& ctx) {
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), sized_image(ctx, rank4(ctx.input(0).shape)));
}
// ResizeBilinearGrad: original_image's shape (TensorFlow's shape function).
void resize_bilinear_grad_shape(ShapeContext& ctx) {
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 1), ctx.input(1).shape);
}

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";
constexpr const char* kResizeT = "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}";

}  // namespace

void register_resize_ops(OpRegistry& r) {
  r.add(OpBuilder("ResizeBilinear")
            .input("images: T")
            .input("size: int32")
            .output("resized_images: float")
            .attr(kResizeT)
            .attr("align_corners: bool = false")
            .attr("half_pixel_centers: bool = false")
            .shape(resize_bilinear_shape)
            .cpu(resize_bilinear_kernel, dtypes_of<BilinearTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("Resizes NHWC images to `size` by bilinear interpolation (float32 output)."));
  r.add(OpBuilder("ResizeBilinearGrad")
            .input("grads: float")
            .input("original_image: T")
            .output("output: T")
            .attr("T: {float, bfloat16, half, double}")
            .attr("align_corners: bool = false")
            .attr("half_pixel_centers: bool = false")
            .shape(resize_bilinear_grad_shape)
            .cpu(resize_bilinear_grad_kernel, dtypes_of<BilinearGradTypes>())
            .no_gradient("TensorFlow registers no gradient for ResizeBilinearGrad")
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("ResizeBilinear's image gradient."));
  r.add(OpBuilder("ResizeNearestNeighbor")
            .input("images: T")
            .input("size: int32")
            .output("resized_images: T")
            .attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
            .attr("align_corners: bool = false")
            .attr("half_pixel_centers: bool = false")
            .shape(resize_nearest_shape)
            .cpu(resize_nearest_kernel, dtypes_of<NearestTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("Resizes NHWC images to `size` by nearest-neighbour sampling."));
  r.add(OpBuilder("ResizeNearestNeighborGrad")
            .input("grads: T")
            .input("size: int32")
            .output("output: T")
            .attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
            .attr("align_corners: bool = false")
            .attr("half_pixel_centers: bool = false")
            .shape(resize_nearest_grad_shape)
            .cpu(resize_nearest_grad_kernel, dtypes_of<NearestGradTypes>())
            .no_gradient("TensorFlow registers no gradient for ResizeNearestNeighborGrad")
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("ResizeNearestNeighbor's image gradient: each output gradient added to its source pixel."));
}

}  // namespace flowlens::ops
