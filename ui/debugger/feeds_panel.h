#pragma once
// The Feeds dock: every placeholder of the open graph (and every argument of
// a function-body graph) with its dtype and declared shape, and the value a
// run feeds it. A value is typed as numpy prints it ("1,2,3",
// "[[1,0],[1,1]]", "\"text\""), loaded from a .npy file, or generated
// (zeros, ones, random of the declared shape, "?" as 1); it is read and
// checked against the slot's dtype and shape as it is typed
// (exec/feed_values.h, the same reading flowlens-run's --feed does). Values
// are remembered per file (QSettings), so reopening a model feeds it again.
// Run, Step, Compare Loss and the replica all take their feeds from here.
// A function body's variables (resource _Args) are not fed: the panel lists
// them with how the session starts them (zeros or random, by role).
#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "exec/feed_values.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace flowlens::ui {

struct GraphDocument;

class FeedsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit FeedsPanel(QWidget* parent = nullptr);

  void set_document(std::shared_ptr<const GraphDocument> doc);

  // The rows, in graph order.
  const std::vector<FeedSlot>& inputs() const { return slots_; }
  // Sets the value of slot `name` as typed; false with `error` when there is
  // no such slot or the value does not fit it (the text is kept, marked bad).
  bool set_value(const QString& name, const QString& text, QString* error = nullptr);
  QString value_text(const QString& name) const;
  // Why slot `name`'s value is unusable ("" when it is fine or empty).
  QString problem(const QString& name) const;
  // The feeds with a usable value; .npy files are read again, so a file
  // written since it was chosen feeds what it holds now. Slots whose text
  // does not parse or fit are left out and named in `bad` ("x: expected
  // float32 [?,2], got int32 [3]").
  FeedList feeds(QStringList* bad = nullptr);
  // Whether values are saved per file (QSettings) and brought back when it
  // opens again; off until the window's settings are (never for screenshots).
  void set_remember(bool on) { remember_ = on; }
  // How a function body's variables start: "random" (by role, as
  // flowlens-run --init-args random) or "zeros"; takes effect when the
  // session starts (Run → Reset Session).
  QString resource_fill() const { return resource_fill_; }
  void set_resource_fill(const QString& fill);

  // Selects `name`'s row and puts the cursor in its value field.
  void focus_slot(const QString& name);

 signals:
  void feeds_changed();

 private:
  struct Row {
    QString text;
    Tensor value;    // valid when `text` parses and fits
    QString problem;
  };
  void rebuild();
  void update_row(int row);
  void evaluate(int row);
  void on_current_row_changed();
  void on_value_edited(const QString& text);
  void apply_to_current(const QString& text);
  void choose_npy();
  void save() const;
  void load_saved();
  int row_of(const QString& name) const;
  bool fed_slot(int row) const;  // not a function body's variable

  std::shared_ptr<const GraphDocument> doc_;
  std::vector<FeedSlot> slots_;
  std::vector<Row> rows_;
  QString resource_fill_ = QStringLiteral("random");
  bool remember_ = false;
  QLabel* summary_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* editing_ = nullptr;
  QLineEdit* value_edit_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* npy_ = nullptr;
  std::vector<QPushButton*> generators_;
  QComboBox* fill_ = nullptr;  // how a function body's variables start
  QLabel* fill_label_ = nullptr;
};

}  // namespace flowlens::ui
