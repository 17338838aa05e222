#pragma once
// Attaching the main window (a WorkbenchHost) to a running cluster: the Cluster menu (Attach…,
// Launch Local Cluster…, Detach, remote controls), the Cluster dock (live
// tree) and the Cluster Charts dock. Remote fetches land in the Tensor dock's
// catalog (DebugWorkbench's; "w @ ps 0, step 120"), each compared with the previous read of the
// same name (two ps reads of a variable, or a gradient on two workers). Open
// Worker Graph shows the partition a worker runs; Live Op Timings colours it
// by the worker's own node times, refreshed every second.
#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <optional>

#include "cluster/cluster_spec.h"
#include "dist/security/cluster_security.h"
#include "tensor/tensor.h"

class QAction;
class QDockWidget;
class QMenu;
class QTimer;

namespace flowlens::ui {

class ClusterCharts;
class ClusterPanel;
class ClusterSession;
class ClusterTreeModel;
class DebugWorkbench;
class LocalClusterLauncher;
struct LocalClusterOptions;
class WorkbenchHost;

class ClusterWorkbench : public QObject {
  Q_OBJECT

 public:
  ClusterWorkbench(WorkbenchHost* window, DebugWorkbench* debug);
  ~ClusterWorkbench() override;

  ClusterSession* session() const { return session_; }
  ClusterTreeModel* model() const { return model_; }
  ClusterPanel* panel() const { return panel_; }
  ClusterCharts* charts() const { return charts_; }
  LocalClusterLauncher* launcher() const { return launcher_; }
  QAction* action(const QString& object_name) const;
  QDockWidget* dock() const { return dock_; }
  QDockWidget* charts_dock() const { return charts_dock_; }

  // No dialogs: failures come back in `error`. A secured cluster file needs
  // `key_file`, the user's key pair (viewer or operator).
  bool attach_file(const QString& path, QString* error = nullptr, const QString& key_file = {});
  void attach(const ClusterSpec& cluster, std::optional<dist::Credentials> credentials = std::nullopt);
  bool launch_local(const LocalClusterOptions& options, QString* error = nullptr);
  void detach();
  // Cluster → Stop: ends the cluster Launch Local Cluster started (SIGTERM to
  // `flowlens-node launch`: workers stop, the ps saves and exits). For an
  // attached cluster not started here, sends the workers the "stop" command
  // and the ps theirs once no worker runs, after asking when `confirm`. Stays attached, so the
  // nodes' last states stay visible.
  void stop_cluster(bool confirm = true);

  // Remote commands to one node ("worker 1"); answers show in the panel.
  void control(const QString& node, const QString& command, const QString& argument = {});
  void fetch(const QString& node, const QStringList& names);
  void open_worker_graph(const QString& node);
  void set_live_timings(bool on);
  QString graph_node() const { return graph_node_; }  // whose graph is open ("" if none)

 signals:
  void fetched(const QString& node, const QString& label);  // a tensor is in the catalog
  void worker_graph_opened(const QString& node);
  void timings_applied(const QString& node);
  // The open partition's _Send/_Recv boxes show the bytes of the node's last step.
  void transfers_applied(const QString& node);
  void command_answered(const QString& node, const QString& command, bool ok, const QString& text);

 private:
  void build_actions();
  void build_docks();
  void update_enabled();
  QString target_node() const;  // the selected task, or the open graph's worker
  void attach_dialog();
  void launch_dialog();
  void fetch_dialog();
  void breakpoint_dialog();
  void request_timings();
  void request_transfers();
  void stop_ps_when_workers_ended();

  WorkbenchHost* w_;
  DebugWorkbench* debug_;
  ClusterSession* session_;
  ClusterTreeModel* model_ = nullptr;
  ClusterPanel* panel_ = nullptr;
  ClusterCharts* charts_ = nullptr;
  LocalClusterLauncher* launcher_ = nullptr;
  QDockWidget* dock_ = nullptr;
  QDockWidget* charts_dock_ = nullptr;
  QMenu* menu_ = nullptr;
  std::map<QString, QAction*> actions_;
  QTimer* timings_timer_ = nullptr;
  bool attached_local_ = false;  // the attached cluster is the one launcher_ started
  bool stopping_remote_ = false;  // Stop sent to the workers; the ps get it once they ended
  QString graph_node_;  // the worker whose partition the main window shows
  QString graph_title_;  // the display name the window shows that partition under
  std::map<QString, QString> last_read_;    // tensor name -> catalog label of its latest read
  QStringList reads_;                       // catalog labels, oldest first (bounded)
  std::map<QString, Tensor> remote_tensors_;  // by catalog label
};

}  // namespace flowlens::ui
