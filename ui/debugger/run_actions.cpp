#include "ui/debugger/run_actions.h"

#include <QAction>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSpinBox>
#include <QToolBar>

#include "ui/debugger/debug_workbench.h"
#include "ui/shell/workbench_host.h"

namespace flowlens::ui {

RunActions::RunActions(WorkbenchHost* window, DebugWorkbench* workbench)
    : QObject(workbench), w_(window), bench_(workbench) {
  menu_ = new QMenu(QStringLiteral("&Run"), w_);
  menu_->setObjectName(QStringLiteral("menuRun"));
  // Before Help, which stays last.
  QAction* help = w_->menuBar()->actions().isEmpty() ? nullptr : w_->menuBar()->actions().last();
  w_->menuBar()->insertMenu(help, menu_);

  run_ = add(QStringLiteral("actionRunContinue"), QStringLiteral("&Run / Continue"), QKeySequence(Qt::Key_F5),
             "media-playback-start");
  connect(run_, &QAction::triggered, bench_, &DebugWorkbench::run_or_continue);
  step_ = add(QStringLiteral("actionStep"), QStringLiteral("&Step"), QKeySequence(Qt::Key_F10), "go-next");
  connect(step_, &QAction::triggered, bench_, &DebugWorkbench::step);
  run_to_ = add(QStringLiteral("actionRunToSelected"), QStringLiteral("Run &to Selected Node"),
                QKeySequence(Qt::CTRL | Qt::Key_F10), "go-last");
  connect(run_to_, &QAction::triggered, bench_, &DebugWorkbench::run_to_selected);
  pause_ = add(QStringLiteral("actionPause"), QStringLiteral("&Pause"), QKeySequence(Qt::Key_Pause),
               "media-playback-pause");
  connect(pause_, &QAction::triggered, bench_, &DebugWorkbench::pause);
  stop_ = add(QStringLiteral("actionStop"), QStringLiteral("S&top"), QKeySequence(Qt::SHIFT | Qt::Key_F5),
              "media-playback-stop");
  connect(stop_, &QAction::triggered, bench_, &DebugWorkbench::stop);
  menu_->addSeparator();
  breakpoint_ = add(QStringLiteral("actionToggleBreakpoint"), QStringLiteral("Toggle &Breakpoint"),
                    QKeySequence(Qt::Key_F9));
  connect(breakpoint_, &QAction::triggered, bench_, &DebugWorkbench::toggle_breakpoint);
  watch_ = add(QStringLiteral("actionWatchSelected"), QStringLiteral("&Watch Selected Node"),
               QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
  connect(watch_, &QAction::triggered, bench_, &DebugWorkbench::watch_selected);
  numerics_ = add(QStringLiteral("actionCheckNumerics"), QStringLiteral("Break on First &NaN/Inf (Check Numerics)"),
                  QKeySequence());
  numerics_->setCheckable(true);
  connect(numerics_, &QAction::toggled, bench_, &DebugWorkbench::set_check_numerics);
  overlay_ = add(QStringLiteral("actionTimeOverlay"), QStringLiteral("&Colour Nodes by Time"), QKeySequence());
  overlay_->setCheckable(true);
  connect(overlay_, &QAction::toggled, bench_, &DebugWorkbench::set_time_overlay);
  menu_->addSeparator();
  reset_ = add(QStringLiteral("actionResetSession"), QStringLiteral("R&eset Session"), QKeySequence());
  reset_->setToolTip(QStringLiteral("Drop the variables; the next run initializes them again"));
  connect(reset_, &QAction::triggered, bench_, &DebugWorkbench::reset_session);

  toolbar_ = w_->addToolBar(QStringLiteral("Run"));
  toolbar_->setObjectName(QStringLiteral("runToolBar"));
  toolbar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolbar_->setIconSize(QSize(18, 18));
  for (QAction* a : {run_, step_, pause_, stop_, breakpoint_}) toolbar_->addAction(a);
  toolbar_->addSeparator();
  toolbar_->addWidget(new QLabel(QStringLiteral(" Fetch: "), toolbar_));
  fetch_edit_ = new QLineEdit(toolbar_);
  fetch_edit_->setObjectName(QStringLiteral("fetchEdit"));
  fetch_edit_->setPlaceholderText(QStringLiteral("graph outputs"));
  fetch_edit_->setToolTip(QStringLiteral("Comma-separated nodes or tensors (x, y:1) to fetch or run; "
                                         "empty: the graph's sinks outside loops. A tensor inside a loop is "
                                         "watched per iteration instead"));
  fetch_edit_->setMaximumWidth(260);
  toolbar_->addWidget(fetch_edit_);
  toolbar_->addWidget(new QLabel(QStringLiteral(" Steps: "), toolbar_));
  steps_ = new QSpinBox(toolbar_);
  steps_->setObjectName(QStringLiteral("stepsSpin"));
  steps_->setRange(1, 1000000);
  steps_->setToolTip(QStringLiteral("How many times F5 runs the request: a training loop's steps. The values shown "
                                    "are the last step's; the Run Log says how each scalar (a loss) moved"));
  toolbar_->addWidget(steps_);

  connect(w_, &WorkbenchHost::document_changed, this, &RunActions::update_enabled);
  connect(w_, &WorkbenchHost::current_node_changed, this, &RunActions::update_enabled);
  connect(bench_->controller(), &RunController::state_changed, this, &RunActions::update_enabled);
  update_enabled();
}

QAction* RunActions::add(const QString& name, const QString& text, const QKeySequence& key, const char* icon) {
  auto* a = new QAction(text, w_);
  a->setObjectName(name);
  if (icon) a->setIcon(QIcon::fromTheme(QLatin1String(icon)));
  if (!key.isEmpty()) a->setShortcut(key);
  // Window-wide, so the keys work with focus in the graph, a table or a dock.
  a->setShortcutContext(Qt::WindowShortcut);
  menu_->addAction(a);
  return a;
}

void RunActions::update_enabled() {
  const RunController::State state = bench_->controller()->state();
  const bool loaded = static_cast<bool>(w_->document());
  const bool selected = !w_->current_node_name().isEmpty();
  const bool idle = state == RunController::State::Idle;
  const bool paused = state == RunController::State::Paused;
  run_->setEnabled(loaded && (idle || paused));
  run_->setText(paused ? QStringLiteral("&Continue") : QStringLiteral("&Run"));
  step_->setEnabled(loaded && (idle || paused));
  run_to_->setEnabled(loaded && selected && (idle || paused));
  pause_->setEnabled(state == RunController::State::Running);
  stop_->setEnabled(!idle);
  breakpoint_->setEnabled(loaded && selected);
  watch_->setEnabled(loaded && selected);
  overlay_->setEnabled(loaded);
  reset_->setEnabled(loaded);
  fetch_edit_->setEnabled(idle);
  steps_->setEnabled(idle);
}

}  // namespace flowlens::ui
