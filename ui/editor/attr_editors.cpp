#include "ui/editor/attr_editors.h"
#include "ui/util/std_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>
#include <limits>

#include "ui/editor/tensor_text.h"

namespace flowlens::ui {
namespace {

void mark(QLineEdit* edit, const QString& error) {
  edit->setStyleSheet(error.isEmpty() ? QString() : QStringLiteral("QLineEdit { background: #ffebee; }"));
  edit->setToolTip(error);
}

// A text field whose text is parsed on Enter / focus loss.
QLineEdit* text_editor(const QString& text, const QString& placeholder,
                       std::function<std::optional<AttrValue>(const QString&, QString*)> parse, const AttrCommit& commit) {
  auto* edit = new QLineEdit(text);
  edit->setPlaceholderText(placeholder);
  QObject::connect(edit, &QLineEdit::editingFinished, edit, [edit, parse, commit] {
    if (!edit->isModified()) return;  // focus left without an edit, or the Return already handled it
    edit->setModified(false);
    QString error;
    const std::optional<AttrValue> value = parse(edit->text(), &error);
    mark(edit, value ? QString() : error);
    if (value) commit(*value);
  });
  return edit;
}

QString join_ints(const std::vector<int64_t>& v) {
  QStringList parts;
  for (int64_t i : v) parts << QString::number(i);
  return parts.join(QStringLiteral(", "));
}

std::optional<AttrValue> parse_int_list(const QString& text, QString* error) {
  AttrList list;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    list.i.push_back(part.trimmed().toLongLong(&ok));
    if (!ok) {
      *error = QStringLiteral("'%1' is not an integer; expected a list like 1, 2, 3").arg(part.trimmed());
      return std::nullopt;
    }
  }
  return AttrValue(list);
}

std::optional<AttrValue> parse_type_list(const QString& text, QString* error) {
  AttrList list;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    const auto t = dtype_from_name(part.trimmed().toStdString());
    if (!t) {
      *error = QStringLiteral("'%1' is not a dtype; expected names like float32, int32").arg(part.trimmed());
      return std::nullopt;
    }
    list.type.push_back(*t);
  }
  return AttrValue(list);
}

std::optional<AttrValue> parse_shape_list(const QString& text, QString* error) {
  AttrList list;
  for (const QString& part : text.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
    const auto s = parse_shape_text(part, error);
    if (!s) return std::nullopt;
    list.shape.push_back(*s);
  }
  return AttrValue(list);
}

QWidget* type_editor(const AttrValue* current, const AttrCommit& commit) {
  auto* combo = new QComboBox;
  const DType now = current && current->is<DType>() ? *current->get_if<DType>() : DType::Invalid;
  if (now == DType::Invalid) combo->addItem(QStringLiteral("(not set)"), -1);
  for (DType t : editable_dtypes()) combo->addItem(qs(dtype_name(t)), static_cast<int>(t));
  if (now != DType::Invalid && combo->findData(static_cast<int>(now)) < 0)
    combo->addItem(qs(dtype_name(now)), static_cast<int>(now));
  combo->setCurrentIndex(std::max(0, combo->findData(static_cast<int>(now))));
  QObject::connect(combo, &QComboBox::activated, combo, [combo, commit, now](int index) {
    const int t = combo->itemData(index).toInt();
    if (t >= 0 && static_cast<DType>(t) != now) commit(AttrValue(static_cast<DType>(t)));
  });
  return combo;
}

}  // namespace

const std::vector<DType>& editable_dtypes() {
  static const std::vector<DType> types = {DType::Float, DType::Double, DType::Int32, DType::Int64,
                                           DType::Bool, DType::String, DType::BFloat16, DType::Half};
  return types;
}

std::optional<AttrKind> attr_kind_of(const AttrValue& value) {
  if (value.is<std::string>()) return AttrKind::String;
  if (value.is<int64_t>()) return AttrKind::Int;
  if (value.is<float>()) return AttrKind::Float;
  if (value.is<bool>()) return AttrKind::Bool;
  if (value.is<DType>()) return AttrKind::Type;
  if (value.is<Shape>()) return AttrKind::Shape;
  if (value.is<Tensor>()) return AttrKind::Tensor;
  if (const AttrList* l = value.get_if<AttrList>()) {
    if (!l->i.empty()) return AttrKind::ListInt;
    if (!l->type.empty()) return AttrKind::ListType;
    if (!l->shape.empty()) return AttrKind::ListShape;
  }
  return std::nullopt;
}

QWidget* make_attr_editor(std::optional<AttrKind> kind, const AttrValue* current, DType tensor_dtype,
                          const AttrCommit& commit) {
  switch (kind.value_or(AttrKind::Func)) {
    case AttrKind::Type: return type_editor(current, commit);
    case AttrKind::Bool: {
      auto* box = new QCheckBox;
      box->setChecked(current && current->is<bool>() && *current->get_if<bool>());
      QObject::connect(box, &QCheckBox::toggled, box, [commit](bool on) { commit(AttrValue(on)); });
      return box;
    }
    case AttrKind::Int: {
      auto* spin = new QSpinBox;
      spin->setRange(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
      spin->setValue(current && current->is<int64_t>() ? static_cast<int>(*current->get_if<int64_t>()) : 0);
      spin->setKeyboardTracking(false);  // valueChanged on Enter / focus loss / arrows, not per key
      QObject::connect(spin, &QSpinBox::valueChanged, spin, [commit](int v) { commit(AttrValue(int64_t{v})); });
      return spin;
    }
    case AttrKind::Float: {
      auto* spin = new QDoubleSpinBox;
      spin->setRange(-1e30, 1e30);
      spin->setDecimals(6);
      spin->setValue(current && current->is<float>() ? *current->get_if<float>() : 0.0);
      spin->setKeyboardTracking(false);
      QObject::connect(spin, &QDoubleSpinBox::valueChanged, spin,
                       [commit](double v) { commit(AttrValue(static_cast<float>(v))); });
      return spin;
    }
    case AttrKind::String:
      return text_editor(current && current->is<std::string>() ? qs(*current->get_if<std::string>()) : QString(), {},
                         [](const QString& t, QString*) { return std::optional<AttrValue>(AttrValue(t.toStdString())); },
                         commit);
    case AttrKind::Shape:
      return text_editor(current && current->is<Shape>() ? qs(current->get_if<Shape>()->to_string()) : QString(),
                         QStringLiteral("[4,3], [?,3], [] or ?"),
                         [](const QString& t, QString* e) -> std::optional<AttrValue> {
                           if (auto s = parse_shape_text(t, e)) return AttrValue(*s);
                           return std::nullopt;
                         },
                         commit);
    case AttrKind::Tensor:
      return text_editor(current && current->is<Tensor>() ? tensor_text(*current->get_if<Tensor>()) : QString(),
                         QStringLiteral("[[1,2,3],[4,5,6]] as %1").arg(qs(dtype_name(tensor_dtype))),
                         [tensor_dtype](const QString& t, QString* e) -> std::optional<AttrValue> {
                           if (auto v = parse_tensor_text(t, tensor_dtype, e)) return AttrValue(*v);
                           return std::nullopt;
                         },
                         commit);
    case AttrKind::ListInt: {
      const AttrList* l = current ? current->get_if<AttrList>() : nullptr;
      return text_editor(l ? join_ints(l->i) : QString(), QStringLiteral("1, 2, 3"), parse_int_list, commit);
    }
    case AttrKind::ListType: {
      QStringList names;
      if (const AttrList* l = current ? current->get_if<AttrList>() : nullptr)
        for (DType t : l->type) names << qs(dtype_name(t));
      return text_editor(names.join(QStringLiteral(", ")), QStringLiteral("float32, int32"), parse_type_list, commit);
    }
    case AttrKind::ListShape: {
      QStringList shapes;
      if (const AttrList* l = current ? current->get_if<AttrList>() : nullptr)
        for (const Shape& s : l->shape) shapes << qs(s.to_string());
      return text_editor(shapes.join(QStringLiteral("; ")), QStringLiteral("[2,3]; [4]"), parse_shape_list, commit);
    }
    default: {
      auto* edit = new QLineEdit(current ? qs(current->to_string()) : QString());
      edit->setReadOnly(true);
      edit->setToolTip(QStringLiteral("This kind of attr is shown, not edited"));
      return edit;
    }
  }
}

}  // namespace flowlens::ui
