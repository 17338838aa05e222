// The graph editor (issue 10). Acceptance: build the matmul example
// (variables, their Assign initializers and reads, the MatMul) on an empty
// canvas by simulated palette drops, port-to-port drags and inspector edits; undo everything back to empty and redo it; save, reload and run it
// to [[9],[21],[33],[45]]. Also: live validation (red nodes with the
// message), refused edits, copy/paste, moves as undo steps, control
// dependencies, palette search, tensor text and templates.
#include "test_main.h"
#include <QtTest>

#include <QAbstractItemModel>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QUndoStack>

#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "tensor/tensor_format.h"
#include "ui/editor/editable_graph.h"
#include "ui/editor/editor_edge_item.h"
#include "ui/editor/editor_node_item.h"
#include "ui/editor/editor_page.h"
#include "ui/editor/editor_port_item.h"
#include "ui/editor/editor_scene.h"
#include "ui/editor/editor_view.h"
#include "ui/editor/editor_workbench.h"
#include "ui/editor/node_inspector.h"
#include "ui/editor/op_palette.h"
#include "ui/editor/template_dialog.h"
#include "ui/editor/tensor_text.h"
#include "ui/document/graph_document.h"
#include "ui/shell/main_window.h"
#include "ui_test_util.h"

using namespace flowlens;
using namespace flowlens::ui;

namespace {

const char* kExpected = "[[9],[21],[33],[45]]";

// The palette row of `op`, as the tree's model indexes it.
QModelIndex palette_index(OpPalette* palette, const QString& op) {
  QAbstractItemModel* m = palette->tree()->model();
  for (int g = 0; g < m->rowCount(); ++g) {
    const QModelIndex group = m->index(g, 0);
    for (int r = 0; r < m->rowCount(group); ++r)
      if (m->index(r, 0, group).data().toString() == op) return m->index(r, 0, group);
  }
  return {};
}

void mouse(QWidget* w, QEvent::Type type, QPoint p, Qt::MouseButton button, Qt::MouseButtons buttons) {
  QMouseEvent e(type, QPointF(p), w->mapToGlobal(QPointF(p)), button, buttons, Qt::NoModifier);
  QApplication::sendEvent(w, &e);
}

}  // namespace

class TestGraphEditor : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<MainWindow> window_;
  EditorWorkbench* editor_ = nullptr;

  EditorPage* page() const { return editor_->page(); }
  EditorScene* scene() const { return page()->scene(); }
  EditorView* view() const { return page()->view(); }
  EditableGraph* model() const { return editor_->model(); }
  NodeInspector* inspector() const { return editor_->inspector(); }

  QPoint view_point(QPointF scene_pos) const { return view()->mapFromScene(scene_pos); }
  // A canvas point relative to the middle of what the view shows.
  QPointF at(double dx, double dy) const { return view()->visible_center() + QPointF(dx, dy); }

  // Drags `op` out of the palette (the tree's own MIME data) and drops it on
  // the canvas at `scene_pos`. Returns the new node's name.
  QString drop_op(const QString& op, QPointF scene_pos) {
    const QModelIndex index = palette_index(editor_->palette(), op);
    if (!index.isValid()) return {};
    std::unique_ptr<QMimeData> mime(editor_->palette()->tree()->model()->mimeData({index}));
    if (!mime) return {};
    const QPoint at = view_point(scene_pos);
    QWidget* target = view()->viewport();
    QDragEnterEvent enter(at, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    if (!enter.isAccepted()) return {};
    QDragMoveEvent move(at, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &move);
    const int before = static_cast<int>(model()->graph().size());
    QDropEvent drop(QPointF(at), Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    if (static_cast<int>(model()->graph().size()) != before + 1) return {};
    return QString::fromStdString(model()->graph().nodes().back().name);
  }

  // Presses on a port, moves over `to`, releases there.
  void drag(QPointF from, QPointF to) {
    QWidget* vp = view()->viewport();
    mouse(vp, QEvent::MouseButtonPress, view_point(from), Qt::LeftButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseMove, view_point((from + to) / 2), Qt::NoButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseMove, view_point(to), Qt::NoButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseButtonRelease, view_point(to), Qt::LeftButton, Qt::NoButton);
  }

  bool connect_ports(const QString& from, int output, const QString& to, int input) {
    EditorPortItem* out = scene()->port(from, true, output);
    EditorPortItem* in = scene()->port(to, false, input);
    if (!out || !in) return false;
    const std::size_t steps = static_cast<std::size_t>(model()->undo_stack()->count());
    drag(out->scenePos(), in->scenePos());
    return static_cast<std::size_t>(model()->undo_stack()->count()) == steps + 1;
  }

  // Clicks the node's title, which selects it and shows it in the inspector.
  bool select(const QString& node) {
    EditorNodeItem* item = scene()->node_item(node);
    if (!item) return false;
    const QPoint p = view_point(item->mapToScene(QPointF(EditorNodeItem::kWidth / 2, 10)));
    mouse(view()->viewport(), QEvent::MouseButtonPress, p, Qt::LeftButton, Qt::LeftButton);
    mouse(view()->viewport(), QEvent::MouseButtonRelease, p, Qt::LeftButton, Qt::NoButton);
    return inspector()->node() == node;
  }

  // Types into a line edit of the inspector and presses Enter.
  static void type(QLineEdit* edit, const QString& text) {
    QVERIFY(edit);
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
  }
  void set_attr_text(const QString& key, const QString& text) {
    type(qobject_cast<QLineEdit*>(inspector()->attr_editor(key)), text);
  }
  void rename(const QString& node, const QString& to) {
    QVERIFY(select(node));
    type(inspector()->name_edit(), to);
    QCOMPARE(inspector()->node(), to);
  }

  QString matmul_result() {
    const EditorRunResult r = page()->run();
    if (!r.ok) return r.error;
    return r.lines.join(QLatin1Char('|'));
  }

  // tf.Variable(value, name=name) drawn by hand, as TensorFlow 1 exports it:
  // Const name/initial_value, VariableV2 name, Assign name/Assign(var, initial)
  // and Identity name/read(var). Returns false at the first step that fails.
  bool draw_variable(const QString& name, const QString& shape, const QString& value, QPointF origin) {
    const QString init = drop_op(QStringLiteral("Const"), origin);
    const QString var = drop_op(QStringLiteral("VariableV2"), origin + QPointF(0, 110));
    const QString assign = drop_op(QStringLiteral("Assign"), origin + QPointF(250, 0));
    const QString read = drop_op(QStringLiteral("Identity"), origin + QPointF(250, 110));
    if (init.isEmpty() || var.isEmpty() || assign.isEmpty() || read.isEmpty()) return false;
    rename(init, name + QStringLiteral("/initial_value"));
    set_attr_text(QStringLiteral("value"), value);
    rename(var, name);
    set_attr_text(QStringLiteral("shape"), shape);
    rename(assign, name + QStringLiteral("/Assign"));
    rename(read, name + QStringLiteral("/read"));
    return !QTest::currentTestFailed() && connect_ports(name, 0, name + QStringLiteral("/Assign"), 0) &&
           connect_ports(name + QStringLiteral("/initial_value"), 0, name + QStringLiteral("/Assign"), 1) &&
           connect_ports(name, 0, name + QStringLiteral("/read"), 0);
  }

  // The acceptance scenario up to a runnable graph: samples/matmul_baseline.pbtxt
  // (less its unused `init` NoOp) from an empty canvas. Returns the undo
  // steps it took, or a negative stage number when one failed.
  int build_matmul_by_hand() {
    editor_->new_graph();
    const QPointF origin = at(-420, -220);  // fixed, so later scrolling cannot shift the drawing
    if (!draw_variable(QStringLiteral("input_data"), QStringLiteral("[4,3]"),
                       QStringLiteral("[[1,2,3],[4,5,6],[7,8,9],[10,11,12]]"), origin))
      return -1;
    if (!draw_variable(QStringLiteral("b"), QStringLiteral("[3,1]"), QStringLiteral("[[1],[1],[2]]"),
                       origin + QPointF(0, 240)))
      return -2;
    const QString mm = drop_op(QStringLiteral("MatMul"), origin + QPointF(520, 120));
    if (mm.isEmpty()) return -3;
    rename(mm, QStringLiteral("output"));
    type(inspector()->device_edit()->lineEdit(), QStringLiteral("/gpu:0"));
    if (QTest::currentTestFailed()) return -4;
    if (!connect_ports(QStringLiteral("input_data/read"), 0, QStringLiteral("output"), 0)) return -5;
    if (!connect_ports(QStringLiteral("b/read"), 0, QStringLiteral("output"), 1)) return -6;
    return model()->undo_stack()->count();
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    window_ = std::make_unique<MainWindow>();
    window_->resize(1280, 800);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    editor_ = window_->editor_workbench();
    QVERIFY(editor_);
  }

  void cleanupTestCase() { window_.reset(); }

  void acceptance_build_undo_redo_save_reload_run() {
    const int steps = build_matmul_by_hand();
    QVERIFY2(steps > 0, qPrintable(QStringLiteral("building failed at stage %1").arg(steps)));
    // Per variable 4 drops, 4 renames, a value, a shape, 3 wires; the MatMul:
    // a drop, a rename, a device, 2 wires.
    QCOMPARE(steps, 2 * 13 + 5);
    // Node for node what TensorFlow exported (the sample), bar its init NoOp.
    const Graph sample = load_graph(testing::sample("matmul_baseline.pbtxt").toStdString());
    QCOMPARE(model()->graph().size(), sample.size() - 1);
    for (const Node& want : sample.nodes()) {
      if (want.name == "init") continue;
      const Node* got = model()->graph().find(want.name);
      QVERIFY2(got, want.name.c_str());
      QCOMPARE(got->op, want.op);
      QCOMPARE(got->inputs, want.inputs);
      QCOMPARE(got->attr_type(got->op == "VariableV2" || got->op == "Const" ? "dtype" : "T", DType::Invalid), DType::Float);
    }
    QCOMPARE(model()->graph().find("output")->device, std::string("/gpu:0"));
    QCOMPARE(model()->graph().find("b")->attr("shape").to_string(), std::string("[3,1]"));
    QCOMPARE(model()->check().error_count, 0);
    QVERIFY(!scene()->node_item(QStringLiteral("output"))->has_error());
    QCOMPARE(scene()->edges().size(), 8);
    QCOMPARE(matmul_result(), QStringLiteral("output = %1").arg(QLatin1String(kExpected)));
    const std::string built = graph_to_text(model()->graph());

    // Undo everything back to the empty canvas ...
    window_->findChild<QAction*>(QStringLiteral("actionUndo"))->trigger();  // through the menu action once
    QCOMPARE(model()->undo_stack()->index(), steps - 1);
    while (model()->undo_stack()->canUndo()) model()->undo_stack()->undo();
    QCOMPARE(model()->graph().size(), std::size_t{0});
    QVERIFY(scene()->items().isEmpty());
    // ... and redo it.
    while (model()->undo_stack()->canRedo()) window_->findChild<QAction*>(QStringLiteral("actionRedo"))->trigger();
    QCOMPARE(graph_to_text(model()->graph()), built);
    QCOMPARE(scene()->edges().size(), 8);

    // Save, reload in the editor and in the viewer, run.
    const QString path = dir_.filePath(QStringLiteral("matmul_built.pbtxt"));
    QString error;
    QVERIFY2(editor_->save_to(path, &error), qPrintable(error));
    QVERIFY(!model()->is_modified());
    QVERIFY2(editor_->open_in_editor(path, &error), qPrintable(error));
    QCOMPARE(graph_to_text(model()->graph()), built);
    QCOMPARE(model()->path(), QFileInfo(path).absoluteFilePath());
    QCOMPARE(matmul_result(), QStringLiteral("output = %1").arg(QLatin1String(kExpected)));
    QVERIFY(page()->output()->toPlainText().contains(QLatin1String(kExpected)));

    // Debug in Viewer opens the saved file in the viewer (the debugger's home).
    window_->findChild<QAction*>(QStringLiteral("actionDebugInViewer"))->trigger();
    QVERIFY(!editor_->active());
    QVERIFY(window_->document());
    QCOMPARE(window_->document()->path, QFileInfo(path).absoluteFilePath());
    QCOMPARE(window_->document()->error_count(), 0);
    editor_->show_editor();
    // The file is a plain GraphDef: the engine reads it as such.
    QVERIFY2(window_->open_file(path, &error), qPrintable(error));
    QCOMPARE(window_->document()->error_count(), 0);
    SessionOptions cpu;
    cpu.use_gpus = false;
    Session session(load_graph(path.toStdString()), cpu);
    session.run({}, {}, variable_initializers(session.graph()));
    QCOMPARE(QString::fromStdString(format_tensor(session.run({}, {"output"})[0])), QLatin1String(kExpected));
    QVERIFY(!editor_->active());  // opening a file shows the viewer
  }

  void invalid_nodes_turn_red_with_the_message() {
    editor_->new_graph();
    QVERIFY(editor_->active());
    const QString mm = drop_op(QStringLiteral("MatMul"), at(0, -150));
    QVERIFY(!mm.isEmpty());
    EditorNodeItem* item = scene()->node_item(mm);
    QVERIFY(item->has_error());
    QVERIFY2(item->toolTip().contains(QLatin1String("input")), qPrintable(item->toolTip()));
    QVERIFY(select(mm));
    QVERIFY(inspector()->problems_label()->isVisibleTo(inspector()));
    QCOMPARE(inspector()->problems_label()->text(), item->errors());
    QVERIFY(page()->check_label()->text().contains(QLatin1String("1 node with errors")));

    // Shapes that do not fit: [2,3] x [2,1] fails shape inference.
    const QString a = drop_op(QStringLiteral("Const"), at(-300, -150));
    QVERIFY(select(a));
    set_attr_text(QStringLiteral("value"), QStringLiteral("[[1,2,3],[4,5,6]]"));
    const QString b = drop_op(QStringLiteral("Const"), at(-300, 50));
    QVERIFY(select(b));
    set_attr_text(QStringLiteral("value"), QStringLiteral("[[1],[2]]"));
    QVERIFY(connect_ports(a, 0, mm, 0));
    QVERIFY(connect_ports(b, 0, mm, 1));
    item = scene()->node_item(mm);
    QVERIFY(item->has_error());
    QVERIFY2(item->errors().contains(QLatin1String("3")), qPrintable(item->errors()));
    // The whole graph cannot run, the part a fetch needs can.
    QVERIFY(!page()->run().ok);
    page()->fetch_edit()->setText(a);
    const EditorRunResult part = page()->run();
    QVERIFY2(part.ok, qPrintable(part.error));
    QCOMPARE(part.lines, QStringList{a + QStringLiteral(" = [[1,2,3],[4,5,6]]")});
    page()->fetch_edit()->clear();
    // Transposing b's partner fixes it: [3,2] x [2,1] = [3,1], shown on the port.
    QVERIFY(select(mm));
    auto* transpose = qobject_cast<QCheckBox*>(inspector()->attr_editor(QStringLiteral("transpose_a")));
    QVERIFY(transpose);
    transpose->click();
    QVERIFY(!scene()->node_item(mm)->has_error());
    QVERIFY2(inspector()->outputs_label()->text().contains(QLatin1String("float32[3,1]")),
             qPrintable(inspector()->outputs_label()->text()));
    QVERIFY(page()->run().ok);
  }

  void refused_edits_say_why_and_change_nothing() {
    editor_->new_graph();
    const QString a = drop_op(QStringLiteral("Const"), at(-300, -150));
    const QString add = drop_op(QStringLiteral("Add"), at(0, -150));
    const int steps = model()->undo_stack()->count();
    // Input 1 before input 0: GraphDef inputs have no gaps.
    QVERIFY(!connect_ports(a, 0, add, 1));
    QVERIFY(page()->output()->toPlainText().contains(QLatin1String("connect input 0 first")));
    QString error;
    QVERIFY(!model()->rename_node(add, a, &error));
    QVERIFY(error.contains(QLatin1String("already exists")));
    QVERIFY(!model()->rename_node(add, QStringLiteral("bad name!"), &error));
    QVERIFY(!model()->set_device(add, QStringLiteral("/gpu:zero"), &error));
    QVERIFY2(error.contains(add), qPrintable(error));
    QCOMPARE(model()->undo_stack()->count(), steps);

    // A tensor that does not parse marks the field and commits nothing.
    QVERIFY(select(a));
    set_attr_text(QStringLiteral("value"), QStringLiteral("[[1,2],[3]]"));
    auto* field = qobject_cast<QLineEdit*>(inspector()->attr_editor(QStringLiteral("value")));
    QVERIFY(field->toolTip().contains(QLatin1String("ragged")));
    QCOMPARE(model()->undo_stack()->count(), steps);

    // The inspector's Delete Node button is one undo step too.
    auto* remove = inspector()->findChild<QPushButton*>(QStringLiteral("deleteNodeButton"));
    QVERIFY(remove);
    remove->click();
    QVERIFY(!model()->graph().find(a.toStdString()));
    QVERIFY(inspector()->node().isEmpty());
    model()->undo_stack()->undo();
    QVERIFY(model()->graph().find(a.toStdString()));
  }

  void copy_paste_delete_and_control_edges() {
    editor_->new_graph();
    const QString x = drop_op(QStringLiteral("Const"), at(-300, -150));
    const QString neg = drop_op(QStringLiteral("Neg"), at(0, -150));
    QVERIFY(connect_ports(x, 0, neg, 0));
    scene()->select_nodes({x, neg});
    window_->findChild<QAction*>(QStringLiteral("actionCopy"))->trigger();
    window_->findChild<QAction*>(QStringLiteral("actionPaste"))->trigger();
    QCOMPARE(model()->graph().size(), std::size_t{4});
    const Node* pasted = model()->graph().find(neg.toStdString() + "_1");
    QVERIFY(pasted);
    QCOMPARE(pasted->inputs, std::vector<std::string>{x.toStdString() + "_1"});  // the edge follows the copy
    QCOMPARE(scene()->selected_nodes().size(), 2);
    // The clipboard holds GraphDef text too.
    QVERIFY(QApplication::clipboard()->text().contains(QLatin1String("op: \"Neg\"")));

    window_->findChild<QAction*>(QStringLiteral("actionDelete"))->trigger();
    QCOMPARE(model()->graph().size(), std::size_t{2});
    model()->undo_stack()->undo();
    QCOMPARE(model()->graph().size(), std::size_t{4});

    // Dropping a wire on a node's body makes a control dependency.
    EditorNodeItem* target = scene()->node_item(neg);
    drag(scene()->port(x + QStringLiteral("_1"), true, 0)->scenePos(),
         target->mapToScene(QPointF(EditorNodeItem::kWidth / 2, 20)));
    const Node* n = model()->graph().find(neg.toStdString());
    QCOMPARE(n->inputs.back(), "^" + x.toStdString() + "_1");
    // Deleting the dashed edge removes just that input.
    EditorEdgeItem* control = nullptr;
    for (EditorEdgeItem* e : scene()->edges())
      if (e->is_control()) control = e;
    QVERIFY(control);
    scene()->clearSelection();
    control->setSelected(true);
    scene()->delete_selection();
    QCOMPARE(model()->graph().find(neg.toStdString())->inputs, std::vector<std::string>{x.toStdString()});
  }

  void moving_nodes_is_one_undo_step() {
    editor_->new_graph();
    const QString c = drop_op(QStringLiteral("Const"), at(-300, -150));
    const QPointF start = model()->position(c);
    const int steps = model()->undo_stack()->count();
    EditorNodeItem* item = scene()->node_item(c);
    const QPointF grab = item->mapToScene(QPointF(20, 10));
    QWidget* vp = view()->viewport();
    mouse(vp, QEvent::MouseButtonPress, view_point(grab), Qt::LeftButton, Qt::LeftButton);
    for (int i = 1; i <= 5; ++i)
      mouse(vp, QEvent::MouseMove, view_point(grab + QPointF(20 * i, 10 * i)), Qt::NoButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseButtonRelease, view_point(grab + QPointF(100, 50)), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(model()->undo_stack()->count(), steps + 1);
    QVERIFY((model()->position(c) - start).manhattanLength() > 100);
    model()->undo_stack()->undo();
    QCOMPARE(model()->position(c), start);
    QCOMPARE(scene()->node_item(c)->pos(), start);
  }

  void palette_is_grouped_and_searchable() {
    OpPalette* palette = editor_->palette();
    QTreeWidgetItem* matmul = palette->op_item(QStringLiteral("MatMul"));
    QVERIFY(matmul);
    QVERIFY(matmul->parent()->text(0).startsWith(QLatin1String("math")));
    QVERIFY(palette->op_item(QStringLiteral("Relu"))->parent()->text(0).startsWith(QLatin1String("nn")));
    QVERIFY(palette->op_item(QStringLiteral("VariableV2"))->parent()->text(0).startsWith(QLatin1String("state")));
    QVERIFY(palette->op_item(QStringLiteral("ApplyAdam"))->parent()->text(0).startsWith(QLatin1String("training")));
    QVERIFY(palette->op_item(QStringLiteral("Reshape"))->parent()->text(0).startsWith(QLatin1String("array")));
    QVERIFY(!palette->op_item(QStringLiteral("_Send")));
    QTest::keyClicks(palette->search_edit(), QStringLiteral("matm"));  // a substring, any case
    QStringList found = palette->visible_ops();
    found.sort();
    QCOMPARE(found, (QStringList{QStringLiteral("BatchMatMul"), QStringLiteral("BatchMatMulV2"), QStringLiteral("BatchMatMulV3"),
                              QStringLiteral("MatMul"), QStringLiteral("_FusedMatMul")}));
    palette->search_edit()->clear();
    QVERIFY(palette->visible_ops().size() > 40);
  }

  void tensor_and_shape_text() {
    QString error;
    auto t = parse_tensor_text(QStringLiteral(" [[1, 2.5], [3, 4]] "), DType::Float, &error);
    QVERIFY2(t, qPrintable(error));
    QVERIFY(t->shape() == (Shape{2, 2}));
    QCOMPARE(tensor_text(*t), QStringLiteral("[[1,2.5],[3,4]]"));
    QVERIFY(parse_tensor_text(QStringLiteral("7"), DType::Int32, &error)->shape() == Shape{});
    QVERIFY(parse_tensor_text(QStringLiteral("[]"), DType::Float, &error)->shape() == Shape{0});
    QVERIFY(!parse_tensor_text(QStringLiteral("[[1,2],3]"), DType::Float, &error));
    QVERIFY(error.contains(QLatin1String("ragged")));
    QVERIFY(!parse_tensor_text(QStringLiteral("[1.5]"), DType::Int32, &error));
    QVERIFY(error.contains(QLatin1String("1.5")));
    QVERIFY(!parse_tensor_text(QStringLiteral("[1,2"), DType::Float, &error));
    QVERIFY(parse_shape_text(QStringLiteral("[?, 3]"), &error) == (Shape{-1, 3}));
    QVERIFY(!parse_shape_text(QStringLiteral("[a]"), &error));
  }

  void templates_open_ready_to_run() {
    TemplateDialog dialog;
    dialog.set_template(QStringLiteral("mlp"));
    dialog.hidden_edit()->setText(QStringLiteral("32, x"));
    QString error;
    QVERIFY(!dialog.build(&error));
    QVERIFY(error.contains(QLatin1String("'x'")));
    dialog.hidden_edit()->setText(QStringLiteral("32, 16"));
    dialog.activation_combo()->setCurrentText(QStringLiteral("Tanh"));
    std::optional<Graph> mlp = dialog.build(&error);
    QVERIFY2(mlp, qPrintable(error));
    QVERIFY(mlp->find("layer2/Tanh"));
    editor_->new_graph_from(std::move(*mlp), QStringLiteral("MLP classifier"));
    QCOMPARE(model()->check().error_count, 0);
    QVERIFY(!model()->is_modified());
    QVERIFY(!model()->undo_stack()->canUndo());
    page()->fetch_edit()->setText(QStringLiteral("loss"));
    const EditorRunResult r = page()->run();
    QVERIFY2(r.ok, qPrintable(r.error));
    QVERIFY(r.lines.front().startsWith(QLatin1String("loss = ")));
    page()->fetch_edit()->clear();

    std::optional<Graph> towers = TemplateDialog::build_template(QStringLiteral("two-tower"), {}, &error);
    QVERIFY2(towers, qPrintable(error));
    editor_->new_graph_from(std::move(*towers), QStringLiteral("2 towers"));
    QCOMPARE(model()->check().error_count, 0);
    QVERIFY(scene()->node_item(QStringLiteral("tower_1/layer1/MatMul")));
    // Laid out left to right: a consumer sits right of its inputs.
    QVERIFY(model()->position(QStringLiteral("loss")).x() > model()->position(QStringLiteral("data")).x());

    // The CNN classifier has its own form; a bad block list is refused naming it.
    dialog.set_template(QStringLiteral("cnn"));
    QVERIFY(dialog.cnn_form()->isVisibleTo(&dialog));
    QVERIFY(!dialog.mlp_form()->isVisibleTo(&dialog));
    dialog.cnn_filters_edit()->setText(QStringLiteral("8, y"));
    QVERIFY(!dialog.build(&error));
    QVERIFY(error.contains(QLatin1String("'y'")));
    dialog.cnn_filters_edit()->setText(QStringLiteral("4, 8"));
    dialog.cnn_batch_spin()->setValue(4);
    std::optional<Graph> cnn = dialog.build(&error);
    QVERIFY2(cnn, qPrintable(error));
    QVERIFY(cnn->find("block2/conv/Conv2D"));
    editor_->new_graph_from(std::move(*cnn), QStringLiteral("CNN classifier"));
    QCOMPARE(model()->check().error_count, 0);
    page()->fetch_edit()->setText(QStringLiteral("loss"));
    const EditorRunResult cnn_run = page()->run();
    QVERIFY2(cnn_run.ok, qPrintable(cnn_run.error));
    page()->fetch_edit()->clear();

    std::optional<Graph> matmul = TemplateDialog::build_template(QStringLiteral("matmul"), {}, &error);
    editor_->new_graph_from(std::move(*matmul), QStringLiteral("Matmul example"));
    QCOMPARE(matmul_result(), QStringLiteral("output = %1").arg(QLatin1String(kExpected)));
  }

  // Adding a node (the palette's double-click adds at the view's centre, a
  // drop under the cursor) never covers another: it takes the spot asked
  // for when free, else the nearest free one.
  void added_nodes_do_not_land_on_others() {
    editor_->new_graph();
    auto box = [this](const QString& n) { return scene()->node_item(n)->sceneBoundingRect(); };
    auto no_overlaps = [&] {
      const std::vector<Node>& nodes = model()->graph().nodes();
      for (std::size_t i = 0; i < nodes.size(); ++i)
        for (std::size_t j = i + 1; j < nodes.size(); ++j)
          if (box(QString::fromStdString(nodes[i].name)).intersects(box(QString::fromStdString(nodes[j].name))))
            return nodes[i].name + " overlaps " + nodes[j].name;
      return std::string();
    };
    const QPointF centre = view()->visible_center() - QPointF(90, 30);
    emit editor_->palette()->op_activated(QStringLiteral("Const"));
    const QString first = QString::fromStdString(model()->graph().nodes().back().name);
    QCOMPARE(model()->position(first), centre);  // free: exactly where asked
    emit editor_->palette()->op_activated(QStringLiteral("Add"));
    emit editor_->palette()->op_activated(QStringLiteral("Const"));
    QCOMPARE(model()->graph().size(), std::size_t{3});
    QVERIFY2(no_overlaps().empty(), no_overlaps().c_str());
    // Nearest: the second lands right beside the first, not far away.
    const QString second = QString::fromStdString(model()->graph().nodes()[1].name);
    QVERIFY(QLineF(model()->position(second), centre).length() < 200);

    // Dropped onto the first node's title: moved off it, but nearby.
    const QPointF on_first = model()->position(first) + QPointF(EditorNodeItem::kWidth / 2, 12);
    const QString dropped = drop_op(QStringLiteral("Neg"), on_first);
    QVERIFY(!dropped.isEmpty());
    QVERIFY2(no_overlaps().empty(), no_overlaps().c_str());
    QVERIFY(QLineF(model()->position(dropped), model()->position(first)).length() < 300);
    // Dropped on free canvas: exactly under the cursor, as before.
    const QPointF free_spot = at(-450, 260);
    const QString free_node = drop_op(QStringLiteral("Neg"), free_spot);
    QVERIFY(!free_node.isEmpty());
    QVERIFY(QLineF(model()->position(free_node), free_spot - QPointF(EditorNodeItem::kWidth / 2, 12)).length() < 2);
    QVERIFY2(no_overlaps().empty(), no_overlaps().c_str());
    model()->undo_stack()->setClean();
  }

  // The status bar said "No graph loaded" while a graph was being edited.
  void status_bar_describes_the_edited_graph() {
    editor_->new_graph();
    QVERIFY(editor_->active());
    QVERIFY(!window_->summary_text().contains(QLatin1String("No graph loaded")));
    QVERIFY2(window_->summary_text().contains(QLatin1String("0 nodes")), qPrintable(window_->summary_text()));
    QVERIFY(!drop_op(QStringLiteral("Const"), at(0, 0)).isEmpty());
    QVERIFY(!drop_op(QStringLiteral("Neg"), at(250, 0)).isEmpty());
    QVERIFY2(window_->summary_text().startsWith(QLatin1String("Editing untitled")), qPrintable(window_->summary_text()));
    QVERIFY2(window_->summary_text().contains(QLatin1String("2 nodes")), qPrintable(window_->summary_text()));
    QVERIFY2(window_->summary_text().contains(model()->check().summary()), qPrintable(window_->summary_text()));
    // Back in the viewer: the viewer's graph again.
    editor_->show_viewer();
    QCOMPARE(window_->summary_text(),
             window_->document() ? window_->document()->summary() : QStringLiteral("No graph loaded"));
    editor_->show_editor();
    QVERIFY2(window_->summary_text().contains(QLatin1String("2 nodes")), qPrintable(window_->summary_text()));
    model()->undo_stack()->setClean();
  }

  void closing_with_unsaved_edits_asks() {
    editor_->new_graph();
    QVERIFY(!drop_op(QStringLiteral("Const"), at(0, 0)).isEmpty());
    QVERIFY(model()->is_modified());
    QString asked;
    // Answer the question the close raises with Cancel: the window stays.
    QTimer::singleShot(0, this, [&asked] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        asked = box->text();
        box->button(QMessageBox::Cancel)->click();
      }
    });
    QVERIFY(!window_->close());
    QVERIFY(asked.contains(QLatin1String("unsaved")));
    QVERIFY(window_->isVisible());
    model()->undo_stack()->setClean();
    QVERIFY(!model()->is_modified());
  }

  void editor_actions_follow_the_mode() {
    editor_->show_editor();
    QAction* del = window_->findChild<QAction*>(QStringLiteral("actionDelete"));
    QVERIFY(del->isEnabled());
    QVERIFY(window_->windowTitle().contains(QLatin1String("Graph Editor")));
    editor_->show_viewer();
    QVERIFY(!editor_->active());
    QVERIFY(!del->isEnabled());
    QVERIFY(!window_->findChild<QAction*>(QStringLiteral("actionUndo"))->isEnabled());
    window_->findChild<QAction*>(QStringLiteral("actionGraphEditor"))->trigger();
    QVERIFY(editor_->active());
  }
};

FLOWLENS_TEST_MAIN(TestGraphEditor)
#include "test_graph_editor.moc"
