#pragma once
// One cluster node seen from the GUI: a QObject that lives on a thread of its
// own and either asks the node for its status every `interval` (interval > 0)
// or carries out the commands the GUI queues for it (control, fetch, graph,
// timings), in order.
// Every request has a short timeout, so a dead node costs only this thread
// its time, never the UI's or the other nodes'. Results come back as queued
// signals.
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

#include "dist/control/cluster_client.h"

class QTimer;

namespace flowlens::ui {

// What the GUI asks a node to do.
struct NodeCommand {
  enum class Kind { Control, Fetch, Graph, NodeTimes };
  Kind kind = Kind::Control;
  QString command;     // Control: "pause", "break", ...
  QString argument;    // Control: the request's text (breakpoint spec, ...)
  QStringList names;   // Fetch: tensors or variables
};

struct NodeCommandResult {
  int id = 0;
  QString node;     // "worker 1"
  bool ok = false;
  QString text;     // the node's answer, or why it failed
  std::vector<dist::NamedTensor> tensors;  // Fetch; Graph: one uint8 tensor "graph"
  int64_t step = 0;                        // the node's step when it answered (fetches of ps variables)
};

class NodePoller : public QObject {
  Q_OBJECT

 public:
  // `client` outlives the poller, which opens its own channel to the node on
  // it (on the poller's thread, when first needed).
  NodePoller(const dist::ClusterClient* client, dist::NodeRef node, int interval_ms, QObject* parent = nullptr);
  ~NodePoller() override;

  const dist::NodeRef& node() const { return node_; }

  // ThreadSanitizer hand-off channel (ui/util/thread_handoff.h) of the signals
  // below: the poller releases it before each emit, and a slot that receives
  // them on another thread acquires it before reading its arguments.
  static constexpr char kSignalChannel = 0;

 public slots:
  void start();  // on the poller's thread: begin polling (when interval > 0)
  void run_command(int id, const flowlens::ui::NodeCommand& command);
  void set_interval(int interval_ms);

 signals:
  void status_received(const QString& node, std::shared_ptr<const flowlens::dist::NodeStatus> status);
  void unreachable(const QString& node, const QString& why);
  void command_finished(std::shared_ptr<const flowlens::ui::NodeCommandResult> result);

 private:
  void poll();
  dist::NodeChannel& channel();

  const dist::ClusterClient* client_;
  dist::NodeRef node_;
  int interval_ms_;
  QTimer* timer_ = nullptr;
  std::unique_ptr<dist::NodeChannel> channel_;
};

}  // namespace flowlens::ui

Q_DECLARE_METATYPE(flowlens::ui::NodeCommand)
Q_DECLARE_METATYPE(std::shared_ptr<const flowlens::dist::NodeStatus>)
Q_DECLARE_METATYPE(std::shared_ptr<const flowlens::ui::NodeCommandResult>)
