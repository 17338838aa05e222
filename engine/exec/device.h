#pragma once
// Local compute devices. A Device is a named execution resource with its own
// work queue; kernels are looked up by its type ("CPU", "GPU"). The CPU device
// always exists; accelerator backends add devices when they find hardware, so
// a machine without one simply has fewer devices.
#include <memory>
#include <string>
#include <vector>

#include "exec/thread_pool.h"
#include "graph/device_spec.h"

namespace flowlens {

class Device {
 public:
  Device(std::string type, int id, int num_threads);
  const std::string& type() const { return type_; }
  int id() const { return id_; }
  // Full name: "/job:localhost/replica:0/task:0/device:CPU:0".
  const std::string& name() const { return name_; }
  // Short name for messages and tables: "/cpu:0".
  std::string short_name() const;
  DeviceSpec spec() const;
  ThreadPool& pool() { return pool_; }

 private:
  std::string type_;
  int id_;
  std::string name_;
  ThreadPool pool_;
};

class DeviceSet {
 public:
  // The devices of this process: CPU:0 with `cpu_threads` workers (0 = one per
  // hardware thread, at least 2 so independent nodes can overlap).
  static std::unique_ptr<DeviceSet> local(int cpu_threads = 0);

  void add(std::unique_ptr<Device> device) { devices_.push_back(std::move(device)); }
  int size() const { return static_cast<int>(devices_.size()); }
  Device& at(int i) { return *devices_[static_cast<size_t>(i)]; }
  const Device& at(int i) const { return *devices_[static_cast<size_t>(i)]; }
  // Index of the device of this type and id, or -1.
  int find(const std::string& type, int id) const;
  int count(const std::string& type) const;

 private:
  std::vector<std::unique_ptr<Device>> devices_;
};

}  // namespace flowlens
