#include "ops/kernels/state/variable_shapes.h"

#include "ops/framework/op_def.h"

namespace flowlens::ops {

TensorInfo variable_info(const ShapeContext& ctx, int i) {
  const TensorInfo& in = ctx.input(i);
  if (in.handle_dtype != DType::Invalid) return {in.handle_dtype, in.handle_shape};
  if (const Tensor* t = ctx.constant_input(i); t && t->dtype() == DType::Resource && t->num_elements() > 0) {
    const ResourceHandle& h = t->handles()[0];
    return {h.dtype, h.shape};
  }
  return {};
}

Shape tf_merge(const Shape& a, const Shape& b) {
  if (!a.rank_known()) return b;
  if (!b.rank_known()) return a;
  if (a.rank() != b.rank())
    fail("Shapes must be equal rank, but are " + std::to_string(a.rank()) + " and " + std::to_string(b.rank()));
  std::vector<int64_t> dims(static_cast<size_t>(a.rank()));
  for (int d = 0; d < a.rank(); ++d) {
    const int64_t x = a.dim(d), y = b.dim(d);
    if (x >= 0 && y >= 0 && x != y)
      fail("Dimension " + std::to_string(d) + " in both shapes must be equal, but are " + std::to_string(x) + " and " +
           std::to_string(y) + ". Shapes are " + shape_str(a) + " and " + shape_str(b) + ".");
    dims[static_cast<size_t>(d)] = x >= 0 ? x : y;
  }
  return Shape(std::move(dims));
}

void tf_with_rank(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

void tf_with_rank_at_least(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() < rank)
    fail("Shape must be at least rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

void optimizer_shape(ShapeContext& ctx, int vars, int grad, bool sparse, std::initializer_list<int> scalars) {
  const bool is_ref = ctx.def() && ctx.def()->is_ref_input(0);
  // TensorFlow's ShapeOrHandleShape: a ref input's own shape, a resource's handle data.
  auto var_shape = [&](int i) { return is_ref ? ctx.input(i).shape : variable_info(ctx, i).shape; };
  Shape s = var_shape(0);
  for (int i = 1; i < vars; ++i) s = tf_merge(s, var_shape(i));
  for (int i : scalars)
    if (i < ctx.num_inputs()) tf_with_rank(ctx.input(i).shape, 0);
  if (grad < ctx.num_inputs()) {
    const Shape& g = ctx.input(grad).shape;
    if (!sparse) {
      s = tf_merge(s, g);
    } else if (grad + 1 < ctx.num_inputs()) {
      // HandleGradAndIndicesInputs: indices a vector as long as grad's first
      // dimension; grad's other dimensions those of var.
      const Shape& indices = ctx.input(grad + 1).shape;
      tf_with_rank(indices, 1);
      if (g.rank_known() && g.rank() == 0) fail("Argument grad must not be a scalar. Got grad with rank 0");
      if (g.rank_known() && indices.rank_known()) {
        const int64_t n = indices.dim(0), g0 = g.dim(0);
        if (n >= 0 && g0 >= 0 && n != g0)
          fail("Dimensions must be equal, but are " + std::to_string(n) + " and " + std::to_string(g0));
      }
      Shape rows = g;
      if (rows.rank_known()) rows.dim(0) = Shape::kUnknownDim;
      s = tf_merge(s, rows);
    }
  }
  if (ctx.num_outputs() > 0) {
    DType t = ctx.attrs().type_or("T", DType::Invalid);
    if (t == DType::Invalid) t = dtype_base(ctx.input(0).dtype);
    ctx.set_output(0, dtype_base(t), std::move(s));
  }
}

}  // namespace flowlens::ops
