#include "analysis/graph_analysis.h"

#include <exception>

#include "ops/framework/op_registry.h"

namespace flowlens {

GraphAnalysis::GraphAnalysis(std::shared_ptr<const Graph> graph, const OpRegistry* registry)
    : graph_(graph ? std::move(graph) : std::make_shared<const Graph>()),
      registry_(registry ? *registry : OpRegistry::global()) {}

const std::vector<Diagnostic>& GraphAnalysis::diagnostics() const {
  std::call_once(validated_, [this] {
    try {
      diagnostics_ = validate_graph(*graph_, registry_);
    } catch (const std::exception& e) {
      diagnostics_.push_back({Diagnostic::Severity::Error, std::string(), std::string("validation stopped: ") + e.what()});
    }
    for (const Diagnostic& d : diagnostics_) error_count_ += d.is_error() ? 1 : 0;
  });
  return diagnostics_;
}

bool GraphAnalysis::has_errors() const { return error_count() > 0; }

int GraphAnalysis::error_count() const {
  diagnostics();
  return error_count_;
}

int GraphAnalysis::warning_count() const { return static_cast<int>(diagnostics().size()) - error_count(); }

const ShapeInferenceResult* GraphAnalysis::shapes() const {
  std::call_once(inferred_, [this] {
    if (has_errors()) return;
    try {
      shapes_ = infer_shapes(*graph_, registry_);
    } catch (const std::exception&) {
      shapes_.reset();
    }
  });
  return shapes_ ? &*shapes_ : nullptr;
}

}  // namespace flowlens
