#include "ops/kernels/nn/conv_common.h"

#include <cstring>
#include <limits>

#include "ops/kernels/nn/conv_onednn.h"
#include "ops/kernels/nn/conv_reference.h"
#include "ops/framework/op_helpers.h"
#include "tensor/float16.h"

namespace flowlens::ops::conv {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
// window_geometry's bound: sizes past it are refused before any arithmetic.
constexpr int64_t kMaxDim = int64_t{1} << 40;

const std::vector<int64_t>& int_list(const AttrReader& attrs, const char* name) { return attrs.list(name).i; }

std::vector<int64_t> explicit_paddings_of(const AttrReader& attrs) {
  const AttrValue* v = attrs.find("explicit_paddings");
  if (!v) return {};
  return int_list(attrs, "explicit_paddings");
}

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

int64_t checked_product(std::initializer_list<int64_t> sizes, const char* what) {
  int64_t n = 1;
  for (int64_t s : sizes)
    if (s < 0 || __builtin_mul_overflow(n, s, &n)) fail(std::string(what) + " is too large");
  return n;
}

void check_valid_padding(Padding padding, const std::vector<int64_t>& explicit_paddings, DataFormat format) {
  if (padding != Padding::Explicit) {
    if (!explicit_paddings.empty())
      fail("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    return;
  }
  if (explicit_paddings.size() != 8)
    fail("explicit_paddings attribute must contain 8 values, but got: " + str(static_cast<int64_t>(explicit_paddings.size())));
  for (int64_t v : explicit_paddings)
    if (v < 0) fail("All elements of explicit_paddings must be nonnegative");
  const Dims4 d = dims_of(format);
  const auto at = [&](int i) { return explicit_paddings[static_cast<size_t>(i)]; };
  if (at(2 * d.n) != 0 || at(2 * d.n + 1) != 0 || at(2 * d.c) != 0 || at(2 * d.c + 1) != 0)
    fail("Nonzero explicit padding in the batch or depth dimensions is not supported");
}

namespace {

// The padding attr and, for EXPLICIT, the spatial amounts of explicit_paddings
// (checked as TensorFlow's CheckValidPadding does).
void read_padding(const AttrReader& attrs, const Dims4& d, Params& p) {
  p.padding = padding_from(attrs.string("padding"));
  const std::vector<int64_t> explicit_paddings = explicit_paddings_of(attrs);
  check_valid_padding(p.padding, explicit_paddings, p.format);
  if (p.padding == Padding::Explicit) {
    p.pad_top = explicit_paddings[static_cast<size_t>(2 * d.h)];
    p.pad_bottom = explicit_paddings[static_cast<size_t>(2 * d.h + 1)];
    p.pad_left = explicit_paddings[static_cast<size_t>(2 * d.w)];
    p.pad_right = explicit_paddings[static_cast<size_t>(2 * d.w + 1)];
  }
}

}  // namespace

Params read_params(const AttrReader& attrs) {
  Params p;
  const std::string& format = attrs.string("data_format");
  if (format != "NHWC" && format != "NCHW") fail("Invalid data format");
  p.format = data_format_from(format);
  const std::vector<int64_t>& dilations = int_list(attrs, "dilations");
  const std::vector<int64_t>& strides = int_list(attrs, "strides");
  if (dilations.size() != 4) fail("Sliding window dilations field must specify 4 dimensions");
  if (strides.size() != 4) fail("Sliding window strides field must specify 4 dimensions");
  const Dims4 d = dims_of(p.format);
  const auto at = [](const std::vector<int64_t>& v, int i) { return v[static_cast<size_t>(i)]; };
  if (at(strides, d.n) != 1 || at(strides, d.c) != 1)
    fail("Current implementation does not yet support strides in the batch and depth dimensions.");
  if (at(strides, d.h) <= 0 || at(strides, d.w) <= 0) fail("Row and column strides should be larger than 0.");
  if (at(dilations, d.n) != 1 || at(dilations, d.c) != 1)
    fail("Current implementation does not yet support dilations in the batch and depth dimensions.");
  if (at(dilations, d.h) <= 0 || at(dilations, d.w) <= 0) fail("Dilated rates should be larger than 0.");
  p.stride_rows = at(strides, d.h);
  p.stride_cols = at(strides, d.w);
  p.dilation_rows = at(dilations, d.h);
  p.dilation_cols = at(dilations, d.w);
  read_padding(attrs, d, p);
  return p;
}

// ---- geometry ----------------------------------------------------------------------------

Shape Geometry::input_shape() const { return shape_in(format, batch, in_rows, in_cols, in_depth); }
Shape Geometry::output_shape() const { return shape_in(format, batch, out_rows, out_cols, out_depth); }
Shape Geometry::filter_shape() const { return Shape{filter_rows, filter_cols, filter_depth, out_depth}; }

double Geometry::macs() const {
  return static_cast<double>(batch) * static_cast<double>(out_rows * out_cols) * static_cast<double>(out_depth) *
         static_cast<double>(filter_rows * filter_cols * filter_depth);
}

std::string Geometry::key() const {
  std::string k = format == DataFormat::NHWC ? "nhwc" : "nchw";
  for (int64_t v : {batch, in_rows, in_cols, in_depth, filter_rows, filter_cols, filter_depth, out_depth, groups, out_rows,
                    out_cols, stride_rows, stride_cols, dilation_rows, dilation_cols, pad_top, pad_bottom, pad_left,
                    pad_right})
    k += "," + str(v);
  return k;
}

Nhwc nhwc_of(const Shape& s, DataFormat format) {
  const Dims4 d = dims_of(format);
  return {s.dim(d.n), s.dim(d.h), s.dim(d.w), s.dim(d.c)};
}

Shape shape_in(DataFormat format, int64_t n, int64_t h, int64_t w, int64_t c) {
  return format == DataFormat::NHWC ? Shape{n, h, w, c} : Shape{n, c, h, w};
}

Geometry make_geometry(const Params& p, Nhwc input, const std::vector<int64_t>& filter) {
  for (int64_t d : filter)
    if (d >= kIntMax) fail("filter too large");
  if (input.c >= kIntMax) fail("Input depth too large");
  Geometry g;
  g.format = p.format;
  g.filter_rows = filter[0];
  g.filter_cols = filter[1];
  g.filter_depth = filter[2];
  g.out_depth = filter[3];
  if (g.filter_depth <= 0) fail("filter depth must be stricly positive, got " + str(g.filter_depth));
  if (input.c == 0 || input.c % g.filter_depth != 0)
    fail("input depth must be evenly divisible by filter depth: " + str(input.c) + " vs " + str(g.filter_depth));
  g.groups = input.c / g.filter_depth;
  if (g.out_depth % g.groups != 0)
    fail("Depth of output (" + str(g.out_depth) + ") is not a multiple of the number of groups (" + str(g.groups) + ")");
  if (input.h >= kIntMax) fail("Input rows too large");
  if (input.w >= kIntMax) fail("Input cols too large");
  if (input.n >= kIntMax) fail("batch is too large");
  g.batch = input.n;
  g.in_rows = input.h;
  g.in_cols = input.w;
  g.in_depth = input.c;
  g.stride_rows = p.stride_rows;
  g.stride_cols = p.stride_cols;
  g.dilation_rows = p.dilation_rows;
  g.dilation_cols = p.dilation_cols;
  const WindowedSize rows =
      windowed_output_size(g.in_rows, g.filter_rows, g.dilation_rows, g.stride_rows, p.padding, p.pad_top, p.pad_bottom);
  const WindowedSize cols =
      windowed_output_size(g.in_cols, g.filter_cols, g.dilation_cols, g.stride_cols, p.padding, p.pad_left, p.pad_right);
  g.out_rows = rows.output;
  g.out_cols = cols.output;
  g.pad_top = rows.pad_before;
  g.pad_bottom = rows.pad_after;
  g.pad_left = cols.pad_before;
  g.pad_right = cols.pad_after;
  return g;
}

Geometry backprop_geometry(const std::string& label, const Params& p, const Shape& input, const Shape& filter,
                           const Shape& out_backprop) {
  if (input.rank() != 4) fail(label + ": input must be 4-dimensional");
  if (filter.rank() != 4) fail(label + ": filter must be 4-dimensional");
  if (out_backprop.rank() != 4) fail(label + ": out_backprop must be 4-dimensional");
  const Nhwc in = nhwc_of(input, p.format), out = nhwc_of(out_backprop, p.format);
  if (in.n != out.n)
    fail(label + ": input and out_backprop must have the same batch size. Input batch: " + str(in.n) +
         ", outbackprop batch: " + str(out.n) + ", batch_dim: 0");
  Geometry g;
  g.format = p.format;
  g.batch = in.n;
  g.in_rows = in.h;
  g.in_cols = in.w;
  g.in_depth = in.c;
  g.filter_rows = filter.dim(0);
  g.filter_cols = filter.dim(1);
  g.filter_depth = filter.dim(2);
  g.out_depth = filter.dim(3);
  if (g.filter_depth <= 0) fail(label + ": filter depth must be strictly greated than zero");
  if (in.c == 0 || in.c % g.filter_depth != 0) fail(label + ": input depth must be evenly divisible by filter depth");
  if (g.out_depth != out.c) fail(label + ": filter and out_backprop must have the same out_depth");
  g.groups = in.c / g.filter_depth;
  if (g.out_depth % g.groups != 0)
    fail(label + ": Depth of output (" + str(g.out_depth) + ") is not a multiple of the number of groups (" +
         str(g.groups) + ")");
  g.stride_rows = p.stride_rows;
  g.stride_cols = p.stride_cols;
  g.dilation_rows = p.dilation_rows;
  g.dilation_cols = p.dilation_cols;
  const Dims4 d = dims_of(p.format);
  auto spatial = [&](int dim, int64_t input_size, int64_t filter_size, int64_t dilation, int64_t stride,
                     int64_t pad_before, int64_t pad_after, int64_t actual) {
    const WindowedSize w = windowed_output_size(input_size, filter_size, dilation, stride, p.padding, pad_before, pad_after);
    if (w.output != actual)
      fail(label + ": Size of out_backprop doesn't match computed: actual = " + str(actual) + ", computed = " +
           str(w.output) + " spatial_dim: " + str(dim) + " input: " + str(input_size) + " filter: " + str(filter_size) +
           " output: " + str(actual) + " stride: " + str(stride) + " dilation: " + str(dilation));
    return w;
  };
  const WindowedSize rows =
      spatial(d.h, g.in_rows, g.filter_rows, g.dilation_rows, g.stride_rows, p.pad_top, p.pad_bottom, out.h);
  const WindowedSize cols =
      spatial(d.w, g.in_cols, g.filter_cols, g.dilation_cols, g.stride_cols, p.pad_left, p.pad_right, out.w);
  g.out_rows = rows.output;
  g.out_cols = cols.output;
  g.pad_top = rows.pad_before;
  g.pad_bottom = rows.pad_after;
  g.pad_left = cols.pad_before;
  g.pad_right = cols.pad_after;
  return g;
}

// ---- shape functions -------------------------------------------------------------------------

Shape shape_from_shape_input(const ShapeContext& ctx, int i) {
  if (const Tensor* t = ctx.constant_input(i)) {
    if (t->shape().rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(t->shape().rank()));
    return shape_from_tensor(*t);
  }
  const Shape& s = ctx.input(i).shape;
  if (s.rank_known() && s.rank() == 1 && s.dim(0) >= 0 && s.dim(0) <= 64) return unknown_shape(static_cast<int>(s.dim(0)));
  if (s.rank_known() && s.rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(s.rank()));
  return Shape::unknown_rank();
}

void check_rank(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

int64_t inferred_output_size(int64_t input, int64_t window, int64_t dilation, int64_t stride, Padding padding,
                             int64_t pad_before, int64_t pad_after) {
  if (input < 0 || window < 0) return Shape::kUnknownDim;
  if (input > kMaxDim || window > kMaxDim || dilation > kMaxDim || stride > kMaxDim || pad_before > kMaxDim ||
      pad_after > kMaxDim)
    fail("Window geometry out of range (input " + str(input) + ", window " + str(window) + ")");
  if (padding != Padding::Same) {
    const int64_t padded = input + (padding == Padding::Explicit ? pad_before + pad_after : 0);
    const int64_t effective = (window - 1) * dilation + 1;
    if (padded < effective)
      fail("Negative dimension size caused by subtracting " + str(effective) + " from " + str(padded));
  }
  return windowed_output_size(input, window, dilation, stride, padding, pad_before, pad_after).output;
}

Params read_shape_params(const ShapeContext& ctx, const char* what) {
  const AttrReader attrs = ctx.attrs();
  Params p;
  const AttrValue* f = attrs.find("data_format");
  const std::string* format = f ? f->get_if<std::string>() : nullptr;
  const std::string format_str = format ? *format : "NHWC";
  if (format_str != "NHWC" && format_str != "NCHW") fail("Invalid data format string: " + format_str);
  p.format = data_format_from(format_str);
  const bool depthwise = std::string(what) != "Conv2D";
  const std::vector<int64_t>& strides = int_list(attrs, "strides");
  const AttrValue* dv = attrs.find("dilations");
  const std::vector<int64_t> dilations = dv ? int_list(attrs, "dilations") : std::vector<int64_t>{1, 1, 1, 1};
  auto check_strides = [&] {
    if (strides.size() != 4) {
      if (depthwise)
        fail(std::string(what) + " requires the stride attribute to contain 4 values, but got: " + str(static_cast<int64_t>(strides.size())));
      fail(std::string(what) + " on data format " + format_str +
           " requires the stride attribute to contain 4 values, but got: " + str(static_cast<int64_t>(strides.size())));
    }
  };
  auto check_dilations = [&] {
    if (dilations.size() != 4)
      fail(std::string(what) + (depthwise ? " requires the dilations attribute" : " requires the dilation attribute") +
           " to contain 4 values, but got: " + str(static_cast<int64_t>(dilations.size())));
  };
  if (depthwise) {
    check_strides();
    check_dilations();
  } else {
    check_dilations();
    check_strides();
  }
  const Dims4 d = dims_of(p.format);
  p.stride_rows = strides[static_cast<size_t>(d.h)];
  p.stride_cols = strides[static_cast<size_t>(d.w)];
  p.dilation_rows = dilations[static_cast<size_t>(d.h)];
  p.dilation_cols = dilations[static_cast<size_t>(d.w)];
  for (int64_t s : {p.stride_rows, p.stride_cols})
    if (s <= 0) fail("Stride must be > 0, but got " + str(s));
  for (int64_t r : {p.dilation_rows, p.dilation_cols})
    if (r < 1) fail("Dilation rate must be >= 1, but got " + str(r));
  read_padding(attrs, d, p);
  return p;
}

void conv2d_shape(ShapeContext& ctx) {
  const Shape& input = ctx.input(0).shape;
  const Shape& filter = ctx.input(1).shape;
  const Params p = read_shape_params(ctx, "Conv2D");
  check_rank(input, 4);
  check_rank(filter, 4);
  const Nhwc in = input.rank_known() ? nhwc_of(input, p.format) : Nhwc{-1, -1, -1, -1};
  const Shape f = filter.rank_known() ? filter : unknown_shape(4);
  const int64_t filter_depth = f.dim(2), out_depth = f.dim(3);
  if (in.c >= 0 && filter_depth >= 0) {
    if (filter_depth == 0 || in.c == 0 || in.c % filter_depth != 0)
      fail("Depth of input (" + str(in.c) + ") is not a multiple of input depth of filter (" + str(filter_depth) + ")");
    const int64_t groups = in.c / filter_depth;
    if (groups != 1 && out_depth >= 0 && out_depth % groups != 0)
      fail("Depth of output (" + str(out_depth) + ") is not a multiple of the number of groups (" + str(groups) + ")");
  }
  const int64_t rows = inferred_output_size(in.h, f.dim(0), p.dilation_rows, p.stride_rows, p.padding, p.pad_top, p.pad_bottom);
  const int64_t cols = inferred_output_size(in.w, f.dim(1), p.dilation_cols, p.stride_cols, p.padding, p.pad_left, p.pad_right);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), shape_in(p.format, in.n, rows, cols, out_depth));
}

// ---- compute ---------------------------------------------------------------------------------

namespace {

template <class T>
std::vector<float> widen(const Tensor& t) {
  const T* p = t.data<T>();
  std::vector<float> out(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(p[i]);
  return out;
}

template <class T>
void narrow(const std::vector<float>& v, Tensor& t) {
  T* p = t.data<T>();
  for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
}

void zero(Tensor& t) {
  if (t.num_elements() > 0) std::memset(t.raw_data(), 0, t.byte_size());
}

// float32: oneDNN, and the reference where oneDNN offers nothing for the geometry.
void forward_f32(const Geometry& g, const float* x, const float* w, float* y) {
  if (!onednn_forward(g, x, w, y)) reference_forward(g, x, w, y);
}
void backward_data_f32(const Geometry& g, const float* w, const float* dy, float* dx) {
  if (!onednn_backward_data(g, w, dy, dx)) reference_backward_data(g, w, dy, dx);
}
// Chosen by measurement (tests/bench/conv.cpp, batch 8, NHWC, on the shared
// 2-core AVX2 machine this was written on). Timed alone, im2col + sgemm
// computed the filter gradient faster than oneDNN 2.6's jit:avx2
// backward-weights primitive on every ResNet-50 shape but 3-channel conv1
// (e.g. 14x14x256 3x3: 24-68 ms vs 37-92; 7x7x512: 34-55 vs 58-76), but
// in a layer's real sequence, right after oneDNN's input gradient, the
// switch between oneDNN's OpenMP threads and OpenBLAS's spinning ones eats
// most of that: input + filter gradient took 89-112 ms both ways at
// 56x56x64 and 28x28x128, 89-108 vs 99-101 ms at 14x14x256, and 78-83 vs
// 95-96 ms at 7x7x512 (gemm faster), while 3-channel conv1 lost (158-267
// vs 113-152 ms). So GEMM takes the filter gradient of ungrouped NHWC
// convolutions with 256 or more input channels; oneDNN everything else.
// The forward and input-gradient passes stay on oneDNN, which won or tied
// everywhere (the input gradient by 1.2-2x).
bool filter_gradient_by_gemm(const Geometry& g) {
  return g.format == DataFormat::NHWC && g.groups == 1 && g.filter_depth >= 256;
}
void backward_filter_f32(const Geometry& g, const float* x, const float* dy, float* dw) {
  if (filter_gradient_by_gemm(g) || !onednn_backward_filter(g, x, dy, dw)) reference_backward_filter(g, x, dy, dw);
}

// Runs `f32` on float32 views of a, b (the 16-bit floats widened) into out.
template <class F32, class Ref>
void dispatch_pass(const char* op, const Tensor& a, const Tensor& b, Tensor& out, F32&& f32, Ref&& ref) {
  switch (out.dtype()) {
    case DType::Float: f32(a.data<float>(), b.data<float>(), out.data<float>()); return;
    case DType::Double: ref(a.data<double>(), b.data<double>(), out.data<double>()); return;
    case DType::Int32: ref(a.data<int32_t>(), b.data<int32_t>(), out.data<int32_t>()); return;
    case DType::Half:
    case DType::BFloat16: {
      const bool half = out.dtype() == DType::Half;
      const std::vector<float> fa = half ? widen<float16>(a) : widen<bfloat16>(a);
      const std::vector<float> fb = half ? widen<float16>(b) : widen<bfloat16>(b);
      std::vector<float> fo(static_cast<size_t>(out.num_elements()));
      f32(fa.data(), fb.data(), fo.data());
      if (half) narrow<float16>(fo, out);
      else narrow<bfloat16>(fo, out);
      return;
    }
    default: unsupported_dtype(op, out.dtype());
  }
}

int64_t patch_size(const Geometry& g) { return g.filter_rows * g.filter_cols * g.filter_depth; }

}  // namespace

void forward(const Geometry& g, const Tensor& input, const Tensor& filter, Tensor& output) {
  if (output.num_elements() == 0) return;
  if (g.input_elements() == 0 || patch_size(g) == 0) return zero(output);  // every window is padding, or empty
  dispatch_pass(
      "Conv2D", input, filter, output, [&](const float* x, const float* w, float* y) { forward_f32(g, x, w, y); },
      [&](const auto* x, const auto* w, auto* y) { reference_forward(g, x, w, y); });
}

void backward_data(const Geometry& g, const Tensor& filter, const Tensor& out_backprop, Tensor& in_backprop) {
  if (in_backprop.num_elements() == 0) return;
  if (g.output_elements() == 0 || patch_size(g) == 0) return zero(in_backprop);
  dispatch_pass(
      "Conv2DBackpropInput", filter, out_backprop, in_backprop,
      [&](const float* w, const float* dy, float* dx) { backward_data_f32(g, w, dy, dx); },
      [&](const auto* w, const auto* dy, auto* dx) { reference_backward_data(g, w, dy, dx); });
}

void backward_filter(const Geometry& g, const Tensor& input, const Tensor& out_backprop, Tensor& filter_backprop) {
  if (filter_backprop.num_elements() == 0) return;
  if (g.output_elements() == 0 || g.input_elements() == 0) return zero(filter_backprop);
  dispatch_pass(
      "Conv2DBackpropFilter", input, out_backprop, filter_backprop,
      [&](const float* x, const float* dy, float* dw) { backward_filter_f32(g, x, dy, dw); },
      [&](const auto* x, const auto* dy, auto* dw) { reference_backward_filter(g, x, dy, dw); });
}

}  // namespace flowlens::ops::conv
