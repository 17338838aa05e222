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

}  // namespace

Worker::Worker(WorkerOptions options) : options_(std::move(options)), context_(1) {
  const std::vector<int> workers = options_.cluster.task_indices("worker");
  address_ = options_.cluster.task_address("worker", options_.task);
  const std::string label = "worker " + std::to_string(options_.task);
  if (options_.control_bind.empty()) check_exposure(label, address_, options_.credentials.has_value(), options_.insecure);
  if (options_.credentials) zap_ = std::make_unique<ZapHandler>(context_, options_.credentials->security, label);
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
      initial_values_.push_back(std::move(values));
    }
  }
  session_ = std::make_unique<Session>(plan_.worker_graph, so);
  check_variables_fit_messages();

  if (!options_.loss.empty()) step_fetches_.push_back(options_.loss);
  for (const PsLink& link : plan_.ps) step_fetches_.insert(step_fetches_.end(), link.push_tensors.begin(), link.push_tensors.end());
  next_pull_step_.assign(plan_.ps.size(), 0);
  push_sequence_.assign(plan_.ps.size(), 0);
  latest_values_.resize(plan_.ps.size());
  incarnation_ = new_incarnation();

  status_.role = "worker";
  status_.task = options_.task;
  status_.address = address_;
  status_.state = "starting";
  status_.mode = options_.sync ? "sync " + std::to_string(options_.replicas_to_aggregate) : "async";
}

Worker::~Worker() {
  control_running_ = false;
  if (control_thread_.joinable()) control_thread_.join();
}

void Worker::set_state(const std::string& state, const std::string& detail) {
  std::lock_guard lock(mu_);
  if (status_.state == state && status_.detail == detail) return;  // every step says "training"
  status_.state = state;
  status_.detail = detail;
  status_changed();
}

void Worker::note_pulled_variables(const std::vector<std::vector<NamedTensor>>& pulled) {
  std::size_t i = 0;
  bool same = true;
  for (const auto& p : pulled)
    for (const NamedTensor& v : p) {
      same = same && i < pulled_names_.size() && pulled_names_[i] == v.name &&
             pulled_layout_[i].first == v.value.dtype() && pulled_layout_[i].second == v.value.shape();
      ++i;
    }
  if (same && i == pulled_names_.size()) return;
  pulled_names_.clear();
  pulled_layout_.clear();
  std::vector<VariableInfo> info;
  for (const auto& p : pulled)
    for (const NamedTensor& v : p) {
      pulled_names_.push_back(v.name);
      pulled_layout_.emplace_back(v.value.dtype(), v.value.shape());
      info.push_back({v.name, dtype_name(v.value.dtype()), v.value.shape().to_string(),
                      static_cast<int64_t>(v.value.byte_size())});
    }
  std::lock_guard lock(mu_);
  variables_ = std::move(info);
  status_changed();
}

void Worker::note_transfers(const std::vector<std::vector<NamedTensor>>& pulled,
                            const std::vector<std::vector<NamedTensor>>& sent) {
  std::vector<int64_t> sizes;
  for (const auto* side : {&pulled, &sent})
    for (const auto& link : *side)
      for (const NamedTensor& t : link) sizes.push_back(static_cast<int64_t>(t.value.byte_size()));
  if (sizes == noted_transfer_sizes_) return;  // every step with static shapes
  noted_transfer_sizes_ = sizes;
  std::vector<LinkTraffic> links;
  std::map<std::string, int64_t> nodes;
  for (size_t i = 0; i < plan_.ps.size(); ++i) {
    const PsLink& link = plan_.ps[i];
    LinkTraffic l;
    l.peer = "ps " + std::to_string(link.task);
    for (size_t k = 0; k < pulled[i].size(); ++k) {
      l.step_bytes_in += pulled[i][k].value.byte_size();
      const std::string& feed = link.pull_feeds[k];
      if (!feed.empty()) nodes[feed.substr(0, feed.rfind(':'))] = static_cast<int64_t>(pulled[i][k].value.byte_size());
    }
    for (size_t k = 0; k < sent[i].size(); ++k) {
      l.step_bytes_out += sent[i][k].value.byte_size();
      if (k < link.push_nodes.size()) nodes[link.push_nodes[k]] = static_cast<int64_t>(sent[i][k].value.byte_size());
    }
    links.push_back(std::move(l));
  }
  std::lock_guard lock(mu_);
  step_links_ = std::move(links);
  transfer_bytes_ = std::move(nodes);
  status_changed();
}

std::vector<NamedTensor> Worker::pull(int index, int64_t min_step) {
  const auto i = static_cast<size_t>(index);
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
    WireMessage r = ps_request(i, h, {}, timeout);
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
      if (latest_values_[i].empty() && r.header.step() > 0)
        log_line("worker " + std::to_string(options_.task) + ": joining at global step " + std::to_string(r.header.step()) +
                 " of " + ps_[i]->peer());
      next_pull_step_[i] = r.header.step();  // the global step these values belong to
      latest_values_[i] = out;
      return out;
    }
    if (r.header.code() == wire::STALE) {
      // The ps restarted from a checkpoint older than the step this barrier
      // waited for: carry on from where it is now.
      log_line("worker " + std::to_string(options_.task) + ": " + r.header.text() + "; continuing from there");
      min_step = r.header.step();
      continue;
    }
    if (r.header.code() == wire::NOT_READY && !not_ready_since) not_ready_since = std::chrono::steady_clock::now();
    const auto waited = not_ready_since ? std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::steady_clock::now() - *not_ready_since)
                                        : std::chrono::milliseconds(0);
    if (r.header.code() == wire::NOT_READY && rank_ == 0 && !latest_values_[i].empty() && !reinitialized) {
      // A ps that restarted without a checkpoint lost the variables; the
      // chief gives it the last values it pulled (lost work: since then).
      log_line("worker " + std::to_string(options_.task) + " (chief): " + ps_[i]->peer() + " lost its variables (" +
               r.header.text() + "); initializing them again from the last pull");
      // What the last pull carried of each variable; the initial value of
      // those never sent (optimizer slots, moving averages).
      std::vector<NamedTensor> values = initial_values_[i];
      for (std::size_t v = 0; v < link.variables.size(); ++v)
        if (const int read = link.variable_reads[v]; read >= 0) values[v].value = latest_values_[i][static_cast<size_t>(read)].value;
      initialize_ps(i, values);
      reinitialized = true;
      continue;
    }
    // Mid-training the chief may itself be riding out the ps's restart: give
    // it as long as any worker gets to reconnect.
    const auto not_ready_limit = latest_values_[i].empty() ? options_.wait_timeout : options_.reconnect_timeout;
    if (r.header.code() == wire::NOT_READY && waited < not_ready_limit) {
      set_state("waiting", "chief has not initialized the variables yet");
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

void Worker::push(int i, const std::vector<NamedTensor>& grads, int64_t step) {
  wire::Header h;
  h.set_kind(wire::PUSH);
  h.set_step(step);
  h.set_replicas_to_aggregate(options_.sync ? options_.replicas_to_aggregate : 0);
  h.set_sequence(++push_sequence_[static_cast<size_t>(i)]);  // a retry repeats it: applied once
  WireMessage r = ps_request(static_cast<size_t>(i), h, grads, options_.wait_timeout);
  if (r.header.code() == wire::OK) {
    // Sync: the next Pull waits for the step these gradients complete.
    next_pull_step_[static_cast<size_t>(i)] = options_.sync ? step + 1 : 0;
  } else if (r.header.code() == wire::STALE) {
    next_pull_step_[static_cast<size_t>(i)] = r.header.step();
    log_line("worker " + std::to_string(options_.task) + ": " + r.header.text());
  } else if (r.header.code() == wire::NOT_READY || r.header.code() == wire::UNREGISTERED) {
    // The ps lost its variables (restarted without a checkpoint); the next
    // Pull registers the partition again if need be and waits for the chief
    // to initialize them again.
    next_pull_step_[static_cast<size_t>(i)] = 0;
    log_line("worker " + std::to_string(options_.task) + ": gradients dropped: " + r.header.text());
  } else {
    throw Error(ps_[static_cast<size_t>(i)]->peer() + " rejected PUSH: " + r.header.text());
  }
}

void Worker::finish() {
  for (auto& c : ps_) {
    wire::Header h;
    h.set_kind(wire::DONE);
    try {
      c->request(h, {}, std::chrono::milliseconds(2000));
    } catch (const TimeoutError& e) {
      log_line("worker " + std::to_string(options_.task) + ": " + e.what() + " (ps may have stopped already)");
    }
  }
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

int Worker::run(const std::atomic<bool>* interrupted) {
  interrupted_ = interrupted;
  control_running_ = true;
  control_thread_ = std::thread([this] { control_loop(); });
  if (std::string error = control_ready_.get_future().get(); !error.empty()) {
    control_running_ = false;
    control_thread_.join();
    throw Error(error);
  }
  connect_to_ps();
  for (size_t i = 0; i < ps_.size(); ++i) register_partition(i);
  if (rank_ == 0) initialize_ps_variables();
  log_line("worker " + std::to_string(options_.task) + ": " + plan_.summary + "; " + status_.mode);

  const auto start = std::chrono::steady_clock::now();
  std::optional<double> first_loss, last_loss;
  int64_t examples = 0;
  int done_steps = 0, code = 0;
  for (int step = 1; step <= options_.steps; ++step) {
    if (!between_steps(interrupted)) {
      code = interrupted && interrupted->load() ? 130 : 0;
      break;
    }
    set_state("training");
    std::vector<std::vector<NamedTensor>> pulled(ps_.size());
    FeedList feeds = draw_batch();
    if (!feeds.empty() && feeds[0].second.shape().rank() > 0) examples += feeds[0].second.shape().dim(0);
    std::vector<int64_t> pulled_step(ps_.size());
    for (size_t i = 0; i < ps_.size(); ++i) {
      pulled[i] = pull(static_cast<int>(i), options_.sync ? next_pull_step_[i] : 0);
      pulled_step[i] = next_pull_step_[i];
      // The rendezvous: each received tensor takes its _Recv node's place.
      for (size_t k = 0; k < pulled[i].size(); ++k)
        if (!plan_.ps[i].pull_feeds[k].empty()) feeds.emplace_back(plan_.ps[i].pull_feeds[k], pulled[i][k].value);
    }
    std::vector<Tensor> out = session_->run(feeds, step_fetches_, plan_.worker_targets);
    size_t next = options_.loss.empty() ? 0 : 1;
    std::vector<std::vector<NamedTensor>> sent(ps_.size());
    for (size_t i = 0; i < ps_.size(); ++i) {
      for (const std::string& key : plan_.ps[i].push_keys) sent[i].push_back({key, std::move(out[next++])});
      // What this ps receives from another ps task, carried by the worker.
      for (const PsLink::Relay& r : plan_.ps[i].relays)
        sent[i].push_back({r.key, r.from_link < 0 ? Tensor::scalar<float>(0.0f)
                                                  : pulled[static_cast<size_t>(r.from_link)][static_cast<size_t>(r.pull_index)].value});
    }
    for (size_t i = 0; i < ps_.size(); ++i) push(static_cast<int>(i), sent[i], pulled_step[i]);

    std::optional<double> loss;
    if (!options_.loss.empty()) loss = scalar_value(out[0], "loss '" + options_.loss + "'");
    if (!first_loss) first_loss = loss;
    last_loss = loss;
    done_steps = step;
    // The status reads these counters on the control thread; the training
    // lock below is for fetches and step events only.
    note_pulled_variables(pulled);
    note_transfers(pulled, sent);
    loss_.store(loss.value_or(std::numeric_limits<double>::quiet_NaN()), std::memory_order_relaxed);
    step_.store(step, std::memory_order_release);
    {
      std::lock_guard lock(mu_);
      last_feeds_ = std::move(feeds);
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
  set_state("done", stop_reason);
  finish();
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
