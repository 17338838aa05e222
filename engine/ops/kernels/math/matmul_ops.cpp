// MatMul: C = op(A) * op(B) for rank-2 inputs, and BatchMatMul/BatchMatMulV2:
// the same per matrix of a batch (V2 broadcasting the batch dimensions), on
// TF's CPU dtypes.
// float32/float64 call cblas_sgemm/cblas_dgemm directly on the input buffers
// (in blocks on the intra-op budget, ops/framework/blas_gemm.h);
// float16/bfloat16 go through float32 buffers and sgemm (float accumulation,
// one rounding); int16/int32/int64 use a plain i-k-j loop.

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/framework/blas_gemm.h"
#include "ops/framework/broadcast.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/kernel_checks.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

// TF's CPU registrations: TF_CALL_FLOAT_TYPES, int16, int32, int64 (no complex here).
using MatMulTypes = TypeList<float, double, float16, bfloat16, int16_t, int32_t, int64_t>;

[[noreturn]] void size_incompatible(const Shape& a, const Shape& b) {
  fail("Matrix size-incompatible: In[0]: " + shape_str(a) + ", In[1]: " + shape_str(b));
}

void matmul_shape(ShapeContext& ctx) {
  const bool ta = ctx.attrs().boolean("transpose_a"), tb = ctx.attrs().boolean("transpose_b");
  const Shape& a = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  if (a.rank_known() && a.rank() != 2) fail("MatMul: In[0] must be a matrix, got shape " + shape_str(a));
  if (b.rank_known() && b.rank() != 2) fail("MatMul: In[1] must be a matrix, got shape " + shape_str(b));
  DType t0 = dtype_base(ctx.input(0).dtype), t1 = dtype_base(ctx.input(1).dtype);
  check_same_dtype("MatMul", t0, t1);
  int64_t m = -1, k0 = -1, k1 = -1, nn = -1;
  if (a.rank_known()) {
    m = a.dim(ta ? 1 : 0);
    k0 = a.dim(ta ? 0 : 1);
  }
  if (b.rank_known()) {
    k1 = b.dim(tb ? 1 : 0);
    nn = b.dim(tb ? 0 : 1);
  }
  if (k0 >= 0 && k1 >= 0 && k0 != k1) size_incompatible(a, b);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", t0 != DType::Invalid ? 0 : 1), Shape{m, nn});
}

// C = op(A) * op(B) by an i-k-j loop, accumulating in Acc (integers in
// uint64_t, so overflow wraps instead of being undefined).
template <class T, class Acc>
void loop_matmul(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  std::vector<Acc> row(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), Acc(0));
    for (int64_t p = 0; p < k; ++p) {
      const Acc av = static_cast<Acc>(ta ? a[p * m + i] : a[i * k + p]);
      for (int64_t j = 0; j < n; ++j)
        row[static_cast<size_t>(j)] += av * static_cast<Acc>(tb ? b[j * k + p] : b[p * n + j]);
    }
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<T>(row[static_cast<size_t>(j)]);
  }
}

// BLAS takes int sizes and leading dimensions.
bool fits_blas(int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  return m <= kMax && n <= kMax && k <= kMax;
}

// One product c = op(a) * op(b) of row-major matrices: a is stored with lda
// columns, b with ldb; c is m x n.
template <class T>
void gemm(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb, int64_t lda,
          int64_t ldb) {
  if (m == 0 || n == 0) return;
  if constexpr (std::is_integral_v<T>) {
    loop_matmul<T, uint64_t>(a, b, c, m, n, k, ta, tb);
    return;
  } else {
    if (k == 0 || !fits_blas(m, n, k) || !fits_blas(lda, ldb, 1)) {
      loop_matmul<T, accumulator_t<T>>(a, b, c, m, n, k, ta, tb);
      return;
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      blas_gemm(ta, tb, m, n, k, a, lda, b, ldb, T(0), c, n);
    } else {  // the 16-bit floats: through float32, rounded once at the end
      const int64_t a_size = m * k, b_size = k * n;  // a matrix is stored densely: lda * rows == m * k
      std::vector<float> fa(static_cast<size_t>(a_size)), fb(static_cast<size_t>(b_size)),
          fc(static_cast<size_t>(m * n));
      for (int64_t i = 0; i < a_size; ++i) fa[static_cast<size_t>(i)] = static_cast<float>(a[i]);
      for (int64_t i = 0; i < b_size; ++i) fb[static_cast<size_t>(i)] = static_cast<float>(b[i]);
      blas_gemm(ta, tb, m, n, k, fa.data(), lda, fb.data(), ldb, 0.0f, fc.data(), n);
      for (int64_t i = 0; i < m * n; ++i) c[i] = static_cast<T>(fc[static_cast<size_t>(i)]);
    }
  }
}

void matmul_kernel(KernelContext& ctx) {
  const MatmulDims d = matmul_dims(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  dispatch<MatMulTypes>(a.dtype(), "MatMul", [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, a.dtype(), Shape{d.m, d.n});
    gemm<T>(a.data<T>(), b.data<T>(), out.data<T>(), d.m, d.n, d.k, d.transpose_a, d.transpose_b,
            a.shape().dim(1), b.shape().dim(1));
  });
}

// ---- BatchMatMul / BatchMatMulV2 ----------------------------------------------------

// TF's CPU registrations: TF_CALL_float, double, half, bfloat16, int16, int32,
// int64 (complex types are not computed here).
using BatchMatMulTypes = TypeList<float, double, float16, bfloat16, int16_t, int32_t, int64_t>;

// Shape functions (TF's BatchMatMulShape and BatchMatMulV2Shape): the batch
// dimensions (equal for V1, broadcast for V2) then [rows of op(x), cols of op(y)].
void batch_matmul_shape(ShapeContext& ctx, bool broadcast) {
  const bool adj_x = ctx.attrs().boolean("adj_x"), adj_y = ctx.attrs().boolean("adj_y");
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.input(1).shape;
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  if (x.rank_known() && x.rank() < 2) fail("Shape must be at least rank 2 but is rank " + std::to_string(x.rank()));
  if (y.rank_known() && y.rank() < 2) fail("Shape must be at least rank 2 but is rank " + std::to_string(y.rank()));
  if (!x.rank_known() || !y.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const int64_t inner_x = x.dim(adj_x ? x.rank() - 2 : x.rank() - 1);
  const int64_t inner_y = y.dim(adj_y ? y.rank() - 1 : y.rank() - 2);
  if (inner_x >= 0 && inner_y >= 0 && inner_x != inner_y)
    fail("Dimensions must be equal, but are " + std::to_string(inner_x) + " and " + std::to_string(inner_y));
  const Shape bx(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 2));
  const Shape by(std::vector<int64_t>(y.dims().begin(), y.dims().end() - 2));
  Shape batch;
  if (broadcast) {
    batch = broadcast_static_shape(bx, by);
  } else {
    if (x.rank() != y.rank())
      fail("Shape must be rank " + std::to_string(x.rank()) + " but is rank " + std::to_string(y.rank()));
    std::vector<int64_t> dims(bx.dims());
    for (int i = 0; i < bx.rank(); ++i) {
      const int64_t a = bx.dim(i), b = by.dim(i);
      if (a >= 0 && b >= 0 && a != b)
        fail("Dimensions must be equal, but are " + std::to_string(a) + " and " + std::to_string(b));
      dims[static_cast<size_t>(i)] = a >= 0 ? a : b;
    }
    batch = Shape(dims);
  }
  std::vector<int64_t> out = batch.dims();
  out.push_back(x.dim(adj_x ? x.rank() - 1 : x.rank() - 2));
  out.push_back(y.dim(adj_y ? y.rank() - 2 : y.rank() - 1));
  ctx.set_output(0, t, Shape(out));
}

// Row-major strides of a batch shape, 0 where the dimension is broadcast (size
// 1 against a larger output dimension), aligned to the output's batch rank.
std::vector<int64_t> batch_strides(const std::vector<int64_t>& batch, const std::vector<int64_t>& out_batch) {
  const size_t r = out_batch.size(), offset = r - batch.size();
  std::vector<int64_t> strides(r, 0);
  int64_t stride = 1;
  for (size_t i = batch.size(); i-- > 0;) {
    strides[i + offset] = batch[i] == 1 && out_batch[i + offset] != 1 ? 0 : stride;
    stride *= batch[i];
  }
  return strides;
}

// x and y (both of dtype `t`) multiplied into output 0 of dtype t; TF's
// BaseBatchMatMulOp checks in its order.
void batch_matmul_compute(KernelContext& ctx, const Tensor& x, const Tensor& y, bool broadcast) {
  const bool adj_x = ctx.attrs().boolean("adj_x"), adj_y = ctx.attrs().boolean("adj_y");
  const Shape& sx = x.shape();
  const Shape& sy = y.shape();
  check_same_dtype(ctx.node().op, x.dtype(), y.dtype());
  if (!broadcast && sx.rank() != sy.rank())
    fail("In[0] and In[1] has different ndims: " + shape_str(sx) + " vs. " + shape_str(sy));
  if (sx.rank() < 2) fail("In[0] ndims must be >= 2: " + std::to_string(sx.rank()));
  if (sy.rank() < 2) fail("In[1] ndims must be >= 2: " + std::to_string(sy.rank()));
  const std::vector<int64_t> bx(sx.dims().begin(), sx.dims().end() - 2);
  const std::vector<int64_t> by(sy.dims().begin(), sy.dims().end() - 2);
  std::vector<int64_t> batch;
  if (broadcast) {
    const size_t r = std::max(bx.size(), by.size());
    batch.assign(r, 1);
    for (size_t i = 0; i < r; ++i) {
      const int64_t a = i + bx.size() >= r ? bx[i + bx.size() - r] : 1;
      const int64_t b = i + by.size() >= r ? by[i + by.size() - r] : 1;
      if (a != b && a != 1 && b != 1)
        fail("In[0] and In[1] must have compatible batch dimensions: " + shape_str(sx) + " vs. " + shape_str(sy));
      batch[i] = a == 1 ? b : a;
    }
  } else {
    for (size_t i = 0; i < bx.size(); ++i)
      if (bx[i] != by[i])
        fail("In[0].dim(" + std::to_string(i) + ") and In[1].dim(" + std::to_string(i) +
             ") must be the same: " + shape_str(sx) + " vs " + shape_str(sy));
    batch = bx;
  }
  const int64_t rx = sx.dim(sx.rank() - 2), cx = sx.dim(sx.rank() - 1);
  const int64_t ry = sy.dim(sy.rank() - 2), cy = sy.dim(sy.rank() - 1);
  const int64_t m = adj_x ? cx : rx, k = adj_x ? rx : cx;
  const int64_t k1 = adj_y ? cy : ry, n = adj_y ? ry : cy;
  if (k != k1)
    fail("Matrix size-incompatible: In[0]: " + shape_str(sx) + ", In[1]: " + shape_str(sy));
  std::vector<int64_t> out_dims = batch;
  out_dims.push_back(m);
  out_dims.push_back(n);
  const int64_t batches = checked_elements(ctx.node().op, batch);
  checked_elements(ctx.node().op, out_dims);
  const std::vector<int64_t> stride_x = batch_strides(bx, batch), stride_y = batch_strides(by, batch);
  dispatch<BatchMatMulTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(out_dims));
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    std::vector<int64_t> index(batch.size(), 0);
    for (int64_t b = 0; b < batches; ++b) {
      int64_t ox = 0, oy = 0;
      for (size_t i = 0; i < batch.size(); ++i) {
        ox += index[i] * stride_x[i];
        oy += index[i] * stride_y[i];
      }
      gemm<T>(px + ox * rx * cx, py + oy * ry * cy, po + b * m * n, m, n, k, adj_x, adj_y, cx, cy);
      for (size_t i = batch.size(); i-- > 0;) {  // the next batch index, row-major
        if (++index[i] < batch[i]) break;
        index[i] = 0;
      }
    }
  });
}

void batch_matmul_kernel(KernelContext& ctx, bool broadcast) {
  check_num_inputs(ctx, 2);
  batch_matmul_compute(ctx, input(ctx, 0), input(ctx, 1), broadcast);
}

// ---- BatchMatMulV3 ----------------------------------------------------------------------

// TF's CPU registrations (batch_matmul_op_real.cc): Ta == Tb == Tout for
// bfloat16, float, double, int16, int32, int64; int8/uint8 x int8/uint8 ->
// int32; bfloat16 with int8/uint8 (either side) -> bfloat16. Inputs of
// another dtype than Tout are cast to Tout first, as TF's kernel does.
bool v3_combination(DType ta, DType tb, DType tout) {
  auto is_8bit = [](DType t) { return t == DType::Int8 || t == DType::UInt8; };
  if (ta == tb && ta == tout)
    return tout == DType::BFloat16 || tout == DType::Float || tout == DType::Double || tout == DType::Int16 ||
           tout == DType::Int32 || tout == DType::Int64;
  if (is_8bit(ta) && is_8bit(tb)) return tout == DType::Int32;
  if (tout != DType::BFloat16) return false;
  return (ta == DType::BFloat16 && is_8bit(tb)) || (is_8bit(ta) && tb == DType::BFloat16);
}

bool v3_supports(const Node& node) {
  const DType ta = node.attr_type("Ta", DType::Invalid), tb = node.attr_type("Tb", DType::Invalid),
              tout = node.attr_type("Tout", DType::Invalid);
  if (ta == DType::Invalid || tb == DType::Invalid || tout == DType::Invalid) return true;
  return v3_combination(ta, tb, tout);
}

using V3InputTypes = TypeList<int8_t, uint8_t, bfloat16>;
using V3CastTargets = TypeList<int32_t, bfloat16>;

// `t` as dtype `to` (int8/uint8/bfloat16 -> int32/bfloat16).
Tensor cast_to(const Tensor& t, DType to) {
  if (t.dtype() == to) return t;
  Tensor out(to, t.shape());
  dispatch<V3InputTypes>(t.dtype(), "BatchMatMulV3", [&](auto from_tag) {
    using From = decltype(from_tag);
    dispatch<V3CastTargets>(to, "BatchMatMulV3", [&](auto to_tag) {
      using To = decltype(to_tag);
      const From* p = t.data<From>();
      To* o = out.data<To>();
      for (int64_t i = 0, n = t.num_elements(); i < n; ++i) o[i] = static_cast<To>(static_cast<float>(p[i]));
    });
  });
  return out;
}

void batch_matmul_v3_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& y = input(ctx, 1);
  const DType tout = ctx.attrs().type_or("Tout", x.dtype() == y.dtype() ? x.dtype() : DType::Invalid);
  if (!v3_combination(x.dtype(), y.dtype(), tout))
    fail("BatchMatMulV3: no CPU kernel for Ta=" + dtype_name(x.dtype()) + ", Tb=" + dtype_name(y.dtype()) +
         ", Tout=" + dtype_name(tout) + " (TensorFlow registers none)");
  batch_matmul_compute(ctx, cast_to(x, tout), cast_to(y, tout), true);
}

void batch_matmul_v3_shape(ShapeContext& ctx) {
  batch_matmul_shape(ctx, true);
  const TensorInfo out = ctx.outputs()[0];
  ctx.set_output(0, ctx.node().attr_type("Tout", out.dtype), out.shape);
}

// ---- _FusedMatMul ---------------------------------------------------------------------------

// The fusions TF's CPU kernel implements (matmul_op_fused.cc).
enum class Fusion { BiasAdd, Relu, Relu6, Elu, LeakyRelu };

Fusion fused_matmul_fusion(const KernelContext& ctx, int64_t num_args) {
  const AttrReader attrs = ctx.attrs();
  const std::vector<std::string>& fused_ops = attrs.list("fused_ops").s;
  if (fused_ops.empty()) fail("Fused MatMul must have at least one fused op.");
  if (num_args != static_cast<int64_t>(ctx.num_inputs()) - 2)
    fail("Fused MatMul must have the number of inputs equal to 2 + num_args + num_host_args but in fact the "
         "number of inputs is " + std::to_string(ctx.num_inputs()) + " and num_args is " +
         std::to_string(num_args) + " and num_host_args is 0");
  const std::pair<std::vector<std::string>, Fusion> patterns[] = {
      {{"BiasAdd"}, Fusion::BiasAdd},
      {{"BiasAdd", "Relu"}, Fusion::Relu},
      {{"BiasAdd", "Relu6"}, Fusion::Relu6},
      {{"BiasAdd", "Elu"}, Fusion::Elu},
      {{"BiasAdd", "LeakyRelu"}, Fusion::LeakyRelu},
  };
  for (const auto& [ops, fusion] : patterns)
    if (fused_ops == ops) {
      if (num_args != 1)
        fail("Fused MatMul with BiasAdd must have one extra argument: bias or 4 extra arguments: bias, side_input, "
             "conv_input_scale and side_input_scale");
      return fusion;
    }
  std::string joined;
  for (const std::string& op : fused_ops) joined += (joined.empty() ? "" : ",") + op;
  fail("Fusion is not implemented: [" + joined + "]");
}

// TF's CPU kernel: float (bfloat16 too, computed in float and rounded once,
// as oneDNN builds run it); half is refused.
using FusedMatMulTypes = TypeList<float, bfloat16>;

void fused_matmul_kernel(KernelContext& ctx) {
  check_min_inputs(ctx, 2);
  const int64_t num_args = ctx.attrs().integer("num_args");
  const Fusion fusion = fused_matmul_fusion(ctx, num_args);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sa.rank() != sb.rank())
    fail("In[0] and In[1] has different ndims: " + shape_str(sa) + " vs. " + shape_str(sb));
  if (sa.rank() != 2) fail("In[0] is not a matrix. Instead it has shape " + shape_str(sa));
  if (sb.rank() != 2) fail("In[1] is not a matrix. Instead it has shape " + shape_str(sb));
  check_same_dtype("_FusedMatMul", a.dtype(), b.dtype());
  const bool ta = ctx.attrs().boolean("transpose_a"), tb = ctx.attrs().boolean("transpose_b");
  const int64_t k = sa.dim(ta ? 0 : 1);
  if (k != sb.dim(tb ? 1 : 0))
    fail("Matrix size-incompatible: In[0]: " + shape_str(sa) + ", In[1]: " + shape_str(sb));
  const int64_t m = sa.dim(ta ? 1 : 0), n = sb.dim(tb ? 0 : 1);
  if (a.dtype() == DType::Half) fail("_FusedMatMul doesn't support DT_HALF data type on CPU devices.");
  dispatch<FusedMatMulTypes>(a.dtype(), "_FusedMatMul", [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, a.dtype(), Shape{m, n});
    if (m == 0 || n == 0) return;
    T* po = out.data<T>();
    if (k == 0) {  // TF fills zeros and stops: no bias, no activation
      std::fill(po, po + m * n, T(0));
      return;
    }
    const Tensor& bias = input(ctx, 2);
    check_same_dtype("_FusedMatMul", a.dtype(), bias.dtype());
    if (bias.shape().rank() != 1) fail("bias must be 1-dimensional" + shape_str(bias.shape()));
    if (bias.num_elements() != n)
      fail("Fused MatMul: bias has " + std::to_string(bias.num_elements()) + " elements, the product " +
           std::to_string(n) + " columns");
    std::vector<float> acc(static_cast<size_t>(m * n));
    if constexpr (std::is_same_v<T, float>) {
      gemm<float>(a.data<float>(), b.data<float>(), acc.data(), m, n, k, ta, tb, sa.dim(1), sb.dim(1));
    } else {
      std::vector<float> fa(static_cast<size_t>(a.num_elements())), fb(static_cast<size_t>(b.num_elements()));
      for (size_t i = 0; i < fa.size(); ++i) fa[i] = static_cast<float>(a.data<T>()[i]);
      for (size_t i = 0; i < fb.size(); ++i) fb[i] = static_cast<float>(b.data<T>()[i]);
      gemm<float>(fa.data(), fb.data(), acc.data(), m, n, k, ta, tb, sa.dim(1), sb.dim(1));
    }
    const T* pb = bias.data<T>();
    const float alpha = ctx.attrs().real("leakyrelu_alpha");
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float v = acc[static_cast<size_t>(i * n + j)] + static_cast<float>(pb[j]);
        switch (fusion) {
          case Fusion::BiasAdd: break;
          case Fusion::Relu: v = v < 0.0f ? 0.0f : v; break;
          case Fusion::Relu6: v = v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v); break;
          case Fusion::Elu: v = v < 0.0f ? std::exp(v) - 1.0f : v; break;
          case Fusion::LeakyRelu: v = v > 0.0f ? v : v * alpha; break;
        }
        po[i * n + j] = static_cast<T>(v);
      }
  });
}

void batch_matmul_v1_shape(ShapeContext& ctx) { batch_matmul_shape(ctx, false); }
void batch_matmul_v2_shape(ShapeContext& ctx) { batch_matmul_shape(ctx, true); }
void batch_matmul_v1_kernel(KernelContext& ctx) { batch_matmul_kernel(ctx, false); }
void batch_matmul_v2_kernel(KernelContext& ctx) { batch_matmul_kernel(ctx, true); }

// BatchMatMul (V1) has no int16 kernel in TensorFlow.
std::vector<DType> without_int16(std::vector<DType> types) {
  std::erase(types, DType::Int16);
  return types;
}

}  // namespace

void register_matmul_op(OpRegistry& r) {
  OpBuilder v3("BatchMatMulV3");
  v3.input("x: Ta")
      .input("y: Tb")
      .output("output: Tout")
      .attr("Ta: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128}")
      .attr("Tb: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128}")
      .attr("Tout: {bfloat16, half, float, double, int16, int32, int64, complex64, complex128}")
      .attr("adj_x: bool = false")
      .attr("adj_y: bool = false")
      .shape(batch_matmul_v3_shape);
  KernelDef v3_cpu;
  v3_cpu.device = "CPU";
  v3_cpu.fn = batch_matmul_v3_kernel;
  v3_cpu.supports = v3_supports;
  v3_cpu.note = "TensorFlow's (Ta, Tb, Tout) combinations";
  r.add(v3.kernel(std::move(v3_cpu))
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("math")
            .doc("Matrix products of the last two dimensions, batch dimensions broadcast, inputs cast to Tout."));
  r.add(OpBuilder("_FusedMatMul")
            .input("a: T")
            .input("b: T")
            .input("args: num_args * T")
            .output("product: T")
            .attr("transpose_a: bool = false")
            .attr("transpose_b: bool = false")
            .attr("T: {bfloat16, half, float}")
            .attr("num_args: int >= 0")
            .attr("fused_ops: list(string) = []")
            .attr("epsilon: float = 0.0001")
            .attr("leakyrelu_alpha: float = 0.2")
            .shape(matmul_shape)
            .cpu(fused_matmul_kernel, dtypes_of<FusedMatMulTypes>())
            .no_gradient("grappler's fusion of MatMul, BiasAdd and an activation; TensorFlow registers no gradient")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("math")
            .doc("MatMul followed by BiasAdd and optionally Relu, Relu6, Elu or LeakyRelu (grappler's fusion)."));
  r.add(OpBuilder("MatMul")
            .input("a: T")
            .input("b: T")
            .output("product: T")
            .attr("transpose_a: bool = false")
            .attr("transpose_b: bool = false")
            .attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, int8, int16, complex64, complex128}")
            .shape(matmul_shape)
            .cpu(matmul_kernel, dtypes_of<MatMulTypes>())
            .category("math")
            .doc("Matrix product a * b (either transposed)."));
  for (bool v2 : {false, true})
    r.add(OpBuilder(v2 ? "BatchMatMulV2" : "BatchMatMul")
              .input("x: T")
              .input("y: T")
              .output("output: T")
              .attr(v2 ? "T: {bfloat16, half, float, double, int16, int32, int64, complex64, complex128}"
                       : "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
              .attr("adj_x: bool = false")
              .attr("adj_y: bool = false")
              .shape(v2 ? batch_matmul_v2_shape : batch_matmul_v1_shape)
              .cpu(v2 ? batch_matmul_v2_kernel : batch_matmul_v1_kernel,
                   v2 ? dtypes_of<BatchMatMulTypes>() : without_int16(dtypes_of<BatchMatMulTypes>()))
              .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
              .category("math")
              .doc(v2 ? "Matrix products of the last two dimensions, batch dimensions broadcast."
                      : "Matrix products of the last two dimensions over equal batch dimensions."));
}

}  // namespace flowlens::ops
