#pragma once
// Original and replicated graph side by side: a QSplitter holding two
// GraphViews under their titles, plus a key explaining the markers.
// Selecting a node on either side outlines the nodes that correspond to it on
// the other (through ReplicaComparison, so tower_1/MatMul <-> MatMul), and
// every node added by replication carries a green '+' badge (a collapsed
// scope holding added nodes carries one for them all). With a training
// replica, Compare Loss runs both graphs' loss once (in the background) and
// shows them side by side: equal towers compute what the original does.
#include <QStringList>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "exec/session.h"

class QLabel;
class QSplitter;
class QToolButton;

namespace flowlens::ui {

class GraphView;
class ReplicaComparison;

class CompareView : public QWidget {
  Q_OBJECT

 public:
  explicit CompareView(QWidget* parent = nullptr);

  // Shows `comparison` (nullptr clears both sides) and starts both layouts.
  void set_comparison(std::shared_ptr<const ReplicaComparison> comparison);
  const std::shared_ptr<const ReplicaComparison>& comparison() const { return cmp_; }

  // Select on one side and outline the counterparts on the other. Neither
  // emits the *_selected signals. False when that side has no such node.
  bool select_original(const QString& name);
  bool select_replicated(const QString& name);

  // What is outlined now, and how many '+' badges are drawn (tests, status).
  QStringList linked_in_original() const { return linked_left_; }
  QStringList linked_in_replicated() const { return linked_right_; }
  // The hint line under the panes: what the selection maps to.
  QString hint() const;
  int added_marker_count() const;
  int linked_marker_count() const;

  GraphView* original_view() const { return left_; }
  GraphView* replicated_view() const { return right_; }
  QSplitter* splitter() const { return splitter_; }
  bool wait_for_layout(int timeout_ms);

  // Where Compare Loss takes its feeds from (the Feeds dock): both graphs get the same.
  void set_feeds_source(std::function<FeedList()> source) { feeds_source_ = std::move(source); }
  // Compare Loss: the button shows only for a replica built with a loss.
  QToolButton* loss_button() const { return loss_button_; }
  // "loss: original 1.38629 · 2 towers 1.38629 · |Δ| 2.4e-07", or the error.
  QString loss_text() const;

 public slots:
  void fit();
  void zoom_in();
  void zoom_out();
  // Computes both losses on a worker thread; loss_compared() when shown.
  void compare_loss();

 signals:
  void original_node_selected(const QString& name);    // by the user
  void replicated_node_selected(const QString& name);  // by the user
  void loss_compared();

 private:
  QWidget* make_pane(const QString& title, GraphView* view, QLabel** subtitle);
  void on_left_selected(const QString& name);
  void on_right_selected(const QString& name);
  // Drops `view`'s markers and draws new ones; found by item type, not kept
  // as pointers, because a relayout deletes them with the scene's items.
  void mark(GraphView* view, const QStringList& linked, bool with_added) const;
  QString hint_text(const QString& selected, bool in_original) const;
  void update_hint(const QString& selected, bool in_original);

  std::shared_ptr<const ReplicaComparison> cmp_;
  QSplitter* splitter_ = nullptr;
  GraphView* left_ = nullptr;
  GraphView* right_ = nullptr;
  QLabel* left_subtitle_ = nullptr;
  QLabel* right_subtitle_ = nullptr;
  QLabel* hint_ = nullptr;
  QToolButton* loss_button_ = nullptr;
  QLabel* loss_ = nullptr;
  std::function<FeedList()> feeds_source_;
  int loss_generation_ = 0;  // a new comparison drops an older run's answer
  QStringList linked_left_, linked_right_;
};

}  // namespace flowlens::ui
