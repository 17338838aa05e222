// Cross-device transfer ops inserted by graph partitioning: _Send (one
// input, no outputs) and _Recv (no inputs, one output of attr tensor_type).
// Only signatures and shape functions for now, so partitioned graphs
// validate and infer shapes; the kernels come with the distributed runtime.
#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

void send_shape(ShapeContext&) {}

void recv_shape(ShapeContext& ctx) {
  ctx.set_output(0, dtype_base(ctx.node().attr_type("tensor_type", DType::Invalid)), Shape::unknown_rank());
}

std::vector<AttrSpec> transfer_attrs(const char* type_attr) {
  return {attr(type_attr, AttrKind::Type, true),
          attr("tensor_name", AttrKind::String, true),
          attr("send_device", AttrKind::String, true),
          attr("recv_device", AttrKind::String, true),
          attr("send_device_incarnation", AttrKind::Int),
          attr("client_terminated", AttrKind::Bool),
          attr("_bytes", AttrKind::Int)};
}

}  // namespace

void register_transfer_ops(OpRegistry& r) {
  OpDef send = make_def("_Send", 1, 1, 0, transfer_attrs("T"), send_shape, nullptr);
  send.stateful = true;
  r.add(std::move(send));
  OpDef recv = make_def("_Recv", 0, 0, 1, transfer_attrs("tensor_type"), recv_shape, nullptr);
  recv.stateful = true;
  r.add(std::move(recv));
}

}  // namespace flowlens::ops
