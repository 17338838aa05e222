#include "ui/model/model_workbench.h"

#include <QDockWidget>

#include "ui/debugger/debug_workbench.h"
#include "ui/document/graph_document.h"
#include "ui/model/model_panel.h"
#include "ui/model/model_source.h"
#include "ui/model/variables_panel.h"
#include "ui/tensor/tensor_catalog.h"
#include "ui/tensor/tensor_viewer.h"
#include "ui/shell/workbench_host.h"

namespace flowlens::ui {
namespace {

const QString kOutputsGroup = QStringLiteral("Signature outputs");

}  // namespace

ModelWorkbench::ModelWorkbench(WorkbenchHost* window, DebugWorkbench* debug)
    : QObject(window), w_(window), debug_(debug) {
  model_ = new ModelPanel;
  model_->setObjectName(QStringLiteral("modelPanel"));
  variables_ = new VariablesPanel;
  variables_->setObjectName(QStringLiteral("variablesPanel"));

  model_dock_ = new QDockWidget(QStringLiteral("Model"), w_);
  model_dock_->setObjectName(QStringLiteral("modelDock"));
  model_dock_->setWidget(model_);
  variables_dock_ = new QDockWidget(QStringLiteral("Variables"), w_);
  variables_dock_->setObjectName(QStringLiteral("variablesDock"));
  variables_dock_->setWidget(variables_);
  w_->add_view_dock(model_dock_, Qt::RightDockWidgetArea);
  w_->add_view_dock(variables_dock_, Qt::RightDockWidgetArea);
  // Beside Node Details, so the graph keeps its room.
  w_->tabifyDockWidget(w_->details_dock(), model_dock_);
  w_->tabifyDockWidget(model_dock_, variables_dock_);
  w_->details_dock()->raise();

  connect(model_, &ModelPanel::tensor_activated, this, &ModelWorkbench::show_tensor);
  connect(variables_, &VariablesPanel::tensor_activated, this, &ModelWorkbench::show_tensor);
  connect(model_, &ModelPanel::outputs_ready, this, [this](const QList<QPair<QString, Tensor>>& outputs) {
    QList<NamedTensor> named;
    for (const auto& [label, tensor] : outputs) named.append({label, tensor});
    debug_->catalog()->set_group(kOutputsGroup, named);
  });
  connect(w_, &WorkbenchHost::document_changed, this, &ModelWorkbench::on_document_changed);
}

void ModelWorkbench::on_document_changed() {
  // A function body opened from the model is still the model's.
  const auto& doc = w_->run_document();
  const std::shared_ptr<const ModelSource> model = doc ? doc->model : nullptr;
  if (model == model_->model()) return;
  model_->set_model(model);
  variables_->set_model(model);
  if (model) {
    model_dock_->show();
    variables_dock_->show();
    model_dock_->raise();
  }
}

void ModelWorkbench::show_tensor(const QString& label, const Tensor& tensor) {
  debug_->tensor_viewer()->set_tensor(label, tensor);
  if (QDockWidget* dock = debug_->dock(DebugWorkbench::Dock::Tensor)) {
    dock->show();
    dock->raise();
  }
}

}  // namespace flowlens::ui
