#include "ops/framework/broadcast.h"

#include <algorithm>
#include <vector>

#include "common/error.h"

namespace flowlens::ops {
namespace {

[[noreturn]] void incompatible(const Shape& a, const Shape& b) {
  throw Error("Incompatible shapes: " + a.to_string() + " vs. " + b.to_string());
}

// Dim i of s counted from the right (0 = last), 1 when s has fewer dims.
int64_t rdim(const Shape& s, int i) { return i < s.rank() ? s.dim(s.rank() - 1 - i) : 1; }

}  // namespace

Shape broadcast_shape(const Shape& a, const Shape& b) {
  if (a == b) return a;
  const int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) {
    int64_t x = rdim(a, i), y = rdim(b, i);
    int64_t o;
    if (x == y || y == 1) o = x;
    else if (x == 1) o = y;
    else incompatible(a, b);
    dims[static_cast<size_t>(r - 1 - i)] = o;
  }
  return Shape(std::move(dims));
}

Shape broadcast_static_shape(const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known()) return Shape::unknown_rank();
  const int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) {
    int64_t x = rdim(a, i), y = rdim(b, i);
    int64_t o;
    if (x == 1) o = y;
    else if (y == 1) o = x;
    else if (x < 0 && y < 0) o = Shape::kUnknownDim;
    else if (x < 0) o = y;  // y > 1: x must be 1 or y, the result is y either way
    else if (y < 0) o = x;
    else if (x == y) o = x;
    else incompatible(a, b);
    dims[static_cast<size_t>(r - 1 - i)] = o;
  }
  return Shape(std::move(dims));
}

void make_broadcast_plan(const Shape& a, const Shape& b, BroadcastPlan& plan) {
  const int r = std::max(a.rank(), b.rank());
  // Collapsed dims from the right, then reversed into the plan.
  int64_t out[64], da[64], db[64];
  int kinds[64];
  int n = 0;
  int64_t total = 1;
  for (int i = 0; i < r; ++i) {
    int64_t x = rdim(a, i), y = rdim(b, i);
    int64_t o;
    if (x == y || y == 1) o = x;
    else if (x == 1) o = y;
    else incompatible(a, b);
    total *= o;
    if (o == 1) continue;  // contributes nothing to indexing
    int kind = (x == 1 ? 1 : 0) | (y == 1 ? 2 : 0);
    if (n > 0 && kinds[n - 1] == kind) {
      out[n - 1] *= o;
      da[n - 1] *= x;
      db[n - 1] *= y;
      continue;
    }
    if (n == 64) throw Error("broadcasting: too many dimensions");
    out[n] = o;
    da[n] = x;
    db[n] = y;
    kinds[n] = kind;
    ++n;
  }
  if (n > BroadcastPlan::kMaxRank)
    throw Error("Broadcast between " + a.to_string() + " and " + b.to_string() + " is not supported yet.");
  plan.rank = n;
  plan.num_elements = total;
  int64_t sa = 1, sb = 1;
  for (int i = 0; i < n; ++i) {  // i counts from the right
    const int d = n - 1 - i;
    plan.dims[d] = out[i];
    plan.a_strides[d] = da[i] == 1 ? 0 : sa;
    plan.b_strides[d] = db[i] == 1 ? 0 : sb;
    sa *= da[i];
    sb *= db[i];
  }
}

}  // namespace flowlens::ops
