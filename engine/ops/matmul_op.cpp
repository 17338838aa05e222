// MatMul: C = op(A) * op(B) for rank-2 inputs. float32/float64 call
// cblas_sgemm/cblas_dgemm directly on the input buffers, writing into the
// (uninitialized) output; int32/int64 use a plain i-k-j loop.
#include <cblas.h>

#include <cstring>

#include "ops/kernel_checks.h"
#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

[[noreturn]] void size_incompatible(const Shape& a, const Shape& b) {
  fail("Matrix size-incompatible: In[0]: " + shape_str(a) + ", In[1]: " + shape_str(b));
}

void matmul_shape(ShapeContext& ctx) {
  const Node& n = ctx.node();
  const bool ta = n.attr_bool("transpose_a", false), tb = n.attr_bool("transpose_b", false);
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

template <class T>
void int_matmul(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  // a is [m,k] (or [k,m] transposed), b is [k,n] (or [n,k]).
  std::memset(c, 0, static_cast<size_t>(m * n) * sizeof(T));
  for (int64_t i = 0; i < m; ++i) {
    T* crow = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const T av = ta ? a[p * m + i] : a[i * k + p];
      if (!tb) {
        const T* brow = b + p * n;
        for (int64_t j = 0; j < n; ++j) crow[j] = T(crow[j] + av * brow[j]);
      } else {
        for (int64_t j = 0; j < n; ++j) crow[j] = T(crow[j] + av * b[j * k + p]);
      }
    }
  }
}

void matmul_kernel(KernelContext& ctx) {
  const MatmulDims d = matmul_dims(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const bool ta = d.transpose_a, tb = d.transpose_b;
  const int64_t m = d.m, k = d.k, n = d.n;
  const DType dt = a.dtype();
  if (dt != DType::Float && dt != DType::Double && dt != DType::Int32 && dt != DType::Int64)
    unsupported_dtype("MatMul", dt);
  Tensor& out = ctx.allocate_output(0, dt, Shape{m, n});
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(out.raw_data(), 0, out.byte_size());
    return;
  }
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  const int lda = static_cast<int>(sa.dim(1)), ldb = static_cast<int>(sb.dim(1));
  const CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
  switch (dt) {
    case DType::Float:
      cblas_sgemm(CblasRowMajor, opa, opb, M, N, K, 1.0f, a.data<float>(), lda, b.data<float>(), ldb, 0.0f,
                  out.data<float>(), N);
      break;
    case DType::Double:
      cblas_dgemm(CblasRowMajor, opa, opb, M, N, K, 1.0, a.data<double>(), lda, b.data<double>(), ldb, 0.0,
                  out.data<double>(), N);
      break;
    case DType::Int32: int_matmul(a.data<int32_t>(), b.data<int32_t>(), out.data<int32_t>(), m, n, k, ta, tb); break;
    default: int_matmul(a.data<int64_t>(), b.data<int64_t>(), out.data<int64_t>(), m, n, k, ta, tb); break;
  }
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
            .cpu(matmul_kernel, {DType::Float, DType::Double, DType::Int32, DType::Int64})
            .category("math")
            .doc("Matrix product a * b (either transposed)."));
}

}  // namespace flowlens::ops
