#include "exec/graph_placement.h"

#include <exception>

#include "exec/device.h"

namespace flowlens {

const DeviceSet& local_placement_devices() {
  static const std::unique_ptr<DeviceSet> devices = DeviceSet::local(1);
  return *devices;
}

GraphPlacement::GraphPlacement(std::shared_ptr<const GraphAnalysis> analysis, const DeviceSet* devices)
    : analysis_(std::move(analysis)), devices_(devices) {}

const DeviceSet& GraphPlacement::devices() const { return devices_ ? *devices_ : local_placement_devices(); }

const Placement* GraphPlacement::placement() const {
  std::call_once(placed_, [this] {
    if (!analysis_) {
      error_ = "no graph to place";
      return;
    }
    try {
      placement_ = place_graph(analysis_->graph(), devices(), analysis_->registry(), true);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  });
  return placement_ ? &*placement_ : nullptr;
}

std::string GraphPlacement::error() const {
  placement();
  return error_;
}

}  // namespace flowlens
