#include "dist/worker/worker.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <set>

#include "io/graph_io.h"
#include "ops/framework/op_registry.h"

namespace flowlens::dist {
namespace {

double scalar_value(const Tensor& t, const std::string& what) {
  if (t.num_elements() != 1) throw Error(what + " is not a scalar: " + t.shape().to_string());
  switch (t.dtype()) {
    case DType::Float: return t.data<float>()[0];
    case DType::Double: return t.data<double>()[0];
    case DType::Int32: return t.data<int32_t>()[0];
    case DType::Int64: return static_cast<double>(t.data<int64_t>()[0]);
    default: throw Error(what + " is " + dtype_name(t.dtype()) + ", not a number");
  }
}

// Rows [part * n / parts, (part + 1) * n / parts) of a batch tensor.
Tensor slice_rows(const Tensor& t, int part, int parts, const std::string& name) {
  if (t.shape().rank() < 1) throw Error("split tensor '" + name + "' is a scalar; it has no batch dimension to split");
  const int64_t rows = t.shape().dim(0);
  if (rows % parts != 0)
    throw Error("split tensor '" + name + "' has " + std::to_string(rows) + " rows, not divisible by " +
                std::to_string(parts) + " workers (pass --batch)");
  std::vector<int64_t> dims = t.shape().dims();
  dims[0] = rows / parts;
  Tensor out(t.dtype(), Shape(dims));
  const std::size_t chunk = out.byte_size();
  if (chunk > 0) std::memcpy(out.raw_data(), static_cast<const char*>(t.raw_data()) + chunk * static_cast<size_t>(part), chunk);
  return out;
}

// "async" or "sync K", for the status and the log.
std::string worker_mode(const WorkerOptions& o) {
  return o.sync ? "sync " + std::to_string(o.replicas_to_aggregate) : "async";
}

}  // namespace

Worker::Worker(WorkerOptions options) : options_(std::move(options)) {
  const std::vector<int> workers = options_.cluster.task_indices("worker");
  address_ = options_.cluster.task_address("worker", options_.task);
  const std::string label = "worker " + std::to_string(options_.task);
  rank_ = static_cast<int>(std::find(workers.begin(), workers.end(), options_.task) - workers.begin());
  num_workers_ = static_cast<int>(workers.size());
  if (options_.sync && options_.replicas_to_aggregate <= 0) options_.replicas_to_aggregate = num_workers_;
  if (options_.sync && options_.replicas_to_aggregate > num_workers_)
    throw Error("--replicas-to-aggregate " + std::to_string(options_.replicas_to_aggregate) + " exceeds the " +
                std::to_string(num_workers_) + " worker task(s) of the cluster; that step would never complete");

  Graph graph = load_graph(options_.graph_path);
  if (!options_.feeds.empty()) {
    if (options_.batch <= 0) throw Error("--feed needs --batch: the rows each step feeds");
    for (const FeedSpec& f : options_.feeds)
      if (!graph.find(TensorIdView::parse(f.tensor) ? TensorIdView::parse(f.tensor)->node : std::string_view(f.tensor)))
        throw Error(options_.graph_path + ": --feed " + f.tensor + ": no such node in the graph");
    feeds_ = std::make_unique<WorkerFeeds>(options_.feeds, rank_, num_workers_, options_.task, options_.batch, options_.shard);
    options_.split.clear();  // each worker's rows are its own already
  } else if (options_.batch > 0) {
    set_data_batch_size(graph, options_.batch);
  }
  // Async workers are independent replicas and should see different data;
  // sync workers all draw the same global batch and each keeps its slice.
  if (!options_.sync) offset_data_seeds(graph, rank_);
  const OpRegistry& registry = OpRegistry::global();

  std::vector<std::string> split;
  for (const std::string& s : options_.split) {
    if (graph.find(s)) split.push_back(s);
    else if (options_.sync) throw Error(options_.graph_path + ": no split tensor '" + s + "' (pass --split)");
  }
  options_.split = split;
  if (!options_.loss.empty() && !graph.find(options_.loss)) {
    log_line("worker " + std::to_string(options_.task) + ": note: no loss node '" + options_.loss + "'; loss is not reported");
    options_.loss.clear();
  }
  std::vector<std::string> fetches = options_.split;
  for (const FeedSpec& f : options_.feeds) fetches.push_back(f.tensor);  // fed tensors belong to the worker
  if (!options_.loss.empty()) fetches.push_back(options_.loss);
  plan_ = plan_training(graph, options_.cluster, options_.task, registry,
                        options_.train_op.empty() ? std::vector<std::string>{} : std::vector<std::string>{options_.train_op},
                        fetches);

  SessionOptions so;
  so.inter_op_threads = options_.inter_op_threads;
  so.intra_op_threads = options_.intra_op_threads;
  std::vector<std::vector<NamedTensor>> initial_values;
  if (rank_ == 0) {
    // The chief runs the graph's own initializers locally, once, for the
    // values it gives the ps tasks (and gives them again if one loses them).
    Session init(graph, so);
    init.initialize_variables();
    for (const PsLink& link : plan_.ps) {
      std::vector<NamedTensor> values;
      for (const std::string& name : link.variables) {
        Variable* v = init.variable_of_node(name);
        if (!v || !v->value.valid()) throw Error("variable '" + name + "' has no initial value (no initializer ran)");
        values.push_back({name, v->value.to_host()});  // the initializer may have run on a GPU
      }
      initial_values.push_back(std::move(values));
    }
  }
  const bool distributed = options_.step_mode == WorkerOptions::StepMode::Distributed ||
                           (options_.step_mode == WorkerOptions::StepMode::Auto && !plan_.needs_distributed_step.empty());
  if (!distributed && !plan_.needs_distributed_step.empty())
    throw Error(options_.graph_path + ": " + plan_.needs_distributed_step +
                "; the pull/run/push phases cannot run that step (use --step-mode auto or distributed)");
  if (distributed && !plan_.dead_tensor_crossing.empty())
    throw Error(options_.graph_path + ": the tensor " + plan_.dead_tensor_crossing +
                " may be dead; a distributed step cannot carry a dead tensor between tasks yet (place the tf.cond on "
                "one task)" + (plan_.needs_distributed_step.empty() ? std::string() : "; and " + plan_.needs_distributed_step));
  if (distributed && options_.sync && options_.replicas_to_aggregate != num_workers_)
    throw Error("--replicas-to-aggregate " + std::to_string(options_.replicas_to_aggregate) + " with " +
                std::to_string(num_workers_) + " workers: synchronous distributed steps run each round with every "
                "worker of the cluster (the pull/run/push phases can drop the slowest)");
  session_ = std::make_unique<Session>(distributed ? plan_.worker_partition : plan_.worker_graph, so);
  ps_ = std::make_unique<PsClient>(options_, plan_, rank_, std::move(initial_values), traffic_,
                                   [this](const std::string& state, const std::string& detail) {
                                     status_.set_state(state, detail);
                                   });
  if (distributed) {
    messenger_ = std::make_unique<StepMessenger>(
        connect_in_cluster(options_.cluster, "worker:" + std::to_string(options_.task), options_.credentials,
                           options_.max_message_bytes, &traffic_, ps_->incarnation()),
        options_.reconnect_timeout, [this](const wire::Header& m, const std::string& to, const StepMessenger::Failure& why) {
          distributed_->undeliverable(m, to, why);
        });
    distributed_ = std::make_unique<DistributedStep>(plan_, options_.task, options_.sync ? options_.replicas_to_aggregate : 0,
                                                     *messenger_, options_.reconnect_timeout);
  }
  ps_->check_variables_fit_messages();
  inspection_ = std::make_unique<StepInspection>(*session_, label, [this](const DebugStop& stop) {
    if (fetches_.serving()) return;  // fetch re-runs do not hit breakpoints
    {
      std::lock_guard lock(mu_);
      gate_.pause();  // before the next step
    }
    status_.set_detail("breakpoint at '" + stop.node + "' in step " + std::to_string(status_.step() + 1) + ": " +
                       stop.message);
  });

  if (!options_.loss.empty()) step_fetches_.push_back(options_.loss);
  if (!distributed_)
    for (const PsLink& link : plan_.ps)
      step_fetches_.insert(step_fetches_.end(), link.push_tensors.begin(), link.push_tensors.end());

  NodeStatus base;
  base.role = "worker";
  base.task = options_.task;
  base.address = address_;
  base.state = "starting";
  base.mode = worker_mode(options_);
  status_.describe(std::move(base));
}

Worker::~Worker() {
  if (messenger_) messenger_->stop();  // its failure callback reaches distributed_
  control_running_ = false;
  if (control_thread_.joinable()) control_thread_.join();
}

FeedList Worker::draw_batch() {
  if (feeds_) return feeds_->next_batch();
  FeedList feeds;
  if (options_.split.empty()) return feeds;
  std::vector<Tensor> batch = session_->run({}, options_.split);
  for (size_t i = 0; i < batch.size(); ++i) {
    Tensor t = options_.sync && num_workers_ > 1 ? slice_rows(batch[i], rank_, num_workers_, options_.split[i]) : batch[i];
    feeds.emplace_back(options_.split[i], std::move(t));
  }
  return feeds;
}

void Worker::linger_until_done_seen() {
  std::unique_lock lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  // Polled recently: a viewer is watching and would otherwise see the
  // worker go silent, like a crash.
  const int64_t asked = status_asked_ns_.load();
  const bool watched = asked != 0 && now - std::chrono::steady_clock::time_point(std::chrono::nanoseconds(asked)) <
                                          std::chrono::seconds(2);
  if (!watched || options_.done_linger <= std::chrono::milliseconds(0)) return;
  cv_.wait_until(lock, now + options_.done_linger, [&] { return done_answered_.load(); });
}

std::vector<Tensor> Worker::run_phases(FeedList& feeds, std::vector<std::vector<NamedTensor>>& pulled,
                                       std::vector<std::vector<NamedTensor>>& sent) {
  std::vector<int64_t> pulled_step(ps_->size());
  for (size_t i = 0; i < ps_->size(); ++i) {
    pulled[i] = ps_->pull(i, options_.sync ? ps_->next_pull_step(i) : 0);
    pulled_step[i] = ps_->next_pull_step(i);
    // The rendezvous: each received tensor takes its _Recv node's place.
    for (size_t k = 0; k < pulled[i].size(); ++k)
      if (!plan_.ps[i].pull_feeds[k].empty()) feeds.emplace_back(plan_.ps[i].pull_feeds[k], pulled[i][k].value);
  }
  std::vector<Tensor> out = session_->run(feeds, step_fetches_, plan_.worker_targets);
  size_t next = options_.loss.empty() ? 0 : 1;
  for (size_t i = 0; i < ps_->size(); ++i) {
    for (const std::string& key : plan_.ps[i].push_keys) sent[i].push_back({key, std::move(out[next++])});
    // What this ps receives from another ps task, carried by the worker.
    for (const PsLink::Relay& r : plan_.ps[i].relays)
      sent[i].push_back({r.key, r.from_link < 0 ? Tensor::scalar<float>(0.0f)
                                                : pulled[static_cast<size_t>(r.from_link)][static_cast<size_t>(r.pull_index)].value});
  }
  for (size_t i = 0; i < ps_->size(); ++i) ps_->push(i, sent[i], pulled_step[i]);
  return out;
}

std::vector<Tensor> Worker::run_distributed_step(int64_t step, const FeedList& feeds) {
  // Async steps are named per try, so that nothing of a try given up on
  // (a late STEP_DONE, an ABORT_STEP still on its way) is taken for the
  // next; a synchronous round is the cluster's, the same for every worker.
  constexpr int kRepeats = 3;  // a ps that restarts needs one
  for (int tries = 1;; ++tries) {
    const int64_t id = options_.sync ? step : ++distributed_tries_;
    try {
      return distributed_->run(*session_, id, feeds, step_fetches_);
    } catch (const Error& e) {
      // A round that failed is over on the ps tasks that ran it, and a ps
      // that restarted has run none: the cluster cannot repeat it.
      if (!distributed_->ps_went_away() || options_.sync || tries > kRepeats) throw;
      // A ps went away or restarted under the step: once it answers again
      // (each PULL rides out an unreachable ps until --reconnect-timeout,
      // then fails naming it), register its partition again if it lost it,
      // let the chief initialize what no checkpoint restored, and repeat the
      // step, as the phases' pulls do.
      log_line("worker " + std::to_string(options_.task) + ": " + e.what() + "; repeating step " +
               std::to_string(step) + " once every ps is back");
      status_.set_state("waiting", "a ps went away; waiting for it to answer again");
      for (size_t i = 0; i < ps_->size(); ++i) ps_->pull(i, 0);
      status_.set_state("training");
    }
  }
}

int Worker::run(const std::atomic<bool>* interrupted) {
  control_running_ = true;
  control_thread_ = std::thread([this] { control_loop(); });
  if (std::string error = control_ready_.get_future().get(); !error.empty()) {
    control_running_ = false;
    control_thread_.join();
    throw Error(error);
  }
  ps_->start(interrupted);
  // Distributed steps start once every ps holds its variables: the chief
  // initializes them, the others wait (MonitoredTrainingSession's
  // ready_op). A PULL answers only then; its values are not needed.
  if (distributed_)
    for (size_t i = 0; i < ps_->size(); ++i) ps_->pull(i, 0);
  std::string exchange = "pull/run/push";
  if (distributed_)
    exchange = "distributed steps" +
               (plan_.needs_distributed_step.empty() ? std::string() : " (" + plan_.needs_distributed_step + ")");
  log_line("worker " + std::to_string(options_.task) + ": " + plan_.summary + "; " + worker_mode(options_) + "; " + exchange);

  const auto start = std::chrono::steady_clock::now();
  std::optional<double> first_loss, last_loss;
  int64_t examples = 0;
  int done_steps = 0, code = 0;
  for (int step = 1; step <= options_.steps; ++step) {
    if (!between_steps(interrupted)) {
      code = interrupted && interrupted->load() ? 130 : 0;
      break;
    }
    status_.set_state("training");
    std::vector<std::vector<NamedTensor>> pulled(ps_->size());
    FeedList feeds = draw_batch();
    if (!feeds.empty() && feeds[0].second.shape().rank() > 0) examples += feeds[0].second.shape().dim(0);
    std::vector<std::vector<NamedTensor>> sent(ps_->size());
    std::vector<Tensor> out;
    if (distributed_) {
      out = run_distributed_step(step, feeds);
      if (transfers_.note_nodes(distributed_->node_bytes())) status_.changed();
    } else {
      out = run_phases(feeds, pulled, sent);
      if (transfers_.note(pulled, sent)) status_.changed();
    }

    std::optional<double> loss;
    if (!options_.loss.empty()) loss = scalar_value(out[0], "loss '" + options_.loss + "'");
    if (!first_loss) first_loss = loss;
    last_loss = loss;
    done_steps = step;
    // The status reads these counters on the control thread; the training
    // lock below is for fetches and step events only.
    status_.record_step(step, loss.value_or(std::numeric_limits<double>::quiet_NaN()));
    fetches_.set_feeds(std::move(feeds));
    {
      std::lock_guard lock(mu_);
      events_.push_back({step, loss.value_or(std::nan(""))});
    }
    if (loss && options_.print_every > 0 && (step % options_.print_every == 0 || step == 1 || step == options_.steps))
      std::printf("worker %d step %d: loss %.6f\n", options_.task, step, *loss);
  }
  std::fflush(stdout);
  std::string stop_reason;
  {
    // The control thread still serves requests (a late "stop" writes stop_reason_).
    std::lock_guard lock(mu_);
    stop_reason = stop_reason_;
  }
  status_.set_state("done", stop_reason);
  ps_->finish();
  linger_until_done_seen();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[512];
  int n = std::snprintf(line, sizeof line, "worker %d: %d steps in %.2f s (%.1f examples/s)", options_.task, done_steps,
                        seconds, seconds > 0 ? static_cast<double>(examples) / seconds : 0.0);
  if (first_loss && last_loss && n > 0 && n < static_cast<int>(sizeof line))
    n += std::snprintf(line + n, sizeof line - static_cast<size_t>(n), "; loss %.6f -> %.6f", *first_loss, *last_loss);
  log_line(std::string(line) + (stop_reason.empty() ? "" : "; " + stop_reason));
  control_running_ = false;
  control_thread_.join();
  return code;
}

}  // namespace flowlens::dist
