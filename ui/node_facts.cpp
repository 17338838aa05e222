#include "ui/node_facts.h"

#include <exception>
#include <memory>

#include "exec/device.h"
#include "ops/op_registry.h"
#include "tensor/dtype.h"
#include "ui/graph_document.h"

namespace flowlens::ui {
namespace {

// One device set for the process: DeviceSet::local() starts worker threads,
// and placement only needs the device list.
const DeviceSet& local_devices() {
  static const std::unique_ptr<DeviceSet> devices = DeviceSet::local(1);
  return *devices;
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

NodeFacts::NodeFacts(const GraphDocument& doc) {
  if (!doc.graph) return;
  const DeviceSet& devices = local_devices();
  for (int i = 0; i < devices.size(); ++i) device_names_.push_back(devices.at(i).short_name());
  for (const Node& n : doc.graph->nodes()) node_names_.push_back(n.name);
  try {
    placement_ = place_graph(*doc.graph, devices, OpRegistry::global());
  } catch (const std::exception& e) {
    placement_error_ = qs(e.what());
  }
  // Shape functions assume a structurally valid graph (as in the graph view).
  if (doc.error_count == 0) {
    try {
      shapes_ = infer_shapes(*doc.graph, OpRegistry::global());
    } catch (const std::exception&) {
      shapes_.reset();
    }
  }
}

QString NodeFacts::actual_device(int node) const {
  if (!placement_ || node < 0 || node >= static_cast<int>(placement_->device_of.size())) return {};
  const int d = placement_->device_of[static_cast<std::size_t>(node)];
  return d >= 0 && d < static_cast<int>(device_names_.size()) ? qs(device_names_[static_cast<std::size_t>(d)]) : QString();
}

QString NodeFacts::placement_reason(int node) const {
  if (!placement_ || node < 0 || node >= static_cast<int>(node_names_.size())) return {};
  for (const PlacementNote& note : placement_->soft_placed)
    if (note.node == node_names_[static_cast<std::size_t>(node)]) return qs(note.reason);
  return {};
}

QStringList NodeFacts::outputs(int node) const {
  QStringList out;
  if (!shapes_ || node < 0 || node >= static_cast<int>(shapes_->outputs.size())) return out;
  for (const TensorInfo& t : shapes_->outputs[static_cast<std::size_t>(node)]) {
    if (t.dtype == DType::Resource && t.handle_dtype != DType::Invalid) {  // a resource variable's handle
      out << QStringLiteral("resource variable %1 %2").arg(qs(dtype_name(t.handle_dtype)), qs(t.handle_shape.to_string()));
      continue;
    }
    QString dtype = t.dtype == DType::Invalid ? QStringLiteral("unknown type") : qs(dtype_name(t.dtype));
    if (dtype.startsWith(QLatin1String("DT_"))) dtype = dtype.mid(3).toLower();
    out << QStringLiteral("%1 %2").arg(dtype, qs(t.shape.to_string()));
  }
  return out;
}

}  // namespace flowlens::ui
