#include "ops/framework/kernel_checks.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

#include "ops/framework/op_helpers.h"

namespace flowlens::ops {

std::string tf_type_name(DType t) {
  std::string name = dtype_tf_name(t);  // "DT_FLOAT"
  if (name.starts_with("DT_")) name.erase(0, 3);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

MatmulDims matmul_dims(const KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  MatmulDims d;
  d.transpose_a = ctx.node().attr_bool("transpose_a", false);
  d.transpose_b = ctx.node().attr_bool("transpose_b", false);
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sa.rank() != 2) fail("MatMul: In[0] is not a matrix. Instead it has shape " + shape_str(sa));
  if (sb.rank() != 2) fail("MatMul: In[1] is not a matrix. Instead it has shape " + shape_str(sb));
  check_same_dtype("MatMul", a.dtype(), b.dtype());
  d.m = sa.dim(d.transpose_a ? 1 : 0);
  d.k = sa.dim(d.transpose_a ? 0 : 1);
  const int64_t k1 = sb.dim(d.transpose_b ? 1 : 0);
  d.n = sb.dim(d.transpose_b ? 0 : 1);
  if (d.k != k1) fail("Matrix size-incompatible: In[0]: " + shape_str(sa) + ", In[1]: " + shape_str(sb));
  return d;
}

bool bias_data_format_is_nchw(const KernelContext& ctx) {
  const AttrValue* v = ctx.attrs().find("data_format");
  if (!v) return false;
  const std::string* s = v->get_if<std::string>();
  if (s && *s == "NHWC") return false;
  if (s && *s == "NCHW") return true;
  fail("Invalid data format");
}

namespace {

// NCHW: the shape function's rank floor (TensorFlow rejects a rank-2 NCHW
// BiasAdd when it builds the graph) and the CPU kernel's ceiling.
void check_nchw_rank(const Shape& s) {
  if (s.rank() < 3) fail("Shape must be at least rank 3 but is rank " + std::to_string(s.rank()));
  if (s.rank() > 5) fail("Only ranks up to 5 supported: " + shape_str(s));
}

BiasLayout layout_of(const Shape& s, int channel_dim) {
  BiasLayout l;
  l.outer = product(s.dims(), 0, channel_dim);
  l.channels = s.dim(channel_dim);
  l.inner = product(s.dims(), channel_dim + 1, s.rank());
  return l;
}

}  // namespace

BiasLayout bias_add_layout(const KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const bool nchw = bias_data_format_is_nchw(ctx);
  const Tensor& x = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  const Shape& xs = x.shape();
  if (xs.rank() < 2) fail("Input tensor must be at least 2D: " + shape_str(xs));
  if (b.shape().rank() != 1) fail("Biases must be 1D: " + shape_str(b.shape()));
  if (nchw) check_nchw_rank(xs);
  const int channel_dim = nchw ? 1 : xs.rank() - 1;
  if (b.shape().dim(0) != xs.dim(channel_dim))
    fail("Must provide as many biases as the last dimension of the input tensor: " + shape_str(b.shape()) +
         " vs. " + shape_str(xs));
  if (x.dtype() != b.dtype())
    fail(ctx.node().op + ": value is " + dtype_name(x.dtype()) + " but bias is " + dtype_name(b.dtype()));
  return layout_of(xs, channel_dim);
}

BiasLayout bias_add_grad_layout(const KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const bool nchw = bias_data_format_is_nchw(ctx);
  const Shape& s = input(ctx, 0).shape();
  if (s.rank() < 2) fail("Input tensor must be at least 2D: " + shape_str(s));
  if (nchw) check_nchw_rank(s);
  if (s.num_elements() >= std::numeric_limits<int32_t>::max())  // FastBoundsCheck(n, INT32_MAX)
    fail("BiasGrad requires tensor size <= int32 max");
  return layout_of(s, nchw ? 1 : s.rank() - 1);
}

void check_data_format(const Node& n) {
  const AttrValue* v = n.find_attr("data_format");
  if (!v) return;
  const std::string* s = v->get_if<std::string>();
  if (s && (*s == "NHWC" || s->empty())) return;
  fail(n.op + ": data_format " + (s ? *s : v->to_string()) + " is not supported (only NHWC)");
}

int64_t bias_add_channels(const KernelContext& ctx) {
  check_data_format(ctx.node());
  return bias_add_layout(ctx).channels;
}

void check_add_n_inputs(const KernelContext& ctx) {
  check_min_inputs(ctx, 1);
  const Tensor& first = input(ctx, 0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const Tensor& t = input(ctx, i);
    if (!(t.shape() == first.shape()))
      fail("Inputs to operation AddN must have the same size and shape.  Input 0: " + shape_str(first.shape()) +
           " != input " + std::to_string(i) + ": " + shape_str(t.shape()));
    if (t.dtype() != first.dtype())
      fail("AddN: all inputs must have the same dtype, got " + dtype_name(first.dtype()) + " and " +
           dtype_name(t.dtype()));
  }
}

Shape dense_xent_shape(const KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& f = input(ctx, 0);
  const Tensor& l = input(ctx, 1);
  if (f.dtype() != l.dtype())
    fail("SoftmaxCrossEntropyWithLogits: logits are " + dtype_name(f.dtype()) + " but labels are " +
         dtype_name(l.dtype()));
  const Shape& a = f.shape();
  const Shape& b = l.shape();
  std::vector<int64_t> dims = a.dims();
  if (!(a == b)) {  // NumPy broadcasting, as BCast without dimension folding
    const int rank = std::max(a.rank(), b.rank());
    dims.assign(static_cast<size_t>(rank), 1);
    for (int i = 1; i <= rank; ++i) {
      const int64_t x = i <= a.rank() ? a.dim(a.rank() - i) : 1;
      const int64_t y = i <= b.rank() ? b.dim(b.rank() - i) : 1;
      if (x != y && x != 1 && y != 1)
        fail("logits and labels must be broadcastable: logits_size=" + shape_str(a) + " labels_size=" + shape_str(b));
      dims[static_cast<size_t>(rank - i)] = x == 1 ? y : x;
    }
  }
  if (dims.size() != 2)
    fail("logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional");
  checked_elements("SoftmaxCrossEntropyWithLogits", dims);
  return Shape(std::move(dims));
}

void check_dense_xent_inputs(const KernelContext& ctx) {
  dense_xent_shape(ctx);
  const Shape& a = ctx.input(0).shape();
  const Shape& b = ctx.input(1).shape();
  if (!(a == b))
    fail("SoftmaxCrossEntropyWithLogits: this kernel takes labels of the logits' shape, got logits_size=" +
         shape_str(a) + " labels_size=" + shape_str(b) + " (the CPU kernel broadcasts them)");
}

std::vector<int64_t> sparse_xent_labels(const KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& f = input(ctx, 0);
  const Tensor& l = input(ctx, 1);
  if (f.shape().rank() != 2) fail("logits must be 2-D, but got shape " + shape_str(f.shape()));
  if (l.shape().rank() != 1) fail("labels must be 1-D, but got shape " + shape_str(l.shape()));
  const int64_t batch = f.shape().dim(0), classes = f.shape().dim(1);
  if (l.shape().dim(0) != batch)
    fail("logits and labels must have the same first dimension, got logits shape " + shape_str(f.shape()) +
         " and labels shape " + shape_str(l.shape()));
  if (!is_index_type(l.dtype()))
    fail("SparseSoftmaxCrossEntropyWithLogits: labels must be int32 or int64, got " + dtype_name(l.dtype()));
  std::vector<int64_t> labels = read_ints("SparseSoftmaxCrossEntropyWithLogits", "labels", l);
  for (int64_t y : labels)
    if (y < 0 || y >= classes) {
      std::string all;
      for (int64_t v : labels) all += (all.empty() ? "" : " ") + std::to_string(v);
      fail("Received a label value of " + std::to_string(y) + " which is outside the valid range of [0, " +
           std::to_string(classes) + ").  Label values: " + all);
    }
  return labels;
}

Variable* ref_variable_input(const KernelContext& ctx, int i) {
  Variable* v = ctx.ref_input(i);
  if (!v) fail(ctx.node().op + ": input " + std::to_string(i) + " must be a reference to a variable");
  return v;
}

void check_initialized(const Variable* v) {
  if (!v->value.valid())
    fail("Attempting to use uninitialized value " + (v->name.empty() ? std::string("variable") : v->name));
}

const ResourceHandle& handle_input(const KernelContext& ctx, int i) {
  const Tensor& t = input(ctx, i);
  if (t.dtype() != DType::Resource)
    fail(ctx.node().op + ": input " + std::to_string(i) + " must be a resource handle, got " + dtype_name(t.dtype()));
  if (t.num_elements() == 0) fail(ctx.node().op + ": input " + std::to_string(i) + " holds no resource handle");
  return t.handles()[0];
}

Variable* updated_variable(const KernelContext& ctx, int i) {
  if (Variable* v = ctx.ref_input(i)) return v;
  if (!ctx.input(i).valid() || ctx.input(i).dtype() != DType::Resource) return ref_variable_input(ctx, i);
  Variable* v = handle_input(ctx, i).variable.get();
  if (!v) fail("Invalid variable reference.");
  return v;
}

void check_readable(const KernelContext& ctx, int i, const Variable* v) {
  if (ctx.ref_input(i))
    check_initialized(v);
  else if (!v->value.valid())
    fail("Invalid variable reference.");
}

void check_like_variable(const KernelContext& ctx, const Tensor& var, const Tensor& other, const char* what) {
  if (!(var.shape() == other.shape()))
    fail(std::string("var and ") + what + " do not have the same shape" + shape_str(var.shape()) + " " +
         shape_str(other.shape()));
  if (var.dtype() != other.dtype())
    fail(ctx.node().op + ": var is " + dtype_name(var.dtype()) + " but " + what + " is " + dtype_name(other.dtype()));
}

void check_assign_update(const KernelContext& ctx, const Tensor& old, const Tensor& delta) {
  if (!(old.shape() == delta.shape()))
    fail("Cannot update variable with shape " + shape_str(old.shape()) + " using a Tensor with shape " +
         shape_str(delta.shape()) + ", shapes must be equal.");
  if (old.dtype() != delta.dtype())
    fail(ctx.node().op + ": variable is " + dtype_name(old.dtype()) + " but the update is " +
         dtype_name(delta.dtype()));
}

}  // namespace flowlens::ops
