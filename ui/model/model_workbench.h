#pragma once
// SavedModels and meta graphs in the main window (a WorkbenchHost): the
// "Model" dock (signatures, and running them: ModelPanel) and the
// "Variables" dock (the checkpoint's tensors: VariablesPanel). Both follow
// the window's document: they fill when it is a SavedModel or a .meta file
// (GraphDocument::model) and come to the front then. Tensors opened from
// either go to the debugger's Tensor dock, and signature outputs join its
// catalog (group "Signature outputs") to compare with.
#include <QObject>

class QDockWidget;

namespace flowlens {
class Tensor;
}

namespace flowlens::ui {

class DebugWorkbench;
class ModelPanel;
class VariablesPanel;
class WorkbenchHost;

class ModelWorkbench : public QObject {
  Q_OBJECT

 public:
  ModelWorkbench(WorkbenchHost* window, DebugWorkbench* debug);

  ModelPanel* model_panel() const { return model_; }
  VariablesPanel* variables_panel() const { return variables_; }
  QDockWidget* model_dock() const { return model_dock_; }
  QDockWidget* variables_dock() const { return variables_dock_; }

 private:
  void on_document_changed();
  void show_tensor(const QString& label, const flowlens::Tensor& tensor);

  WorkbenchHost* w_;
  DebugWorkbench* debug_;
  ModelPanel* model_ = nullptr;
  VariablesPanel* variables_ = nullptr;
  QDockWidget* model_dock_ = nullptr;
  QDockWidget* variables_dock_ = nullptr;
};

}  // namespace flowlens::ui
