// MatMul: C = op(A) * op(B) for rank-2 inputs, on TF's CPU dtypes.
// float32/float64 call cblas_sgemm/cblas_dgemm directly on the input buffers;
// float16/bfloat16 go through float32 buffers and sgemm (float accumulation,
// one rounding); int16/int32/int64 use a plain i-k-j loop.
#include <cblas.h>

#include <algorithm>
#include <limits>
#include <type_traits>

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

template <class T>
void gemm(const Tensor& a, const Tensor& b, Tensor& out, const MatmulDims& d) {
  const int64_t m = d.m, n = d.n, k = d.k;
  const bool ta = d.transpose_a, tb = d.transpose_b;
  const int lda = static_cast<int>(a.shape().dim(1)), ldb = static_cast<int>(b.shape().dim(1));
  const CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, opa, opb, M, N, K, 1.0f, a.data<float>(), lda, b.data<float>(), ldb, 0.0f,
                out.data<float>(), N);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, opa, opb, M, N, K, 1.0, a.data<double>(), lda, b.data<double>(), ldb, 0.0,
                out.data<double>(), N);
  } else {  // the 16-bit floats: through float32, rounded once at the end
    auto widen = [](const Tensor& t) {
      std::vector<float> v(static_cast<size_t>(t.num_elements()));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(t.data<T>()[i]);
      return v;
    };
    const std::vector<float> fa = widen(a), fb = widen(b);
    std::vector<float> fc(static_cast<size_t>(m * n));
    cblas_sgemm(CblasRowMajor, opa, opb, M, N, K, 1.0f, fa.data(), lda, fb.data(), ldb, 0.0f, fc.data(), N);
    T* o = out.data<T>();
    for (size_t i = 0; i < fc.size(); ++i) o[i] = static_cast<T>(fc[i]);
  }
}

void matmul_kernel(KernelContext& ctx) {
  const MatmulDims d = matmul_dims(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  dispatch<MatMulTypes>(a.dtype(), "MatMul", [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, a.dtype(), Shape{d.m, d.n});
    if (d.m == 0 || d.n == 0) return;
    if constexpr (std::is_integral_v<T>) {
      loop_matmul<T, uint64_t>(a.data<T>(), b.data<T>(), out.data<T>(), d.m, d.n, d.k, d.transpose_a,
                               d.transpose_b);
    } else if (d.k == 0 || !fits_blas(d.m, d.n, d.k)) {
      loop_matmul<T, accumulator_t<T>>(a.data<T>(), b.data<T>(), out.data<T>(), d.m, d.n, d.k, d.transpose_a,
                                       d.transpose_b);
    } else {
      gemm<T>(a, b, out, d);
    }
  });
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
}

}  // namespace flowlens::ops
