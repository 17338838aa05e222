#pragma once
// The GUI's live connection to a running cluster: two NodePoller threads per
// node, one asking for status at `poll_hz` and one running commands in order
// (a fetch that waits for a busy worker must not look like a dead node), the latest status of each
// node, whether it is up or down, byte rates per node and per link, and a
// time series per node for the charts. Lives on the UI thread; nothing here
// waits on the network.
//
// A node is "up" while its status arrives, "down" once none has for
// kDownAfter (it died, hangs or is unreachable) and "up" again with the next
// answer, e.g. after a restart: sockets reconnect by themselves. A worker
// whose last answer said "done" (it finished training) is "done" once it
// goes silent, not down.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "cluster/cluster_spec.h"
#include "ui/cluster/node_poller.h"

class QThread;
class QTimer;

namespace flowlens::ui {

struct ClusterSample {
  double t = 0;           // seconds since attach
  double loss = 0;        // NaN when the node reports none
  double steps_per_second = 0;
  double bytes_per_second = 0;  // in + out
};

struct LinkRate {
  QString peer;  // "worker:1"
  uint64_t bytes_in = 0, bytes_out = 0;
  double in_per_second = 0, out_per_second = 0;  // pushed to / pulled from this node
};

struct ClusterNodeState {
  dist::NodeRef ref;
  QString label;  // "worker 1"
  // Done: silent after its last answer said it finished ("done"): it ended
  // normally; Down is kept for a node that went silent without saying so.
  enum class Liveness { Connecting, Up, Down, Done } liveness = Liveness::Connecting;
  std::shared_ptr<const dist::NodeStatus> status;  // the latest; null before the first answer
  QString last_error;       // why the last poll failed
  double last_seen = -1;    // seconds since attach of the last answer; -1 never
  double bytes_per_second = 0;
  // (seconds since attach, bytes in + out) of the recent answers: the rate is
  // taken over at least a second of them, so two answers arriving close
  // together (a cached status, then a fresh one) do not read as a spike.
  std::deque<std::pair<double, uint64_t>> byte_samples;
  std::vector<LinkRate> links;
  std::deque<ClusterSample> history;  // the last kHistorySeconds

  QString state_text() const;  // "training", "paused", "done", "down", "connecting"
  bool finished() const;       // its last answer said "done"
};

class ClusterSession : public QObject {
  Q_OBJECT

 public:
  static constexpr double kDownAfter = 1.2;        // seconds without an answer
  static constexpr double kHistorySeconds = 300;

  explicit ClusterSession(QObject* parent = nullptr);
  ~ClusterSession() override;

  // Starts polling every node of `cluster`; a previous attachment ends first.
  // A secured cluster needs `credentials` (the user's key pair and the keys).
  void attach(const ClusterSpec& cluster, int poll_hz = 10, std::optional<dist::Credentials> credentials = std::nullopt);
  void detach();
  bool attached() const { return !nodes_.empty(); }
  const ClusterSpec& cluster() const { return cluster_; }

  const std::vector<ClusterNodeState>& nodes() const { return nodes_; }
  const ClusterNodeState* node(const QString& label) const;
  QStringList labels(const QString& job = {}) const;  // in cluster order
  double seconds_since_attach() const;
  int updates() const { return updates_; }  // status answers received, all nodes

  using Callback = std::function<void(const NodeCommandResult&)>;
  // Queues `command` for the node's thread; `done` runs on the UI thread
  // with the result (also for failures). False when there is no such node.
  bool send(const QString& label, NodeCommand command, Callback done = {});
  // A CONTROL command to every node of `job` ("" for all), workers first.
  void send_to_all(const QString& job, const QString& command);

 signals:
  void attached_changed();
  void node_updated(int index);       // status, liveness or rates changed
  void liveness_changed(int index);   // up <-> down
  void command_failed(const QString& message);

 private:
  // Queued from the NodePoller threads. The arguments are references, so the
  // slot's first line (TSan's acquire) comes before any read of them.
  void on_status(const QString& label, const std::shared_ptr<const dist::NodeStatus>& status);
  void on_unreachable(const QString& label, const QString& why);
  void on_command_finished(const std::shared_ptr<const NodeCommandResult>& result);
  void check_liveness();
  int index_of(const QString& label) const;

  ClusterSpec cluster_;
  std::unique_ptr<dist::ClusterClient> client_;  // opens the pollers' channels
  std::vector<ClusterNodeState> nodes_;
  std::vector<NodePoller*> commanders_;  // per node, on threads_
  std::vector<QThread*> threads_;
  QTimer* liveness_timer_ = nullptr;
  QElapsedTimer clock_;
  int next_command_ = 1;
  std::map<int, Callback> callbacks_;
  int updates_ = 0;
};

}  // namespace flowlens::ui
