#pragma once
// The geometry of one 2-D pooling and the checks TensorFlow's pooling kernels
// make on their arguments (PoolParameters, pooling_ops_common.cc), in one
// place for every implementation: the CPU kernels (pooling_ops.cpp) and the
// GPU ones (engine/cuda/gpu_pool_kernels.cpp) read their sizes and refuse bad
// input with the same words.
#include <cstdint>
#include <vector>

#include "ops/framework/kernel_context.h"
#include "ops/kernels/nn/window_args.h"

namespace flowlens::ops::pool {

enum class Family { Max, Avg };

struct PoolAttrs {
  std::vector<int64_t> ksize, strides;
  Padding padding = Padding::Valid;
  std::vector<int64_t> explicit_paddings;
  DataFormat format = DataFormat::NHWC;
  bool from_inputs = false;  // MaxPoolV2 family: ksize/strides are tensors
};

// One pooling: the input, the window and the output. Dims are -1 when unknown
// (shape functions).
struct Pool {
  DataFormat format = DataFormat::NHWC;
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t oh = 0, ow = 0;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
};

Shape make_shape(DataFormat f, int64_t n, int64_t h, int64_t w, int64_t c);
Shape output_shape(const Pool& p);

// The attrs, with ksize/strides from the V2 ops' inputs when given.
PoolAttrs read_attrs(const AttrReader& r, const std::vector<int64_t>* ksize, const std::vector<int64_t>* strides);
// TensorFlow's PoolParameters checks, over a possibly partial rank-4 input.
Pool pool_geometry(const PoolAttrs& a, const Shape& input, Family family);

// ---- a kernel's arguments, checked ------------------------------------------------
// MaxPool, MaxPoolV2, AvgPool: input 0 (and the V2 window inputs).
Pool forward_geometry(const KernelContext& ctx, Family family);
// AvgPoolGrad: orig_input_shape and a gradient of the pooled shape.
Pool avg_pool_grad_geometry(const KernelContext& ctx);
// MaxPoolGrad(V2) / MaxPoolGradGrad(V2): orig_input, orig_output, grad (and
// the V2 window inputs); `grad_name` names input 2 in messages. The grad's
// shape is the caller's to check (it differs between the two).
Pool max_pool_grad_geometry(const KernelContext& ctx, const char* grad_name);

}  // namespace flowlens::ops::pool
