#include "ui/document/node_facts.h"
#include "ui/util/std_text.h"

#include "exec/device.h"
#include "ops/framework/op_registry.h"
#include "tensor/dtype.h"
#include "ui/document/graph_document.h"

namespace flowlens::ui {

NodeFacts::NodeFacts(const GraphDocument& doc) : analysis_(doc.analysis), placement_(doc.placement) {}

NodeFacts::~NodeFacts() = default;

QString NodeFacts::placement_error() const { return placement_ ? qs(placement_->error()) : QString(); }

QString NodeFacts::actual_device(int node) const {
  const Placement* placement = placement_ ? placement_->placement() : nullptr;
  if (!placement || node < 0 || node >= static_cast<int>(placement->device_of.size())) return {};
  const int d = placement->device_of[static_cast<std::size_t>(node)];
  const DeviceSet& devices = placement_->devices();
  return d >= 0 && d < devices.size() ? qs(devices.at(d).short_name()) : QString();
}

QString NodeFacts::placement_reason(int node) const {
  const Placement* placement = placement_ ? placement_->placement() : nullptr;
  if (!placement || node < 0 || node >= static_cast<int>(analysis_->graph().size())) return {};
  const std::string& name = analysis_->graph().nodes()[static_cast<std::size_t>(node)].name;
  for (const PlacementNote& note : placement->soft_placed)
    if (note.node == name) return qs(note.reason);
  return {};
}

QStringList NodeFacts::outputs(int node) const {
  QStringList out;
  const ShapeInferenceResult* shapes = analysis_ ? analysis_->shapes() : nullptr;
  if (!shapes || node < 0 || node >= static_cast<int>(shapes->outputs.size())) return out;
  for (const TensorInfo& t : shapes->outputs[static_cast<std::size_t>(node)]) {
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
