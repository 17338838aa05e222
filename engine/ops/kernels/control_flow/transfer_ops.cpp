// Cross-device transfer ops inserted by graph partitioning: _Send (one
// input, no outputs) and _Recv (no inputs, one output of attr tensor_type).
// Only signatures and shape functions for now, so partitioned graphs
// validate and infer shapes; the kernels come with the distributed runtime.
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

void send_shape(ShapeContext&) {}

void recv_shape(ShapeContext& ctx) {
  ctx.set_output(0, dtype_base(ctx.node().attr_type("tensor_type", DType::Invalid)), Shape::unknown_rank());
}

}  // namespace

void register_transfer_ops(OpRegistry& r) {
  r.add(OpBuilder("_Send")
            .input("tensor: T")
            .attr("T: type")
            .attr("tensor_name: string")
            .attr("send_device: string")
            .attr("send_device_incarnation: int")
            .attr("recv_device: string")
            .attr("client_terminated: bool = false")
            .stateful()
            .shape(send_shape)
            .not_differentiable("inserted by partitioning, after gradients are built")
            .no_kernel("executed by the distributed runtime, not as a kernel")
            .category("internal")
            .doc("Sends a tensor to another device (inserted by partitioning)."));
  r.add(OpBuilder("_Recv")
            .output("tensor: tensor_type")
            .attr("tensor_type: type")
            .attr("tensor_name: string")
            .attr("send_device: string")
            .attr("send_device_incarnation: int")
            .attr("recv_device: string")
            .attr("client_terminated: bool = false")
            .stateful()
            .shape(recv_shape)
            .not_differentiable("inserted by partitioning, after gradients are built")
            .no_kernel("executed by the distributed runtime, not as a kernel")
            .category("internal")
            .doc("Receives a tensor from another device (inserted by partitioning)."));
}

}  // namespace flowlens::ops
