// MatMul: C = op(A) * op(B) for rank-2 inputs, and BatchMatMul/BatchMatMulV2:
// the same per matrix of a batch (V2 broadcasting the batch dimensions), on
// TF's CPU dtypes.
// float32/float64 call cblas_sgemm/cblas_dgemm directly on the input buffers;
// float16/bfloat16 go through float32 buffers and sgemm (float accumulation,
// one rounding); int16/int32/int64 use a plain i-k-j loop.
#include <cblas.h>

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/broadcast.h"
#include "ops/dtype_dispatch.h"
#include "ops/kernel_checks.h"
#include "ops/op_helpers.h"

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
    const CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
    const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
    const int LDA = static_cast<int>(lda), LDB = static_cast<int>(ldb);
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, opa, opb, M, N, K, 1.0f, a, LDA, b, LDB, 0.0f, c, N);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemm(CblasRowMajor, opa, opb, M, N, K, 1.0, a, LDA, b, LDB, 0.0, c, N);
    } else {  // the 16-bit floats: through float32, rounded once at the end
      const int64_t a_size = m * k, b_size = k * n;  // a matrix is stored densely: lda * rows == m * k
      std::vector<float> fa(static_cast<size_t>(a_size)), fb(static_cast<size_t>(b_size)),
          fc(static_cast<size_t>(m * n));
      for (int64_t i = 0; i < a_size; ++i) fa[static_cast<size_t>(i)] = static_cast<float>(a[i]);
      for (int64_t i = 0; i < b_size; ++i) fb[static_cast<size_t>(i)] = static_cast<float>(b[i]);
      cblas_sgemm(CblasRowMajor, opa, opb, M, N, K, 1.0f, fa.data(), LDA, fb.data(), LDB, 0.0f, fc.data(), N);
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

void batch_matmul_kernel(KernelContext& ctx, bool broadcast) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& y = input(ctx, 1);
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
