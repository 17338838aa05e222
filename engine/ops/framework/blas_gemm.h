#pragma once
// c[m x n] = op(a) * op(b) + beta * c through OpenBLAS (row-major, leading
// dimensions as BLAS takes them), split into blocks of rows (or columns)
// that run on the kernel's share of the intra-op budget
// (common/parallel_for.h). OpenBLAS itself runs on one thread
// (exec/thread_budget.h).
//
// The split is a function of the shape alone, never of the thread count or
// of what else runs: a product gives the same bits whichever budget or load
// ran it. It can differ in the last bits from one unsplit cblas_sgemm (which
// itself differs between OpenBLAS thread counts).
#include <cstdint>

namespace flowlens::ops {

struct GemmSplit {
  bool by_rows = true;  // blocks of C's rows (else of its columns)
  int64_t block = 0;    // rows (columns) per block; the last may be shorter
  int count = 1;        // 1: one call, no split
};
GemmSplit gemm_split(int64_t m, int64_t n, int64_t k);

// Sizes and leading dimensions must fit in int (callers check).
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
               int64_t ldb, float beta, float* c, int64_t ldc);
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
               int64_t ldb, double beta, double* c, int64_t ldc);

}  // namespace flowlens::ops
