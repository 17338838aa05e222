#pragma once
// Local compute devices. A Device is a named execution resource with its own
// work queue; kernels are looked up by its type ("CPU", "GPU"). The CPU device
// always exists; accelerator backends (engine/cuda) add devices when they find
// hardware, so a machine without one simply has fewer devices and ops asked
// for /gpu:N run on the CPU by soft placement.
#include <memory>
#include <string>
#include <vector>

#include "exec/thread_pool.h"
#include "graph/device_spec.h"
#include "ops/framework/run_log.h"
#include "tensor/tensor.h"

namespace flowlens {

// A point in a device's queue of work (a CUDA event), for timing nodes
// without waiting for each: host_ns() is the host's steady-clock time at
// which the device passed it, valid once the device has synchronized.
class DeviceMark {
 public:
  virtual ~DeviceMark() = default;
  virtual int64_t host_ns() const = 0;
};

class Device {
 public:
  Device(std::string type, int id, int num_threads, int intra_op_threads = 0);
  virtual ~Device() = default;
  const std::string& type() const { return type_; }
  int id() const { return id_; }
  // Full name: "/job:localhost/replica:0/task:0/device:CPU:0".
  const std::string& name() const { return name_; }
  // Short name for messages and tables: "/cpu:0".
  std::string short_name() const;
  DeviceSpec spec() const;
  ThreadPool& pool() { return pool_; }
  const ThreadPool& pool() const { return pool_; }

  // Hardware behind the device, for `info` ("NVIDIA H200, logical 2 of 4").
  virtual std::string description() const { return "host"; }
  // Where kernels of this device allocate outputs; nullptr: host memory.
  virtual AcceleratorMemory* memory() { return nullptr; }
  // An input as this device's kernels take it: in its memory when the dtype
  // lives in device memory, else on the host. Copies when needed.
  virtual Tensor accept_input(const Tensor& t) { return t.on_host() ? t : t.to_host(); }
  // Waits for all work queued on the device; throws Error for a failure of an
  // asynchronous kernel. Devices that run kernels synchronously return at once.
  virtual void synchronize() {}
  // Queue-time marks (see DeviceMark): begin_marks() once per run before
  // any mark() of it, with the queue idle, to tie the device's clock to the
  // host's; mark() records a point at the end of the queue now. nullptr from
  // a device without a queue of its own (its nodes are timed by the host).
  virtual void begin_marks() {}
  virtual std::shared_ptr<const DeviceMark> mark() { return nullptr; }

  // The run log of the session that owns the device (ops/framework/run_log.h). Set
  // before any run; kernels get it through KernelContext::log(), which falls
  // back to the process streams when it is empty.
  void set_log_sink(LogSink sink) { log_sink_ = std::move(sink); }
  const LogSink& log_sink() const { return log_sink_; }

 private:
  std::string type_;
  int id_;
  std::string name_;
  ThreadPool pool_;
  LogSink log_sink_;
};

struct LocalDeviceOptions {
  // The CPU device's thread budget (exec/thread_budget.h); 0: the default,
  // the cores this process may use (inter-op at least 2).
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  bool use_gpus = true;  // false: CPU only, even where GPUs exist
  // Logical GPUs per physical GPU (own stream and memory pool each), so
  // in-graph replication with several towers runs on one card; 0 or 1: one.
  int virtual_gpus = 0;
  // How cuBLAS computes float32 MatMul: "fp32" (exact), "tf32" or "bf16"
  // (tensor cores, lower precision inputs).
  std::string gpu_math = "fp32";
};

class DeviceSet {
 public:
  // The devices of this process: CPU:0, then GPU:0..n-1 when the build has
  // CUDA and the machine has GPUs.
  static std::unique_ptr<DeviceSet> local(const LocalDeviceOptions& options);
  static std::unique_ptr<DeviceSet> local(int inter_op_threads = 0, int intra_op_threads = 0);

  void add(std::unique_ptr<Device> device) { devices_.push_back(std::move(device)); }
  int size() const { return static_cast<int>(devices_.size()); }
  Device& at(int i) { return *devices_[static_cast<size_t>(i)]; }
  const Device& at(int i) const { return *devices_[static_cast<size_t>(i)]; }
  // Index of the device of this type and id, or -1.
  int find(const std::string& type, int id) const;
  int count(const std::string& type) const;
  // One line on the GPUs: what was found, or why there are none.
  const std::string& gpu_status() const { return gpu_status_; }
  void set_gpu_status(std::string status) { gpu_status_ = std::move(status); }

 private:
  std::vector<std::unique_ptr<Device>> devices_;
  std::string gpu_status_ = "no GPU: built without CUDA";
};

// The seam to an accelerator backend; engine/cuda implements it, and a build
// without CUDA links the CPU-only version (exec/no_accelerator.cpp).
struct AcceleratorDevices {
  std::vector<std::unique_ptr<Device>> devices;
  std::string status;  // "2 GPUs: NVIDIA H200 ..." or "no GPU: <reason>"
  bool failed = false; // enumeration failed (driver, no device): worth a log line
};
AcceleratorDevices find_accelerators(const LocalDeviceOptions& options);

}  // namespace flowlens
