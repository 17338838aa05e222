// Bias ops: BiasAdd, BiasAddV1 and BiasAddGrad on every number type
// TensorFlow's CPU kernels take (TF_CALL_NUMBER_TYPES less complex), in both
// of its layouts: NHWC adds along the last dimension, NCHW along dimension 1.
// The softmax family lives in softmax_ops.cpp.
#include <vector>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/element_sum.h"
#include "ops/framework/kernel_checks.h"

namespace flowlens::ops {
namespace {

using BiasTypes = RealTypes;

// What the shape functions read: TensorFlow's BiasAddShape compares the
// string with "NCHW" and treats anything else (or no attr) as NHWC.
bool nchw_attr(const ShapeContext& ctx) {
  const AttrValue* v = ctx.attrs().find("data_format");
  const std::string* s = v ? v->get_if<std::string>() : nullptr;
  return s && *s == "NCHW";
}

void check_min_rank(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() < rank)
    fail("Shape must be at least rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

// ---- BiasAdd / BiasAddV1 ----------------------------------------------------------

void bias_add_shape(ShapeContext& ctx) {
  const bool nchw = nchw_attr(ctx);
  const Shape& x = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  check_min_rank(x, nchw ? 3 : 2);
  if (b.rank_known() && b.rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(b.rank()));
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  if (!x.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  Shape out = x;
  int64_t& channels = out.dim(nchw ? 1 : x.rank() - 1);
  const int64_t biases = b.rank_known() ? b.dim(0) : Shape::kUnknownDim;
  if (channels >= 0 && biases >= 0 && channels != biases)
    fail("Dimensions must be equal, but are " + std::to_string(channels) + " and " + std::to_string(biases));
  if (channels < 0) channels = biases;
  ctx.set_output(0, t, std::move(out));
}

void bias_add_kernel(KernelContext& ctx) {
  const BiasLayout l = bias_add_layout(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  dispatch<BiasTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    const T* bias = b.data<T>();
    T* o = out.data<T>();
    for (int64_t n = 0; n < l.outer; ++n)
      for (int64_t c = 0; c < l.channels; ++c)
        for (int64_t k = 0; k < l.inner; ++k, ++in, ++o) *o = add_wrapping(*in, bias[c]);
  });
}

// ---- BiasAddGrad ------------------------------------------------------------------

void bias_add_grad_shape(ShapeContext& ctx) {
  const bool nchw = nchw_attr(ctx);
  const Shape& s = ctx.input(0).shape;
  check_min_rank(s, nchw ? 3 : 2);
  const int64_t channels = !s.rank_known() ? Shape::kUnknownDim : s.dim(nchw ? 1 : s.rank() - 1);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), Shape{channels});
}

// The sum over every dimension but the channels.
void bias_add_grad_kernel(KernelContext& ctx) {
  const BiasLayout l = bias_add_grad_layout(ctx);
  const Tensor& g = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, g.dtype(), Shape{l.channels});
  dispatch<BiasTypes>(g.dtype(), "BiasAddGrad", [&](auto tag) {
    using T = decltype(tag);
    using A = accumulator_t<T>;
    std::vector<A> sums(static_cast<size_t>(l.channels), A(0));
    const T* in = g.data<T>();
    for (int64_t n = 0; n < l.outer; ++n)
      for (size_t c = 0; c < sums.size(); ++c)
        for (int64_t k = 0; k < l.inner; ++k, ++in) sums[c] = add_wrapping(sums[c], static_cast<A>(*in));
    T* o = out.data<T>();
    for (size_t c = 0; c < sums.size(); ++c) o[c] = static_cast<T>(sums[c]);
  });
}

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.add(OpBuilder("BiasAdd")
            .input("value: T")
            .input("bias: T")
            .output("output: T")
            .attr("T: numbertype")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .shape(bias_add_shape)
            .cpu(bias_add_kernel, dtypes_of<BiasTypes>())
            .category("nn")
            .doc("Adds a 1-D bias along the channel dimension (last for NHWC, 1 for NCHW)."));
  r.add(OpBuilder("BiasAddV1")
            .input("value: T")
            .input("bias: T")
            .output("output: T")
            .attr("T: numbertype")
            .shape(bias_add_shape)
            .cpu(bias_add_kernel, dtypes_of<BiasTypes>())
            .category("nn")
            .doc("Adds a 1-D bias along the last dimension (deprecated form of BiasAdd)."));
  r.add(OpBuilder("BiasAddGrad")
            .input("out_backprop: T")
            .output("output: T")
            .attr("T: numbertype")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .shape(bias_add_grad_shape)
            .cpu(bias_add_grad_kernel, dtypes_of<BiasTypes>())
            .category("nn")
            .doc("BiasAdd's bias gradient: the sum over every dimension but the channels."));
  register_softmax_ops(r);
}

}  // namespace flowlens::ops
