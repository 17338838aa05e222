#include "ui/graphview/layout_job.h"

#include "ui/graphview/layered_layout.h"
#include "ui/util/thread_handoff.h"

#include <exception>

namespace flowlens::ui {

LayoutJob::LayoutJob(QObject* parent) : QObject(parent) { pool_.setMaxThreadCount(1); }

LayoutJob::~LayoutJob() {
  cancel();
  pool_.clear();        // jobs not yet started never run
  pool_.waitForDone();  // the one inside Graphviz must not outlive `this`
}

int LayoutJob::start(LayoutInput input) {
  cancel();
  pool_.clear();
  const int ticket = ++ticket_;
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  cancelled_ = cancelled;
  running_ = true;
  // handed(): TSan cannot see QThreadPool's hand-off of the task, nor the
  // queued call back; see ui/util/thread_handoff.h.
  pool_.start(handoff::handed([this, ticket, cancelled, input = std::move(input)] {
    if (cancelled->load()) return;
    std::shared_ptr<LayoutResult> result;
    QString error;
    try {
      result = std::make_shared<LayoutResult>(run_layout(input));
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    } catch (...) {
      error = QStringLiteral("Graphviz: unexpected error");
    }
    if (cancelled->load()) return;
    // Queued to `this`: the call runs on the UI thread, and is discarded if
    // the job object is gone by then.
    QMetaObject::invokeMethod(
        this, handoff::handed([this, ticket, result, error] { deliver(ticket, result, error); }),
        Qt::QueuedConnection);
  }));
  return ticket;
}

void LayoutJob::cancel() {
  if (cancelled_) cancelled_->store(true);
  cancelled_.reset();
  running_ = false;
}

void LayoutJob::deliver(int ticket, const std::shared_ptr<LayoutResult>& result, const QString& error) {
  if (ticket != ticket_ || !running_) return;  // obsoleted after the worker finished
  running_ = false;
  if (result)
    emit finished(ticket, *result);
  else
    emit failed(ticket, error);
}

}  // namespace flowlens::ui
