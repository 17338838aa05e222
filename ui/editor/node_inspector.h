#pragma once
// The editor's inspector for the selected node: rename it, place it on a
// device, delete it, edit its attrs with typed editors (AttrKind from the op registry),
// see its inputs, its inferred outputs and, in red, why it is invalid. Each
// finished edit is one undoable model edit; a refused one is shown here.
#include <QString>
#include <QWidget>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QScrollArea;

namespace flowlens::ui {

class EditableGraph;

class NodeInspector : public QWidget {
  Q_OBJECT

 public:
  explicit NodeInspector(EditableGraph* model, QWidget* parent = nullptr);

  void set_node(const QString& name);  // "" shows the graph summary
  const QString& node() const { return node_; }

  QLineEdit* name_edit() const { return name_; }
  QComboBox* device_edit() const { return device_; }
  QLabel* problems_label() const { return problems_; }
  QLabel* outputs_label() const { return outputs_; }  // nullptr while no node is shown
  // The editor of attr `key` ("attr_<key>"), nullptr when not shown.
  QWidget* attr_editor(const QString& key) const;

 signals:
  void edit_refused(const QString& message);

 private:
  void rebuild();
  void refused(const QString& message);
  // Whether a signal from `editor` should act: it belongs to the form shown
  // now, and that form is not being replaced.
  bool live(QWidget* editor) const;

  EditableGraph* model_;
  QString node_;
  QLabel* title_ = nullptr;
  QLineEdit* name_ = nullptr;
  QComboBox* device_ = nullptr;
  QLabel* inputs_ = nullptr;
  QLabel* outputs_ = nullptr;
  QLabel* problems_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QWidget* form_host_ = nullptr;
  bool rebuilding_ = false;
};

}  // namespace flowlens::ui
