#pragma once
// NumPy-style broadcasting for binary element-wise kernels. The plan drops
// size-1 output dims and merges neighbouring dims that broadcast the same way,
// so the common cases (same shape, scalar, row/column vector) run as one or
// two flat loops. No heap allocation besides the caller's output tensor.
#include <cstdint>

#include "tensor/shape.h"

namespace flowlens::ops {

// Output shape of broadcasting two fully defined shapes; throws
// "Incompatible shapes: [2,3] vs. [4]".
Shape broadcast_shape(const Shape& a, const Shape& b);
// The same for partial shapes (shape functions): unknown dims stay -1 where
// they cannot be resolved; throws only for dims that can never match.
Shape broadcast_static_shape(const Shape& a, const Shape& b);

struct BroadcastPlan {
  static constexpr int kMaxRank = 8;  // after collapsing
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t a_strides[kMaxRank] = {};  // in elements; 0 = broadcast
  int64_t b_strides[kMaxRank] = {};
  int64_t num_elements = 1;
};

// Fills `plan` for a and b (fully defined); throws like broadcast_shape, or
// if the collapsed rank exceeds kMaxRank.
void make_broadcast_plan(const Shape& a, const Shape& b, BroadcastPlan& plan);

// Runs o[i] = f(a[ia], b[ib]) over the plan's index space.
template <class T, class R, class F>
void broadcast_apply(const BroadcastPlan& p, const T* a, const T* b, R* o, F f) {
  if (p.num_elements == 0) return;
  if (p.rank == 0) {
    o[0] = f(a[0], b[0]);
    return;
  }
  const int last = p.rank - 1;
  const int64_t n = p.dims[last];
  const int64_t sa = p.a_strides[last], sb = p.b_strides[last];
  int64_t idx[BroadcastPlan::kMaxRank] = {};
  int64_t oa = 0, ob = 0;
  for (int64_t done = 0; done < p.num_elements; done += n) {
    const T* pa = a + oa;
    const T* pb = b + ob;
    if (sa == 1 && sb == 1)
      for (int64_t k = 0; k < n; ++k) o[k] = f(pa[k], pb[k]);
    else if (sa == 0 && sb == 1)
      for (int64_t k = 0; k < n; ++k) o[k] = f(pa[0], pb[k]);
    else if (sa == 1 && sb == 0)
      for (int64_t k = 0; k < n; ++k) o[k] = f(pa[k], pb[0]);
    else
      for (int64_t k = 0; k < n; ++k) o[k] = f(pa[k * sa], pb[k * sb]);
    o += n;
    for (int d = last - 1; d >= 0; --d) {
      oa += p.a_strides[d];
      ob += p.b_strides[d];
      if (++idx[d] < p.dims[d]) break;
      oa -= p.a_strides[d] * p.dims[d];
      ob -= p.b_strides[d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

}  // namespace flowlens::ops
