// TensorFlow 1's stack ops (tensorflow/core/ops/data_flow_ops.cc,
// kernels/stack.cc): StackV2, StackPushV2, StackPopV2, StackCloseV2. The
// gradients of tf.while_loop push forward values in the loop and pop them,
// last in first out, in the gradient loop.
//
// Each StackV2 run makes a fresh Stack (ops/resources/tensor_array.h) named
// "<stack_name>_<n>" as TensorFlow names it, carried in the handle's
// ResourceHandle::resource. StackPushV2's swap_memory (moving GPU tensors to
// the host while they wait) has nothing to do here: stacks hold host tensors.
// The legacy ref-typed Stack/StackPush/StackPop/StackClose are not provided.
#include <atomic>

#include "ops/framework/kernel_checks.h"
#include "ops/framework/op_helpers.h"
#include "ops/resources/tensor_array.h"
#include "ops/kernels/training/training_kernel.h"
#include "ops/kernels/state/variable_shapes.h"

namespace flowlens::ops {
namespace {

std::atomic<int64_t> stack_counter{0};

std::shared_ptr<Stack> stack_input(const KernelContext& ctx, int i) {
  const ResourceHandle& h = handle_input(ctx, i);
  auto s = std::dynamic_pointer_cast<Stack>(h.resource);
  if (!s)
    fail(ctx.node().op + ": input " + std::to_string(i) + " is not a stack handle (it names " +
         (h.resource ? "a " + h.resource->kind() : h.variable ? "the variable " + h.qualified_name() : "nothing") + ")");
  return s;
}

void check_handle(const ShapeContext& ctx) {
  const Shape& s = ctx.input(0).shape;
  if (!s.rank_known() || s.rank() == 0) return;
  if (s.rank() == 1 && (s.dim(0) == 2 || s.dim(0) < 0)) return;
  fail(ctx.node().op + ": a stack handle is a scalar resource, got shape " + shape_str(s));
}

// ---- StackV2 ------------------------------------------------------------------------

// TensorFlow says a 2-vector (the string handles' shape); the handle is a scalar.
void stack_shape(ShapeContext& ctx) {
  if (ctx.num_inputs() > 0) tf_with_rank(ctx.input(0).shape, 0);
  ctx.set_output(0, DType::Resource, Shape{});
}

void stack_kernel(KernelContext& ctx) {
  int64_t max_size = -1;
  const Tensor& size = input(ctx, 0);
  if (size.shape().rank() != 0) fail("Stack size must be a scalar, but had shape: " + shape_str(size.shape()));
  if (size.dtype() != DType::Int32) fail("StackV2: max_size must be int32, got " + dtype_name(size.dtype()));
  const int64_t v = size.to_host().data<int32_t>()[0];
  if (v >= 0) max_size = v;
  const DType elem = ctx.attrs().type("elem_type");
  const std::string name = ctx.attrs().string("stack_name") + "_" + std::to_string(stack_counter.fetch_add(1));
  auto stack = std::make_shared<Stack>(name, elem, max_size);
  ResourceHandle h;
  h.container = "_stacks";
  h.name = name;
  h.dtype = elem;
  h.resource = stack;
  ctx.set_output(0, Tensor::from_handles(Shape{}, {std::move(h)}));
}

// ---- StackPushV2 ----------------------------------------------------------------------

void stack_push_shape(ShapeContext& ctx) {
  check_handle(ctx);
  const TensorInfo& elem = ctx.input(1);
  ctx.set_output(0, elem.dtype != DType::Invalid ? elem.dtype : ctx.attrs().type_or("T", DType::Invalid), elem.shape);
}

void stack_push_kernel(KernelContext& ctx) {
  const auto stack = stack_input(ctx, 0);
  const Tensor& elem = input(ctx, 1);
  if (elem.dtype() != stack->elem_type())
    fail("Must have type " + tf_type_name(stack->elem_type()) + " but got " + tf_type_name(elem.dtype()));
  stack->push(elem.to_host());
  ctx.set_output(0, elem);
}

// ---- StackPopV2 -------------------------------------------------------------------------

// Unknown, as TensorFlow's; a constant handle (the registry walk) shows its top.
void stack_pop_shape(ShapeContext& ctx) {
  check_handle(ctx);
  Shape s = Shape::unknown_rank();
  if (const Tensor* t = ctx.constant_input(0); t && t->dtype() == DType::Resource && t->num_elements() > 0)
    if (auto stack = std::dynamic_pointer_cast<Stack>(t->handles()[0].resource))
      if (const Tensor top = stack->peek(); top.valid()) s = top.shape();
  ctx.set_output(0, ctx.attrs().type("elem_type"), s);
}

void stack_pop_kernel(KernelContext& ctx) {
  const auto stack = stack_input(ctx, 0);
  const DType want = ctx.attrs().type("elem_type");
  if (want != stack->elem_type())
    fail("StackPopV2: elem_type is " + tf_type_name(want) + " but Stack[" + stack->name() + "] holds " +
         tf_type_name(stack->elem_type()));
  ctx.set_output(0, stack->pop());
}

// ---- StackCloseV2 ---------------------------------------------------------------------------

void stack_close_shape(ShapeContext& ctx) { check_handle(ctx); }

void stack_close_kernel(KernelContext& ctx) { stack_input(ctx, 0)->close(); }

}  // namespace

void register_stack_ops(OpRegistry& r) {
  const char* host = "a stack lives in host memory; soft placement runs it on the CPU";
  const char* why = "a stack of saved values (data_flow_grad.py: ops.NotDifferentiable)";
  r.add(OpBuilder("StackV2")
            .input("max_size: int32")
            .output("handle: resource")
            .attr("elem_type: type")
            .attr("stack_name: string = ''")
            .stateful()
            .shape(stack_shape)
            .cpu(stack_kernel)
            .not_differentiable(why)
            .no_gpu(host)
            .category("control")
            .doc("A stack of tensors of one dtype, at most max_size deep (negative: unbounded)."));
  r.add(OpBuilder("StackPushV2")
            .input("handle: resource")
            .input("elem: T")
            .output("output: T")
            .attr("T: type")
            .attr("swap_memory: bool = false")
            .stateful()
            .shape(stack_push_shape)
            .cpu(stack_push_kernel)
            .not_differentiable(why)
            .no_gpu(host)
            .category("control")
            .doc("Pushes a tensor onto a stack and outputs it."));
  r.add(OpBuilder("StackPopV2")
            .input("handle: resource")
            .output("elem: elem_type")
            .attr("elem_type: type")
            .stateful()
            .shape(stack_pop_shape)
            .cpu(stack_pop_kernel)
            .not_differentiable(why)
            .no_gpu(host)
            .category("control")
            .doc("Pops the tensor on top of a stack."));
  r.add(OpBuilder("StackCloseV2")
            .input("handle: resource")
            .stateful()
            .shape(stack_close_shape)
            .cpu(stack_close_kernel)
            .not_differentiable(why)
            .no_gpu(host)
            .category("control")
            .doc("Closes a stack; later pushes and pops fail."));
}

}  // namespace flowlens::ops
