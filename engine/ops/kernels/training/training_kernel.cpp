#include "ops/kernels/training/training_kernel.h"

#include <algorithm>

namespace flowlens::ops {

UpdatedVariables::UpdatedVariables(const KernelContext& ctx, std::initializer_list<int> inputs) {
  for (int i : inputs) vars_.push_back(updated_variable(ctx, i));
  for (size_t a = 0; a < vars_.size(); ++a)
    for (size_t b = a + 1; b < vars_.size(); ++b)
      if (vars_[a] == vars_[b]) fail(ctx.node().op + ": var and its slots must be different variables");
  std::vector<Variable*> order = vars_;
  std::sort(order.begin(), order.end());
  for (Variable* v : order) locks_.emplace_back(v->mu);
  size_t k = 0;
  for (int i : inputs) {
    check_readable(ctx, i, vars_[k]);
    values_.push_back(vars_[k++]->value.to_host());
  }
}

void add_optimizer_ops(OpRegistry& r, const OptimizerOpDef& op) {
  for (bool resource : {false, true}) {
    const char* name = resource ? op.resource_name : op.ref_name;
    if (!name) continue;
    OpBuilder b(name);
    for (const char* spec : op.inputs) {
      std::string in = spec;
      if (resource)
        if (const size_t at = in.find("Ref(T)"); at != std::string::npos) in.replace(at, 6, "resource");
      b.input(in);
    }
    if (!resource) b.output("out: Ref(T)");
    for (const char* spec : op.attrs) b.attr(spec);
    b.stateful()
        .shape(op.shape)
        .cpu(op.kernel, dtypes_of<FloatTypes>())
        .not_differentiable("an optimizer update")
        .category("training")
        .doc(op.doc);
    if (resource || !op.ref_form_on_gpu)
      b.no_gpu("no GPU kernel yet; soft placement runs the update on the CPU");
    r.add(b);
  }
}

void check_indices_vector(const Tensor& indices) {
  if (indices.shape().rank() != 1) fail("indices must be one-dimensional");
}

SparseRows sparse_rows(const KernelContext& ctx, const Tensor& var, const Tensor& grad, const Tensor& indices) {
  SparseRows rows;
  const int rank = var.shape().rank();
  for (int d = 1; d < rank; ++d) {
    if (d >= grad.shape().rank() || var.shape().dim(d) != grad.shape().dim(d))
      fail("var and grad must match in dimension " + std::to_string(d));
    rows.inner *= var.shape().dim(d);
  }
  const int64_t n = indices.shape().dim(0);
  if (grad.shape().rank() == 0 || grad.shape().dim(0) != n)
    fail("grad must be the same size as indices in the first dimension.");
  // TensorFlow reads grad as rows of var's width; a grad of higher rank
  // would not fit them.
  if (grad.shape().rank() != rank)
    fail(ctx.node().op + ": grad has rank " + std::to_string(grad.shape().rank()) + " but var has rank " +
         std::to_string(rank));
  rows.first_dim = var.shape().dim(0);
  rows.indices = read_ints(ctx.node().op.c_str(), "indices", indices);
  return rows;
}

void check_row_index(const SparseRows& rows, size_t offset) {
  const int64_t index = rows.indices[offset];
  if (index < 0 || index >= rows.first_dim)
    fail("Index " + std::to_string(index) + " at offset " + std::to_string(offset) + " in indices is out of range");
}

}  // namespace flowlens::ops
