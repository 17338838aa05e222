#include "ui/cluster/node_poller.h"
#include "ui/util/std_text.h"

#include <QTimer>

#include "ui/util/thread_handoff.h"

namespace flowlens::ui {
namespace {

// A status poll that takes longer than this counts as a miss; the cluster
// session declares a node down after about a second of misses.
constexpr std::chrono::milliseconds kStatusTimeout{400};
// Commands may wait longer: a worker answers fetches between steps.
constexpr std::chrono::milliseconds kCommandTimeout{5000};

// Every signal of the poller goes to the GUI thread, queued. TSan sees
// neither Qt's queue nor the copies of the arguments Qt makes for it inside
// the emit (after any release placed before it; only the receiving slot reads
// them), so: release, and no recorded accesses during the emit. See
// ui/util/thread_handoff.h.
template <class Emit>
void emit_to_gui(Emit&& emit_signal) {
  handoff::release(&NodePoller::kSignalChannel);
  [[maybe_unused]] handoff::IgnoreAccesses ignore;
  emit_signal();
}

}  // namespace

NodePoller::NodePoller(const dist::ClusterClient* client, dist::NodeRef node, int interval_ms, QObject* parent)
    : QObject(parent), client_(client), node_(std::move(node)), interval_ms_(interval_ms) {}

NodePoller::~NodePoller() {
  // Deleted on its own thread as that finishes (ClusterSession::detach); the
  // connections torn down here were used by the GUI thread, which released
  // this thread's channel before quitting it. Qt's hand-off is invisible to
  // TSan; see ui/util/thread_handoff.h.
  handoff::acquire(thread());
}

dist::NodeChannel& NodePoller::channel() {
  if (!channel_) channel_ = client_->open_channel(node_);
  return *channel_;
}

void NodePoller::start() {
  if (interval_ms_ <= 0) return;
  timer_ = new QTimer(this);
  timer_->setInterval(interval_ms_);
  connect(timer_, &QTimer::timeout, this, &NodePoller::poll);
  timer_->start();
  poll();
}

void NodePoller::set_interval(int interval_ms) {
  interval_ms_ = interval_ms;
  if (timer_) timer_->setInterval(interval_ms);
}

void NodePoller::poll() {
  const QString label = qs(node_.label());
  wire::Header h;
  h.set_kind(wire::STATUS);
  try {
    const dist::NodeAnswer r = channel().ask(h, kStatusTimeout);
    if (!r.ok()) {
      emit_to_gui([&] { emit unreachable(label, qs(r.text)); });
      return;
    }
    auto status = std::make_shared<const dist::NodeStatus>(
        dist::status_from_json(r.text, node_.label() + " at " + node_.address));
    emit_to_gui([&] { emit status_received(label, std::move(status)); });
  } catch (const std::exception& e) {  // silent (TimeoutError), a bad answer, or detached
    emit_to_gui([&] { emit unreachable(label, qs(e.what())); });
  }
}

void NodePoller::run_command(int id, const NodeCommand& command) {
  auto result = std::make_shared<NodeCommandResult>();
  result->id = id;
  result->node = qs(node_.label());
  wire::Header h;
  switch (command.kind) {
    case NodeCommand::Kind::Control:
      h.set_kind(wire::CONTROL);
      h.set_command(command.command.toStdString());
      h.set_text(command.argument.toStdString());
      break;
    case NodeCommand::Kind::Fetch:
      h.set_kind(wire::FETCH);
      for (const QString& n : command.names) h.add_names(n.toStdString());
      break;
    case NodeCommand::Kind::Graph:
      h.set_kind(wire::CONTROL);
      h.set_command("graph");
      break;
    case NodeCommand::Kind::NodeTimes:
      h.set_kind(wire::CONTROL);
      h.set_command("node_times");
      break;
  }
  try {
    dist::NodeAnswer r = channel().ask(h, kCommandTimeout);
    result->ok = r.ok();
    result->text = qs(r.text);
    result->step = r.step;
    result->tensors = std::move(r.tensors);
  } catch (const std::exception& e) {
    result->ok = false;
    result->text = qs(e.what());
  }
  emit_to_gui([&] { emit command_finished(std::move(result)); });
}

}  // namespace flowlens::ui
