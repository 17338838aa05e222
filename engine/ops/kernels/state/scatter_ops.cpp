// Row scatters into a variable: ScatterAdd, ScatterSub, ScatterMul,
// ScatterDiv, ScatterMin, ScatterMax and ScatterUpdate on ref variables
// (state_ops.cc, kernels/scatter_op.cc), and ResourceScatterAdd ... Update on
// resource variables (resource_variable_ops.cc). Row indices[i] of the
// variable is combined with updates[i] (or with a scalar update).
//
// TensorFlow's CPU functor walks the indices in order, updating in place, and
// stops at the first index out of [0, rows): the rows before it stay updated.
// Here writers store a fresh tensor (copy on write, as AssignAdd does), so
// earlier reads keep their values; the stored tensor carries the same partial
// update before the error is reported.
#include <limits>
#include <mutex>

#include "ops/framework/kernel_checks.h"
#include "ops/kernels/array/array_util.h"
#include "ops/kernels/math/elementwise.h"
#include "ops/kernels/state/variable_shapes.h"
#include "ops/resources/resource_variable.h"

namespace flowlens::ops {
namespace {

enum class ScatterKind { Add, Sub, Mul, Div, Min, Max, Update };

// scatter_op::internal::Assign<op>: the row element p combined with update u.
// Min/Max as Eigen's cwiseMin/cwiseMax (std::min/max: a NaN update is not
// taken, a NaN element stays). Integer overflow wraps.
template <ScatterKind K, class T>
T scatter_combine(T p, T u) {
  if constexpr (K == ScatterKind::Add) return wrap_add(p, u);
  else if constexpr (K == ScatterKind::Sub) return wrap_sub(p, u);
  else if constexpr (K == ScatterKind::Mul) return wrap_mul(p, u);
  else if constexpr (K == ScatterKind::Div) {
    // The most negative integer / -1 overflows (a hardware trap in C++).
    if constexpr (is_int_v<T>) {
      if (u == T(-1)) return wrap_neg(p);
    }
    return T(p / u);
  } else if constexpr (K == ScatterKind::Min) return u < p ? u : p;
  else if constexpr (K == ScatterKind::Max) return p < u ? u : p;
  else return u;
}

std::string scatter_shape_message(const Shape& params, const Shape& indices, const Shape& updates) {
  return "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape " +
         shape_str(updates) + ", indices.shape " + shape_str(indices) + ", params.shape " + shape_str(params);
}

// scatter_op.cc's ValidShapes.
bool scatter_shapes_valid(const Shape& params, const Shape& indices, const Shape& updates) {
  if (updates.rank() == 0) return true;
  if (updates.rank() != indices.rank() + params.rank() - 1) return false;
  for (int d = 0; d < indices.rank(); ++d)
    if (updates.dim(d) != indices.dim(d)) return false;
  for (int d = 1; d < params.rank(); ++d)
    if (params.dim(d) != updates.dim(d - 1 + indices.rank())) return false;
  return true;
}

// The index-space checks both kernels make before they scatter.
void check_scatter_index_space(const Tensor& params, const Tensor& indices) {
  if (indices.dtype() != DType::Int32 && indices.dtype() != DType::Int64)
    fail("indices must be int32 or int64, got " + tf_type_name(indices.dtype()));
  const int64_t max = indices.dtype() == DType::Int32 ? std::numeric_limits<int32_t>::max()
                                                      : std::numeric_limits<int64_t>::max();
  const std::string type = tf_type_name(indices.dtype());
  if (indices.num_elements() > max)
    fail("indices has too many elements for " + type + " indexing: " + std::to_string(indices.num_elements()) +
         " > " + std::to_string(max));
  if (params.shape().dim(0) > max)
    fail("params.shape[0] too large for " + type + " indexing: " + std::to_string(params.shape().dim(0)) + " > " +
         std::to_string(max));
}

// The CPU kernels' guard for Div: "updates must not contain 0" (any dtype).
void check_scatter_divisor(const Tensor& updates) {
  dispatch<RealTypes>(updates.dtype(), "ScatterDiv", [&](auto tag) {
    using T = decltype(tag);
    const T* u = updates.data<T>();
    for (int64_t i = 0, n = updates.num_elements(); i < n; ++i)
      if (u[i] == T(0)) fail("updates must not contain 0");
  });
}

// Scatters `updates` into `params` (modified in place) along the indices in
// order; returns TensorFlow's error for the first index out of range ("" if
// none), the rows before it updated.
template <ScatterKind K>
std::string scatter_rows(const char* op, Tensor& params, const Tensor& indices, const Tensor& updates) {
  const std::vector<int64_t> idx = read_ints(op, "indices", indices);
  const int64_t rows = params.shape().dim(0);
  const int64_t row = rows == 0 ? 0 : params.num_elements() / rows;
  const bool scalar = updates.shape().rank() == 0;
  std::string bad;
  auto out_of_range = [&](size_t i) {
    return "indices" + index_string(indices.shape(), static_cast<int64_t>(i)) + " = " + std::to_string(idx[i]) +
           " is not in [0, " + std::to_string(rows) + ")";
  };
  auto walk = [&](auto tag) {
    using E = decltype(tag);
    E* p = elements<E>(params);
    const E* u = elements<E>(updates);
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || idx[i] >= rows) {
        bad = out_of_range(i);
        return;
      }
      E* dst = p + idx[i] * row;
      const E* src = scalar ? u : u + static_cast<int64_t>(i) * row;
      for (int64_t k = 0; k < row; ++k) dst[k] = scatter_combine<K>(dst[k], scalar ? src[0] : src[k]);
    }
  };
  if constexpr (K == ScatterKind::Update) {
    dispatch_element(params.dtype(), op, walk);  // moves elements as bytes (or strings)
  } else {
    dispatch<RealTypes>(params.dtype(), op, walk);
  }
  return bad;
}

void check_scatter_dtypes(const char* op, const Tensor& params, const Tensor& updates) {
  if (params.dtype() != updates.dtype())
    fail(std::string(op) + ": updates of dtype " + tf_type_name(updates.dtype()) + " do not match the variable's " +
         tf_type_name(params.dtype()));
}

// ---- ref variables (scatter_op.cc's ScatterUpdateOp) ---------------------------

template <ScatterKind K>
void scatter_ref_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  const char* op = ctx.node().op.c_str();
  Variable* v = ref_variable_input(ctx, 0);
  const Tensor& indices = input(ctx, 1);
  const Tensor& updates = input(ctx, 2);
  std::lock_guard lock(v->mu);
  check_initialized(v);
  const Tensor params = v->value.to_host();
  check_scatter_dtypes(op, params, updates);
  if (params.shape().rank() < 1) fail("params must be at least 1-D, got shape " + shape_str(params.shape()));
  if (!scatter_shapes_valid(params.shape(), indices.shape(), updates.shape()))
    fail(scatter_shape_message(params.shape(), indices.shape(), updates.shape()));
  check_scatter_index_space(params, indices);
  if constexpr (K == ScatterKind::Div) check_scatter_divisor(updates);
  if (indices.num_elements() == 0) {
    ctx.set_output(0, params);
    return;
  }
  Tensor out = params.clone();
  const std::string bad = scatter_rows<K>(op, out, indices, updates);
  v->value = out;
  if (!bad.empty()) fail(bad);
  ctx.set_output(0, std::move(out));
}

// ---- resource variables (resource_variable_ops.cc's ResourceScatterUpdateOp) -----

template <ScatterKind K>
void scatter_resource_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  const char* op = ctx.node().op.c_str();
  const ResourceHandle& h = handle_input(ctx, 0);
  Variable* v = resource_variable(h);
  const Tensor& indices = input(ctx, 1);
  const Tensor& updates = input(ctx, 2);
  std::lock_guard lock(v->mu);
  const Tensor params = existing_value_locked(h, *v, ReadFailure::NotFound).to_host();
  if (params.dtype() != updates.dtype()) fail("DType of scatter resource and updates does not match.");
  // TensorFlow's kernel reads dim 0 of a scalar variable (a CHECK failure);
  // the ref kernel's words instead.
  if (params.shape().rank() < 1) fail("params must be at least 1-D, got shape " + shape_str(params.shape()));
  const Shape& ps = params.shape();
  const Shape& is = indices.shape();
  const Shape& us = updates.shape();
  if (us.rank() != 0 && us.rank() != is.rank() + ps.rank() - 1) fail(scatter_shape_message(ps, is, us));
  check_scatter_index_space(params, indices);
  if constexpr (K == ScatterKind::Div) check_scatter_divisor(updates);
  const int64_t n = indices.num_elements();
  if (n == 0) return;
  if (us.rank() != 0) {
    bool prefix = true;
    for (int d = 0; d < is.rank(); ++d) prefix = prefix && us.dim(d) == is.dim(d);
    if (!prefix)
      fail("The shape of indices (" + shape_str(is) + ") must be a prefix of the shape of updates (" + shape_str(us) +
           ")");
    // TensorFlow reshapes updates to [n, size / n] and assigns rows of a
    // different length unchecked; refused here.
    if (!scatter_shapes_valid(ps, is, us)) fail(scatter_shape_message(ps, is, us));
  }
  Tensor out = params.clone();
  const std::string bad = scatter_rows<K>(op, out, indices, updates);
  v->value = std::move(out);
  if (!bad.empty()) fail(bad);
}

// ---- shape functions ---------------------------------------------------------------

// ScatterUpdateShape / ResourceScatterUpdateShape: a non-scalar updates merges
// with indices.shape + var.shape[1:] (Subshape clamps: a scalar var adds nothing).
void check_scatter_update_shape(const Shape& var, const Shape& indices, const Shape& updates) {
  if (!updates.rank_known() || updates.rank() == 0) return;
  if (!var.rank_known() || !indices.rank_known()) return;
  std::vector<int64_t> dims = indices.dims();
  for (int d = 1; d < var.rank(); ++d) dims.push_back(var.dim(d));
  tf_merge(updates, Shape(std::move(dims)));
}

void scatter_ref_shape(ShapeContext& ctx) {
  const Shape& var = ctx.input(0).shape;
  check_scatter_update_shape(var, ctx.input(1).shape, ctx.input(2).shape);
  DType t = attr_or_input_dtype(ctx, "T", 2);
  if (t == DType::Invalid) t = dtype_base(ctx.input(0).dtype);
  ctx.set_output(0, t, var);
}

void scatter_resource_shape(ShapeContext& ctx) {
  const DType dtype = dtype_base(ctx.attrs().type("dtype"));
  const TensorInfo var = variable_info(ctx, 0);
  if (var.dtype != DType::Invalid && var.dtype != dtype)
    fail("Trying to read variable with wrong dtype. Expected " + tf_type_name(var.dtype) + " got " +
         tf_type_name(dtype));
  check_scatter_update_shape(var.shape, ctx.input(1).shape, ctx.input(2).shape);
}

struct ScatterOpSpec {
  const char* name;
  ScatterKind kind;
  const char* ref_types;       // the ref op's T
  const char* resource_types;  // the resource op's dtype
  std::vector<DType> kernel_types;
  const char* what;
};

template <ScatterKind K>
std::pair<KernelFn, KernelFn> scatter_kernels() {
  return {scatter_ref_kernel<K>, scatter_resource_kernel<K>};
}

std::pair<KernelFn, KernelFn> scatter_kernels_for(ScatterKind k) {
  switch (k) {
    case ScatterKind::Add: return scatter_kernels<ScatterKind::Add>();
    case ScatterKind::Sub: return scatter_kernels<ScatterKind::Sub>();
    case ScatterKind::Mul: return scatter_kernels<ScatterKind::Mul>();
    case ScatterKind::Div: return scatter_kernels<ScatterKind::Div>();
    case ScatterKind::Min: return scatter_kernels<ScatterKind::Min>();
    case ScatterKind::Max: return scatter_kernels<ScatterKind::Max>();
    case ScatterKind::Update: break;
  }
  return scatter_kernels<ScatterKind::Update>();
}

}  // namespace

void register_scatter_ops(OpRegistry& r) {
  const std::vector<DType> real = dtypes_of<RealTypes>();
  // TF_CALL_ALL_TYPES: the POD types and string.
  const std::vector<DType> all = pod_string_dtypes();
  const char* min_max_types = "{half, bfloat16, float, double, int32, int64}";
  const ScatterOpSpec specs[] = {
      {"Add", ScatterKind::Add, "numbertype", "numbertype", real, "Adds updates to the variable's rows at indices"},
      {"Sub", ScatterKind::Sub, "numbertype", "numbertype", real, "Subtracts updates from the variable's rows at indices"},
      {"Mul", ScatterKind::Mul, "numbertype", "numbertype", real, "Multiplies the variable's rows at indices by updates"},
      {"Div", ScatterKind::Div, "numbertype", "numbertype", real, "Divides the variable's rows at indices by updates"},
      {"Min", ScatterKind::Min, min_max_types, "numbertype", real,
       "The minimum of the variable's rows at indices and updates"},
      {"Max", ScatterKind::Max, min_max_types, "numbertype", real,
       "The maximum of the variable's rows at indices and updates"},
      {"Update", ScatterKind::Update, "type", "type", all, "Sets the variable's rows at indices to updates"},
  };
  const char* host_only = "scatters into the variable's storage on the host; soft placement runs it on the CPU";
  for (const ScatterOpSpec& s : specs) {
    const auto [ref_kernel, resource_kernel] = scatter_kernels_for(s.kind);
    const std::string ref_name = std::string("Scatter") + s.name;
    r.add(OpBuilder(ref_name)
              .input("ref: Ref(T)")
              .input("indices: Tindices")
              .input("updates: T")
              .output("output_ref: Ref(T)")
              .attr(std::string("T: ") + s.ref_types)
              .attr("Tindices: {int32, int64}")
              .attr(s.kind == ScatterKind::Update ? "use_locking: bool = true" : "use_locking: bool = false")
              .stateful()
              .shape(scatter_ref_shape)
              .cpu(ref_kernel, s.kernel_types)
              .not_differentiable("a variable update (TensorFlow registers no gradient for it)")
              .no_gpu(host_only)
              .category("state")
              .doc(std::string(s.what) + " (a ref variable)."));
    r.add(OpBuilder("Resource" + ref_name)
              .input("resource: resource")
              .input("indices: Tindices")
              .input("updates: dtype")
              .attr(std::string("dtype: ") + s.resource_types)
              .attr("Tindices: {int32, int64}")
              .stateful()
              .shape(scatter_resource_shape)
              .cpu(resource_kernel, s.kernel_types, "dtype")
              .not_differentiable("a variable update (TensorFlow registers no gradient for it)")
              .no_gpu(host_only)
              .category("state")
              .doc(std::string(s.what) + " (a resource variable)."));
  }
}

}  // namespace flowlens::ops
