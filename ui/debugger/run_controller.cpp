#include "ui/debugger/run_controller.h"

#include <QMetaObject>
#include <algorithm>
#include <chrono>

#include "exec/function_body.h"
#include "exec/session.h"
#include "observe/variable_values.h"
#include "ui/document/graph_document.h"
#include "ui/util/thread_handoff.h"

namespace flowlens::ui {
namespace {

// A real, single-element tensor's value (a loss); nullopt otherwise.
std::optional<double> fetched_scalar(const Tensor& t) {
  if (!t.valid() || t.num_elements() != 1) return std::nullopt;
  switch (t.dtype()) {
    case DType::Float: return static_cast<double>(t.data<float>()[0]);
    case DType::Double: return t.data<double>()[0];
    case DType::Int32: return static_cast<double>(t.data<int32_t>()[0]);
    case DType::Int64: return static_cast<double>(t.data<int64_t>()[0]);
    default: return std::nullopt;
  }
}

}  // namespace

RunController::RunController(QObject* parent) : QObject(parent) {
  // Runs on the worker that stopped; it only hands the stop to the UI thread.
  debugger_.set_on_stop([this](const DebugStop& stop) {
    if (stop_requested_) {  // Stop came before the run reached the debugger
      debugger_.stop();
      return;
    }
    const int generation = generation_;
    // handed(): the queued call crosses threads inside Qt, where TSan cannot
    // see it; see ui/util/thread_handoff.h. Same for the worker's calls below.
    QMetaObject::invokeMethod(this, handoff::handed([this, generation, stop] { on_stop(generation, stop); }),
                              Qt::QueuedConnection);
  });
}

RunController::~RunController() { shutdown(); }

void RunController::set_document(std::shared_ptr<const GraphDocument> doc) {
  shutdown();
  session_.reset();
  body_.reset();
  run_number_ = 0;
  numbering_.clear();
  profiler_.clear();
  doc_ = std::move(doc);
}

void RunController::reset_session() {
  shutdown();
  session_.reset();
  body_.reset();
  numbering_.clear();
  run_number_ = 0;
  emit message(QStringLiteral("Session reset: variables are initialized again on the next run"));
}

bool RunController::start(const RunRequest& request, StartMode mode, const QString& run_to_node, QString* error) {
  auto fail = [&](const QString& text) {
    if (error) *error = text;
    return false;
  };
  if (!doc_ || !doc_->graph) return fail(QStringLiteral("No graph is loaded"));
  if (!idle()) return fail(QStringLiteral("A run is already going"));
  if (doc_->error_count() > 0)
    return fail(QStringLiteral("The graph has %1 validation error(s); see the Diagnostics dock").arg(doc_->error_count()));
  if (request.empty()) return fail(QStringLiteral("Nothing to fetch or run"));
  if (mode == StartMode::RunTo && !doc_->graph->find(run_to_node.toStdString()))
    return fail(QStringLiteral("No node named '%1' to run to").arg(run_to_node));

  // Controls left over from a run that ended early must not fire in this one.
  debugger_.run_to(std::string());
  debugger_.continue_run();
  if (mode == StartMode::Step) debugger_.step();
  if (mode == StartMode::RunTo) debugger_.run_to(run_to_node.toStdString());

  stop_requested_ = false;
  worker_done_ = false;
  stop_.reset();
  set_state(State::Running);
  emit message(QStringLiteral("Run %1: %2").arg(run_number_ + 1).arg(request.describe()));
  worker_ = std::thread(&RunController::work, this, generation_.load(), doc_->analysis, request, run_number_ + 1);
  return true;
}

void RunController::RunNumbering::set_current(int run, int step, int steps) {
  std::lock_guard lock(mu_);
  run_ = run, step_ = step, steps_ = steps;
}

void RunController::RunNumbering::on_run_start(int64_t run_id, int) {
  std::lock_guard lock(mu_);
  names_[run_id] = {run_, step_, steps_};
}

QString RunController::RunNumbering::name(int64_t run_id) const {
  std::lock_guard lock(mu_);
  const auto it = names_.find(run_id);
  if (it == names_.end()) return QStringLiteral("run ?");
  const auto& [run, step, steps] = it->second;
  return steps > 1 ? QStringLiteral("run %1 step %2").arg(run).arg(step) : QStringLiteral("run %1").arg(run);
}

void RunController::RunNumbering::clear() {
  std::lock_guard lock(mu_);
  names_.clear();
}

QString RunController::run_name(int64_t session_run_id) const { return numbering_.name(session_run_id); }

void RunController::work(int generation, std::shared_ptr<const GraphAnalysis> analysis, RunRequest request,
                         int pending_run_number) {
  RunOutcome outcome;
  outcome.request = request;
  const int outcome_run_number = pending_run_number;
  try {
    if (!session_) {
      // Print and PrintV2 write into the Run Log, one entry per text they print.
      SessionOptions options;
      options.log_sink = [this](LogStream, std::string_view text) {
        if (text.ends_with('\n')) text.remove_suffix(1);
        post_message(generation_, QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())));
      };
      // The document's analysis: its validation is not repeated, its graph not copied.
      auto session = std::make_unique<Session>(std::move(analysis), std::move(options));
      for (const auto& note : session->placement().soft_placed)
        post_message(generation, QStringLiteral("Soft placement: '%1' asked for %2, runs on %3")
                                     .arg(QString::fromStdString(note.node), QString::fromStdString(note.requested),
                                          QString::fromStdString(note.placed)));
      // Like the CLI, only the requested step is observed, not the initializers.
      session->initialize_variables([this, generation](std::size_t count) {
        post_message(generation, QStringLiteral("Initializing %1 variable(s)").arg(count));
      });
      if (FunctionBody::is_function_body(session->graph())) {
        // A function body's variables (resource _Args) belong to the session:
        // they start as flowlens-run --init-args starts them.
        auto body = std::make_unique<FunctionBody>(session->graph());
        ArgInitOptions init;
        init.fill = request.resource_fill == "zeros" ? ArgFill::Zeros : ArgFill::Random;
        const ArgInitReport report = body->initialize_resource_args(*session, init);
        if (!report.filled.empty())
          post_message(generation, QStringLiteral("Function body: %1 variable(s) start at %2")
                                       .arg(report.filled.size())
                                       .arg(QString::fromStdString(request.resource_fill)));
        body_ = std::move(body);
      }
      session->add_observer(&debugger_);
      session->add_observer(&profiler_);
      session->add_observer(&frame_iterations_);
      session->add_observer(&numbering_);
      session_ = std::move(session);
    }
    FeedList feeds = request.feeds;
    std::vector<std::string> fetches = request.fetches, targets = request.targets;
    if (body_) {
      feeds = body_->feeds_for(feeds);
      fetches = body_->fetches_for(fetches);  // none named: every return value
      if (request.fetches.empty()) outcome.request.fetches = fetches;
      for (const std::string& t : body_->step_targets())
        if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
    }
    profiler_.clear();
    const auto begin = std::chrono::steady_clock::now();
    const int64_t paused_before = debugger_.paused_ns();
    outcome.scalar_steps.assign(fetches.size(), {});
    const int steps = std::max(1, request.steps);
    for (int step = 0; step < steps; ++step) {
      if (step > 0) profiler_.clear();  // the profile shows the last step
      numbering_.set_current(outcome_run_number, step + 1, steps);
      // A fetched resource variable (its VarHandleOp) shows its value, as a ref
      // variable does, taken now: the next run may update it.
      outcome.values = shown_values(session_->run(feeds, fetches, targets));
      ++outcome.steps_done;
      for (std::size_t i = 0; i < outcome.values.size() && i < fetches.size(); ++i)
        if (const std::optional<double> v = fetched_scalar(outcome.values[i]))
          outcome.scalar_steps[i].push_back(*v);
      if (stop_requested_) break;
    }
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    // Time paused at a stop is the user's, not the run's.
    outcome.paused_ms = static_cast<double>(debugger_.paused_ns() - paused_before) / 1e6;
    outcome.wall_ms = std::max(0.0, wall_ms - outcome.paused_ms);
    outcome.ok = !stop_requested_;
    outcome.stopped = stop_requested_;
  } catch (const std::exception& e) {
    outcome.error = QString::fromStdString(e.what());
    outcome.stopped = stop_requested_;
  }
  QMetaObject::invokeMethod(this, handoff::handed([this, generation, outcome] { on_finished(generation, outcome); }),
                            Qt::QueuedConnection);
  worker_done_ = true;
}

void RunController::post_message(int generation, const QString& line) {
  QMetaObject::invokeMethod(
      this,
      handoff::handed([this, generation, line] {
        if (generation == generation_) emit message(line);
      }),
      Qt::QueuedConnection);
}

void RunController::on_stop(int generation, const DebugStop& stop) {
  if (generation != generation_ || state_ == State::Idle) return;
  stop_ = stop;
  set_state(State::Paused);
  emit message(QString::fromStdString(stop.message));
  emit paused(stop);
}

void RunController::on_finished(int generation, const RunOutcome& finished) {
  if (generation != generation_) return;
  join_worker();
  RunOutcome outcome = finished;
  outcome.run_number = ++run_number_;
  ++runs_finished_;
  stop_.reset();
  if (outcome.ok) {
    QString line = QStringLiteral("Run %1 finished").arg(outcome.run_number);
    if (outcome.steps_done > 1) line += QStringLiteral(": %1 steps").arg(outcome.steps_done);
    line += QStringLiteral(" in %1 ms").arg(outcome.wall_ms, 0, 'f', 2);
    if (outcome.paused_ms > 0) line += QStringLiteral(" (paused %1 s, not counted)").arg(outcome.paused_ms / 1000.0, 0, 'f', 1);
    emit message(line);
    // How each scalar fetch (a loss) moved over the steps.
    for (std::size_t i = 0; outcome.steps_done > 1 && i < outcome.scalar_steps.size(); ++i) {
      const auto& values = outcome.scalar_steps[i];
      if (values.size() < 2 || i >= outcome.request.fetches.size()) continue;
      emit message(QStringLiteral("  %1: %2 \u2192 %3 over %4 steps")
                       .arg(QString::fromStdString(outcome.request.fetches[i]))
                       .arg(values.front(), 0, 'g', 6)
                       .arg(values.back(), 0, 'g', 6)
                       .arg(values.size()));
    }
  } else {
    emit message(outcome.stopped ? QStringLiteral("Run %1 stopped").arg(outcome.run_number)
                                 : QStringLiteral("Run %1 failed: %2").arg(outcome.run_number).arg(outcome.error));
  }
  set_state(State::Idle);
  emit run_finished(outcome);
}

void RunController::continue_run() {
  if (state_ != State::Paused) return;
  stop_.reset();
  set_state(State::Running);
  debugger_.continue_run();
}

void RunController::step() {
  if (state_ != State::Paused) return;
  stop_.reset();
  set_state(State::Running);
  debugger_.step();
}

void RunController::run_to(const QString& node) {
  if (state_ != State::Paused) return;
  stop_.reset();
  set_state(State::Running);
  debugger_.run_to(node.toStdString());
}

void RunController::pause() {
  if (state_ == State::Running) debugger_.pause();
}

void RunController::stop() {
  if (idle()) return;
  stop_requested_ = true;
  debugger_.stop();
}

void RunController::shutdown() {
  if (!worker_.joinable()) return;
  ++generation_;  // whatever the worker still posts is stale now
  stop_requested_ = true;
  join_worker();
  stop_.reset();
  if (state_ != State::Idle) emit message(QStringLiteral("Run stopped"));
  set_state(State::Idle);
}

void RunController::join_worker() {
  if (!worker_.joinable()) return;
  // stop() is a no-op until the run has started inside the engine, so it
  // is repeated until the worker is out; a finished run needs none of it.
  while (stop_requested_ && !worker_done_) {
    debugger_.stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  worker_.join();
}

void RunController::set_state(State state) {
  if (state_ == state) return;
  state_ = state;
  emit state_changed(state);
}

}  // namespace flowlens::ui
