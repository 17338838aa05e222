#include "ui/editor/editor_page.h"

#include <QAction>
#include <QApplication>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QToolBar>
#include <QVBoxLayout>

#include "ui/editor/editable_graph.h"
#include "ui/editor/editor_scene.h"
#include "ui/editor/editor_view.h"

namespace flowlens::ui {

EditorPage::EditorPage(EditableGraph* model, QWidget* parent) : QWidget(parent), model_(model) {
  setObjectName(QStringLiteral("editorPage"));
  scene_ = new EditorScene(model_, this);
  view_ = new EditorView(scene_);

  auto* tools = new QToolBar;
  tools->setObjectName(QStringLiteral("editorToolBar"));
  tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tools->setIconSize(QSize(16, 16));
  run_ = tools->addAction(QIcon::fromTheme(QStringLiteral("media-playback-start")), QStringLiteral("Run"));
  run_->setObjectName(QStringLiteral("actionEditorRun"));
  run_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
  run_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  run_->setToolTip(QStringLiteral("Run the graph as it is now (Ctrl+Enter): variables initialized, then the Fetch "
                                  "box's tensors (default: the graph's outputs)"));
  addAction(run_);
  connect(run_, &QAction::triggered, this, [this] { run(); });
  QAction* debug = tools->addAction(QIcon::fromTheme(QStringLiteral("system-run")), QStringLiteral("Debug in Viewer"));
  debug->setObjectName(QStringLiteral("actionDebugInViewer"));
  debug->setToolTip(QStringLiteral("Save the graph and open it in the viewer, where F5 runs it with breakpoints, "
                                   "watches and the profiler"));
  connect(debug, &QAction::triggered, this, &EditorPage::debug_requested);
  QAction* fit = tools->addAction(QIcon::fromTheme(QStringLiteral("zoom-fit-best")), QStringLiteral("Fit"));
  connect(fit, &QAction::triggered, view_, &EditorView::fit_nodes);
  tools->addSeparator();
  tools->addWidget(new QLabel(QStringLiteral(" Fetch: ")));
  fetch_ = new QLineEdit;
  fetch_->setObjectName(QStringLiteral("editorFetch"));
  fetch_->setPlaceholderText(QStringLiteral("outputs (e.g. output, loss)"));
  fetch_->setMaximumWidth(260);
  connect(fetch_, &QLineEdit::returnPressed, this, [this] { run(); });
  tools->addWidget(fetch_);
  auto* spacer = new QWidget;
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  tools->addWidget(spacer);
  check_ = new QLabel;
  check_->setObjectName(QStringLiteral("editorCheckLabel"));
  check_->setContentsMargins(6, 0, 6, 0);
  tools->addWidget(check_);

  output_ = new QPlainTextEdit;
  output_->setObjectName(QStringLiteral("editorOutput"));
  output_->setReadOnly(true);
  output_->setMaximumBlockCount(2000);
  output_->setPlaceholderText(QStringLiteral("Drag ops from the palette, wire output ports to input ports, then Run."));

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(view_);
  split->addWidget(output_);
  split->setStretchFactor(0, 5);
  split->setStretchFactor(1, 1);
  split->setSizes({600, 110});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(tools);
  layout->addWidget(split);

  connect(model_, &EditableGraph::changed, this, &EditorPage::update_check_label);
  connect(scene_, &EditorScene::edit_refused, this, [this](const QString& m) { report(m, true); });
  update_check_label();
}

void EditorPage::update_check_label() {
  const GraphCheck& check = model_->check();
  const bool bad = check.error_count || !check.graph_errors.isEmpty();
  check_->setText(QStringLiteral("%1 nodes \u00B7 %2").arg(model_->graph().size()).arg(check.summary()));
  check_->setStyleSheet(bad ? QStringLiteral("color: #c62828;") : QStringLiteral("color: #2e7d32;"));
  QStringList details = check.graph_errors;
  for (const auto& [name, node] : check.nodes)
    if (node.has_error()) details << QStringLiteral("%1: %2").arg(QString::fromStdString(name), node.errors);
  check_->setToolTip(details.join(QLatin1Char('\n')));
}

void EditorPage::report(const QString& line, bool error) {
  if (error)
    output_->appendHtml(QStringLiteral("<span style=\"color:#c62828\">%1</span>").arg(line.toHtmlEscaped()));
  else
    output_->appendPlainText(line);
}

EditorRunResult EditorPage::run() {
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const EditorRunResult result = run_graph_once(model_->graph(), fetch_->text());
  QApplication::restoreOverrideCursor();
  if (!result.ok) {
    report(QStringLiteral("Cannot run: %1").arg(result.error), true);
    if (fetch_->text().trimmed().isEmpty())
      report(QStringLiteral("(Name tensors in the Fetch box to run just the part of the graph they need.)"));
    return result;
  }
  report(QStringLiteral("Ran (%1) in %2 ms").arg(result.request).arg(result.wall_ms, 0, 'f', 2));
  for (const QString& line : result.lines) report(QStringLiteral("  ") + line);
  return result;
}

}  // namespace flowlens::ui
