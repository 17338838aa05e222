#pragma once
// The op palette: every op of the engine's registry, grouped (math, nn,
// array, state, training, other) and filtered by a search box. Drag an op
// onto the editor canvas to add it; double-click (or Enter) asks for it to be
// added at the centre of the view (op_activated).
#include <QString>
#include <QWidget>

class QLineEdit;
class QMimeData;
class QTreeWidget;
class QTreeWidgetItem;

namespace flowlens {
class OpRegistry;
}

namespace flowlens::ui {

class OpPalette : public QWidget {
  Q_OBJECT

 public:
  static const QString kMimeType;  // "application/x-flowlens-op", payload: the op name
  static QMimeData* mime_for(const QString& op);
  // The op a drag carries, "" if it carries none.
  static QString op_from_mime(const QMimeData* mime);

  explicit OpPalette(const OpRegistry& registry, QWidget* parent = nullptr);

  QLineEdit* search_edit() const { return search_; }
  QTreeWidget* tree() const { return tree_; }
  // Op names currently shown (not hidden by the search), palette order.
  QStringList visible_ops() const;
  QTreeWidgetItem* op_item(const QString& op) const;

 signals:
  void op_activated(const QString& op);

 private:
  void fill(const OpRegistry& registry);
  void apply_filter(const QString& text);

  QLineEdit* search_ = nullptr;
  QTreeWidget* tree_ = nullptr;
};

}  // namespace flowlens::ui
