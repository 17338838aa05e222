// Cross-device transfer ops inserted by graph partitioning: _Send (one
// input, no outputs) and _Recv (no inputs, one output of attr tensor_type).
// They meet in the step's rendezvous (ops/framework/rendezvous.h): _Send's
// kernel hands its input over; a _Recv is run by the executor itself, which
// asks the rendezvous and goes on (a kernel would block a thread).
#include "ops/framework/op_helpers.h"
#include "ops/framework/rendezvous.h"

namespace flowlens::ops {
namespace {

void send_shape(ShapeContext&) {}

void recv_shape(ShapeContext& ctx) {
  ctx.set_output(0, dtype_base(ctx.node().attr_type("tensor_type", DType::Invalid)), Shape::unknown_rank());
}

void send_kernel(KernelContext& ctx) {
  const RunContext* run = ctx.run_context();
  if (!run || !run->rendezvous)
    throw Error("_Send '" + ctx.node().name +
                "' runs only as part of a distributed step (a session run with a rendezvous)");
  // The tensor leaves this process's device: the receiver gets a host copy.
  run->rendezvous->send(rendezvous_key(ctx.node()), run->step_id, ctx.input(0).to_host());
}

// Reached only when something runs a _Recv as a plain kernel (a test
// calling it directly): executors never do.
void recv_kernel(KernelContext& ctx) {
  throw Error("_Recv '" + ctx.node().name +
              "' is handled by the executor as part of a distributed step, not run as a kernel");
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
            .cpu(send_kernel)
            .no_gpu("the rendezvous takes host tensors: a _Send on a GPU is placed on its task's CPU")
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
            .cpu(recv_kernel)
            .no_gpu("the rendezvous delivers host tensors; consumers on a GPU copy them in")
            .category("internal")
            .doc("Receives a tensor from another device (inserted by partitioning)."));
}

}  // namespace flowlens::ops
