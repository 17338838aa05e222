#pragma once
// The graph editor's model: the GraphDef being built, the canvas position of
// each node and the undo stack. Every edit goes through one of the methods
// below, is checked first (a refused edit changes nothing and says why) and
// becomes one QUndoStack step. After each change the graph is validated and
// its shapes inferred again (check()), then changed() is emitted; the scene
// and the inspector redraw from the model, never the other way round.
// No Widgets here: QUndoStack lives in Qt GUI.
#include <QObject>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <map>

#include "graph/attr_value.h"
#include "ui/editor/editor_state.h"
#include "ui/editor/graph_check.h"

class QUndoStack;

namespace flowlens {
class OpRegistry;
}

namespace flowlens::ui {

class EditableGraph : public QObject {
  Q_OBJECT

 public:
  explicit EditableGraph(const OpRegistry& registry, QObject* parent = nullptr);

  const flowlens::Graph& graph() const { return state_.graph; }
  const EditorState& state() const { return state_; }
  const GraphCheck& check() const { return check_; }
  const OpRegistry& registry() const { return registry_; }
  QUndoStack* undo_stack() const { return stack_; }
  QPointF position(const QString& node) const;

  // Starts over with `graph` (New, New from template, Open): laid out afresh,
  // history cleared, unmodified. `path` is where Save writes ("" = ask).
  void reset(flowlens::Graph graph, const QString& path = {});
  const QString& path() const { return path_; }
  bool is_modified() const;
  // Writes GraphDef text (or binary for .pb) with the engine's writer and
  // marks the graph unmodified; false with `error` naming the file.
  bool save(const QString& path, QString* error = nullptr);

  // ---- edits: each is one undo step; false (and `error`) when refused ------
  // A node of `op` named like TensorFlow would (MatMul, MatMul_1 ...), with
  // its type attrs set (float32; int32 for index types) and required attrs
  // given a starting value. Returns its name, "" when `op` is unknown.
  // It lands at `position` (its box's top left) when that box overlaps no
  // other node's, else at the nearest spot where it does not.
  QString add_node(const QString& op, QPointF position, QString* error = nullptr);
  // The top left nearest `wanted` where a box of `height` overlaps no node's
  // box (with a small gap around each).
  QPointF free_position(QPointF wanted, double height) const;
  // Removes the nodes and every input naming them.
  bool remove_nodes(const QStringList& names);
  // `to`'s data input `input` reads `from:output`. `input` may be an
  // existing input (replaced) or the next free one (appended).
  bool connect_ports(const QString& from, int output, const QString& to, int input, QString* error = nullptr);
  // Adds "^from" to `to` (run `from` first; no data flows).
  bool add_control_input(const QString& from, const QString& to, QString* error = nullptr);
  // Removes entry `index` of node.inputs (data or control).
  bool remove_input(const QString& node, int index, QString* error = nullptr);
  // Renames and rewrites every input (and colocation attr) naming the node.
  bool rename_node(const QString& from, const QString& to, QString* error = nullptr);
  bool set_device(const QString& node, const QString& device, QString* error = nullptr);
  bool set_attr(const QString& node, const QString& key, const AttrValue& value, QString* error = nullptr);
  bool move_nodes(const std::map<std::string, QPointF>& positions);

  // The named nodes, their positions, and only the inputs among them.
  EditorState copy(const QStringList& names) const;
  // Adds `clip`'s nodes under fresh names, shifted by `offset`; inputs from
  // outside the clip are kept when such a node exists here. Returns the names.
  QStringList paste(const EditorState& clip, QPointF offset);

 signals:
  void changed();
  // After changed(), for a rename made through rename_node (not for undo).
  void node_renamed(const QString& from, const QString& to);

 private:
  friend class GraphEditCommand;
  void restore(const EditorState& state);  // undo/redo
  void commit(const QString& text, EditorState after);
  const Node* node(const QString& name, QString* error) const;
  void refresh_check();

  const OpRegistry& registry_;
  QUndoStack* stack_;
  EditorState state_;
  GraphCheck check_;
  QString path_;
};

}  // namespace flowlens::ui
