#include "ops/kernels/nn/conv_onednn.h"

#include <bit>
#include <cstddef>
#include <memory>
#include <new>
#include <optional>

#include "ops/framework/onednn.h"

namespace flowlens::ops::conv {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

// A 64-byte aligned host buffer for a reordered filter.
struct AlignedBuffer {
  explicit AlignedBuffer(std::size_t bytes)
      : data(static_cast<std::byte*>(::operator new[](bytes ? bytes : 1, std::align_val_t{64}))) {}
  ~AlignedBuffer() { ::operator delete[](data, std::align_val_t{64}); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  std::byte* data;
};

memory::desc activations(const Geometry& g, int64_t rows, int64_t cols, int64_t channels) {
  return memory::desc({g.batch, channels, rows, cols}, f32, g.format == DataFormat::NHWC ? tag::nhwc : tag::nchw);
}

// The HWIO filter as oneDNN sees it: OIHW dims, or GOIHW for groups, with
// HWIO strides ([kh][kw][i][g * og + o]).
memory::desc user_filter(const Geometry& g) {
  const int64_t O = g.out_depth, I = g.filter_depth, KH = g.filter_rows, KW = g.filter_cols;
  if (g.groups == 1) return memory::desc({O, I, KH, KW}, f32, tag::hwio);
  const int64_t og = O / g.groups;
  return memory::desc({g.groups, og, I, KH, KW}, f32, memory::dims{og, 1, O, KW * I * O, I * O});
}

memory::desc any_filter(const Geometry& g) {
  const int64_t O = g.out_depth, I = g.filter_depth, KH = g.filter_rows, KW = g.filter_cols;
  if (g.groups == 1) return memory::desc({O, I, KH, KW}, f32, tag::any);
  return memory::desc({g.groups, O / g.groups, I, KH, KW}, f32, tag::any);
}

struct Window {
  memory::dims strides, dilates, pad_l, pad_r;
};
Window window(const Geometry& g) {
  return {{g.stride_rows, g.stride_cols},
          {g.dilation_rows - 1, g.dilation_cols - 1},
          {g.pad_top, g.pad_left},
          {g.pad_bottom, g.pad_right}};
}

dnnl::convolution_forward::desc forward_desc(const Geometry& g, dnnl::prop_kind kind, bool bias) {
  const Window w = window(g);
  const memory::desc src = activations(g, g.in_rows, g.in_cols, g.in_depth);
  const memory::desc dst = activations(g, g.out_rows, g.out_cols, g.out_depth);
  if (bias)
    return {kind, dnnl::algorithm::convolution_direct, src, any_filter(g), memory::desc({g.out_depth}, f32, tag::x), dst,
            w.strides, w.dilates, w.pad_l, w.pad_r};
  return {kind, dnnl::algorithm::convolution_direct, src, any_filter(g), dst, w.strides, w.dilates, w.pad_l, w.pad_r};
}

// A reorder between two filter layouts, or none when they are the same.
struct FilterReorder {
  std::optional<dnnl::reorder> reorder;
  memory::desc scratchpad;
};
FilterReorder filter_reorder(const memory::desc& from, const memory::desc& to) {
  FilterReorder r;
  if (from == to) return r;
  dnnl::reorder::primitive_desc pd(onednn::cpu_engine(), from, onednn::cpu_engine(), to, onednn::default_attr());
  r.reorder.emplace(pd);
  r.scratchpad = pd.scratchpad_desc();
  return r;
}

void run_reorder(const FilterReorder& r, const memory::desc& from, const void* src, const memory::desc& to, void* dst) {
  onednn::execute(*r.reorder, r.scratchpad,
                  {{DNNL_ARG_FROM, onednn::wrap(from, src)}, {DNNL_ARG_TO, onednn::wrap(to, dst)}});
}

// ---- forward -------------------------------------------------------------------------

struct Forward {
  bool ok = false;  // false: oneDNN has no implementation for this geometry
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward primitive;
  memory::desc user_filter;
  FilterReorder reorder;
  int binary_post_ops = 0;  // the batch norm's mean, factor and offset
};

Forward make_forward(const Geometry& g, const Epilogue* e) {
  Forward f;
  try {
    dnnl::primitive_attr attr = onednn::default_attr();
    dnnl::post_ops ops;
    if (e) {
      const memory::desc channel({1, g.out_depth, 1, 1}, f32, tag::nchw);
      if (e->mean) {
        ops.append_binary(dnnl::algorithm::binary_sub, channel);
        ops.append_binary(dnnl::algorithm::binary_mul, channel);
        ops.append_binary(dnnl::algorithm::binary_add, channel);
        f.binary_post_ops = 3;
      }
      switch (e->activation) {
        case Activation::None: break;
        case Activation::Relu: ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f); break;
        case Activation::Relu6: ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f); break;
        case Activation::Elu: ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_elu, 1.0f, 0.0f); break;
        case Activation::LeakyRelu: ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, e->alpha, 0.0f); break;
      }
      attr.set_post_ops(ops);
    }
    const auto desc = forward_desc(g, dnnl::prop_kind::forward_inference, e && e->bias);
    f.pd = dnnl::convolution_forward::primitive_desc(desc, attr, onednn::cpu_engine());
    f.primitive = dnnl::convolution_forward(f.pd);
    f.user_filter = user_filter(g);
    f.reorder = filter_reorder(f.user_filter, f.pd.weights_desc());
    f.ok = true;
  } catch (const dnnl::error&) {
    f.ok = false;
  }
  return f;
}

onednn::PrimitiveCache<Forward>& forward_cache() {
  static onednn::PrimitiveCache<Forward> cache;
  return cache;
}

// ---- backward data ---------------------------------------------------------------------

struct BackwardData {
  bool ok = false;
  dnnl::convolution_backward_data::primitive_desc pd;
  dnnl::convolution_backward_data primitive;
  memory::desc user_filter;
  FilterReorder reorder;
};

BackwardData make_backward_data(const Geometry& g) {
  BackwardData b;
  try {
    const Window w = window(g);
    const dnnl::convolution_forward::primitive_desc hint(forward_desc(g, dnnl::prop_kind::forward_training, false),
                                                         onednn::default_attr(), onednn::cpu_engine());
    const dnnl::convolution_backward_data::desc desc(
        dnnl::algorithm::convolution_direct, activations(g, g.in_rows, g.in_cols, g.in_depth), any_filter(g),
        activations(g, g.out_rows, g.out_cols, g.out_depth), w.strides, w.dilates, w.pad_l, w.pad_r);
    b.pd = dnnl::convolution_backward_data::primitive_desc(desc, onednn::default_attr(), onednn::cpu_engine(), hint);
    b.primitive = dnnl::convolution_backward_data(b.pd);
    b.user_filter = user_filter(g);
    b.reorder = filter_reorder(b.user_filter, b.pd.weights_desc());
    b.ok = true;
  } catch (const dnnl::error&) {
    b.ok = false;
  }
  return b;
}

onednn::PrimitiveCache<BackwardData>& backward_data_cache() {
  static onednn::PrimitiveCache<BackwardData> cache;
  return cache;
}

// ---- backward weights ------------------------------------------------------------------

struct BackwardFilter {
  bool ok = false;
  dnnl::convolution_backward_weights::primitive_desc pd;
  dnnl::convolution_backward_weights primitive;
  memory::desc user_filter;
  FilterReorder reorder;  // from the primitive's diff_weights layout to HWIO
};

BackwardFilter make_backward_filter(const Geometry& g) {
  BackwardFilter b;
  try {
    const Window w = window(g);
    const dnnl::convolution_forward::primitive_desc hint(forward_desc(g, dnnl::prop_kind::forward_training, false),
                                                         onednn::default_attr(), onednn::cpu_engine());
    const dnnl::convolution_backward_weights::desc desc(
        dnnl::algorithm::convolution_direct, activations(g, g.in_rows, g.in_cols, g.in_depth), any_filter(g),
        activations(g, g.out_rows, g.out_cols, g.out_depth), w.strides, w.dilates, w.pad_l, w.pad_r);
    b.pd = dnnl::convolution_backward_weights::primitive_desc(desc, onednn::default_attr(), onednn::cpu_engine(), hint);
    b.primitive = dnnl::convolution_backward_weights(b.pd);
    b.user_filter = user_filter(g);
    b.reorder = filter_reorder(b.pd.diff_weights_desc(), b.user_filter);
    b.ok = true;
  } catch (const dnnl::error&) {
    b.ok = false;
  }
  return b;
}

onednn::PrimitiveCache<BackwardFilter>& backward_filter_cache() {
  static onednn::PrimitiveCache<BackwardFilter> cache;
  return cache;
}

}  // namespace

std::string Epilogue::key() const {
  static const char* const names[] = {"none", "relu", "relu6", "elu", "leakyrelu"};
  return std::string(bias ? "bias" : "") + (mean ? "bn" : "") + "," + names[static_cast<int>(activation)] + "," +
         std::to_string(std::bit_cast<uint32_t>(alpha));
}

bool onednn_forward(const Geometry& g, const float* input, const float* filter, float* output, const Epilogue* e) {
  const auto f = forward_cache().get("fwd " + g.key() + (e ? " " + e->key() : std::string()),
                                     [&] { return make_forward(g, e); });
  if (!f->ok) return false;
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, onednn::wrap(f->pd.src_desc(), input)},
                                       {DNNL_ARG_DST, onednn::wrap(f->pd.dst_desc(), output)}};
  std::optional<AlignedBuffer> reordered;
  if (f->reorder.reorder) {
    reordered.emplace(f->pd.weights_desc().get_size());
    run_reorder(f->reorder, f->user_filter, filter, f->pd.weights_desc(), reordered->data);
    args.emplace(DNNL_ARG_WEIGHTS, onednn::wrap(f->pd.weights_desc(), reordered->data));
  } else {
    args.emplace(DNNL_ARG_WEIGHTS, onednn::wrap(f->pd.weights_desc(), filter));
  }
  if (e && e->bias) args.emplace(DNNL_ARG_BIAS, onednn::wrap(f->pd.bias_desc(), e->bias));
  if (f->binary_post_ops == 3) {
    const memory::desc channel({1, g.out_depth, 1, 1}, f32, tag::nchw);
    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, onednn::wrap(channel, e->mean));
    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, onednn::wrap(channel, e->factor));
    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(2) | DNNL_ARG_SRC_1, onednn::wrap(channel, e->offset));
  }
  onednn::execute(f->primitive, f->pd.scratchpad_desc(), std::move(args));
  return true;
}

bool onednn_backward_data(const Geometry& g, const float* filter, const float* out_backprop, float* in_backprop) {
  const auto b = backward_data_cache().get("bwd_data " + g.key(), [&] { return make_backward_data(g); });
  if (!b->ok) return false;
  std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, onednn::wrap(b->pd.diff_dst_desc(), out_backprop)},
                                       {DNNL_ARG_DIFF_SRC, onednn::wrap(b->pd.diff_src_desc(), in_backprop)}};
  std::optional<AlignedBuffer> reordered;
  if (b->reorder.reorder) {
    reordered.emplace(b->pd.weights_desc().get_size());
    run_reorder(b->reorder, b->user_filter, filter, b->pd.weights_desc(), reordered->data);
    args.emplace(DNNL_ARG_WEIGHTS, onednn::wrap(b->pd.weights_desc(), reordered->data));
  } else {
    args.emplace(DNNL_ARG_WEIGHTS, onednn::wrap(b->pd.weights_desc(), filter));
  }
  onednn::execute(b->primitive, b->pd.scratchpad_desc(), std::move(args));
  return true;
}

bool onednn_backward_filter(const Geometry& g, const float* input, const float* out_backprop, float* filter_backprop) {
  const auto b = backward_filter_cache().get("bwd_filter " + g.key(), [&] { return make_backward_filter(g); });
  if (!b->ok) return false;
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, onednn::wrap(b->pd.src_desc(), input)},
                                       {DNNL_ARG_DIFF_DST, onednn::wrap(b->pd.diff_dst_desc(), out_backprop)}};
  std::optional<AlignedBuffer> blocked;
  if (b->reorder.reorder) {
    blocked.emplace(b->pd.diff_weights_desc().get_size());
    args.emplace(DNNL_ARG_DIFF_WEIGHTS, onednn::wrap(b->pd.diff_weights_desc(), blocked->data));
  } else {
    args.emplace(DNNL_ARG_DIFF_WEIGHTS, onednn::wrap(b->pd.diff_weights_desc(), filter_backprop));
  }
  onednn::execute(b->primitive, b->pd.scratchpad_desc(), std::move(args));
  if (blocked) run_reorder(b->reorder, b->pd.diff_weights_desc(), blocked->data, b->user_filter, filter_backprop);
  return true;
}

}  // namespace flowlens::ops::conv
