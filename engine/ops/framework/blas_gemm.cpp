#include "ops/framework/blas_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <thread>
#include <type_traits>

#include "common/parallel_for.h"

namespace flowlens::ops {
namespace {

// Measured on a 2-core AVX2 machine (OpenBLAS 0.3.21): every block packs the
// other operand again, so blocks stay large (>= 128 rows, a few million
// multiply-adds). Two blocks per core rather than one: a helper thread wakes
// tens of microseconds after the caller starts (more on a VM), and with one
// block each the caller then waits for it; with two the caller takes the
// helper's second block (gemm_512 went from 0.92 to 0.97 of OpenBLAS's own
// threads). The count depends on the shape and the machine only, never on
// the load, so a product's rounding is the same in every run.
constexpr int64_t kMinBlock = 128;
constexpr int64_t kAlign = 64;
constexpr int64_t kMinBlockWork = int64_t{1} << 22;

int64_t max_blocks() {
  static const int64_t blocks = std::max<int64_t>(4, 2 * static_cast<int64_t>(std::thread::hardware_concurrency()));
  return blocks;
}

int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// Blocks along a dimension of `extent` when each row (column) costs `per`
// multiply-adds; 0 when it is not worth splitting.
int64_t block_along(int64_t extent, int64_t per) {
  if (per <= 0 || extent < 2 * kMinBlock) return 0;
  int64_t block = std::max(kMinBlock, round_up((extent + max_blocks() - 1) / max_blocks(), kAlign));
  block = std::max(block, round_up((kMinBlockWork + per - 1) / per, kAlign));
  return block < extent ? block : 0;
}

template <class T>
void call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  const auto opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  const int LDA = static_cast<int>(lda), LDB = static_cast<int>(ldb), LDC = static_cast<int>(ldc);
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, opa, opb, M, N, K, 1.0f, a, LDA, b, LDB, beta, c, LDC);
  else
    cblas_dgemm(CblasRowMajor, opa, opb, M, N, K, 1.0, a, LDA, b, LDB, beta, c, LDC);
}

template <class T>
void split_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
                T beta, T* c, int64_t ldc) {
  MathKernelScope scope;  // counted unsplit too: it takes its part of the budget
  const GemmSplit split = gemm_split(m, n, k);
  if (split.count <= 1) return call<T>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
  scope.parallel_for(split.count, [&](int i) {
    const int64_t from = i * split.block;
    if (split.by_rows) {  // rows of op(a): rows of a, or its columns when transposed
      const int64_t rows = std::min(split.block, m - from);
      call<T>(ta, tb, rows, n, k, ta ? a + from : a + from * lda, lda, b, ldb, beta, c + from * ldc, ldc);
    } else {  // columns of op(b): columns of b, or its rows when transposed
      const int64_t cols = std::min(split.block, n - from);
      call<T>(ta, tb, m, cols, k, a, lda, tb ? b + from * ldb : b + from, ldb, beta, c + from, ldc);
    }
  });
}

}  // namespace

GemmSplit gemm_split(int64_t m, int64_t n, int64_t k) {
  GemmSplit s;
  if (m <= 0 || n <= 0 || k <= 0) return s;
  if (const int64_t rows = block_along(m, n * k); rows > 0) {
    s.by_rows = true;
    s.block = rows;
    s.count = static_cast<int>((m + rows - 1) / rows);
  } else if (const int64_t cols = block_along(n, m * k); cols > 0) {
    s.by_rows = false;
    s.block = cols;
    s.count = static_cast<int>((n + cols - 1) / cols);
  }
  return s;
}

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
               int64_t ldb, float beta, float* c, int64_t ldc) {
  split_gemm<float>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
               int64_t ldb, double beta, double* c, int64_t ldc) {
  split_gemm<double>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace flowlens::ops
