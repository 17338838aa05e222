// Padding: Pad (zeros), PadV2 (a constant), MirrorPad (REFLECT leaves the
// edge out of the mirror, SYMMETRIC repeats it) and MirrorPadGrad (folds a
// padded gradient back onto the interior).
#include "ops/kernels/array/array_util.h"
#include "ops/kernels/array/pad_args.h"

namespace flowlens::ops {
namespace {

struct Padding {
  int64_t before = 0, after = 0;
};

// The paddings matrix [rank, 2], checked against the input as the kernels do.
std::vector<Padding> read_paddings(const Tensor& x, const Tensor& paddings, int max_rank, const char* sep) {
  const int rank = x.shape().rank();
  if (rank > max_rank)
    fail("inputs rank not in [0," + std::to_string(max_rank) + "]: " + std::to_string(rank));
  const Shape& ps = paddings.shape();
  if (ps.rank() != 2 || ps.dim(1) != 2) fail("paddings must be a matrix with 2 columns: " + shape_str(ps));
  if (ps.dim(0) != rank)
    fail("The first dimension of paddings must be the rank of inputs" + shape_str(ps) + sep + shape_str(x.shape()));
  const std::vector<int64_t> v = read_ints("Pad", "paddings", paddings);
  std::vector<Padding> out(static_cast<size_t>(rank));
  for (size_t d = 0; d < out.size(); ++d) out[d] = {v[2 * d], v[2 * d + 1]};
  return out;
}

// ---- Pad / PadV2 -----------------------------------------------------------------

}  // namespace

PadArgs pad_args(const KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const std::vector<Padding> pads = read_paddings(x, input(ctx, 1), 8, ", ");
  PadArgs args;
  if (ctx.num_inputs() == 3) {
    args.constant = &input(ctx, 2);
    if (args.constant->shape().rank() != 0)
      fail("constant_values must be a scalar. Found: " + shape_str(args.constant->shape()));
    if (args.constant->dtype() != x.dtype())
      fail("PadV2: constant_values must have the input's dtype, got " + dtype_name(args.constant->dtype()));
  }
  for (size_t d = 0; d < pads.size(); ++d) {
    const auto [b, a] = pads[d];
    if (b < 0 || a < 0) fail("Paddings must be non-negative: " + std::to_string(b) + " " + std::to_string(a));
    const std::vector<int64_t> parts{b, x.shape().dim(static_cast<int>(d)), a};
    int64_t size = 0;
    for (int64_t p : parts) {
      if (p > INT64_MAX - size) fail("Pad: padded dimension " + std::to_string(d) + " overflows int64");
      size += p;
    }
    args.dims.push_back(size);
    args.before.push_back(b);
  }
  args.adds_nothing = checked_elements("Pad", args.dims) == x.num_elements();
  return args;
}

namespace {

void pad_kernel(KernelContext& ctx) {
  const PadArgs args = pad_args(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor* constant = args.constant;
  const std::vector<int64_t>& dims = args.dims;
  if (args.adds_nothing) {  // nothing to add (or nothing at all): the input, reshaped
    ctx.set_output(0, x.reshaped(Shape(dims)));
    return;
  }
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(dims));
  const std::vector<int64_t> out_strides = strides_of(dims);
  int64_t base = 0;
  for (size_t d = 0; d < dims.size(); ++d) base += args.before[d] * out_strides[d];
  // Each innermost row of x lands at its padded position.
  std::vector<int64_t> rows = x.shape().dims();
  const int64_t width = rows.empty() ? 1 : rows.back();
  if (!rows.empty()) rows.pop_back();
  const std::vector<int64_t> row_strides(out_strides.begin(), out_strides.end() - (out_strides.empty() ? 0 : 1));
  dispatch_element(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using E = decltype(tag);
    E* o = elements<E>(out);
    std::fill_n(o, out.num_elements(), constant ? elements<E>(*constant)[0] : E{});
    const E* in = elements<E>(x);
    if (x.num_elements() == 0) return;
    for_each_mapped(rows, row_strides, base, [&](int64_t r, int64_t at) { std::copy_n(in + r * width, width, o + at); });
  });
}

// PadShapeFn (MirrorPad's too): paddings [rank, 2]; with known values each
// dim grows by its padding.
void pad_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  const Shape& ps = ctx.input(1).shape;
  with_rank(ps, 2);
  if (ps.rank_known() && ps.dim(1) >= 0 && ps.dim(1) != 2)
    fail("Dimension must be 2 but is " + std::to_string(ps.dim(1)));
  int64_t n = ps.rank_known() ? ps.dim(0) : -1;
  if (n >= 0) with_rank(in, static_cast<int>(n));
  else if (in.rank_known()) n = in.rank();
  const Tensor* p = ctx.constant_input(1);
  if (!p) {
    ctx.set_output(0, t, n >= 0 ? unknown_shape(static_cast<int>(n)) : Shape::unknown_rank());
    return;
  }
  with_rank(in, static_cast<int>(p->shape().dim(0)));
  const std::vector<int64_t> v = read_ints("Pad", "paddings", *p);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < p->shape().dim(0); ++d) {
    const int64_t b = v[static_cast<size_t>(2 * d)], a = v[static_cast<size_t>(2 * d + 1)];
    if (b < 0 || a < 0) fail("Paddings must be non-negative");
    const int64_t size = in.rank_known() ? in.dim(static_cast<int>(d)) : -1;
    dims.push_back(size < 0 ? Shape::kUnknownDim : size + b + a);
  }
  ctx.set_output(0, t, Shape(std::move(dims)));
}

// ---- MirrorPad / MirrorPadGrad ----------------------------------------------------------

// 1 for REFLECT (the edge is not repeated), 0 for SYMMETRIC.
int64_t mirror_offset(const AttrReader& attrs) {
  const std::string& mode = attrs.string("mode");
  if (mode == "REFLECT") return 1;
  if (mode == "SYMMETRIC") return 0;
  fail("mode must be either REFLECT or SYMMETRIC.");
}

// The limits on one dimension's padding; `size` is the unpadded size.
void check_mirror(int64_t b, int64_t a, int64_t size, int64_t offset, bool grad) {
  const std::string sep = grad ? ", " : " ";
  if (b < 0 || a < 0)
    fail(std::string(grad ? "Paddings" : "paddings") + " must be non-negative: " + std::to_string(b) + sep +
         std::to_string(a));
  const std::string what = grad ? "the output dimension size: " : "the dimension size: ";
  const std::string pair = std::to_string(b) + ", " + std::to_string(a);
  if (offset == 0 && (b > size || a > size))
    fail("paddings must be no greater than " + what + pair + " greater than " + std::to_string(size));
  if (offset == 1 && (b >= size || a >= size))
    fail("paddings must be less thanthan " + what + pair + " not less than " + std::to_string(size));
}

// Index into the unpadded dim of size n for padded index p.
int64_t mirror_source(int64_t p, int64_t before, int64_t n, int64_t offset) {
  int64_t i = p - before;
  if (i < 0) i = -i - 1 + offset;
  else if (i >= n) i = 2 * n - 1 - i - offset;
  return i;
}

void mirror_pad_kernel(KernelContext& ctx) {
  const MirrorPadPlan plan = mirror_pad_plan(ctx);
  const Tensor& x = ctx.input(0);
  if (plan.dims.empty()) {
    ctx.set_output(0, x);
    return;
  }
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(plan.dims));
  const auto rank = plan.dims.size();
  dispatch_element(x.dtype(), "MirrorPad", [&](auto tag) {
    using E = decltype(tag);
    const E* in = elements<E>(x);
    E* o = elements<E>(out);
    std::vector<int64_t> idx(rank, 0);
    for (int64_t k = 0, n = out.num_elements(); k < n; ++k) {
      int64_t at = 0;
      for (size_t d = 0; d < rank; ++d) at += plan.source[d][static_cast<size_t>(idx[d])];
      o[k] = in[at];
      for (size_t d = rank; d-- > 0 && ++idx[d] == plan.dims[d];) idx[d] = 0;
    }
  });
}

// Folds the padded borders onto the interior one dimension after another,
// left border then right, each sum rounded to T (TensorFlow's order).
void mirror_pad_grad_kernel(KernelContext& ctx) {
  const Tensor& g = input(ctx, 0);
  const int64_t offset = mirror_offset(ctx.attrs());
  const std::vector<Padding> pads = read_paddings(g, input(ctx, 1), 5, ", ");
  const int rank = g.shape().rank();
  const std::vector<int64_t>& in_dims = g.shape().dims();
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const auto [b, a] = pads[static_cast<size_t>(d)];
    const int64_t size = in_dims[static_cast<size_t>(d)] - b - a;
    check_mirror(b, a, size, offset, true);
    dims[static_cast<size_t>(d)] = size;
  }
  if (rank == 0) {
    ctx.set_output(0, g);
    return;
  }
  Tensor& out = ctx.allocate_output(0, g.dtype(), Shape(dims));
  const std::vector<int64_t> strides = strides_of(in_dims);
  dispatch<RealTypes>(g.dtype(), "MirrorPadGrad", [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> buf(g.values<T>().begin(), g.values<T>().end());
    for (int d = 0; d < rank; ++d) {
      // Plain variables, not a structured binding: clang 14 cannot capture one.
      const int64_t b = pads[static_cast<size_t>(d)].before, a = pads[static_cast<size_t>(d)].after;
      const int64_t n = in_dims[static_cast<size_t>(d)], s = strides[static_cast<size_t>(d)];
      std::vector<int64_t> lines = in_dims;  // every line along dim d
      lines[static_cast<size_t>(d)] = 1;
      for_each_mapped(lines, strides, 0, [&](int64_t, int64_t start) {
        auto at = [&](int64_t p) -> T& { return buf[static_cast<size_t>(start + p * s)]; };
        for (int64_t t = 0; t < b; ++t) at(b + offset + t) = static_cast<T>(at(b + offset + t) + at(b - 1 - t));
        for (int64_t t = 0; t < a; ++t)
          at(n - 2 * a - offset + t) = static_cast<T>(at(n - 2 * a - offset + t) + at(n - 1 - t));
      });
    }
    int64_t base = 0;
    for (int d = 0; d < rank; ++d) base += pads[static_cast<size_t>(d)].before * strides[static_cast<size_t>(d)];
    T* o = out.data<T>();
    for_each_mapped(dims, strides, base, [&](int64_t i, int64_t j) { o[i] = buf[static_cast<size_t>(j)]; });
  });
}

void mirror_pad_grad_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& ps = ctx.input(1).shape;
  with_rank(ps, 2);
  if (!ps.rank_known() || ps.dim(0) < 0) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const int rank = static_cast<int>(ps.dim(0));
  const Shape& in = ctx.input(0).shape;
  with_rank(in, rank);
  if (ps.dim(1) >= 0 && ps.dim(1) != 2) fail("Dimension must be 2 but is " + std::to_string(ps.dim(1)));
  const Tensor* p = ctx.constant_input(1);
  if (!p) {
    ctx.set_output(0, t, unknown_shape(rank));
    return;
  }
  const std::vector<int64_t> v = read_ints("MirrorPadGrad", "paddings", *p);
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    const int64_t b = v[static_cast<size_t>(2 * d)], a = v[static_cast<size_t>(2 * d + 1)];
    if (b < 0 || a < 0) fail("Paddings must be non-negative");
    const int64_t size = in.rank_known() ? in.dim(d) : -1;
    if (size >= 0 && size - (b + a) < 0)
      fail("Negative dimension size caused by subtracting " + std::to_string(b + a) + " from " + std::to_string(size));
    dims.push_back(size < 0 ? Shape::kUnknownDim : size - (b + a));
  }
  ctx.set_output(0, t, Shape(std::move(dims)));
}

}  // namespace

MirrorPadPlan mirror_pad_plan(const KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const int64_t offset = mirror_offset(ctx.attrs());
  const std::vector<Padding> pads = read_paddings(x, input(ctx, 1), 5, ", ");
  const int rank = x.shape().rank();
  MirrorPadPlan plan;
  for (int d = 0; d < rank; ++d) {
    const auto [b, a] = pads[static_cast<size_t>(d)];
    check_mirror(b, a, x.shape().dim(d), offset, false);
    plan.dims.push_back(b + x.shape().dim(d) + a);
  }
  if (rank == 0) return plan;
  checked_elements("MirrorPad", plan.dims);
  const std::vector<int64_t> in_strides = strides_of(x.shape().dims());
  plan.source.resize(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const auto du = static_cast<size_t>(d);
    for (int64_t p = 0; p < plan.dims[du]; ++p)
      plan.source[du].push_back(mirror_source(p, pads[du].before, x.shape().dim(d), offset) * in_strides[du]);
  }
  return plan;
}

void register_pad_ops(OpRegistry& r) {
  const std::vector<DType> all = pod_string_dtypes();
  for (bool v2 : {false, true}) {
    OpBuilder b(v2 ? "PadV2" : "Pad");
    b.input("input: T").input("paddings: Tpaddings");
    if (v2) b.input("constant_values: T");
    r.add(b.output("output: T")
              .attr("T: type")
              .attr("Tpaddings: {int32, int64} = DT_INT32")
              .shape(pad_shape)
              .cpu(pad_kernel, all)
              .category("array")
              .doc(v2 ? "Pads with constant_values: paddings[d] = [before, after] for each dimension d."
                      : "Pads with zeros: paddings[d] = [before, after] for each dimension d."));
  }
  r.add(OpBuilder("MirrorPad")
            .input("input: T")
            .input("paddings: Tpaddings")
            .output("output: T")
            .attr("T: type")
            .attr("Tpaddings: {int32, int64} = DT_INT32")
            .attr("mode: {'REFLECT', 'SYMMETRIC'}")
            .shape(pad_shape)
            .cpu(mirror_pad_kernel, pod_dtypes())
            .category("array")
            .doc("Pads with a mirror of the input (REFLECT without the edge, SYMMETRIC with it)."));
  r.add(OpBuilder("MirrorPadGrad")
            .input("input: T")
            .input("paddings: Tpaddings")
            .output("output: T")
            .attr("T: type")
            .attr("Tpaddings: {int32, int64} = DT_INT32")
            .attr("mode: {'REFLECT', 'SYMMETRIC'}")
            .shape(mirror_pad_grad_shape)
            .cpu(mirror_pad_grad_kernel, dtypes_of<RealTypes>())
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("MirrorPad's gradient: the padded borders summed back onto the positions they mirror."));
}

}  // namespace flowlens::ops
