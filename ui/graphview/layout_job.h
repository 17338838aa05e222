#pragma once
// Runs Graphviz layouts off the UI thread. Each start() obsoletes the layout
// before it: a cancelled job that has not begun is skipped, and one already
// inside Graphviz (which cannot be interrupted) finishes but its result is
// dropped. Results arrive on the UI thread through finished()/failed(),
// tagged with the ticket start() returned, and only for the latest ticket.
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <memory>

#include "ui/graphview/graphviz_layout.h"

namespace flowlens::ui {

class LayoutJob : public QObject {
  Q_OBJECT

 public:
  explicit LayoutJob(QObject* parent = nullptr);
  ~LayoutJob() override;  // cancels and waits for the worker

  int start(LayoutInput input);
  // Obsoletes the running layout; neither finished() nor failed() follows.
  void cancel();
  bool running() const { return running_; }
  int ticket() const { return ticket_; }

 signals:
  void finished(int ticket, const flowlens::ui::LayoutResult& result);
  void failed(int ticket, const QString& message);

 private:
  void deliver(int ticket, const std::shared_ptr<LayoutResult>& result, const QString& error);

  // One worker: Graphviz serialises layouts anyway, and a queue of one keeps
  // obsolete jobs from piling up behind the current one.
  QThreadPool pool_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
  int ticket_ = 0;
  bool running_ = false;
};

}  // namespace flowlens::ui
