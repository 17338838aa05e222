#include "ui/editor/node_inspector.h"
#include "ui/util/std_text.h"

#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QIcon>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <memory>

#include "ops/framework/op_registry.h"
#include "ui/editor/attr_editors.h"
#include "ui/editor/editable_graph.h"
#include "ui/editor/graph_check.h"

namespace flowlens::ui {
namespace {

// The dtype a Const's value (or a typed attr's tensor) is read as.
DType tensor_dtype_of(const Node& n) {
  for (const char* key : {"dtype", "T"})
    if (const AttrValue* a = n.find_attr(key); a && a->is<DType>()) return *a->get_if<DType>();
  return DType::Float;
}

QLabel* wrapped_label() {
  auto* label = new QLabel;
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

}  // namespace

NodeInspector::NodeInspector(EditableGraph* model, QWidget* parent) : QWidget(parent), model_(model) {
  setObjectName(QStringLiteral("nodeInspector"));
  scroll_ = new QScrollArea(this);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(scroll_);
  connect(model_, &EditableGraph::changed, this, [this] {
    if (!node_.isEmpty() && !model_->graph().find(node_.toStdString())) node_.clear();  // deleted, or an undone add
    rebuild();
  });
  rebuild();
}

void NodeInspector::set_node(const QString& name) {
  node_ = model_->graph().find(name.toStdString()) ? name : QString();
  rebuild();
}

QWidget* NodeInspector::attr_editor(const QString& key) const {
  return form_host_ ? form_host_->findChild<QWidget*>(QStringLiteral("attr_") + key) : nullptr;
}

bool NodeInspector::live(QWidget* editor) const {
  return !rebuilding_ && editor && form_host_ && form_host_->isAncestorOf(editor);
}

void NodeInspector::refused(const QString& message) {
  rebuild();  // back to the model's values
  problems_->setText(message);
  problems_->setVisible(true);
  emit edit_refused(message);
}

void NodeInspector::rebuild() {
  // Keep keyboard focus on the same field across the rebuild an edit causes.
  QWidget* focused = QApplication::focusWidget();
  const QString focus_name = focused && form_host_ && form_host_->isAncestorOf(focused) ? focused->objectName() : QString();
  // The old form may be inside one of its editors' signals: delete it later.
  // Taking it away moves the focus, which finishes edits in it: ignored.
  rebuilding_ = true;
  if (QWidget* old = scroll_->takeWidget()) {
    old->hide();
    old->deleteLater();
  }
  rebuilding_ = false;
  form_host_ = new QWidget;
  auto* form = new QFormLayout(form_host_);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  title_ = wrapped_label();
  title_->setObjectName(QStringLiteral("inspectorTitle"));
  problems_ = wrapped_label();
  problems_->setObjectName(QStringLiteral("inspectorProblems"));
  problems_->setStyleSheet(QStringLiteral("color: #c62828;"));
  // Like name_ and device_, these exist only while a node is shown (they have
  // no parent until a form row takes them; made earlier they leaked).
  outputs_ = nullptr;
  inputs_ = nullptr;
  name_ = nullptr;
  device_ = nullptr;

  const Node* n = node_.isEmpty() ? nullptr : model_->graph().find(node_.toStdString());
  if (!n) {
    const GraphCheck& check = model_->check();
    title_->setText(QStringLiteral("<b>%1 nodes</b> \u2014 %2<br>Select a node to edit it.")
                        .arg(model_->graph().size()).arg(check.summary()));
    problems_->setText(check.graph_errors.join(QLatin1Char('\n')));
    problems_->setVisible(!check.graph_errors.isEmpty());
    form->addRow(title_);
    form->addRow(problems_);
    scroll_->setWidget(form_host_);
    return;
  }

  const OpDef* def = model_->registry().find(n->op);
  title_->setText(QStringLiteral("<b>%1</b>").arg(qs(n->op).toHtmlEscaped()) +
                  (def ? QString() : QStringLiteral(" <i>(unknown op)</i>")));
  form->addRow(title_);
  const NodeCheck* check = model_->check().find(n->name);
  problems_->setText(check ? check->errors : QString());
  problems_->setVisible(check && check->has_error());
  form->addRow(problems_);

  name_ = new QLineEdit(node_);
  name_->setObjectName(QStringLiteral("nodeName"));
  connect(name_, &QLineEdit::editingFinished, this, [this, edit = name_] {
    if (!live(edit)) return;
    const QString to = edit->text().trimmed();
    if (to == node_) return;
    const QString from = node_;
    node_ = to;  // follow the node through the rebuild the rename causes
    QString error;
    if (!model_->rename_node(from, to, &error)) {
      node_ = from;
      refused(error);
    }
  });
  form->addRow(QStringLiteral("Name"), name_);

  device_ = new QComboBox;
  device_->setObjectName(QStringLiteral("nodeDevice"));
  device_->setEditable(true);
  device_->addItems({QString(), QStringLiteral("/cpu:0"), QStringLiteral("/gpu:0"), QStringLiteral("/gpu:1"),
                     QStringLiteral("/job:ps/task:0"), QStringLiteral("/job:worker/task:0")});
  device_->setEditText(qs(n->device));
  device_->setToolTip(QStringLiteral("Requested device; empty lets placement choose"));
  auto apply_device = [this, combo = device_] {
    if (!live(combo)) return;
    QString error;
    if (!model_->set_device(node_, combo->currentText(), &error)) refused(error);
  };
  connect(device_->lineEdit(), &QLineEdit::editingFinished, this, apply_device);
  connect(device_, &QComboBox::activated, this, apply_device);
  form->addRow(QStringLiteral("Device"), device_);

  inputs_ = wrapped_label();
  outputs_ = wrapped_label();
  outputs_->setObjectName(QStringLiteral("inspectorOutputs"));
  QStringList inputs;
  for (std::size_t i = 0; i < n->inputs.size(); ++i) inputs << QStringLiteral("%1: %2").arg(i).arg(qs(n->inputs[i]));
  inputs_->setText(inputs.isEmpty() ? QStringLiteral("none") : inputs.join(QLatin1Char('\n')));
  form->addRow(QStringLiteral("Inputs"), inputs_);
  QStringList outs;
  if (check)
    for (std::size_t i = 0; i < check->outputs.size(); ++i)
      outs << QStringLiteral("%1: %2").arg(i).arg(describe_tensor_info(check->outputs[i]));
  outputs_->setText(outs.isEmpty() ? QStringLiteral("not inferred") : outs.join(QLatin1Char('\n')));
  form->addRow(QStringLiteral("Outputs"), outputs_);

  // Declared attrs first (set or not), then any others the node carries.
  std::vector<std::pair<std::string, std::optional<AttrKind>>> rows;
  if (def)
    for (const AttrDef& a : def->attrs) rows.emplace_back(a.name, a.kind);
  for (const auto& [key, value] : n->attrs)
    if (std::none_of(rows.begin(), rows.end(), [&](const auto& r) { return r.first == key; }))
      rows.emplace_back(key, attr_kind_of(value));
  const DType tensor_dtype = tensor_dtype_of(*n);
  for (const auto& [key, kind] : rows) {
    const QString k = qs(key);
    auto self = std::make_shared<QWidget*>(nullptr);  // the editor, known once made
    QWidget* editor = make_attr_editor(kind, n->find_attr(key), tensor_dtype, [this, k, self](const AttrValue& v) {
      if (!live(*self)) return;
      QString error;
      if (!model_->set_attr(node_, k, v, &error)) refused(error);
    });
    *self = editor;
    editor->setObjectName(QStringLiteral("attr_") + k);
    const AttrDef* declared = def ? def->find_attr(key) : nullptr;
    const bool required = declared && !declared->default_value && !declared->inferable;
    form->addRow(required ? k + QStringLiteral(" *") : k, editor);
  }
  auto* remove = new QPushButton(QIcon::fromTheme(QStringLiteral("edit-delete")), QStringLiteral("Delete Node"));
  remove->setObjectName(QStringLiteral("deleteNodeButton"));
  connect(remove, &QPushButton::clicked, this, [this, remove] {
    if (live(remove)) model_->remove_nodes({node_});
  });
  form->addRow(remove);
  scroll_->setWidget(form_host_);
  if (!focus_name.isEmpty())
    if (QWidget* w = form_host_->findChild<QWidget*>(focus_name)) w->setFocus();
}

}  // namespace flowlens::ui
