#include "ops/kernels/nn/pool_args.h"

#include "ops/framework/op_helpers.h"

namespace flowlens::ops::pool {
namespace {

std::vector<int64_t> window_input(const KernelContext& ctx, int i, const char* what) {
  return read_ints(ctx.node().op.c_str(), what, input(ctx, i));
}

void check_rank4(const Tensor& t, const char* what) {
  if (t.shape().rank() != 4) fail(std::string(what) + " must be 4-dimensional, got shape " + shape_str(t.shape()));
}

}  // namespace

Shape make_shape(DataFormat f, int64_t n, int64_t h, int64_t w, int64_t c) {
  return f == DataFormat::NHWC ? Shape{n, h, w, c} : Shape{n, c, h, w};
}
Shape output_shape(const Pool& p) { return make_shape(p.format, p.n, p.oh, p.ow, p.c); }

PoolAttrs read_attrs(const AttrReader& r, const std::vector<int64_t>* ksize, const std::vector<int64_t>* strides) {
  PoolAttrs a;
  a.from_inputs = ksize != nullptr;
  a.ksize = ksize ? *ksize : r.list("ksize").i;
  a.strides = strides ? *strides : r.list("strides").i;
  a.padding = padding_from(r.string("padding"));
  if (const AttrValue* e = r.find("explicit_paddings"))
    if (const AttrList* l = e->get_if<AttrList>()) a.explicit_paddings = l->i;
  a.format = data_format_from(r.string("data_format"));
  return a;
}

// TensorFlow's PoolParameters checks, over a possibly partial rank-4 input.
Pool pool_geometry(const PoolAttrs& a, const Shape& input, Family family) {
  if (a.ksize.size() != 4) fail("Sliding window ksize field must specify 4 dimensions");
  if (a.strides.size() != 4) fail("Sliding window stride field must specify 4 dimensions");
  for (size_t i = 0; i < 4; ++i)
    if (a.ksize[i] <= 0) {
      if (a.from_inputs) fail("ksize must be a positive int32 value, got:" + std::to_string(a.ksize[i]));
      fail("Sliding window ksize for dimension " + std::to_string(i) + " was zero.");
    }
  const Dims4 d = dims_of(a.format);
  Pool p;
  p.format = a.format;
  p.kh = a.ksize[static_cast<size_t>(d.h)];
  p.kw = a.ksize[static_cast<size_t>(d.w)];
  p.sh = a.strides[static_cast<size_t>(d.h)];
  p.sw = a.strides[static_cast<size_t>(d.w)];
  if (a.ksize[static_cast<size_t>(d.n)] != 1 || a.strides[static_cast<size_t>(d.n)] != 1)
    fail("Pooling is not yet supported on the batch dimension.");
  if (a.ksize[static_cast<size_t>(d.c)] != 1) {
    if (family == Family::Avg) fail("Non-spatial pooling is not yet supported. Volunteers? :)");
    if (p.kh != 1 || p.kw != 1)
      fail("MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
    fail("Depthwise max pooling (a ksize above 1 on the depth dimension) is not supported");
  }
  // TensorFlow's max-pooling kernel ignores a depth stride that its shape
  // function divides the depth by; refusing it keeps both honest.
  if (family == Family::Max && a.strides[static_cast<size_t>(d.c)] != 1)
    fail("Pooling with a stride on the depth dimension is not supported, got " +
         std::to_string(a.strides[static_cast<size_t>(d.c)]));
  if (p.sh <= 0 || p.sw <= 0)
    fail("Stride must be > 0, but got " + std::to_string(std::min(p.sh, p.sw)));
  int64_t et = 0, eb = 0, el = 0, er = 0;
  if (a.padding == Padding::Explicit) {
    const auto& e = a.explicit_paddings;
    if (e.size() != 8)
      fail("explicit_paddings attribute must contain 8 values, but got: " + std::to_string(e.size()));
    for (int64_t v : e)
      if (v < 0) fail("All elements of explicit_paddings must be nonnegative, got " + std::to_string(v));
    auto at = [&](int dim, int side) { return e[static_cast<size_t>(2 * dim + side)]; };
    if (at(d.n, 0) || at(d.n, 1) || at(d.c, 0) || at(d.c, 1))
      fail("Nonzero explicit padding in the batch or depth dimensions is not supported");
    et = at(d.h, 0), eb = at(d.h, 1), el = at(d.w, 0), er = at(d.w, 1);
    if (et >= p.kh || eb >= p.kh || el >= p.kw || er >= p.kw)
      fail("Explicit padding (" + std::to_string(et) + ", " + std::to_string(eb) + ", " + std::to_string(el) + ", " +
           std::to_string(er) + ") must be smaller than the window (" + std::to_string(p.kh) + "x" +
           std::to_string(p.kw) + ")");
  } else if (!a.explicit_paddings.empty()) {
    fail("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  }
  const bool known = input.rank_known();
  p.n = known ? input.dim(d.n) : -1;
  p.h = known ? input.dim(d.h) : -1;
  p.w = known ? input.dim(d.w) : -1;
  p.c = known ? input.dim(d.c) : -1;
  p.oh = p.ow = -1;
  if (p.h >= 0) {
    const WindowedSize s = windowed_output_size(p.h, p.kh, 1, p.sh, a.padding, et, eb);
    p.oh = s.output, p.pt = s.pad_before, p.pb = s.pad_after;
  }
  if (p.w >= 0) {
    const WindowedSize s = windowed_output_size(p.w, p.kw, 1, p.sw, a.padding, el, er);
    p.ow = s.output, p.pl = s.pad_before, p.pr = s.pad_after;
  }
  if (p.n >= 0 && p.c >= 0 && p.oh >= 0 && p.ow >= 0) checked_elements("pooling output", output_shape(p).dims());
  return p;
}

Pool forward_geometry(const KernelContext& ctx, Family family) {
  const Tensor& x = input(ctx, 0);
  const bool v2 = ctx.node().op == "MaxPoolV2";
  std::vector<int64_t> k, s;
  if (v2) k = window_input(ctx, 1, "ksize"), s = window_input(ctx, 2, "strides");
  const PoolAttrs a = read_attrs(ctx.attrs(), v2 ? &k : nullptr, v2 ? &s : nullptr);
  check_rank4(x, "tensor_in");
  return pool_geometry(a, x.shape(), family);
}

Pool avg_pool_grad_geometry(const KernelContext& ctx) {
  const Tensor& shape_t = input(ctx, 0);
  const Tensor& grad = input(ctx, 1);
  if (shape_t.shape().rank() != 1 || shape_t.num_elements() != 4)
    fail("out_backprop must be 1-dimensional and 4 elements");
  check_rank4(grad, "out_backprop");
  const std::vector<int64_t> dims = read_ints("AvgPoolGrad", "orig_input_shape", shape_t);
  checked_elements("AvgPoolGrad", dims);
  const PoolAttrs a = read_attrs(ctx.attrs(), nullptr, nullptr);
  const Pool p = pool_geometry(a, Shape(dims), Family::Avg);
  if (!(grad.shape() == output_shape(p)))
    fail("Expected grad shape to be " + shape_str(output_shape(p)) + ", but got " + shape_str(grad.shape()));
  return p;
}

// MaxPoolGrad / MaxPoolGradV2 / MaxPoolGradGrad / MaxPoolGradGradV2: orig_input,
// orig_output, grad (and ksize, strides for the V2 forms).
Pool max_pool_grad_geometry(const KernelContext& ctx, const char* grad_name) {
  const Tensor& in = input(ctx, 0);
  const Tensor& out = input(ctx, 1);
  const Tensor& grad = input(ctx, 2);
  const std::string& op = ctx.node().op;
  const bool v2 = op.ends_with("V2");
  std::vector<int64_t> k, s;
  if (v2) k = window_input(ctx, 3, "ksize"), s = window_input(ctx, 4, "strides");
  const PoolAttrs a = read_attrs(ctx.attrs(), v2 ? &k : nullptr, v2 ? &s : nullptr);
  check_rank4(in, "tensor_in");
  check_rank4(out, "tensor_out");
  check_rank4(grad, grad_name);
  check_same_dtype(op, in.dtype(), out.dtype());
  check_same_dtype(op, in.dtype(), grad.dtype());
  const Pool p = pool_geometry(a, in.shape(), Family::Max);
  if (!(out.shape() == output_shape(p)))
    fail("Expected orig_output shape to be " + shape_str(output_shape(p)) + ", but got " + shape_str(out.shape()));
  return p;
}

}  // namespace flowlens::ops::pool
