// The array family's registration (its ops live in the files array_util.h
// lists) and its pass-through ops: IdentityN, Snapshot, PreventGradient.
#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

void identity_n_kernel(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, input(ctx, i));
}

void identity_n_shape(ShapeContext& ctx) {
  for (int i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i)
    ctx.set_output(i, dtype_base(ctx.input(i).dtype), ctx.input(i).shape);
}

// Snapshot exists to break aliasing with a variable's buffer, so the output
// is a copy (in the input's memory, host or device).
void snapshot_kernel(KernelContext& ctx) { ctx.set_output(0, input(ctx, 0).clone()); }

void forward_kernel(KernelContext& ctx) { ctx.set_output(0, input(ctx, 0)); }

}  // namespace

void register_array_ops(OpRegistry& r) {
  register_shape_ops(r);
  register_transpose_ops(r);
  register_strided_slice_ops(r);
  register_slice_op(r);
  register_gather_ops(r);
  register_scatter_nd_op(r);
  register_one_hot_op(r);
  register_pad_ops(r);
  register_unique_ops(r);
  register_pack_ops(r);
  register_split_ops(r);
  r.add(OpBuilder("IdentityN")
            .input("input: T")
            .output("output: T")
            .attr("T: list(type)")
            .shape(identity_n_shape)
            .cpu(identity_n_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Returns its inputs, a list of tensors of any types."));
  r.add(OpBuilder("Snapshot")
            .input("input: T")
            .output("output: T")
            .attr("T: type")
            .shape(unchanged_shape)
            .cpu(snapshot_kernel, pod_dtypes())
            .moves_bytes_only()
            .no_gradient("TensorFlow registers no gradient for Snapshot (array_grad.py has none), so tf.gradients "
                         "raises LookupError through it")
            .category("array")
            .doc("A copy of its input (not sharing the input's buffer)."));
  r.add(OpBuilder("PreventGradient")
            .input("input: T")
            .output("output: T")
            .attr("T: type")
            .attr("message: string = ''")
            .shape(unchanged_shape)
            .cpu(forward_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Returns its input; asking for a gradient through it is an error carrying `message`."));
}

}  // namespace flowlens::ops
