#include "exec/device.h"

#include "exec/thread_budget.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <thread>

namespace flowlens {

Device::Device(std::string type, int id, int num_threads, int intra_op_threads)
    : type_(std::move(type)), id_(id),
      name_("/job:localhost/replica:0/task:0/device:" + type_ + ":" + std::to_string(id)),
      pool_(type_ + ":" + std::to_string(id), num_threads, intra_op_threads) {}

std::string Device::short_name() const {
  std::string lower = type_;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return "/" + lower + ":" + std::to_string(id_);
}

DeviceSpec Device::spec() const {
  DeviceSpec s;
  s.type = type_;
  s.id = id_;
  return s;
}

std::unique_ptr<DeviceSet> DeviceSet::local(const LocalDeviceOptions& options) {
  const ThreadBudget budget = resolve_thread_budget(options.inter_op_threads, options.intra_op_threads);
  auto set = std::make_unique<DeviceSet>();
  set->add(std::make_unique<Device>("CPU", 0, budget.inter_op, budget.intra_op));
  if (!options.use_gpus) {
    set->set_gpu_status("GPUs not used (CPU only requested)");
    return set;
  }
  AcceleratorDevices found = find_accelerators(options);
  for (auto& d : found.devices) set->add(std::move(d));
  if (found.failed) {
    // Once per process: every Session enumerates, the user needs to hear it once.
    static std::once_flag logged;
    std::call_once(logged, [&] {
      std::fprintf(stderr, "flowlens: %s; ops placed on /gpu:N run on the CPU\n", found.status.c_str());
    });
  }
  set->set_gpu_status(std::move(found.status));
  return set;
}

std::unique_ptr<DeviceSet> DeviceSet::local(int inter_op_threads, int intra_op_threads) {
  LocalDeviceOptions options;
  options.inter_op_threads = inter_op_threads;
  options.intra_op_threads = intra_op_threads;
  return local(options);
}

int DeviceSet::find(const std::string& type, int id) const {
  for (int i = 0; i < size(); ++i)
    if (devices_[static_cast<size_t>(i)]->type() == type && devices_[static_cast<size_t>(i)]->id() == id) return i;
  return -1;
}

int DeviceSet::count(const std::string& type) const {
  return static_cast<int>(std::count_if(devices_.begin(), devices_.end(),
                                        [&](const auto& d) { return d->type() == type; }));
}

}  // namespace flowlens
