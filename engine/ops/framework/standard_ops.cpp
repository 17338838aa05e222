// register_standard_ops plus the helpers every op family shares (op_helpers.h).
#include "ops/framework/op_helpers.h"

namespace flowlens {

namespace ops {
void register_training_ops(OpRegistry& r);  // training_ops.cpp
void register_transfer_ops(OpRegistry& r);  // transfer_ops.cpp
void register_checkpoint_ops(OpRegistry& r);  // checkpoint_ops.cpp
void register_control_flow_ops(OpRegistry& r);  // control_flow_ops.cpp
void register_functional_ops(OpRegistry& r);  // functional_ops.cpp
void register_accumulator_ops(OpRegistry& r);  // accumulator_ops.cpp
}  // namespace ops

void register_standard_ops(OpRegistry& registry) {
  ops::register_state_ops(registry);
  ops::register_math_ops(registry);
  ops::register_unary_ops(registry);
  ops::register_reduction_ops(registry);
  ops::register_arg_reduce_ops(registry);
  ops::register_scan_ops(registry);
  ops::register_sequence_ops(registry);
  ops::register_index_ops(registry);
  ops::register_tile_ops(registry);
  ops::register_stitch_ops(registry);
  ops::register_matmul_op(registry);
  ops::register_nn_ops(registry);
  ops::register_conv_ops(registry);
  ops::register_array_ops(registry);
  ops::register_concat_ops(registry);
  ops::register_random_ops(registry);
  ops::register_string_ops(registry);
  ops::register_checkpoint_ops(registry);
  ops::register_parsing_ops(registry);
  ops::register_summary_ops(registry);
  ops::register_logging_ops(registry);
  ops::register_segment_ops(registry);
  ops::register_sparse_ops(registry);
  ops::register_training_ops(registry);
  ops::register_resource_ops(registry);
  ops::register_tensor_array_ops(registry);
  ops::register_stack_ops(registry);
  ops::register_resource_gather_op(registry);
  ops::register_scatter_ops(registry);
  ops::register_apply_ops(registry);
  ops::register_ftrl_ops(registry);
  ops::register_sparse_apply_ops(registry);
  ops::register_transfer_ops(registry);
  ops::register_pooling_ops(registry);
  ops::register_batch_norm_ops(registry);
  ops::register_lrn_ops(registry);
  ops::register_resize_ops(registry);
  ops::register_function_ops(registry);
  ops::register_control_flow_ops(registry);
  ops::register_functional_ops(registry);
  ops::register_dataset_ops(registry);
  ops::register_iterator_ops(registry);
  ops::register_queue_ops(registry);
  ops::register_accumulator_ops(registry);
}

namespace ops {

void fail(const std::string& message) { throw Error(message); }

void unsupported_dtype(const char* op, DType t) {
  throw Error(std::string(op) + ": unsupported dtype " + dtype_name(t));
}

void check_num_inputs(const KernelContext& ctx, int n) {
  if (ctx.num_inputs() != n)
    fail(ctx.node().op + " expects " + std::to_string(n) + " input(s), got " + std::to_string(ctx.num_inputs()));
}

void check_same_dtype(std::string_view op, DType a, DType b) {
  if (a != DType::Invalid && b != DType::Invalid && a != b)
    fail(std::string(op) + ": both inputs must have the same dtype, got " + dtype_name(a) + " and " + dtype_name(b));
}

void check_min_inputs(const KernelContext& ctx, int n) {
  if (ctx.num_inputs() < n)
    fail(ctx.node().op + " expects at least " + std::to_string(n) + " input(s), got " +
         std::to_string(ctx.num_inputs()));
}

const Tensor& input(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (!t.valid()) fail(ctx.node().op + ": input " + std::to_string(i) + " is an empty (uninitialized) tensor");
  return t;
}

void check_copyable(const char* op, DType t) {
  if (t == DType::String || dtype_is_ref(t) || dtype_size(t) == 0) unsupported_dtype(op, t);
}

std::vector<int64_t> read_ints(const char* op, const char* what, const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  if (t.dtype() == DType::Int32) {
    const int32_t* p = t.data<int32_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else if (t.dtype() == DType::Int64) {
    const int64_t* p = t.data<int64_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    fail(std::string(op) + ": " + what + " must be int32 or int64, got " + dtype_name(t.dtype()));
  }
  return out;
}

int64_t read_scalar_int(const char* op, const char* what, const Tensor& t) {
  if (t.num_elements() != 1)
    fail(std::string(op) + ": " + what + " must be a scalar, got shape " + shape_str(t.shape()));
  if (t.dtype() == DType::Int32) return t.data<int32_t>()[0];
  if (t.dtype() == DType::Int64) return t.data<int64_t>()[0];
  fail(std::string(op) + ": " + what + " must be int32 or int64, got " + dtype_name(t.dtype()));
}

int normalize_axis(const char* op, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    if (rank == 0)
      fail(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for a scalar input");
    fail(std::string(op) + ": Expected axis in the range [" + std::to_string(-rank) + ", " + std::to_string(rank) +
         "), but got " + std::to_string(axis));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

int64_t product(const std::vector<int64_t>& dims, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= dims[static_cast<size_t>(i)];
  return n;
}

int64_t checked_elements(const std::string& op, const std::vector<int64_t>& dims) {
  for (int64_t d : dims)
    if (d < 0) fail(op + ": shape " + shape_str(Shape(dims)) + " has a negative dimension");
  const auto n = Shape::checked_num_elements(dims);
  if (!n) fail(op + ": shape " + shape_str(Shape(dims)) + " has more elements than int64 can count");
  return *n;
}

DType attr_or_input_dtype(const ShapeContext& ctx, const char* name, int i) {
  DType t = ctx.node().attr_type(name, DType::Invalid);
  if (t != DType::Invalid) return dtype_base(t);
  if (i >= 0 && i < ctx.num_inputs()) return dtype_base(ctx.input(i).dtype);
  return DType::Invalid;
}

void unchanged_shape(ShapeContext& ctx) {
  Shape s = ctx.num_inputs() > 0 ? ctx.input(0).shape : Shape::unknown_rank();
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), std::move(s));
}

Shape merge_shapes(const Shape& a, const Shape& b, const char* message) {
  if (!a.rank_known()) return b;
  if (!b.rank_known()) return a;
  if (a.rank() != b.rank()) fail(std::string(message) + ": " + shape_str(a) + " vs. " + shape_str(b));
  std::vector<int64_t> dims(static_cast<size_t>(a.rank()));
  for (int i = 0; i < a.rank(); ++i) {
    int64_t x = a.dim(i), y = b.dim(i);
    if (x >= 0 && y >= 0 && x != y) fail(std::string(message) + ": " + shape_str(a) + " vs. " + shape_str(b));
    dims[static_cast<size_t>(i)] = x >= 0 ? x : y;
  }
  return Shape(std::move(dims));
}

Shape unknown_shape(int rank) {
  if (rank < 0) return Shape::unknown_rank();
  return Shape(std::vector<int64_t>(static_cast<size_t>(rank), Shape::kUnknownDim));
}

Shape shape_from_tensor(const Tensor& t) {
  std::vector<int64_t> dims = read_ints("shape", "shape", t);
  for (auto& d : dims)
    if (d < 0) d = Shape::kUnknownDim;
  return Shape(std::move(dims));
}

}  // namespace ops
}  // namespace flowlens
