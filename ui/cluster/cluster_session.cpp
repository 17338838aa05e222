#include "ui/cluster/cluster_session.h"
#include "ui/util/std_text.h"

#include <QThread>
#include <QTimer>
#include <cmath>
#include <limits>

#include "ui/util/thread_handoff.h"

namespace flowlens::ui {
namespace {

void register_meta_types() {
  static const bool once = [] {
    qRegisterMetaType<NodeCommand>();
    qRegisterMetaType<std::shared_ptr<const dist::NodeStatus>>();
    qRegisterMetaType<std::shared_ptr<const NodeCommandResult>>();
    return true;
  }();
  (void)once;
}

// Bytes per second between two readings of a counter; 0 across a restart
// (the counter started again from zero).
double rate(uint64_t now, uint64_t before, double seconds) {
  if (seconds <= 0 || now < before) return 0;
  return static_cast<double>(now - before) / seconds;
}

// Bytes per second over the last second or more of answers (kept in
// `samples`, oldest first); 0 until two answers a quarter second apart came.
double traffic_rate(std::deque<std::pair<double, uint64_t>>& samples, double now, uint64_t total) {
  constexpr double kWindow = 1.0, kMinimumSpan = 0.25;
  if (!samples.empty() && total < samples.back().second) samples.clear();  // the node restarted
  samples.emplace_back(now, total);
  // Drop what is older than the window, keeping one sample at or before its start.
  while (samples.size() > 2 && samples[1].first <= now - kWindow) samples.pop_front();
  const auto& [t0, b0] = samples.front();
  if (now - t0 < kMinimumSpan) return 0;
  return static_cast<double>(total - b0) / (now - t0);
}

}  // namespace

QString ClusterNodeState::state_text() const {
  switch (liveness) {
    case Liveness::Connecting: return QStringLiteral("connecting");
    case Liveness::Down: return QStringLiteral("down");
    case Liveness::Done: return QStringLiteral("done");
    case Liveness::Up: break;
  }
  return status ? qs(status->state) : QStringLiteral("up");
}

bool ClusterNodeState::finished() const { return status && status->state == "done"; }

ClusterSession::ClusterSession(QObject* parent) : QObject(parent) {
  register_meta_types();
  liveness_timer_ = new QTimer(this);
  liveness_timer_->setInterval(200);
  connect(liveness_timer_, &QTimer::timeout, this, &ClusterSession::check_liveness);
}

ClusterSession::~ClusterSession() { detach(); }

void ClusterSession::attach(const ClusterSpec& cluster, int poll_hz, std::optional<dist::Credentials> credentials) {
  detach();
  cluster_ = cluster;
  client_ = std::make_unique<dist::ClusterClient>(cluster_, "viewer");
  if (credentials) client_->use_credentials(std::move(*credentials));
  clock_.start();
  updates_ = 0;
  const int interval = std::max(1, 1000 / std::max(1, poll_hz));
  for (const dist::NodeRef& ref : dist::cluster_nodes(cluster_)) {
    ClusterNodeState state;
    state.ref = ref;
    state.label = qs(ref.label());
    nodes_.push_back(std::move(state));
    for (const bool polls : {true, false}) {
      auto* thread = new QThread(this);
      thread->setObjectName(QStringLiteral("cluster %1 %2")
                               .arg(qs(ref.label()), polls ? QStringLiteral("status") : QStringLiteral("commands")));
      auto* poller = new NodePoller(client_.get(), ref, polls ? interval : 0);
      poller->moveToThread(thread);
      connect(thread, &QThread::started, poller, &NodePoller::start);
      connect(thread, &QThread::finished, poller, &QObject::deleteLater);
      if (polls) {
        connect(poller, &NodePoller::status_received, this, &ClusterSession::on_status);
        connect(poller, &NodePoller::unreachable, this, &ClusterSession::on_unreachable);
      } else {
        connect(poller, &NodePoller::command_finished, this, &ClusterSession::on_command_finished);
        commanders_.push_back(poller);
      }
      threads_.push_back(thread);
      thread->start();
    }
  }
  liveness_timer_->start();
  emit attached_changed();
}

void ClusterSession::detach() {
  if (nodes_.empty() && threads_.empty()) return;
  liveness_timer_->stop();
  // Ends every request in flight at once (they fail with ETERM) so no
  // thread keeps the UI waiting for a node that does not answer.
  if (client_) client_->shutdown();
  for (QThread* t : threads_) {
    // Each poller is deleted on its thread as it finishes, tearing down
    // connections this thread used; see ~NodePoller.
    handoff::release(t);
    t->quit();
  }
  for (QThread* t : threads_) {
    t->wait();
    delete t;
  }
  threads_.clear();
  commanders_.clear();
  client_.reset();  // every channel was closed with its poller
  nodes_.clear();
  for (auto& [id, callback] : callbacks_) {
    NodeCommandResult r;
    r.id = id;
    r.text = QStringLiteral("detached from the cluster");
    if (callback) callback(r);
  }
  callbacks_.clear();
  cluster_ = ClusterSpec();
  emit attached_changed();
}

const ClusterNodeState* ClusterSession::node(const QString& label) const {
  const int i = index_of(label);
  return i < 0 ? nullptr : &nodes_[static_cast<std::size_t>(i)];
}

int ClusterSession::index_of(const QString& label) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].label == label) return static_cast<int>(i);
  return -1;
}

QStringList ClusterSession::labels(const QString& job) const {
  QStringList out;
  for (const ClusterNodeState& n : nodes_)
    if (job.isEmpty() || qs(n.ref.job) == job) out << n.label;
  return out;
}

double ClusterSession::seconds_since_attach() const {
  return clock_.isValid() ? static_cast<double>(clock_.nsecsElapsed()) / 1e9 : 0;
}

bool ClusterSession::send(const QString& label, NodeCommand command, Callback done) {
  const int i = index_of(label);
  if (i < 0) return false;
  const int id = next_command_++;
  callbacks_[id] = std::move(done);
  NodePoller* target = commanders_[static_cast<std::size_t>(i)];
  // handed(): the queued call crosses threads inside Qt, where TSan cannot
  // see it; see ui/util/thread_handoff.h.
  QMetaObject::invokeMethod(target, handoff::handed([target, id, command] { target->run_command(id, command); }),
                            Qt::QueuedConnection);
  return true;
}

void ClusterSession::send_to_all(const QString& job, const QString& command) {
  QStringList order = labels(QStringLiteral("worker"));
  for (const QString& l : labels())
    if (!order.contains(l)) order << l;
  for (const QString& l : order) {
    if (!job.isEmpty() && qs(node(l)->ref.job) != job) continue;
    NodeCommand c;
    c.command = command;
    send(l, c, [this](const NodeCommandResult& r) {
      if (!r.ok) emit command_failed(QStringLiteral("%1: %2").arg(r.node, r.text));
    });
  }
}

void ClusterSession::on_status(const QString& label, const std::shared_ptr<const dist::NodeStatus>& status) {
  handoff::acquire(&NodePoller::kSignalChannel);
  const int i = index_of(label);
  if (i < 0) return;  // an answer that arrived after detach/attach
  ClusterNodeState& n = nodes_[static_cast<std::size_t>(i)];
  const double now = seconds_since_attach();
  const bool was_up = n.liveness == ClusterNodeState::Liveness::Up;
  // The table and the chart both show this one figure.
  n.bytes_per_second = traffic_rate(n.byte_samples, now, status->bytes_in + status->bytes_out);
  if (n.status && n.last_seen >= 0) {
    const double dt = now - n.last_seen;
    std::vector<LinkRate> links;
    for (const dist::LinkTraffic& l : status->links) {
      LinkRate r{qs(l.peer), l.bytes_in, l.bytes_out, 0, 0};
      for (const LinkRate& before : n.links)
        if (before.peer == r.peer) {
          r.in_per_second = rate(l.bytes_in, before.bytes_in, dt);
          r.out_per_second = rate(l.bytes_out, before.bytes_out, dt);
        }
      links.push_back(r);
    }
    n.links = std::move(links);
  } else {
    n.links.clear();
    for (const dist::LinkTraffic& l : status->links) n.links.push_back({qs(l.peer), l.bytes_in, l.bytes_out, 0, 0});
  }
  n.status = status;
  n.last_seen = now;
  n.last_error.clear();
  n.liveness = ClusterNodeState::Liveness::Up;
  n.history.push_back({now, n.status->loss ? *n.status->loss : std::numeric_limits<double>::quiet_NaN(),
                       n.status->steps_per_second, n.bytes_per_second});
  while (!n.history.empty() && n.history.front().t < now - kHistorySeconds) n.history.pop_front();
  ++updates_;
  emit node_updated(i);
  if (!was_up) emit liveness_changed(i);
}

void ClusterSession::on_unreachable(const QString& label, const QString& why) {
  handoff::acquire(&NodePoller::kSignalChannel);
  const int i = index_of(label);
  if (i < 0) return;
  nodes_[static_cast<std::size_t>(i)].last_error = why;
  check_liveness();
}

void ClusterSession::check_liveness() {
  const double now = seconds_since_attach();
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    ClusterNodeState& n = nodes_[i];
    if (n.liveness == ClusterNodeState::Liveness::Down || n.liveness == ClusterNodeState::Liveness::Done) continue;
    const double since = n.last_seen >= 0 ? n.last_seen : 0;
    if (now - since < kDownAfter) continue;
    n.liveness = n.finished() ? ClusterNodeState::Liveness::Done : ClusterNodeState::Liveness::Down;
    n.bytes_per_second = 0;
    n.byte_samples.clear();
    for (LinkRate& l : n.links) l.in_per_second = l.out_per_second = 0;
    emit node_updated(static_cast<int>(i));
    emit liveness_changed(static_cast<int>(i));
  }
}

void ClusterSession::on_command_finished(const std::shared_ptr<const NodeCommandResult>& result) {
  handoff::acquire(&NodePoller::kSignalChannel);
  auto it = callbacks_.find(result->id);
  if (it == callbacks_.end()) return;
  Callback callback = std::move(it->second);
  callbacks_.erase(it);
  if (callback) callback(*result);
}

}  // namespace flowlens::ui
