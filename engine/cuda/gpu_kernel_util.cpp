#include "cuda/gpu_kernel_util.h"

#include "cuda/cuda_check.h"
#include "ops/framework/broadcast.h"

namespace flowlens::cuda {

GpuLaunch::GpuLaunch(KernelContext& ctx)
    : device(*static_cast<GpuDevice*>(ctx.device())), stream(device.gpu().stream()) {
  device.gpu().make_current();
}

DeviceBuffer::DeviceBuffer(GpuLaunch& gpu, std::size_t bytes) : memory_(gpu.device.gpu().memory()), bytes_(bytes) {
  if (bytes_ > 0) block_ = memory_.allocate(bytes_);
}

DeviceBuffer::DeviceBuffer(GpuLaunch& gpu, const void* host, std::size_t bytes) : DeviceBuffer(gpu, bytes) {
  if (bytes_ > 0) gpu.device.gpu().staging().copy_to_device(host, block_, bytes_, gpu.stream);
}

DeviceBuffer::~DeviceBuffer() {
  if (block_) memory_.deallocate(block_, bytes_);
}

int word_bytes(const KernelContext& ctx, const Tensor& t) {
  const std::size_t bytes = dtype_size(t.dtype());
  if (!lives_in_device_memory(t.dtype()) || (bytes != 2 && bytes != 4 && bytes != 8))
    ops::unsupported_dtype(ctx.node().op.c_str(), t.dtype());
  return static_cast<int>(bytes);
}

void check_launch(const KernelContext& ctx) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    throw Error(std::string("CUDA kernel launch for ") + ctx.node().op + ": " + cudaGetErrorName(status) + " (" +
                cudaGetErrorString(status) + ")");
}

bool float_kind(DType t, FloatKind& kind) {
  switch (t) {
    case DType::Float: kind = FloatKind::F32; return true;
    case DType::Half: kind = FloatKind::F16; return true;
    case DType::BFloat16: kind = FloatKind::BF16; return true;
    default: return false;
  }
}

FloatKind kind_of(const KernelContext& ctx, const Tensor& t) {
  FloatKind kind;
  if (!float_kind(t.dtype(), kind)) ops::unsupported_dtype(ctx.node().op.c_str(), t.dtype());
  return kind;
}

namespace {

bool type_attr_is(const Node& n, bool (*accept)(DType), bool* any) {
  for (const auto& [key, value] : n.attrs) {
    if (const DType* t = value.get_if<DType>()) {
      *any = true;
      if (!accept(dtype_base(*t))) return false;
    }
  }
  return true;
}

bool host_dtype(DType t) { return t == DType::Int32 || t == DType::Int64 || t == DType::Bool; }

// Its T/dtype attrs (at least one) are all accepted.
bool type_attrs_are(const Node& n, bool (*accept)(DType)) {
  bool any = false;
  for (const char* key : {"T", "dtype"}) {
    const DType t = n.attr_type(key, DType::Invalid);
    if (t == DType::Invalid) continue;
    if (!accept(dtype_base(t))) return false;
    any = true;
  }
  return any;
}

bool nhwc_or_no_format(const Node& n) {
  const AttrValue* f = n.find_attr("data_format");
  const std::string* s = f ? f->get_if<std::string>() : nullptr;
  return !f || (s && *s == "NHWC");
}

}  // namespace

bool is_float_node(const Node& n) {
  return type_attrs_are(n, [](DType t) { return t == DType::Float; });
}

bool is_floating_node(const Node& n) {
  return type_attrs_are(n, [](DType t) { return t == DType::Float || t == DType::Half || t == DType::BFloat16; });
}

bool is_float_nhwc_node(const Node& n) { return is_float_node(n) && nhwc_or_no_format(n); }
bool is_floating_nhwc_node(const Node& n) { return is_floating_node(n) && nhwc_or_no_format(n); }

bool is_host_memory_node(const Node& n) {
  bool any = false;
  return type_attr_is(n, host_dtype, &any) && any;
}

bool is_float_or_host_memory_node(const Node& n) { return is_float_node(n) || is_host_memory_node(n); }
bool is_floating_or_host_memory_node(const Node& n) { return is_floating_node(n) || is_host_memory_node(n); }

bool is_device_or_host_memory_node(const Node& n) {
  return is_host_memory_node(n) || type_attrs_are(n, lives_in_device_memory);
}

bool ran_on_host(KernelContext& ctx) {
  if (!is_host_memory_node(ctx.node())) return false;
  const OpDef* def = OpRegistry::global().find(ctx.node().op);
  KernelFn cpu = def ? def->kernel("CPU") : nullptr;
  if (!cpu) ops::fail(ctx.node().op + ": no host kernel for an integer node on a GPU");
  KernelContext host = ctx.host_memory_view();
  cpu(host);
  return true;
}

void run_cpu_kernel_on_host(KernelContext& ctx) {
  const OpDef* def = OpRegistry::global().find(ctx.node().op);
  KernelFn cpu = def ? def->kernel("CPU") : nullptr;
  if (!cpu) ops::fail(ctx.node().op + ": no CPU kernel to run on the host");
  KernelContext host = ctx.host_memory_view();
  cpu(host);
}

bool is_gpu_variable_node(const Node& n) {
  return is_host_memory_node(n) || type_attrs_are(n, [](DType t) { return t == DType::Float || t == DType::BFloat16; });
}

namespace {

std::string supports_note(KernelSupportFn supports) {
  if (supports == is_float_node) return "float32 tensors";
  if (supports == is_float_nhwc_node) return "float32 tensors, NHWC";
  if (supports == is_floating_node) return "float32, float16 and bfloat16 tensors";
  if (supports == is_floating_nhwc_node) return "float32, float16 and bfloat16 tensors, NHWC";
  if (supports == is_floating_or_host_memory_node)
    return "float32, float16 and bfloat16 tensors, or int32/int64/bool in host memory";
  if (supports == is_float_or_host_memory_node) return "float32 tensors, or int32/int64/bool in host memory";
  if (supports == is_device_or_host_memory_node)
    return "dtypes that live in device memory, or int32/int64/bool in host memory";
  if (supports == is_gpu_variable_node) return "float32 and bfloat16 variables, or int32/int64/bool in host memory";
  if (supports == is_host_memory_node) return "int32/int64/bool tensors in host memory";
  return {};
}

}  // namespace

void add_gpu_kernel(OpRegistry& r, std::string_view op, KernelFn fn, KernelSupportFn supports, std::string note) {
  KernelDef k;
  k.device = "GPU";
  k.fn = fn;
  k.supports = supports;
  k.note = note.empty() ? supports_note(supports) : std::move(note);
  r.add_kernel(op, std::move(k));
}

void share_cpu_kernel(OpRegistry& r, const std::string& op, KernelSupportFn supports, std::string note) {
  if (const OpDef* def = r.find(op); def && def->kernel("CPU"))
    add_gpu_kernel(r, op, def->kernel("CPU"), supports, std::move(note));
}

BroadcastIndex broadcast_index(const Shape& a, const Shape& b, Shape& shape) {
  BroadcastIndex index;
  shape = a;
  if (a == b) return index;  // rank 0: same-shape indexing
  ops::BroadcastPlan plan;
  ops::make_broadcast_plan(a, b, plan);
  shape = ops::broadcast_shape(a, b);
  index.rank = plan.rank;  // 0 when both are scalars: one element, same-shape indexing
  for (int d = 0; d < plan.rank; ++d) {
    index.out_dims[d] = plan.dims[d];
    index.a_strides[d] = plan.a_strides[d];
    index.b_strides[d] = plan.b_strides[d];
  }
  return index;
}

const float* device_scalar(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = ops::input(ctx, i);
  if (t.num_elements() != 1 || t.shape().rank() > 1)
    ops::fail(ctx.node().op + ": " + what + " is not a scalar: " + t.shape().to_string());
  if (t.dtype() != DType::Float)
    ops::fail(ctx.node().op + ": " + what + " is " + dtype_name(t.dtype()) + ", expected float");
  return f32(t);
}

}  // namespace flowlens::cuda
