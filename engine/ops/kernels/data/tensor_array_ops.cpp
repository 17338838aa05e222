// TensorFlow 1's TensorArrayV3 family (tensorflow/core/ops/data_flow_ops.cc,
// kernels/tensor_array_ops.cc): TensorArrayV3, TensorArrayReadV3/WriteV3,
// GatherV3/ScatterV3, ConcatV3/SplitV3, SizeV3, GradV3, GradWithShape and
// CloseV3. tf.while_loop's dynamic_rnn and the gradients of loops use them.
//
// Each TensorArrayV3 run makes a fresh TensorArray (ops/resources/tensor_array.h), per
// step like TensorFlow's, carried in the handle's ResourceHandle::resource.
// The float "flow" tensors carry no data: they order the ops (a read after
// the write whose flow it takes); kernels pass flow_in through.
//
// One deliberate difference: TensorFlow's shape functions say a V3 handle is
// a 2-vector (a leftover of the string handles of V1/V2) while its kernels
// output a scalar; here the shape functions say scalar, as the tensors are,
// and handle inputs accept either.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "ops/kernels/array/array_util.h"
#include "ops/framework/kernel_checks.h"
#include "ops/framework/op_helpers.h"
#include "ops/resources/tensor_array.h"
#include "ops/kernels/training/training_kernel.h"
#include "ops/kernels/state/variable_shapes.h"

namespace flowlens::ops {
namespace {

std::atomic<int64_t> tensor_array_counter{0};

// ---- shared -------------------------------------------------------------------------

std::shared_ptr<TensorArray> tensor_array_input(const KernelContext& ctx, int i) {
  const ResourceHandle& h = handle_input(ctx, i);
  auto ta = std::dynamic_pointer_cast<TensorArray>(h.resource);
  if (!ta)
    fail(ctx.node().op + ": input " + std::to_string(i) + " is not a TensorArray handle (it names " +
         (h.resource ? "a " + h.resource->kind() : h.variable ? "the variable " + h.qualified_name() : "nothing") + ")");
  return ta;
}

// The handle tensor: TensorFlow's handle data (dtype and element shape) when
// the element shape is fully defined or all elements share it.
Tensor handle_tensor(const std::shared_ptr<TensorArray>& ta, const Shape& handle_shape) {
  ResourceHandle h;
  h.container = "_tensor_arrays";
  h.name = ta->name();
  h.dtype = ta->dtype();
  h.shape = handle_shape;
  h.resource = ta;
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

Shape handle_shape_for(const Shape& element_shape, bool identical) {
  return element_shape.fully_defined() || identical ? element_shape : Shape::unknown_rank();
}

const Tensor& scalar_input(const KernelContext& ctx, int i, const char* message) {
  const Tensor& t = input(ctx, i);
  if (t.shape().rank() != 0) fail(std::string(message) + shape_str(t.shape()));
  return t;
}

int64_t index_input(const KernelContext& ctx, int i) {
  const Tensor& t = scalar_input(ctx, i, "TensorArray index must be scalar, but had shape: ");
  if (t.dtype() != DType::Int32) fail(ctx.node().op + ": index must be int32, got " + dtype_name(t.dtype()));
  return t.to_host().data<int32_t>()[0];
}

std::vector<int64_t> indices_input(const KernelContext& ctx, int i) {
  const Tensor& t = input(ctx, i);
  if (t.shape().rank() != 1) fail("Expected indices to be a vector, but received shape: " + shape_str(t.shape()));
  if (t.dtype() != DType::Int32) fail(ctx.node().op + ": indices must be int32, got " + dtype_name(t.dtype()));
  return read_ints(ctx.node().op.c_str(), "indices", t.to_host());
}

// flow_in passed on as flow_out: a float scalar.
void pass_flow(KernelContext& ctx, int in, int out) {
  const Tensor& flow = input(ctx, in);
  if (flow.dtype() != DType::Float || flow.shape().rank() != 0)
    fail(ctx.node().op + ": flow_in must be a float scalar, got " + dtype_name(flow.dtype()) + " " + shape_str(flow.shape()));
  ctx.set_output(out, flow);
}

void check_read_dtype(const KernelContext& ctx, const TensorArray& ta, const char* attr) {
  const DType want = ctx.attrs().type(attr);
  if (want != ta.dtype())
    fail("TensorArray dtype is " + tf_type_name(ta.dtype()) + " but Op requested dtype " + tf_type_name(want) + ".");
}

void check_write_dtype(const TensorArray& ta, const Tensor& value) {
  if (value.dtype() != ta.dtype())
    fail("TensorArray dtype is " + tf_type_name(ta.dtype()) + " but Op is trying to write dtype " +
         tf_type_name(value.dtype()) + ".");
}

Shape drop_dim0(const Shape& s) {
  return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
}

Shape prepend_dim(int64_t d, const Shape& s) {
  if (!s.rank_known()) return s;
  std::vector<int64_t> dims{d};
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  return Shape(std::move(dims));
}

// Rows [begin, begin + count) of `value` (dim 0) as a tensor of `shape`.
Tensor rows_of(const Tensor& value, int64_t begin, int64_t count, const Shape& shape) {
  Tensor out(value.dtype(), shape);
  const int64_t row = count == 0 ? 0 : out.num_elements() / count;
  if (out.num_elements() > 0) copy_elements(out, 0, 0, value, begin * row, 0, out.num_elements(), 1);
  return out;
}

// The tensors stacked (or concatenated) along dim 0 into one of `shape`.
Tensor join_rows(const std::vector<Tensor>& parts, DType dtype, const Shape& shape) {
  Tensor out(dtype, shape);
  int64_t offset = 0;
  for (const Tensor& p : parts) {
    const Tensor host = p.to_host();
    if (host.num_elements() > 0) copy_elements(out, offset, 0, host, 0, 0, host.num_elements(), 1);
    offset += host.num_elements();
  }
  return out;
}

// ---- shape functions ------------------------------------------------------------------

// A V3 handle: a scalar (what the kernels make) or TensorFlow's static 2-vector.
void check_handle(const ShapeContext& ctx, int i) {
  const Shape& s = ctx.input(i).shape;
  if (!s.rank_known() || s.rank() == 0) return;
  if (s.rank() == 1 && (s.dim(0) == 2 || s.dim(0) < 0)) return;
  fail(ctx.node().op + ": a TensorArray handle is a scalar resource, got shape " + shape_str(s));
}

void rank0(const ShapeContext& ctx, int i) {
  if (i < ctx.num_inputs()) tf_with_rank(ctx.input(i).shape, 0);
}
void rank1(const ShapeContext& ctx, int i) {
  if (i < ctx.num_inputs()) tf_with_rank(ctx.input(i).shape, 1);
}

// The TensorArray behind a constant handle input (the registry walk's cases).
std::shared_ptr<TensorArray> constant_tensor_array(const ShapeContext& ctx, int i) {
  const Tensor* t = ctx.constant_input(i);
  if (!t || t->dtype() != DType::Resource || t->num_elements() == 0) return nullptr;
  return std::dynamic_pointer_cast<TensorArray>(t->handles()[0].resource);
}

void tensor_array_shape(ShapeContext& ctx) {
  rank0(ctx, 0);
  ctx.set_output(0, DType::Resource, Shape{});
  ctx.set_output(1, DType::Float, Shape{});
  const Shape& element = ctx.attrs().shape("element_shape");
  if (element.fully_defined() || ctx.attrs().boolean("identical_element_shapes"))
    ctx.set_output_handle(0, ctx.attrs().type("dtype"), element);
}

void tensor_array_grad_shape(ShapeContext& ctx) {
  check_handle(ctx, 0);
  rank0(ctx, 1);
  ctx.set_output(0, DType::Resource, Shape{});
  ctx.set_output(1, DType::Float, Shape{});
  const TensorInfo fwd = variable_info(ctx, 0);
  if (fwd.dtype == DType::Invalid) return;
  if (ctx.node().op != "TensorArrayGradWithShape") {
    ctx.set_output_handle(0, fwd.dtype, fwd.shape);
    return;
  }
  rank1(ctx, 2);
  Shape s = Shape::unknown_rank();
  const Shape& prepend = ctx.num_inputs() > 2 ? ctx.input(2).shape : Shape::unknown_rank();
  if (fwd.shape.rank_known() && prepend.rank_known() && prepend.rank() == 1 && prepend.dim(0) >= 0) {
    std::vector<int64_t> dims;
    if (const Tensor* c = ctx.constant_input(2); c && c->dtype() == DType::Int32)
      for (int32_t d : c->values<int32_t>()) dims.push_back(d);
    else
      dims.assign(static_cast<size_t>(prepend.dim(0)), Shape::kUnknownDim);
    dims.insert(dims.end(), fwd.shape.dims().begin(), fwd.shape.dims().end());
    s = Shape(std::move(dims));
  }
  ctx.set_output_handle(0, fwd.dtype, s);
}

void tensor_array_write_shape(ShapeContext& ctx) {
  check_handle(ctx, 0);
  rank0(ctx, 1);
  rank0(ctx, 3);
  const TensorInfo h = variable_info(ctx, 0);
  if (h.dtype != DType::Invalid && ctx.num_inputs() > 2) tf_merge(h.shape, ctx.input(2).shape);
  ctx.set_output(0, DType::Float, Shape{});
}

void tensor_array_read_shape(ShapeContext& ctx) {
  check_handle(ctx, 0);
  rank0(ctx, 1);
  rank0(ctx, 2);
  const TensorInfo h = variable_info(ctx, 0);
  ctx.set_output(0, ctx.attrs().type("dtype"), h.dtype != DType::Invalid ? h.shape : Shape::unknown_rank());
}

void tensor_array_gather_shape(ShapeContext& ctx) {
  check_handle(ctx, 0);
  rank1(ctx, 1);
  rank0(ctx, 2);
  const TensorInfo h = variable_info(ctx, 0);
  const Shape& indices = ctx.input(1).shape;
  const int64_t n = indices.rank_known() ? indices.dim(0) : Shape::kUnknownDim;
  const Shape element = h.dtype != DType::Invalid ? h.shape : ctx.attrs().shape("element_shape");
  ctx.set_output(0, ctx.attrs().type("dtype"), prepend_dim(n, element));
}

void tensor_array_scatter_shape(ShapeContext& ctx) {
  check_handle(ctx, 0);
  rank1(ctx, 1);
  rank0(ctx, 3);
  ctx.set_output(0, DType::Float, Shape{});
}

void tensor_array_split_shape(ShapeContext& ctx) {
  check_handle(ctx, 0);
  rank1(ctx, 2);
  rank0(ctx, 3);
  ctx.set_output(0, DType::Float, Shape{});
}

// Unknown, as TensorFlow's; a constant handle (the registry walk) tells the
// elements' recorded shapes.
void tensor_array_concat_shape(ShapeContext& ctx) {
  check_handle(ctx, 0);
  rank0(ctx, 1);
  const DType dtype = ctx.attrs().type("dtype");
  ctx.set_output(0, dtype, Shape::unknown_rank());
  ctx.set_output(1, DType::Int64, Shape{Shape::kUnknownDim});
  const auto ta = constant_tensor_array(ctx, 0);
  if (!ta) return;
  int64_t n = 0;
  try {
    n = ta->pack_or_concat_size();
  } catch (const Error&) {
    return;
  }
  ctx.set_output(1, DType::Int64, Shape{n});
  const std::vector<Shape> shapes = ta->recorded_shapes(n);
  if (shapes.empty() || static_cast<int64_t>(shapes.size()) != n) return;
  int64_t rows = 0;
  for (const Shape& s : shapes) {
    if (!s.rank_known() || s.rank() == 0 || !(drop_dim0(s) == drop_dim0(shapes[0]))) return;
    rows += s.dim(0);
  }
  ctx.set_output(0, dtype, prepend_dim(rows, drop_dim0(shapes[0])));
}

void tensor_array_size_shape(ShapeContext& ctx) {
  check_handle(ctx, 0);
  rank0(ctx, 1);
  ctx.set_output(0, DType::Int32, Shape{});
}

void tensor_array_close_shape(ShapeContext& ctx) { check_handle(ctx, 0); }

// ---- kernels --------------------------------------------------------------------------

void tensor_array_kernel(KernelContext& ctx) {
  const Tensor& size_in = scalar_input(ctx, 0, "TensorArray size must be scalar, but had shape: ");
  if (size_in.dtype() != DType::Int32) fail("TensorArrayV3: size must be int32, got " + dtype_name(size_in.dtype()));
  const int64_t size = size_in.to_host().data<int32_t>()[0];
  if (size < 0) fail("Size should be >= 0.");
  const AttrReader a = ctx.attrs();
  TensorArray::Options o;
  o.dtype = a.type("dtype");
  if (o.dtype == DType::Invalid || dtype_is_ref(o.dtype) || o.dtype == DType::Resource || o.dtype == DType::Variant)
    fail("TensorArrayV3: dtype " + dtype_name(o.dtype) + " cannot be held in a TensorArray");
  o.element_shape = a.shape("element_shape");
  o.dynamic_size = a.boolean("dynamic_size");
  o.clear_after_read = a.boolean("clear_after_read");
  o.identical_element_shapes = a.boolean("identical_element_shapes");
  const std::string name = a.string("tensor_array_name") + "_" + std::to_string(tensor_array_counter.fetch_add(1));
  auto ta = std::make_shared<TensorArray>(name, size, o);
  ctx.set_output(0, handle_tensor(ta, handle_shape_for(o.element_shape, o.identical_element_shapes)));
  ctx.set_output(1, Tensor::scalar<float>(0.0f));
}

void tensor_array_grad_kernel(KernelContext& ctx) {
  const auto ta = tensor_array_input(ctx, 0);
  Shape prepend;
  if (ctx.node().op == "TensorArrayGradWithShape") {
    const Tensor& s = input(ctx, 2);
    if (s.shape().rank() != 1 || s.dtype() != DType::Int32)
      fail("TensorArrayGradWithShape: shape_to_prepend must be an int32 vector, got " + dtype_name(s.dtype()) + " " +
           shape_str(s.shape()));
    prepend = make_shape(ctx.node().op, read_ints(ctx.node().op.c_str(), "shape_to_prepend", s.to_host()));
  }
  const auto g = ta->grad(ctx.attrs().string("source"), prepend);
  // The forward handle's data, as the shape function passes it on.
  const ResourceHandle& fh = handle_input(ctx, 0);
  Shape hs = fh.shape;
  if (ctx.node().op == "TensorArrayGradWithShape" && hs.rank_known()) {
    std::vector<int64_t> dims = prepend.dims();
    dims.insert(dims.end(), hs.dims().begin(), hs.dims().end());
    hs = Shape(std::move(dims));
  }
  ctx.set_output(0, handle_tensor(g, hs));
  pass_flow(ctx, 1, 1);
}

void tensor_array_write_kernel(KernelContext& ctx) {
  const auto ta = tensor_array_input(ctx, 0);
  const int64_t index = index_input(ctx, 1);
  const Tensor& value = input(ctx, 2);
  check_write_dtype(*ta, value);
  ta->write(index, value.to_host());
  pass_flow(ctx, 3, 0);
}

void tensor_array_read_kernel(KernelContext& ctx) {
  const auto ta = tensor_array_input(ctx, 0);
  const int64_t index = index_input(ctx, 1);
  check_read_dtype(ctx, *ta, "dtype");
  ctx.set_output(0, ta->read(index));
}

void tensor_array_gather_kernel(KernelContext& ctx) {
  const auto ta = tensor_array_input(ctx, 0);
  check_read_dtype(ctx, *ta, "dtype");
  const std::vector<int64_t> indices = indices_input(ctx, 1);
  const Shape attr_shape = ctx.attrs().shape("element_shape");
  if (indices.empty()) {
    const Shape element = merge_partial(attr_shape, ta->element_shape());
    if (!element.fully_defined())
      fail("TensorArray has size zero, but element shape " + shape_str(element) +
           " is not fully defined. Currently only static shapes are supported when packing zero-size TensorArrays.");
    ctx.set_output(0, Tensor(ta->dtype(), prepend_dim(0, element)));
    return;
  }
  const std::vector<Tensor> values = ta->read_many(indices);
  const Shape& first = values[0].shape();
  if (!shape_compatible(attr_shape, first))
    fail("TensorArray was passed element_shape " + shape_str(attr_shape) + " which does not match the Tensor at index 0: " +
         shape_str(first));
  for (size_t i = 1; i < values.size(); ++i)
    if (!(values[i].shape() == first))
      fail("TensorArray has inconsistent shapes.  Index 0 has shape: " + shape_str(first) + " but index " +
           std::to_string(i) + " has shape: " + shape_str(values[i].shape()));
  check_movable(ctx.node().op.c_str(), ta->dtype());
  ctx.set_output(0, join_rows(values, ta->dtype(), prepend_dim(static_cast<int64_t>(values.size()), first)));
}

void tensor_array_scatter_kernel(KernelContext& ctx) {
  const auto ta = tensor_array_input(ctx, 0);
  const Tensor value = input(ctx, 2).to_host();
  check_write_dtype(*ta, value);
  if (value.shape().rank() == 0)
    fail("Input value for unpack must be at least a vector but received shape: " + shape_str(value.shape()));
  const std::vector<int64_t> indices = indices_input(ctx, 1);
  const int64_t n = value.shape().dim(0);
  if (static_cast<int64_t>(indices.size()) != n)
    fail("Expected len(indices) == values.shape[0], but saw: " + std::to_string(indices.size()) + " vs. " +
         std::to_string(n));
  int64_t array_size = ta->size();
  const int64_t max_index = indices.empty() ? -1 : *std::max_element(indices.begin(), indices.end());
  if (ta->has_dynamic_size() && array_size < max_index + 1) array_size = max_index + 1;
  if (max_index >= array_size)
    fail("Max scatter index must be < array size (" + std::to_string(max_index) + " vs. " + std::to_string(array_size) + ")");
  check_movable(ctx.node().op.c_str(), value.dtype());
  const Shape element = drop_dim0(value.shape());
  std::vector<Tensor> rows;
  rows.reserve(indices.size());
  for (int64_t i = 0; i < n; ++i) rows.push_back(rows_of(value, i, 1, element));
  ta->write_many(indices, rows);
  pass_flow(ctx, 3, 0);
}

void tensor_array_concat_kernel(KernelContext& ctx) {
  const auto ta = tensor_array_input(ctx, 0);
  check_read_dtype(ctx, *ta, "dtype");
  const Shape except0 = ctx.attrs().shape("element_shape_except0");
  const int64_t n = ta->pack_or_concat_size();
  if (n <= 0) {
    if (!except0.fully_defined())
      fail("TensorArray has size zero, but element_shape_except0 " + shape_str(except0) +
           " is not fully defined. Currently only static shapes are supported when concatenating zero-size "
           "TensorArrays.");
    ctx.set_output(0, Tensor(ta->dtype(), prepend_dim(0, except0)));
    ctx.set_output(1, Tensor(DType::Int64, Shape{0}));
    return;
  }
  std::vector<int64_t> all(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
  const std::vector<Tensor> values = ta->read_many(all);
  Tensor lengths(DType::Int64, Shape{n});
  Shape rest;
  int64_t rows = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const Shape& s = values[i].shape();
    if (s.rank() == 0)
      fail("Concat saw a scalar shape at index " + std::to_string(i) + " but requires at least vectors.  Did you mean to call pack?");
    const Shape r = drop_dim0(s);
    if (!shape_compatible(except0, r))
      fail("TensorArray was passed element_shape_except0 " + shape_str(except0) + " but index " + std::to_string(i) +
           " has (excepting dimension 0) shape: " + shape_str(r) + " which does not match.");
    if (i == 0)
      rest = r;
    else if (!(r == rest))
      fail("TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: " + shape_str(rest) +
           " but index " + std::to_string(i) + " has (excepting dimension 0) shape: " + shape_str(r));
    lengths.data<int64_t>()[i] = s.dim(0);
    rows += s.dim(0);
  }
  check_movable(ctx.node().op.c_str(), ta->dtype());
  ctx.set_output(0, join_rows(values, ta->dtype(), prepend_dim(rows, rest)));
  ctx.set_output(1, std::move(lengths));
}

void tensor_array_split_kernel(KernelContext& ctx) {
  const auto ta = tensor_array_input(ctx, 0);
  const Tensor value = input(ctx, 1).to_host();
  check_write_dtype(*ta, value);
  const Tensor& lengths_t = input(ctx, 2);
  if (lengths_t.shape().rank() != 1)
    fail("Expected lengths to be a vector, received shape: " + shape_str(lengths_t.shape()));
  if (lengths_t.dtype() != DType::Int64) fail("TensorArraySplitV3: lengths must be int64, got " + dtype_name(lengths_t.dtype()));
  const std::vector<int64_t> lengths = read_ints(ctx.node().op.c_str(), "lengths", lengths_t.to_host());
  int64_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0) fail("TensorArraySplitV3: lengths[" + std::to_string(i) + "] = " + std::to_string(lengths[i]) + " is negative");
    if (__builtin_add_overflow(total, lengths[i], &total)) fail("TensorArraySplitV3: the sum of lengths overflows int64");
  }
  if (value.shape().rank() == 0)
    fail("Expected value to be at least a vector, but received shape: " + shape_str(value.shape()));
  if (total != value.shape().dim(0))
    fail("Expected sum of lengths to be equal to values.shape[0], but sum of lengths is " + std::to_string(total) +
         " and value's shape is: " + shape_str(value.shape()));
  const int64_t num = static_cast<int64_t>(lengths.size());
  int64_t array_size = ta->size();
  if (ta->has_dynamic_size() && array_size < num) array_size = num;
  if (array_size != num)
    fail("TensorArray's size is not equal to the size of lengths (" + std::to_string(num) + " vs. " +
         std::to_string(array_size) + "), and the TensorArray is not marked as dynamically resizeable");
  check_movable(ctx.node().op.c_str(), value.dtype());
  std::vector<Tensor> parts;
  std::vector<int64_t> indices;
  int64_t begin = 0;
  for (int64_t i = 0; i < num; ++i) {
    const int64_t len = lengths[static_cast<size_t>(i)];
    Shape s = value.shape();
    s.dim(0) = len;
    parts.push_back(rows_of(value, begin, len, s));
    indices.push_back(i);
    begin += len;
  }
  ta->set_marked_size(array_size);
  ta->write_many(indices, parts);
  pass_flow(ctx, 3, 0);
}

void tensor_array_size_kernel(KernelContext& ctx) {
  const auto ta = tensor_array_input(ctx, 0);
  ctx.set_output(0, Tensor::scalar<int32_t>(static_cast<int32_t>(ta->size())));
}

void tensor_array_close_kernel(KernelContext& ctx) { tensor_array_input(ctx, 0)->close(); }

}  // namespace

void register_tensor_array_ops(OpRegistry& r) {
  const char* host = "a TensorArray lives in host memory; soft placement runs it on the CPU";
  auto common = [&](OpBuilder b) -> OpBuilder { return std::move(b.no_gpu(host).category("control")); };
  r.add(common(OpBuilder("TensorArrayV3")
                   .input("size: int32")
                   .attr("dtype: type")
                   .attr("element_shape: shape = { unknown_rank: true }")
                   .attr("dynamic_size: bool = false")
                   .attr("clear_after_read: bool = true")
                   .attr("identical_element_shapes: bool = false")
                   .attr("tensor_array_name: string = ''")
                   .output("handle: resource")
                   .output("flow: float")
                   .stateful()
                   .shape(tensor_array_shape)
                   .cpu(tensor_array_kernel)
                   .not_differentiable("creates a TensorArray (tensor_array_grad.py: ops.NotDifferentiable)")
                   .doc("An array of tensors of one dtype, written and read by index (TF 1's tf.TensorArray).")));
  for (bool with_shape : {false, true}) {
    OpBuilder b(with_shape ? "TensorArrayGradWithShape" : "TensorArrayGradV3");
    b.input("handle: resource").input("flow_in: float");
    if (with_shape) b.input("shape_to_prepend: int32");
    b.output("grad_handle: resource")
        .output("flow_out: float")
        .attr("source: string")
        .stateful()
        .shape(tensor_array_grad_shape)
        .cpu(tensor_array_grad_kernel)
        .not_differentiable("the gradient accumulator of a TensorArray (tensor_array_grad.py: ops.NotDifferentiable)")
        .doc(with_shape ? "The gradient TensorArray of a TensorArray for a source, its element shapes prepended."
                        : "The gradient TensorArray of a TensorArray for a source: same size, writes add up.");
    r.add(common(std::move(b)));
  }
  r.add(common(OpBuilder("TensorArrayWriteV3")
                   .input("handle: resource")
                   .input("index: int32")
                   .input("value: T")
                   .input("flow_in: float")
                   .output("flow_out: float")
                   .attr("T: type")
                   .stateful()
                   .shape(tensor_array_write_shape)
                   .cpu(tensor_array_write_kernel)
                   .doc("Writes one element of a TensorArray.")));
  r.add(common(OpBuilder("TensorArrayReadV3")
                   .input("handle: resource")
                   .input("index: int32")
                   .input("flow_in: float")
                   .output("value: dtype")
                   .attr("dtype: type")
                   .stateful()
                   .shape(tensor_array_read_shape)
                   .cpu(tensor_array_read_kernel)
                   .doc("Reads one element of a TensorArray.")));
  r.add(common(OpBuilder("TensorArrayGatherV3")
                   .input("handle: resource")
                   .input("indices: int32")
                   .input("flow_in: float")
                   .output("value: dtype")
                   .attr("dtype: type")
                   .attr("element_shape: shape = { unknown_rank: true }")
                   .stateful()
                   .shape(tensor_array_gather_shape)
                   .cpu(tensor_array_gather_kernel)
                   .doc("Stacks the TensorArray elements at indices along a new dimension 0.")));
  r.add(common(OpBuilder("TensorArrayScatterV3")
                   .input("handle: resource")
                   .input("indices: int32")
                   .input("value: T")
                   .input("flow_in: float")
                   .output("flow_out: float")
                   .attr("T: type")
                   .stateful()
                   .shape(tensor_array_scatter_shape)
                   .cpu(tensor_array_scatter_kernel)
                   .doc("Writes the rows of value to the TensorArray elements at indices.")));
  r.add(common(OpBuilder("TensorArrayConcatV3")
                   .input("handle: resource")
                   .input("flow_in: float")
                   .output("value: dtype")
                   .output("lengths: int64")
                   .attr("dtype: type")
                   .attr("element_shape_except0: shape = { unknown_rank: true }")
                   .stateful()
                   .shape(tensor_array_concat_shape)
                   .cpu(tensor_array_concat_kernel)
                   .doc("Concatenates every TensorArray element along dimension 0, with their lengths.")));
  r.add(common(OpBuilder("TensorArraySplitV3")
                   .input("handle: resource")
                   .input("value: T")
                   .input("lengths: int64")
                   .input("flow_in: float")
                   .output("flow_out: float")
                   .attr("T: type")
                   .stateful()
                   .shape(tensor_array_split_shape)
                   .cpu(tensor_array_split_kernel)
                   .doc("Splits value along dimension 0 into TensorArray elements of the given lengths.")));
  r.add(common(OpBuilder("TensorArraySizeV3")
                   .input("handle: resource")
                   .input("flow_in: float")
                   .output("size: int32")
                   .shape(tensor_array_size_shape)
                   .cpu(tensor_array_size_kernel)
                   .not_differentiable("an integer size (tensor_array_grad.py: ops.NotDifferentiable)")
                   .doc("The number of elements of a TensorArray.")));
  r.add(common(OpBuilder("TensorArrayCloseV3")
                   .input("handle: resource")
                   .stateful()
                   .shape(tensor_array_close_shape)
                   .cpu(tensor_array_close_kernel)
                   .not_differentiable("releases a TensorArray (tensor_array_grad.py: ops.NotDifferentiable)")
                   .doc("Releases a TensorArray's elements; later uses fail.")));
}

}  // namespace flowlens::ops
