#pragma once
// What the GPU kernels' C++ side shares: the device and stream of the
// running node, typed device pointers, launch error checks, and the rule for
// nodes whose tensors all live in host memory (int32 shape arithmetic placed
// on a GPU): those run the CPU kernel, as TensorFlow's HostMemory kernels do.
#include "cuda/gpu_device.h"
#include "cuda/gpu_launch.h"
#include "ops/framework/op_helpers.h"
#include "ops/framework/op_registry.h"

namespace flowlens::cuda {

struct GpuLaunch {
  explicit GpuLaunch(KernelContext& ctx);
  GpuDevice& device;
  cudaStream_t stream;
};

// Scratch device memory from the GPU's caching allocator, handed back when
// it goes out of scope. Safe while kernels queued before that still use it:
// the block is only reused by work queued later on the same stream.
class DeviceBuffer {
 public:
  DeviceBuffer(GpuLaunch& gpu, std::size_t bytes);
  // Holding a copy of `bytes` of host memory, sent up through pinned staging
  // on the launch's stream (ordered before the kernels queued next).
  DeviceBuffer(GpuLaunch& gpu, const void* host, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T>
  T* as() const { return static_cast<T*>(block_); }
  std::size_t bytes() const { return bytes_; }

 private:
  AcceleratorMemory& memory_;
  void* block_ = nullptr;
  std::size_t bytes_ = 0;
};

// The width of a tensor that kernels move as raw words (layout.cu, gather.cu,
// select.cu): its dtype lives in device memory and is 2, 4 or 8 bytes wide;
// an unsupported-dtype error naming the op otherwise.
int word_bytes(const KernelContext& ctx, const Tensor& t);

// Throws Error if the last launch failed (bad configuration, no kernel image
// for this GPU); asynchronous faults surface at the next synchronization.
void check_launch(const KernelContext& ctx);

// The FloatKind of a dtype that elementwise.cu and reduce.cu store:
// float32, float16 or bfloat16 (false for any other).
bool float_kind(DType t, FloatKind& kind);
// The tensor's FloatKind; an unsupported-dtype error naming the op otherwise.
FloatKind kind_of(const KernelContext& ctx, const Tensor& t);

inline const float* f32(const Tensor& t) { return t.device_data<float>(); }
inline float* f32(Tensor& t) { return t.device_data<float>(); }

// Node kinds the GPU kernels accept (see register_gpu_kernels).
bool is_float_node(const Node& n);        // its T/dtype attrs are float32
bool is_floating_node(const Node& n);     // ... float32, float16 or bfloat16
// A float32 node without data_format, or with NHWC: the bias kernels add and
// sum along the last dimension only, so NCHW nodes take the CPU kernel.
bool is_float_nhwc_node(const Node& n);
bool is_floating_nhwc_node(const Node& n);  // the same for float32, float16 and bfloat16
bool is_host_memory_node(const Node& n);  // every type attr is int32/int64/bool
bool is_float_or_host_memory_node(const Node& n);
bool is_floating_or_host_memory_node(const Node& n);
// Its T/dtype attrs live in device memory (float32, bfloat16 ...) or it is a
// host-memory node: for kernels that only move bytes.
bool is_device_or_host_memory_node(const Node& n);

// Runs the op's CPU kernel when the node is host-memory typed; returns
// whether it did. GPU kernels registered for float and int nodes call it first.
bool ran_on_host(KernelContext& ctx);

// Runs the op's CPU kernel with outputs on the host (host_memory_view).
void run_cpu_kernel_on_host(KernelContext& ctx);

// Variables (and their Assign) on a GPU: float32 and bfloat16, whose
// updates all have GPU kernels, or host-memory types. A float64 variable
// stays on the CPU, where its CPU update kernels can read it.
bool is_gpu_variable_node(const Node& n);

// Registers a GPU kernel with its constraint in words (KernelDef::note),
// which `flowlens-run ops` prints and soft placement quotes when it turns a
// node away. `note` empty: the words that go with one of the predicates
// above.
void add_gpu_kernel(OpRegistry& r, std::string_view op, KernelFn fn, KernelSupportFn supports, std::string note = {});
// Registers op's CPU kernel as its GPU kernel (nothing when it has none): for
// kernels that only move bytes, read no values, or pass a handle along.
void share_cpu_kernel(OpRegistry& r, const std::string& op, KernelSupportFn supports, std::string note = {});

// How a binary op's output reads its two inputs under numpy broadcasting,
// as the CPU kernels' ops::make_broadcast_plan sees it (and with its error
// for shapes that do not broadcast); `shape` receives the output's shape.
BroadcastIndex broadcast_index(const Shape& a, const Shape& b, Shape& shape);

// The input as a scalar in device memory, for kernels that read it there.
const float* device_scalar(const KernelContext& ctx, int i, const char* what);

}  // namespace flowlens::cuda
