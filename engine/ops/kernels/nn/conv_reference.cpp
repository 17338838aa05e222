#include "ops/kernels/nn/conv_reference.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "ops/framework/blas_gemm.h"

namespace flowlens::ops::conv {
namespace {

// Elements of one im2col chunk (16 MiB of float): chunks hold whole rows of K
// and may span images (a batch of 7x7 images is one GEMM, not one per image).
constexpr int64_t kColumnBudget = int64_t{1} << 22;

bool fits_int(int64_t v) { return v <= std::numeric_limits<int>::max(); }

// c[m x n] = op(a) * op(b) + beta * c, row-major with leading dimensions.
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
          bool accumulate, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if constexpr (std::is_floating_point_v<T>) {
    if (k > 0 && fits_int(m) && fits_int(n) && fits_int(k) && fits_int(lda) && fits_int(ldb) && fits_int(ldc)) {
      blas_gemm(ta, tb, m, n, k, a, lda, b, ldb, accumulate ? T(1) : T(0), c, ldc);
      return;
    }
  }
  // Integers (and sizes BLAS cannot take): a loop, int32 accumulating in
  // int64 and wrapping back as TensorFlow's int32 arithmetic does.
  using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      Acc s = accumulate ? static_cast<Acc>(c[i * ldc + j]) : Acc(0);
      for (int64_t p = 0; p < k; ++p) {
        const Acc av = static_cast<Acc>(ta ? a[p * lda + i] : a[i * lda + p]);
        const Acc bv = static_cast<Acc>(tb ? b[j * ldb + p] : b[p * ldb + j]);
        if constexpr (std::is_integral_v<T>)
          s = static_cast<Acc>(static_cast<uint64_t>(s) + static_cast<uint64_t>(av) * static_cast<uint64_t>(bv));
        else
          s += av * bv;
      }
      c[i * ldc + j] = static_cast<T>(s);
    }
}

// NCHW <-> NHWC for one batch of images.
template <class T>
void nchw_to_nhwc(const T* src, T* dst, int64_t n, int64_t c, int64_t hw) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) dst[(b * hw + p) * c + ch] = src[(b * c + ch) * hw + p];
}
template <class T>
void nhwc_to_nchw(const T* src, T* dst, int64_t n, int64_t c, int64_t hw) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) dst[(b * c + ch) * hw + p] = src[(b * hw + p) * c + ch];
}

// The input pixel row/col that output position `o` and filter tap `k` read.
inline int64_t source(int64_t o, int64_t k, int64_t stride, int64_t dilation, int64_t pad) {
  return o * stride - pad + k * dilation;
}

// Walks the im2col matrix of the NHWC batch, group `grp`, rows [r0, r1) of
// the batch's output pixels (row r is pixel r % pixels of image r / pixels,
// so a chunk may span images): f(matrix index, input index or -1 for padding).
template <class F>
void for_each_patch(const Geometry& g, int64_t grp, int64_t r0, int64_t r1, F&& f) {
  const int64_t ig = g.filter_depth, pixels = g.out_rows * g.out_cols;
  const int64_t K = g.filter_rows * g.filter_cols * ig;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / pixels, p = r % pixels;
    const int64_t oh = p / g.out_cols, ow = p % g.out_cols;
    const int64_t row = r - r0;
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const int64_t ih = source(oh, kh, g.stride_rows, g.dilation_rows, g.pad_top);
      for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const int64_t iw = source(ow, kw, g.stride_cols, g.dilation_cols, g.pad_left);
        const int64_t col = (kh * g.filter_cols + kw) * ig;
        const bool inside = ih >= 0 && ih < g.in_rows && iw >= 0 && iw < g.in_cols;
        const int64_t base = inside ? ((n * g.in_rows + ih) * g.in_cols + iw) * g.in_depth + grp * ig : -1;
        for (int64_t i = 0; i < ig; ++i) f(row * K + col + i, inside ? base + i : -1);
      }
    }
  }
}

// A 1x1, stride-1, unpadded, ungrouped convolution reads the input as the
// im2col matrix itself: one GEMM for the batch, no copy.
bool pointwise(const Geometry& g) {
  return g.filter_rows == 1 && g.filter_cols == 1 && g.stride_rows == 1 && g.stride_cols == 1 && g.groups == 1 &&
         g.pad_top == 0 && g.pad_bottom == 0 && g.pad_left == 0 && g.pad_right == 0 && g.out_rows == g.in_rows &&
         g.out_cols == g.in_cols;
}

// The batch's output pixels as GEMM rows, in chunks whose im2col matrix
// stays within kColumnBudget.
struct Chunking {
  int64_t rows;  // output pixels of the batch
  int64_t K;     // im2col columns
  int64_t step;  // rows per chunk
};
Chunking chunking(const Geometry& g) {
  Chunking c;
  c.rows = g.batch * g.out_rows * g.out_cols;
  c.K = g.filter_rows * g.filter_cols * g.filter_depth;
  c.step = std::max<int64_t>(1, std::min<int64_t>(c.rows, kColumnBudget / std::max<int64_t>(1, c.K)));
  return c;
}

template <class T>
std::unique_ptr<T[]> column_buffer(const Chunking& ch) {
  return std::make_unique_for_overwrite<T[]>(static_cast<size_t>(ch.step * ch.K));
}

// The NHWC work of each pass on NHWC buffers.
template <class T>
void forward_nhwc(const Geometry& g, const T* x, const T* w, T* y) {
  const Chunking ch = chunking(g);
  const int64_t O = g.out_depth, og = O / g.groups;
  if (pointwise(g)) return gemm<T>(false, false, ch.rows, O, g.in_depth, x, g.in_depth, w, O, false, y, O);
  const auto col = column_buffer<T>(ch);
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t r0 = 0; r0 < ch.rows; r0 += ch.step) {
      const int64_t r1 = std::min(ch.rows, r0 + ch.step);
      for_each_patch(g, grp, r0, r1, [&](int64_t at, int64_t from) { col[static_cast<size_t>(at)] = from < 0 ? T(0) : x[from]; });
      gemm<T>(false, false, r1 - r0, og, ch.K, col.get(), ch.K, w + grp * og, O, false, y + r0 * O + grp * og, O);
    }
}

template <class T>
void backward_data_nhwc(const Geometry& g, const T* w, const T* dy, T* dx) {
  const Chunking ch = chunking(g);
  const int64_t O = g.out_depth, og = O / g.groups;
  if (pointwise(g)) return gemm<T>(false, true, ch.rows, g.in_depth, O, dy, O, w, O, false, dx, g.in_depth);
  std::fill(dx, dx + g.input_elements(), T(0));
  const auto col = column_buffer<T>(ch);
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t r0 = 0; r0 < ch.rows; r0 += ch.step) {
      const int64_t r1 = std::min(ch.rows, r0 + ch.step);
      gemm<T>(false, true, r1 - r0, ch.K, og, dy + r0 * O + grp * og, O, w + grp * og, O, false, col.get(), ch.K);
      for_each_patch(g, grp, r0, r1, [&](int64_t at, int64_t to) {
        if (to >= 0) dx[to] = static_cast<T>(dx[to] + col[static_cast<size_t>(at)]);
      });
    }
}

template <class T>
void backward_filter_nhwc(const Geometry& g, const T* x, const T* dy, T* dw) {
  const Chunking ch = chunking(g);
  const int64_t O = g.out_depth, og = O / g.groups;
  if (pointwise(g)) return gemm<T>(true, false, g.in_depth, O, ch.rows, x, g.in_depth, dy, O, false, dw, O);
  std::fill(dw, dw + ch.K * O, T(0));
  const auto col = column_buffer<T>(ch);
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t r0 = 0; r0 < ch.rows; r0 += ch.step) {
      const int64_t r1 = std::min(ch.rows, r0 + ch.step);
      for_each_patch(g, grp, r0, r1, [&](int64_t at, int64_t from) { col[static_cast<size_t>(at)] = from < 0 ? T(0) : x[from]; });
      gemm<T>(true, false, ch.K, og, r1 - r0, col.get(), ch.K, dy + r0 * O + grp * og, O, true, dw + grp * og, O);
    }
}

// An NHWC copy of an NCHW tensor (or the tensor itself).
template <class T>
const T* as_nhwc(DataFormat format, const T* data, int64_t n, int64_t c, int64_t hw, std::vector<T>& buffer) {
  if (format == DataFormat::NHWC) return data;
  buffer.resize(static_cast<size_t>(n * c * hw));
  nchw_to_nhwc(data, buffer.data(), n, c, hw);
  return buffer.data();
}

}  // namespace

template <class T>
void reference_forward(const Geometry& g, const T* input, const T* filter, T* output) {
  if (g.format == DataFormat::NHWC) return forward_nhwc(g, input, filter, output);
  std::vector<T> x, y(static_cast<size_t>(g.output_elements()));
  forward_nhwc(g, as_nhwc(g.format, input, g.batch, g.in_depth, g.in_rows * g.in_cols, x), filter, y.data());
  nhwc_to_nchw(y.data(), output, g.batch, g.out_depth, g.out_rows * g.out_cols);
}

template <class T>
void reference_backward_data(const Geometry& g, const T* filter, const T* out_backprop, T* in_backprop) {
  if (g.format == DataFormat::NHWC) return backward_data_nhwc(g, filter, out_backprop, in_backprop);
  std::vector<T> dy, dx(static_cast<size_t>(g.input_elements()));
  backward_data_nhwc(g, filter, as_nhwc(g.format, out_backprop, g.batch, g.out_depth, g.out_rows * g.out_cols, dy), dx.data());
  nhwc_to_nchw(dx.data(), in_backprop, g.batch, g.in_depth, g.in_rows * g.in_cols);
}

template <class T>
void reference_backward_filter(const Geometry& g, const T* input, const T* out_backprop, T* filter_backprop) {
  std::vector<T> x, dy;
  backward_filter_nhwc(g, as_nhwc(g.format, input, g.batch, g.in_depth, g.in_rows * g.in_cols, x),
                       as_nhwc(g.format, out_backprop, g.batch, g.out_depth, g.out_rows * g.out_cols, dy), filter_backprop);
}

#define FLOWLENS_CONV_REFERENCE(T)                                                         \
  template void reference_forward<T>(const Geometry&, const T*, const T*, T*);            \
  template void reference_backward_data<T>(const Geometry&, const T*, const T*, T*);      \
  template void reference_backward_filter<T>(const Geometry&, const T*, const T*, T*);
FLOWLENS_CONV_REFERENCE(float)
FLOWLENS_CONV_REFERENCE(double)
FLOWLENS_CONV_REFERENCE(int32_t)
#undef FLOWLENS_CONV_REFERENCE

}  // namespace flowlens::ops::conv
