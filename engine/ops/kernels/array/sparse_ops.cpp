// Sparse-tensor ops (a SparseTensor is indices [nnz, rank] int64, values
// [nnz] and a dense shape [rank]):
//   SparseToDense: scatters values into a dense tensor of default_value;
//   SparseReorder: sorts the entries into row-major (lexicographic) order;
//   SparseReshape: re-indexes the entries for a new dense shape (one -1 inferred).
#include <algorithm>
#include <numeric>
#include <vector>

#include "ops/framework/dtype_dispatch.h"

namespace flowlens::ops {
namespace {

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

// What SparseToDense and SparseReorder move: TensorFlow registers them for
// every type; here every fixed-size computable dtype and strings.
std::vector<DType> movable_dtypes() {
  std::vector<DType> t = dtypes_of<PodTypes>();
  t.push_back(DType::String);
  return t;
}

void check_movable(const char* op, DType t) {
  if (t != DType::String) check_copyable(op, t);
}

// Element `from` of src into element `to` of dst (one dtype).
void copy_element(const Tensor& src, int64_t from, Tensor& dst, int64_t to) {
  if (src.dtype() == DType::String) {
    dst.strings()[static_cast<size_t>(to)] = src.strings()[static_cast<size_t>(from)];
    return;
  }
  const size_t es = dtype_size(src.dtype());
  std::copy_n(static_cast<const char*>(src.raw_data()) + static_cast<size_t>(from) * es, es,
              static_cast<char*>(dst.raw_data()) + static_cast<size_t>(to) * es);
}

void check_rank(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

// Row n of an [nnz, rank] index matrix, as TensorFlow prints it: "[1,2]".
std::string index_string(const std::vector<int64_t>& ix, int64_t n, int64_t rank) {
  std::string s = "[";
  for (int64_t d = 0; d < rank; ++d)
    s += std::to_string(ix[static_cast<size_t>(n * rank + d)]) + (d < rank - 1 ? "," : "]");
  return s;
}

// TensorFlow's SparseTensor::IndicesValid: every row in bounds and strictly
// after the previous one in row-major order. Returns "" or the error, which
// names the first bad row (bounds before order before repeats).
std::string indices_problem(const std::vector<int64_t>& ix, int64_t nnz, const std::vector<int64_t>& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  for (int64_t n = 0; n < nnz; ++n) {
    bool valid = true, different = n == 0, increasing = true;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t v = ix[static_cast<size_t>(n * rank + d)];
      if (v < 0 || v >= shape[static_cast<size_t>(d)]) valid = false;
      if (n == 0) continue;
      const int64_t prev = ix[static_cast<size_t>((n - 1) * rank + d)];
      if (v > prev) different = true;
      if (!different && v < prev) increasing = false;
    }
    if (valid && increasing && different) continue;
    const std::string index = "indices[" + std::to_string(n) + "] = " + index_string(ix, n, rank);
    if (!valid) {
      std::string dims;
      for (size_t d = 0; d < shape.size(); ++d) dims += (d ? "," : "") + std::to_string(shape[d]);
      return index + " is out of bounds: need 0 <= index < [" + dims + "]";
    }
    if (!increasing)
      return index +
             " is out of order. Many sparse ops require sorted indices.\n"
             "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n";
    return index + " is repeated";
  }
  return "";
}

// ---- SparseToDense -----------------------------------------------------------------

void sparse_to_dense_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 2);
  if (const Tensor* c = ctx.constant_input(1)) {
    ctx.set_output(0, t, shape_from_tensor(*c));
    return;
  }
  const Shape& s = ctx.input(1).shape;
  check_rank(s, 1);
  ctx.set_output(0, t, s.rank_known() ? unknown_shape(static_cast<int>(s.dim(0))) : Shape::unknown_rank());
}

void sparse_to_dense_kernel(KernelContext& ctx) {
  const char* op = "SparseToDense";
  check_num_inputs(ctx, 4);
  const Tensor& indices = input(ctx, 0);
  const Tensor& shape_t = input(ctx, 1);
  const Tensor& values = input(ctx, 2);
  const Tensor& default_value = input(ctx, 3);
  const Shape& is = indices.shape();
  if (is.rank() > 2)
    fail("sparse_indices should be a scalar, vector, or matrix, got shape " + shape_str(is));
  const int64_t nnz = is.rank() > 0 ? is.dim(0) : 1;
  const int64_t rank = is.rank() > 1 ? is.dim(1) : 1;
  if (shape_t.shape().rank() != 1) fail("output_shape should be a vector, got shape " + shape_str(shape_t.shape()));
  if (shape_t.num_elements() != rank)
    fail("output_shape has incorrect number of elements: " + std::to_string(shape_t.num_elements()) +
         " should be: " + std::to_string(rank));
  const Shape& vs = values.shape();
  if (!(vs.rank() == 0 || (vs.rank() == 1 && values.num_elements() == nnz)))
    fail("sparse_values has incorrect shape " + shape_str(vs) + ", should be [] or [" + std::to_string(nnz) + "]");
  if (default_value.shape().rank() != 0) fail("default_value should be a scalar.");
  if (values.dtype() != default_value.dtype())
    fail("SparseToDense: sparse_values are " + dtype_name(values.dtype()) + " but default_value is " +
         dtype_name(default_value.dtype()));
  check_movable(op, values.dtype());
  const std::vector<int64_t> dims = read_ints(op, "output_shape", shape_t);
  for (int64_t d : dims)
    if (d < 0) fail("Dimension " + std::to_string(d) + " must be >= 0");
  checked_elements(op, dims);
  const std::vector<int64_t> ix = read_ints(op, "sparse_indices", indices);
  if (ctx.attrs().boolean("validate_indices"))
    if (std::string problem = indices_problem(ix, nnz, dims); !problem.empty()) fail(problem);
  Tensor& out = ctx.allocate_output(0, values.dtype(), Shape(dims));
  for (int64_t i = 0; i < out.num_elements(); ++i) copy_element(default_value, 0, out, i);
  for (int64_t n = 0; n < nnz; ++n) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t v = ix[static_cast<size_t>(n * rank + d)];
      if (v < 0 || v >= dims[static_cast<size_t>(d)])
        fail("Indices are not valid (out of bounds).  Shape: " + shape_str(out.shape()));
      flat = flat * dims[static_cast<size_t>(d)] + v;
    }
    copy_element(values, vs.rank() == 0 ? 0 : n, out, flat);  // later duplicates overwrite earlier ones
  }
}

// ---- SparseReorder -----------------------------------------------------------------

void sparse_reorder_shape(ShapeContext& ctx) {
  check_rank(ctx.input(0).shape, 2);
  check_rank(ctx.input(1).shape, 1);
  check_rank(ctx.input(2).shape, 1);
  ctx.set_output(0, DType::Int64, ctx.input(0).shape.rank_known() ? ctx.input(0).shape : unknown_shape(2));
  ctx.set_output(1, attr_or_input_dtype(ctx, "T", 1),
                 ctx.input(1).shape.rank_known() ? ctx.input(1).shape : unknown_shape(1));
}

void sparse_reorder_kernel(KernelContext& ctx) {
  const char* op = "SparseReorder";
  check_num_inputs(ctx, 3);
  const Tensor& ind = input(ctx, 0);
  const Tensor& val = input(ctx, 1);
  const Tensor& shp = input(ctx, 2);
  if (ind.shape().rank() != 2)
    fail("Input indices should be a matrix but received shape " + shape_str(ind.shape()));
  if (val.shape().rank() != 1) fail("Input values should be a vector but received shape " + shape_str(val.shape()));
  if (shp.shape().rank() != 1) fail("Input shape should be a vector but received shape " + shape_str(shp.shape()));
  check_movable(op, val.dtype());
  const std::vector<int64_t> shape = read_ints(op, "input_shape", shp);
  int64_t total = 1;  // TensorFlow's check, which also refuses a zero-size dimension
  for (int64_t d : shape) {
    if (d < 0) fail("Dimension " + std::to_string(d) + " must be >= 0");
    if (d == 0 || __builtin_mul_overflow(total, d, &total)) fail("Shape would have more than 2**63 - 1 elements");
  }
  const int64_t nnz = ind.shape().dim(0), rank = ind.shape().dim(1);
  if (val.shape().dim(0) != nnz)
    fail("indices and values rows (indexing dimension) must match. (indices = " + std::to_string(nnz) +
         ", values = " + std::to_string(val.shape().dim(0)) + ")");
  if (rank != static_cast<int64_t>(shape.size())) fail("Shape rank must be SparseTensor rank.");
  const std::vector<int64_t> ix = read_ints(op, "input_indices", ind);
  if (indices_problem(ix, nnz, shape).empty()) {  // already in order: forward the inputs
    ctx.set_output(0, ind);
    ctx.set_output(1, val);
    return;
  }
  std::vector<int64_t> order(static_cast<size_t>(nnz));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(ix.begin() + a * rank, ix.begin() + (a + 1) * rank, ix.begin() + b * rank,
                                        ix.begin() + (b + 1) * rank);
  });
  Tensor& out_ind = ctx.allocate_output(0, DType::Int64, ind.shape());
  Tensor& out_val = ctx.allocate_output(1, val.dtype(), val.shape());
  int64_t* oi = out_ind.data<int64_t>();
  for (int64_t n = 0; n < nnz; ++n) {
    const int64_t from = order[static_cast<size_t>(n)];
    std::copy_n(ix.begin() + from * rank, rank, oi + n * rank);
    copy_element(val, from, out_val, n);
  }
}

// ---- SparseReshape -----------------------------------------------------------------

void sparse_reshape_shape(ShapeContext& ctx) {
  const Shape& ind = ctx.input(0).shape;
  const Shape& new_shape = ctx.input(2).shape;
  check_rank(ind, 2);
  check_rank(ctx.input(1).shape, 1);
  check_rank(new_shape, 1);
  const int64_t nnz = ind.rank_known() ? ind.dim(0) : Shape::kUnknownDim;
  const int64_t rank = new_shape.rank_known() ? new_shape.dim(0) : Shape::kUnknownDim;
  ctx.set_output(0, DType::Int64, Shape{nnz, rank});
  ctx.set_output(1, DType::Int64, Shape{rank});
}

void sparse_reshape_kernel(KernelContext& ctx) {
  const char* op = "SparseReshape";
  check_num_inputs(ctx, 3);
  const Tensor& ind = input(ctx, 0);
  const Tensor& in_shape_t = input(ctx, 1);
  const Tensor& target_t = input(ctx, 2);
  if (ind.shape().rank() != 2)
    fail("Input indices should be a matrix but received shape " + shape_str(ind.shape()));
  if (in_shape_t.shape().rank() != 1)
    fail("Input shape should be a vector but received shape " + shape_str(in_shape_t.shape()));
  if (target_t.shape().rank() != 1)
    fail("Target shape should be a vector but received shape " + shape_str(target_t.shape()));
  const std::vector<int64_t> in_shape = read_ints(op, "input_shape", in_shape_t);
  for (int64_t d : in_shape)
    if (d < 0) fail("Expected shape dimensions to be non-negative, got " + std::to_string(d));
  int64_t dense_size = 1;
  for (int64_t d : in_shape)
    if (__builtin_mul_overflow(dense_size, d, &dense_size))
      fail("Shape " + shape_str(Shape(in_shape)) + " would have more than 2**63 - 1 elements");
  const int64_t nnz = ind.shape().dim(0), in_rank = static_cast<int64_t>(in_shape.size());
  if (ind.shape().dim(1) != in_rank)  // the indices address the input shape's dimensions
    fail("SparseReshape: input_indices have " + std::to_string(ind.shape().dim(1)) +
         " columns but input_shape has " + std::to_string(in_rank) + " dimensions");
  std::vector<int64_t> out_shape = read_ints(op, "new_shape", target_t);
  int64_t product = 1;
  int unknown = -1;
  for (size_t d = 0; d < out_shape.size(); ++d) {
    const int64_t size = out_shape[d];
    if (size == -1) {
      if (unknown != -1)
        fail("only one output dimension may be -1, not both " + std::to_string(unknown) + " and " + std::to_string(d));
      unknown = static_cast<int>(d);
      continue;
    }
    if (size < 0) fail("size " + std::to_string(d) + " must be non-negative, not " + std::to_string(size));
    if (__builtin_mul_overflow(product, size, &product))
      fail(std::string(op) + ": new_shape " + shape_str(Shape(out_shape)) + " has more elements than int64 can count");
  }
  auto shape_text = [&] {
    std::vector<int64_t> shown = out_shape;
    if (unknown >= 0) shown[static_cast<size_t>(unknown)] = 1;
    return ". input_shape=" + shape_str(Shape(in_shape)) + " output_shape=" + shape_str(Shape(shown));
  };
  if (unknown >= 0) {
    if (product <= 0)
      fail("reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are "
           "non-zero");
    if (dense_size % product != 0)
      fail("Input to reshape is a SparseTensor with " + std::to_string(dense_size) +
           " dense values, but the requested shape requires a multiple of " + std::to_string(product) + shape_text());
    out_shape[static_cast<size_t>(unknown)] = dense_size / product;
    product = dense_size;
  }
  if (product != dense_size)
    fail("Input to reshape is a tensor with " + std::to_string(dense_size) + " dense values, but the requested shape has " +
         std::to_string(product) + shape_text());
  const int64_t out_rank = static_cast<int64_t>(out_shape.size());
  if (out_shape == in_shape) {
    ctx.set_output(0, ind);
    ctx.set_output(1, in_shape_t);
    return;
  }
  checked_elements(op, {nnz, out_rank});
  Tensor& out_shape_t = ctx.allocate_output(1, DType::Int64, Shape{out_rank});
  std::copy(out_shape.begin(), out_shape.end(), out_shape_t.data<int64_t>());
  Tensor& out_ind = ctx.allocate_output(0, DType::Int64, Shape{nnz, out_rank});
  if (nnz == 0) return;
  if (dense_size == 0)
    fail("Input tensor has " + std::to_string(nnz) + " non zero elements but input shape (" +
         shape_str(Shape(in_shape)) + ") or output shape (" + shape_str(Shape(out_shape)) + ") is empty");
  const std::vector<int64_t> ix = read_ints(op, "input_indices", ind);
  std::vector<int64_t> in_strides(static_cast<size_t>(in_rank), 1), out_strides(static_cast<size_t>(out_rank), 1);
  for (size_t d = in_strides.size(); d-- > 1;) in_strides[d - 1] = in_strides[d] * in_shape[d];
  for (size_t d = out_strides.size(); d-- > 1;) out_strides[d - 1] = out_strides[d] * out_shape[d];
  int64_t* o = out_ind.data<int64_t>();
  for (int64_t n = 0; n < nnz; ++n) {
    // Row-major linear id in the input, then split by the output's strides;
    // wrapping arithmetic for out-of-bounds indices (TensorFlow does not check them).
    uint64_t id = 0;
    for (int64_t d = 0; d < in_rank; ++d)
      id += static_cast<uint64_t>(ix[static_cast<size_t>(n * in_rank + d)]) *
            static_cast<uint64_t>(in_strides[static_cast<size_t>(d)]);
    int64_t rest = static_cast<int64_t>(id);
    for (int64_t d = 0; d < out_rank; ++d) {
      o[n * out_rank + d] = rest / out_strides[static_cast<size_t>(d)];
      rest %= out_strides[static_cast<size_t>(d)];
    }
  }
}

}  // namespace

void register_sparse_ops(OpRegistry& r) {
  r.add(OpBuilder("SparseToDense")
            .input("sparse_indices: Tindices")
            .input("output_shape: Tindices")
            .input("sparse_values: T")
            .input("default_value: T")
            .attr("validate_indices: bool = true")
            .attr("T: type")
            .output("dense: T")
            .attr("Tindices: {int32, int64}")
            .shape(sparse_to_dense_shape)
            .cpu(sparse_to_dense_kernel, movable_dtypes())
            .no_gpu(kNoGpu)
            .category("sparse")
            .doc("A dense tensor of default_value with sparse_values scattered at sparse_indices."));
  r.add(OpBuilder("SparseReorder")
            .input("input_indices: int64")
            .input("input_values: T")
            .input("input_shape: int64")
            .output("output_indices: int64")
            .output("output_values: T")
            .attr("T: type")
            .shape(sparse_reorder_shape)
            .cpu(sparse_reorder_kernel, movable_dtypes())
            .no_gpu(kNoGpu)
            .category("sparse")
            .doc("A SparseTensor's entries sorted into row-major order."));
  r.add(OpBuilder("SparseReshape")
            .input("input_indices: int64")
            .input("input_shape: int64")
            .input("new_shape: int64")
            .output("output_indices: int64")
            .output("output_shape: int64")
            .shape(sparse_reshape_shape)
            .cpu(sparse_reshape_kernel)
            .no_gradient("TensorFlow registers no gradient for SparseReshape (int64 indices and shapes only)")
            .no_gpu(kNoGpu)
            .category("sparse")
            .doc("A SparseTensor's indices for a new dense shape (one dimension may be -1)."));
}

}  // namespace flowlens::ops
