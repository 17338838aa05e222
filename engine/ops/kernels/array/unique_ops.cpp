// Set-like ops on vectors: Unique (distinct values in order of first
// occurrence, and each element's position among them) and ListDiff (the
// elements of x not in y, in x's order, duplicates kept; tf.setdiff1d).
#include <unordered_map>
#include <unordered_set>

#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

using SetTypes = ConcatTypes<RealTypes, TypeList<bool>>;

// The key a value is compared by: floating values as double (so NaN never
// equals itself and -0.0 equals 0.0, as with TensorFlow's unordered_map).
template <class T>
auto key_of(const T& v) {
  if constexpr (std::is_same_v<T, double>) return v;
  else if constexpr (is_floating_v<T>) return static_cast<double>(static_cast<float>(v));
  else return v;
}

// Calls f(T{}) for the dtypes these ops take: the real numbers, bool, string.
template <class F>
void dispatch_set(DType t, const char* op, F&& f) {
  if (t == DType::String) return f(std::string{});
  dispatch<SetTypes>(t, op, std::forward<F>(f));
}

void write_index(Tensor& out, int64_t i, int64_t v) {
  if (out.dtype() == DType::Int64) out.data<int64_t>()[i] = v;
  else out.data<int32_t>()[i] = static_cast<int32_t>(v);
}

void unique_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  if (x.num_elements() > INT32_MAX)
    fail("unique does not support input tensors larger than " + std::to_string(INT32_MAX) + " elements");
  if (x.shape().rank() != 1) fail("unique expects a 1D vector.");
  const DType idx_type = ctx.attrs().type("out_idx");
  const int64_t n = x.num_elements();
  Tensor& idx = ctx.allocate_output(1, idx_type, x.shape());
  dispatch_set(x.dtype(), "Unique", [&](auto tag) {
    using T = decltype(tag);
    const T* in = elements<T>(x);
    std::unordered_map<decltype(key_of(in[0])), int64_t> seen;
    std::vector<T> values;
    for (int64_t i = 0; i < n; ++i) {
      const auto [it, inserted] = seen.emplace(key_of(in[i]), static_cast<int64_t>(values.size()));
      if (inserted) values.push_back(in[i]);
      write_index(idx, i, it->second);
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), Shape{static_cast<int64_t>(values.size())});
    std::copy(values.begin(), values.end(), elements<T>(y));
  });
}

// The number of distinct values of a constant vector.
int64_t unique_count(const Tensor& x) {
  int64_t count = 0;
  dispatch_set(x.dtype(), "Unique", [&](auto tag) {
    using T = decltype(tag);
    const T* in = elements<T>(x);
    std::unordered_set<decltype(key_of(in[0]))> seen;
    for (int64_t i = 0; i < x.num_elements(); ++i) count += seen.insert(key_of(in[i])).second;
  });
  return count;
}

// TensorFlow leaves y's length unknown; a constant input tells it.
void unique_shape(ShapeContext& ctx) {
  with_rank(ctx.input(0).shape, 1);
  const Tensor* x = ctx.constant_input(0);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), Shape{x ? unique_count(*x) : Shape::kUnknownDim});
  ctx.set_output(1, ctx.attrs().type("out_idx"), ctx.input(0).shape);
}

// The positions in x of the elements that are not in y.
std::vector<int64_t> kept_positions(const Tensor& x, const Tensor& y) {
  std::vector<int64_t> kept;
  dispatch_set(x.dtype(), "ListDiff", [&](auto tag) {
    using T = decltype(tag);
    const T* xs = elements<T>(x);
    const T* ys = elements<T>(y);
    std::unordered_set<decltype(key_of(xs[0]))> exclude;
    for (int64_t i = 0; i < y.num_elements(); ++i) exclude.insert(key_of(ys[i]));
    for (int64_t i = 0; i < x.num_elements(); ++i)
      if (!exclude.count(key_of(xs[i]))) kept.push_back(i);
  });
  return kept;
}

void list_diff_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const Tensor& y = input(ctx, 1);
  if (x.shape().rank() != 1) fail("x should be a 1D vector.");
  if (y.shape().rank() != 1) fail("y should be a 1D vector.");
  check_same_dtype("ListDiff", x.dtype(), y.dtype());
  const DType idx_type = ctx.attrs().type("out_idx");
  if (idx_type == DType::Int32 && x.num_elements() > INT32_MAX) fail("x too large for int32 indexing");
  const std::vector<int64_t> kept = kept_positions(x, y);
  const Shape shape{static_cast<int64_t>(kept.size())};
  Tensor& out = ctx.allocate_output(0, x.dtype(), shape);
  Tensor& idx = ctx.allocate_output(1, idx_type, shape);
  dispatch_set(x.dtype(), "ListDiff", [&](auto tag) {
    using T = decltype(tag);
    for (size_t k = 0; k < kept.size(); ++k) {
      elements<T>(out)[k] = elements<T>(x)[kept[k]];
      write_index(idx, static_cast<int64_t>(k), kept[k]);
    }
  });
}

void list_diff_shape(ShapeContext& ctx) {
  with_rank(ctx.input(0).shape, 1);
  with_rank(ctx.input(1).shape, 1);
  // TensorFlow leaves the length unknown; constant inputs tell it.
  const Tensor* x = ctx.constant_input(0);
  const Tensor* y = ctx.constant_input(1);
  const int64_t n = x && y && x->dtype() == y->dtype() ? static_cast<int64_t>(kept_positions(*x, *y).size())
                                                       : Shape::kUnknownDim;
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), Shape{n});
  ctx.set_output(1, ctx.attrs().type("out_idx"), Shape{n});
}

}  // namespace

void register_unique_ops(OpRegistry& r) {
  const std::vector<DType> types = pod_string_dtypes();
  r.add(OpBuilder("Unique")
            .input("x: T")
            .output("y: T")
            .output("idx: out_idx")
            .attr("T: type")
            .attr("out_idx: {int32, int64} = DT_INT32")
            .shape(unique_shape)
            .cpu(unique_kernel, types)
            .no_gradient("TensorFlow registers no gradient for Unique (array_grad.py has none): tf.gradients raises "
                         "LookupError through it")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("The distinct values of a vector in order of first occurrence, and each element's index among them."));
  r.add(OpBuilder("ListDiff")
            .input("x: T")
            .input("y: T")
            .output("out: T")
            .output("idx: out_idx")
            .attr("T: type")
            .attr("out_idx: {int32, int64} = DT_INT32")
            .shape(list_diff_shape)
            .cpu(list_diff_kernel, without(types, {DType::Bool}))
            .no_gradient("TensorFlow registers no gradient for ListDiff (array_grad.py has none): tf.gradients "
                         "raises LookupError through it")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("The elements of x not in y, in x's order with duplicates kept, and their positions (tf.setdiff1d)."));
}

}  // namespace flowlens::ops
