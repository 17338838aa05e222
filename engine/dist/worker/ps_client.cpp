// A worker's channels to its ps tasks (ps_client.h). Kept apart from
// worker.cpp, which trains.
#include "dist/worker/ps_client.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "dist/control/node_control_server.h"
#include "dist/control/node_status.h"
#include "dist/worker/worker.h"
#include "graph/node_class.h"

namespace flowlens::dist {

PsClient::PsClient(const WorkerOptions& options, const TrainingPlan& plan, int rank,
                   std::vector<std::vector<NamedTensor>> initial_values, TrafficCounters& traffic, StateSink state)
    : options_(options), plan_(plan), rank_(rank), initial_values_(std::move(initial_values)), traffic_(traffic),
      state_(std::move(state)) {
  next_pull_step_.assign(plan_.ps.size(), 0);
  push_sequence_.assign(plan_.ps.size(), 0);
  latest_values_.resize(plan_.ps.size());
  pulled_.assign(plan_.ps.size(), false);
}

PsClient::~PsClient() = default;

std::string PsClient::me() const { return "worker " + std::to_string(options_.task); }

void PsClient::check_variables_fit_messages() const {
  auto check = [&](const std::string& what, uint64_t bytes) {
    if (bytes <= options_.max_message_bytes) return;
    throw Error(what + " is " + human_bytes(bytes) + ", more than the largest message (" +
                human_bytes(options_.max_message_bytes) + "): start every node of the cluster with --max-message-mb " +
                std::to_string((bytes + (1u << 20) - 1) >> 20) + " or more");
  };
  for (const auto& values : initial_values_)
    for (const NamedTensor& v : values) check("variable '" + v.name + "'", v.value.byte_size());
  for (const PsLink& link : plan_.ps) check("the partition of ps " + std::to_string(link.task), link.partition.size());
  // What travels each step, where its size is known before the first step.
  for (const Node& n : plan_.worker_partition.nodes())
    if (is_send_recv(n) && n.attr_int("_bytes", -1) > 0)
      check("the tensor '" + n.attr_string("tensor_name", "") + "'", static_cast<uint64_t>(n.attr_int("_bytes", 0)));
}

std::unique_ptr<NodeConnection> PsClient::connect(zmq::context_t& context, int task) const {
  auto c = std::make_unique<NodeConnection>(context, "ps " + std::to_string(task), options_.cluster.task_address("ps", task),
                                            "worker:" + std::to_string(options_.task), &traffic_);
  c->set_max_message_bytes(options_.max_message_bytes);
  if (options_.credentials)
    c->use_curve(options_.credentials->own, options_.credentials->security.node_key("ps " + std::to_string(task)));
  c->set_incarnation(incarnation_);
  return c;
}

void PsClient::start(const std::atomic<bool>* interrupted) {
  interrupted_ = interrupted;
  state_("waiting", "connecting to ps");
  for (const PsLink& link : plan_.ps) {
    auto c = connect(context_, link.task);
    c->wait_until_reachable(options_.wait_timeout);
    ps_.push_back(std::move(c));
  }
  for (size_t i = 0; i < ps_.size(); ++i) register_partition(i);
  if (rank_ == 0)
    for (size_t i = 0; i < ps_.size(); ++i) initialize(i, initial_values_[i]);
}

void PsClient::register_partition(size_t i) {
  wire::Header h;
  h.set_kind(wire::REGISTER);
  WireMessage r = request(i, h, {{"partition", bytes_tensor(plan_.ps[i].partition)}}, options_.wait_timeout);
  if (r.header.code() != wire::OK) throw Error(ps_[i]->peer() + " refused the partition: " + r.header.text());
  log_line(me() + ": " + ps_[i]->peer() + ": " + r.header.text());
}

void PsClient::initialize(size_t i, const std::vector<NamedTensor>& values) {
  wire::Header h;
  h.set_kind(wire::INIT);
  WireMessage r = request(i, h, values, options_.wait_timeout);
  if (r.header.code() != wire::OK) throw Error(ps_[i]->peer() + " refused INIT: " + r.header.text());
  log_line(me() + " (chief): " + ps_[i]->peer() + ": " + r.header.text());
}

WireMessage PsClient::request(size_t i, const wire::Header& header, const std::vector<NamedTensor>& tensors,
                              std::chrono::milliseconds timeout) {
  NodeConnection& ps = *ps_[i];
  std::optional<std::chrono::steady_clock::time_point> lost_since;
  for (;;) {
    try {
      WireMessage r = ps.request(header, tensors, timeout);
      if (lost_since) {
        const auto away = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - *lost_since);
        log_line(me() + ": " + ps.peer() + " answers again after " + seconds_text(away));
        state_("training", "");
      }
      return r;
    } catch (const TimeoutError& e) {
      if (interrupted_ && interrupted_->load()) throw;
      if (!lost_since) {
        lost_since = std::chrono::steady_clock::now();
        log_line(me() + ": " + e.what() + "; retrying for up to " + seconds_text(options_.reconnect_timeout));
        state_("waiting", ps.peer() + " at " + ps.address() + " does not answer; retrying");
      }
    }
    // Until it answers a probe (backing off from 100 ms to 1 s), then the
    // request again: it may have been lost with the connection.
    const auto deadline = *lost_since + options_.reconnect_timeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    try {
      if (left.count() <= 0) throw TimeoutError("out of time");
      ps.wait_until_reachable(left, interrupted_);
    } catch (const TimeoutError&) {
      if (interrupted_ && interrupted_->load()) throw;
      const auto away = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - *lost_since);
      throw Error(ps.peer() + " at " + ps.address() + " has not answered for " + seconds_text(away) +
                  " (gave up after --reconnect-timeout " + seconds_text(options_.reconnect_timeout) + ")");
    }
  }
}

std::vector<NamedTensor> PsClient::pull(size_t i, int64_t min_step) {
  std::optional<std::chrono::steady_clock::time_point> not_ready_since;
  // A barrier Pull may legitimately wait the ps's whole wait_timeout; the ps
  // then answers with who is missing, so give it time to say so.
  const auto timeout = options_.wait_timeout + (min_step > 0 ? std::chrono::milliseconds(5000) : std::chrono::milliseconds(0));
  bool reinitialized = false;
  for (;;) {
    wire::Header h;
    h.set_kind(wire::PULL);
    h.set_step(min_step);
    const PsLink& link = plan_.ps[i];
    for (const std::string& key : link.pull_keys) h.add_names(key);
    WireMessage r = request(i, h, {}, timeout);
    if (r.header.code() == wire::UNREGISTERED) {
      // The ps restarted: it runs nothing until the partition comes again.
      register_partition(i);
      continue;
    }
    if (r.header.code() == wire::OK) {
      if (r.num_tensors() != link.pull_keys.size())
        throw Error(ps_[i]->peer() + " answered PULL with " + std::to_string(r.num_tensors()) + " tensors, not " +
                    std::to_string(link.pull_keys.size()));
      std::vector<NamedTensor> out;
      for (size_t k = 0; k < r.num_tensors(); ++k) {
        if (r.name(k) != link.pull_keys[k])
          throw Error(ps_[i]->peer() + " answered PULL with '" + r.name(k) + "' where '" + link.pull_keys[k] + "' was asked");
        out.push_back({r.name(k), r.tensor(k)});
      }
      if (!pulled_[i] && r.header.step() > 0)
        log_line(me() + ": joining at global step " + std::to_string(r.header.step()) +
                 " of " + ps_[i]->peer());
      next_pull_step_[i] = r.header.step();  // the global step these values belong to
      latest_values_[i] = out;
      pulled_[i] = true;
      return out;
    }
    if (r.header.code() == wire::STALE) {
      // The ps restarted from a checkpoint older than the step this barrier
      // waited for: carry on from where it is now.
      log_line(me() + ": " + r.header.text() + "; continuing from there");
      min_step = r.header.step();
      continue;
    }
    if (r.header.code() == wire::NOT_READY && !not_ready_since) not_ready_since = std::chrono::steady_clock::now();
    const auto waited = not_ready_since ? std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::steady_clock::now() - *not_ready_since)
                                        : std::chrono::milliseconds(0);
    if (r.header.code() == wire::NOT_READY && rank_ == 0 && pulled_[i] && !reinitialized) {
      // A ps that restarted without a checkpoint lost the variables; the
      // chief gives it the last values it pulled (lost work: since then).
      log_line(me() + " (chief): " + ps_[i]->peer() + " lost its variables (" +
               r.header.text() + "); initializing them again from the last pull");
      // What the last pull carried of each variable; the initial value of
      // those never sent (optimizer slots, moving averages).
      std::vector<NamedTensor> values = initial_values_[i];
      for (std::size_t v = 0; v < link.variables.size(); ++v)
        if (const int read = link.variable_reads[v]; read >= 0) values[v].value = latest_values_[i][static_cast<size_t>(read)].value;
      initialize(i, values);
      reinitialized = true;
      continue;
    }
    // Mid-training the chief may itself be riding out the ps's restart: give
    // it as long as any worker gets to reconnect.
    const auto not_ready_limit = pulled_[i] ? options_.reconnect_timeout : options_.wait_timeout;
    if (r.header.code() == wire::NOT_READY && waited < not_ready_limit) {
      state_("waiting", "chief has not initialized the variables yet");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    const std::vector<int> workers = options_.cluster.task_indices("worker");
    if (r.header.code() == wire::NOT_READY)
      throw Error(waiting_message("worker " + std::to_string(workers[0]) + " (the chief)",
                                  options_.cluster.task_address("worker", workers[0]), waited) +
                  " to initialize the variables on " + ps_[i]->peer() + " (" + r.header.text() + ")");
    throw Error(ps_[i]->peer() + " at " + ps_[i]->address() + ": " + r.header.text());
  }
}

void PsClient::push(size_t i, const std::vector<NamedTensor>& tensors, int64_t step) {
  wire::Header h;
  h.set_kind(wire::PUSH);
  h.set_step(step);
  h.set_replicas_to_aggregate(options_.sync ? options_.replicas_to_aggregate : 0);
  h.set_sequence(++push_sequence_[i]);  // a retry repeats it: applied once
  WireMessage r = request(i, h, tensors, options_.wait_timeout);
  if (r.header.code() == wire::OK) {
    // Sync: the next Pull waits for the step these gradients complete.
    next_pull_step_[i] = options_.sync ? step + 1 : 0;
  } else if (r.header.code() == wire::STALE) {
    next_pull_step_[i] = r.header.step();
    log_line(me() + ": " + r.header.text());
  } else if (r.header.code() == wire::NOT_READY || r.header.code() == wire::UNREGISTERED) {
    // The ps lost its variables (restarted without a checkpoint); the next
    // Pull registers the partition again if need be and waits for the chief
    // to initialize them again.
    next_pull_step_[i] = 0;
    log_line(me() + ": gradients dropped: " + r.header.text());
  } else {
    throw Error(ps_[i]->peer() + " rejected PUSH: " + r.header.text());
  }
}

void PsClient::finish() {
  for (auto& c : ps_) {
    wire::Header h;
    h.set_kind(wire::DONE);
    try {
      c->request(h, {}, std::chrono::milliseconds(2000));
    } catch (const TimeoutError& e) {
      log_line(me() + ": " + e.what() + " (ps may have stopped already)");
    }
  }
}

Tensor PsClient::pulled_value(const std::string& name) const {
  for (size_t i = 0; i < plan_.ps.size(); ++i) {
    const PsLink& link = plan_.ps[i];
    const auto v = std::find(link.variables.begin(), link.variables.end(), name);
    if (v == link.variables.end()) continue;
    const int read = link.variable_reads[static_cast<size_t>(v - link.variables.begin())];
    if (read < 0 || static_cast<size_t>(read) >= latest_values_[i].size())
      throw Error("'" + name + "' lives on ps " + std::to_string(link.task) +
                  " and does not come to this worker; fetch it from the ps");
    return latest_values_[i][static_cast<size_t>(read)].value;
  }
  throw Error("no node named '" + name + "' in the graph this worker runs or on its ps tasks");
}

}  // namespace flowlens::dist
