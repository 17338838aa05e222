#include "ops/resources/queue.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/blocking_region.h"
#include "common/error.h"
#include "graph/edge_index.h"
#include "graph/graph.h"
#include "tensor/copy_rows.h"

namespace flowlens {
namespace {

std::string types_string(const std::vector<DType>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + dtype_name(types[i]);
  return s;
}

// A tensor of zeros ("" strings, empty handles) of this dtype and shape.
Tensor zeros(DType dtype, Shape shape) {
  Tensor t(dtype, std::move(shape));
  if (const size_t size = dtype_size(dtype); size > 0 && t.num_elements() > 0)
    std::memset(t.raw_data(), 0, static_cast<size_t>(t.num_elements()) * size);
  return t;
}

Shape drop_first(const Shape& s) {
  return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
}

Shape prepend(int64_t n, const Shape& s) {
  std::vector<int64_t> dims{n};
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  return Shape(std::move(dims));
}

// Whether `actual` fits the partial shape `want` (-1 dims match anything).
bool compatible(const Shape& want, const Shape& actual) {
  if (!want.rank_known()) return true;
  if (want.rank() != actual.rank()) return false;
  for (int i = 0; i < want.rank(); ++i)
    if (want.dim(i) >= 0 && want.dim(i) != actual.dim(i)) return false;
  return true;
}

// Copies `elem` into row `row` of `batch`, whose element shape is at least
// elem's in every dimension (padding: the rest keeps its zeros).
void place_padded(Tensor& batch, int64_t row, const Tensor& elem) {
  const Shape slot = drop_first(batch.shape());
  const int64_t slot_elements = slot.num_elements();
  const int rank = elem.shape().rank();
  if (elem.num_elements() == 0) return;
  if (rank == 0 || slot == elem.shape()) {
    copy_host_elements(batch, row * slot_elements, elem, 0, elem.num_elements());
    return;
  }
  // Runs along the last dimension, for every index of the others.
  const int64_t run = elem.shape().dim(rank - 1);
  std::vector<int64_t> index(static_cast<size_t>(rank - 1), 0);
  std::vector<int64_t> slot_stride(static_cast<size_t>(rank), 1);
  for (int i = rank - 2; i >= 0; --i) slot_stride[static_cast<size_t>(i)] = slot_stride[static_cast<size_t>(i + 1)] * slot.dim(i + 1);
  int64_t src = 0;
  for (;;) {
    int64_t dst = row * slot_elements;
    for (int i = 0; i < rank - 1; ++i) dst += index[static_cast<size_t>(i)] * slot_stride[static_cast<size_t>(i)];
    copy_host_elements(batch, dst, elem, src, run);
    src += run;
    int i = rank - 2;
    for (; i >= 0; --i) {
      if (++index[static_cast<size_t>(i)] < elem.shape().dim(i)) break;
      index[static_cast<size_t>(i)] = 0;
    }
    if (i < 0) return;
  }
}

}  // namespace

std::string shape_list_string(const std::vector<Shape>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].to_string();
  return s + "]";
}

Queue::Queue(QueueOptions options) : o_(std::move(options)) {
  if (o_.capacity < 0 || o_.capacity > kUnbounded) o_.capacity = kUnbounded;
  if (o_.dtypes.empty()) throw Error(kind() + " '" + o_.name + "': component_types must name at least one type");
  if (!o_.shapes.empty() && o_.shapes.size() != o_.dtypes.size())
    throw Error("Different number of component types.  Types: " + types_string(o_.dtypes) +
                ", Shapes: " + shape_list_string(o_.shapes));
  if (o_.type == QueueType::PaddingFIFO && o_.shapes.size() != o_.dtypes.size())
    throw Error("Shapes must be provided for all components, but received " + std::to_string(o_.dtypes.size()) +
                " dtypes and " + std::to_string(o_.shapes.size()) + " shapes.");
  for (size_t i = 0; i < o_.shapes.size(); ++i) {
    const Shape& s = o_.shapes[i];
    if (!s.rank_known())
      throw Error(kind() + " '" + o_.name + "': shapes[" + std::to_string(i) + "] has unknown rank");
    for (int64_t d : s.dims()) {
      if (d < -1) throw Error(kind() + " '" + o_.name + "': shapes[" + std::to_string(i) + "] " + s.to_string() +
                              " has a negative dimension");
      if (d == -1 && o_.type != QueueType::PaddingFIFO)
        throw Error(kind() + " '" + o_.name + "': shapes[" + std::to_string(i) + "] " + s.to_string() +
                    " is not fully defined (only a PaddingFIFOQueue takes unknown dimensions)");
    }
    if (!Shape::checked_num_elements(s.dims()) && s.fully_defined())
      throw Error(kind() + " '" + o_.name + "': shapes[" + std::to_string(i) + "] " + s.to_string() + " is too large");
  }
  if (o_.type == QueueType::RandomShuffle) {
    if (o_.min_after_dequeue < 0)
      throw Error("min_after_dequeue " + std::to_string(o_.min_after_dequeue) + " must be >= 0");
    if (o_.min_after_dequeue >= o_.capacity)
      throw Error("min_after_dequeue " + std::to_string(o_.min_after_dequeue) + " must be < capacity " +
                  std::to_string(o_.capacity));
    if (o_.seed == 0 && o_.seed2 == 0)
      rng_.seed(std::random_device{}());
    else
      rng_.seed(static_cast<uint64_t>(o_.seed) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(o_.seed2));
  }
}

std::string queue_kind_name(QueueType type) {
  switch (type) {
    case QueueType::FIFO: return "FIFOQueue";
    case QueueType::RandomShuffle: return "RandomShuffleQueue";
    case QueueType::PaddingFIFO: return "PaddingFIFOQueue";
  }
  return "Queue";
}

std::string Queue::kind() const { return queue_kind_name(o_.type); }

std::string Queue::describe_locked() const {
  std::string s = kind() + " '" + o_.name + "' (" + std::to_string(elements_.size());
  s += o_.capacity == kUnbounded ? " elements, unbounded" : " of " + std::to_string(o_.capacity) + " elements";
  return s + (closed_ ? ", closed)" : ", open)");
}

std::string Queue::describe() const {
  std::lock_guard lock(mu_);
  return describe_locked();
}

QueueSnapshot Queue::snapshot_locked() const {
  return {describe_locked(), static_cast<int64_t>(elements_.size()), closed_, total_enqueued_, runner_status_};
}

QueueSnapshot Queue::snapshot() const {
  std::lock_guard lock(mu_);
  return snapshot_locked();
}

bool Queue::is_closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

int64_t Queue::size() const {
  std::lock_guard lock(mu_);
  return static_cast<int64_t>(elements_.size());
}

void Queue::set_runner_status(std::string status) {
  std::lock_guard lock(mu_);
  runner_status_ = std::move(status);
}

void Queue::check_matches(const QueueOptions& r) const {
  QueueOptions requested = r;
  if (requested.capacity < 0 || requested.capacity > kUnbounded) requested.capacity = kUnbounded;
  if (requested.type != o_.type) {
    throw Error("Shared queue '" + o_.name + "' is a " + kind() + ", and this node asks for a " +
                queue_kind_name(requested.type));
  }
  if (requested.capacity != o_.capacity)
    throw Error("Shared queue '" + o_.name + "' has capacity " + std::to_string(o_.capacity) +
                " but requested capacity was " + std::to_string(requested.capacity));
  if (requested.dtypes != o_.dtypes)
    throw Error("Shared queue '" + o_.name + "' has component types " + types_string(o_.dtypes) +
                " but requested component types were " + types_string(requested.dtypes));
  if (requested.shapes != o_.shapes)
    throw Error("Shared queue '" + o_.name + "' has component shapes " + shape_list_string(o_.shapes) +
                " but requested component shapes were " + shape_list_string(requested.shapes));
}

void Queue::validate_tuple(const Tuple& tuple) const {
  if (tuple.size() != o_.dtypes.size())
    throw Error("Wrong number of components in tuple. Expected " + std::to_string(o_.dtypes.size()) + ", got " +
                std::to_string(tuple.size()));
  for (size_t i = 0; i < tuple.size(); ++i)
    if (tuple[i].dtype() != o_.dtypes[i])
      throw Error("Type mismatch in tuple component " + std::to_string(i) + ". Expected " + dtype_name(o_.dtypes[i]) +
                  ", got " + dtype_name(tuple[i].dtype()));
  if (specified_shapes())
    for (size_t i = 0; i < tuple.size(); ++i)
      if (!compatible(o_.shapes[i], tuple[i].shape()))
        throw Error("Shape mismatch in tuple component " + std::to_string(i) + ". Expected " +
                    o_.shapes[i].to_string() + ", got " + tuple[i].shape().to_string());
}

void Queue::validate_many_tuple(const Tuple& tuple) const {
  if (tuple.size() != o_.dtypes.size())
    throw Error("Wrong number of components in tuple. Expected " + std::to_string(o_.dtypes.size()) + ", got " +
                std::to_string(tuple.size()));
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (tuple[i].dtype() != o_.dtypes[i])
      throw Error("Type mismatch in tuple component " + std::to_string(i) + ". Expected " + dtype_name(o_.dtypes[i]) +
                  ", got " + dtype_name(tuple[i].dtype()));
    if (tuple[i].shape().rank() < 1)
      throw Error("Shape mismatch in tuple component " + std::to_string(i) +
                  ": an EnqueueMany component needs a batch dimension, got a scalar");
  }
  const int64_t batch = tuple[0].shape().dim(0);
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (specified_shapes()) {
      const Shape expected = prepend(batch, o_.shapes[i]);
      if (!compatible(expected, tuple[i].shape()))
        throw Error("Shape mismatch in tuple component " + std::to_string(i) + ". Expected " + expected.to_string() +
                    ", got " + tuple[i].shape().to_string());
    } else if (tuple[i].shape().dim(0) != batch) {
      throw Error("All input tensors must have the same size in the 0th dimension. Component " + std::to_string(i) +
                  " has " + std::to_string(tuple[i].shape().dim(0)) + ", and should have " + std::to_string(batch));
    }
  }
}

template <class Pred, class Cancelled>
void Queue::wait_locked(std::unique_lock<std::mutex>& lock, const QueueWait& wait, Pred pred, Cancelled cancelled,
                        const char* what) {
  if (pred()) return;
  if (cancelled()) throw CancelledError(std::string(what) + " operation was cancelled");
  if (!wait.run)
    throw Error(wait.op + " would wait on " + describe_locked() +
                " and runs outside a session, where nothing else can reach the queue");
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(std::max(0.0, wait.timeout_s)));
  BlockingRegion region;  // the pool lends a thread while this one waits
  for (;;) {
    cv_.wait_for(lock, std::chrono::milliseconds(20));
    if (pred()) return;
    if (cancelled() || wait.run->is_cancelled())
      throw CancelledError(std::string(what) + " operation was cancelled");
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      // The timeout as configured (the wait itself overshoots by a poll).
      if (wait.timeout_message) throw DeadlineExceededError(wait.timeout_message(snapshot_locked(), wait.timeout_s));
      throw DeadlineExceededError(wait.op + " timed out waiting on " + describe_locked());
    }
  }
}

// A place in an attempt line, left (and the others woken) however the attempt ends.
struct Queue::LineTicket {
  Queue& q;
  std::deque<uint64_t>& line;
  uint64_t ticket;
  LineTicket(Queue& queue, std::deque<uint64_t>& l, uint64_t& next) : q(queue), line(l), ticket(next++) {
    line.push_back(ticket);
  }
  ~LineTicket() {
    line.erase(std::find(line.begin(), line.end(), ticket));
    q.finish_close_locked();
    q.cv_.notify_all();
  }
  bool first() const { return line.front() == ticket; }
};

void Queue::finish_close_locked() {
  if (!closing_ || closed_) return;
  for (uint64_t t : enqueue_line_)
    if (t < close_ticket_) return;
  closed_ = true;
  cv_.notify_all();
}

void Queue::enqueue(const Tuple& tuple, const QueueWait& wait) {
  validate_tuple(tuple);
  Tuple element;
  for (const Tensor& t : tuple) element.push_back(t.to_host());
  std::unique_lock lock(mu_);
  if (closed_ || closing_) throw CancelledError(kind() + " '" + o_.name + "' is closed.");
  LineTicket place(*this, enqueue_line_, next_enqueue_ticket_);
  wait_locked(
      lock, wait, [&] { return place.first() && static_cast<int64_t>(elements_.size()) < o_.capacity; },
      [&] { return place.ticket < cancel_below_; }, "Enqueue");
  elements_.push_back(std::move(element));
  ++total_enqueued_;
}

void Queue::enqueue_many(const Tuple& tuple, const QueueWait& wait) {
  validate_many_tuple(tuple);
  const int64_t batch = tuple[0].shape().dim(0);
  if (batch == 0) return;
  Tuple host;
  for (const Tensor& t : tuple) host.push_back(t.to_host());
  std::unique_lock lock(mu_);
  if (closed_ || closing_) throw CancelledError(kind() + " '" + o_.name + "' is closed.");
  LineTicket place(*this, enqueue_line_, next_enqueue_ticket_);
  for (int64_t index = 0; index < batch;) {
    wait_locked(
        lock, wait, [&] { return place.first() && static_cast<int64_t>(elements_.size()) < o_.capacity; },
        [&] { return place.ticket < cancel_below_; }, "Enqueue");
    while (index < batch && static_cast<int64_t>(elements_.size()) < o_.capacity) {
      Tuple element;
      for (const Tensor& t : host) {
        Tensor e(t.dtype(), drop_first(t.shape()));
        copy_host_elements(e, 0, t, index * e.num_elements(), e.num_elements());
        element.push_back(std::move(e));
      }
      elements_.push_back(std::move(element));
      ++total_enqueued_;
      ++index;
    }
    cv_.notify_all();
  }
}

int64_t Queue::available_locked() const {
  const auto size = static_cast<int64_t>(elements_.size());
  if (o_.type != QueueType::RandomShuffle || closed_) return size;
  return std::max<int64_t>(0, size - o_.min_after_dequeue);
}

Queue::Tuple Queue::take_one_locked() {
  Tuple out;
  if (o_.type == QueueType::RandomShuffle) {
    const size_t n = elements_.size();
    const size_t index = n == 1 ? 0 : static_cast<size_t>(rng_() % n);
    std::swap(elements_[index], elements_.back());
    out = std::move(elements_.back());
    elements_.pop_back();
  } else {
    out = std::move(elements_.front());
    elements_.pop_front();
  }
  return out;
}

void Queue::put_back_locked(std::vector<Tuple>& taken) {
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) elements_.push_front(std::move(*it));
  taken.clear();
  cv_.notify_all();
}

Queue::Tuple Queue::dequeue(const QueueWait& wait) {
  std::unique_lock lock(mu_);
  LineTicket place(*this, dequeue_line_, next_dequeue_ticket_);
  wait_locked(
      lock, wait, [&] { return place.first() && (available_locked() > 0 || (closed_ && elements_.empty())); },
      [] { return false; }, "Dequeue");
  if (available_locked() == 0)
    throw OutOfRangeError(kind() + " '" + o_.name + "' is closed and has insufficient elements (requested 1, current size " +
                          std::to_string(elements_.size()) + ")");
  return take_one_locked();
}

Queue::Tuple Queue::batch_of(const std::vector<Tuple>& taken) const {
  Tuple out;
  const auto n = static_cast<int64_t>(taken.size());
  for (int c = 0; c < num_components(); ++c) {
    const auto ci = static_cast<size_t>(c);
    Shape element;
    if (o_.type == QueueType::PaddingFIFO) {
      // Each unknown dimension padded to the largest among the elements.
      element = o_.shapes[ci];
      for (int d = 0; d < element.rank(); ++d) {
        if (o_.shapes[ci].dim(d) >= 0) continue;
        int64_t most = 0;
        for (const Tuple& t : taken) most = std::max(most, t[ci].shape().dim(d));
        element.dim(d) = most;
      }
    } else {
      element = specified_shapes() ? o_.shapes[ci] : taken.front()[ci].shape();
    }
    const Shape shape = prepend(n, element);
    if (!Shape::checked_num_elements(shape.dims()))
      throw Error(kind() + " '" + o_.name + "': a batch of shape " + shape.to_string() + " is too large");
    Tensor batch = zeros(o_.dtypes[ci], shape);
    for (int64_t row = 0; row < n; ++row) place_padded(batch, row, taken[static_cast<size_t>(row)][ci]);
    out.push_back(std::move(batch));
  }
  return out;
}

Queue::Tuple Queue::dequeue_many(int64_t n, bool up_to, const QueueWait& wait) {
  if (o_.type != QueueType::PaddingFIFO && !specified_shapes())
    throw Error(kind() + "'s DequeueMany and DequeueUpTo require the components to have specified shapes.");
  if (n == 0) {
    Tuple out;
    for (int c = 0; c < num_components(); ++c) {
      Shape element = o_.shapes[static_cast<size_t>(c)];
      for (int d = 0; d < element.rank(); ++d) element.dim(d) = std::max<int64_t>(element.dim(d), 0);
      out.push_back(zeros(o_.dtypes[static_cast<size_t>(c)], prepend(0, element)));
    }
    return out;
  }
  std::unique_lock lock(mu_);
  LineTicket place(*this, dequeue_line_, next_dequeue_ticket_);
  std::vector<Tuple> taken;
  try {
    for (;;) {
      wait_locked(
          lock, wait,
          [&] { return place.first() && (available_locked() > 0 || (closed_ && enqueue_line_.empty())); },
          [] { return false; }, "Dequeue");
      const int64_t wanted = n - static_cast<int64_t>(taken.size());
      if (closed_ && available_locked() < wanted) {
        const auto size_now = static_cast<int64_t>(elements_.size());
        put_back_locked(taken);
        if (up_to && !elements_.empty()) {
          // Whatever is left, fewer than n.
          while (!elements_.empty()) taken.push_back(take_one_locked());
          return batch_of(taken);
        }
        throw OutOfRangeError(kind() + " '" + o_.name + "' is closed and has insufficient elements (requested " +
                              std::to_string(wanted) + ", current size " + std::to_string(size_now) + ")");
      }
      while (static_cast<int64_t>(taken.size()) < n && available_locked() > 0) taken.push_back(take_one_locked());
      cv_.notify_all();  // room for waiting enqueues
      if (static_cast<int64_t>(taken.size()) == n) return batch_of(taken);
    }
  } catch (const OutOfRangeError&) {
    throw;
  } catch (...) {
    put_back_locked(taken);  // cancelled or timed out: the elements stay in the queue
    throw;
  }
}

void Queue::close(bool cancel_pending_enqueues) {
  std::lock_guard lock(mu_);
  if (cancel_pending_enqueues) {
    closed_ = closing_ = true;
    cancel_below_ = next_enqueue_ticket_;
    cv_.notify_all();
    return;
  }
  if (closed_ || closing_) throw CancelledError("Queue '" + o_.name + "' is already closed.");
  closing_ = true;
  close_ticket_ = next_enqueue_ticket_;
  finish_close_locked();
}

bool is_queue_op(std::string_view op) {
  return op == "FIFOQueueV2" || op == "RandomShuffleQueueV2" || op == "PaddingFIFOQueueV2";
}
bool is_enqueue_op(std::string_view op) { return op == "QueueEnqueueV2" || op == "QueueEnqueueManyV2"; }
bool is_dequeue_op(std::string_view op) {
  return op == "QueueDequeueV2" || op == "QueueDequeueManyV2" || op == "QueueDequeueUpToV2";
}

int queue_node_of(const Graph& graph, int node) {
  for (int hops = 0; hops < 64 && node >= 0; ++hops) {
    const auto inputs = graph.edges().inputs(node);
    if (inputs.empty() || !inputs[0].resolved() || inputs[0].is_control()) return -1;
    node = inputs[0].producer;
    const std::string& op = graph.nodes()[static_cast<size_t>(node)].op;
    if (is_queue_op(op)) return node;
    if (op != "Identity") return -1;
  }
  return -1;
}

QueueUsers queue_users(const Graph& graph, int queue) {
  QueueUsers u;
  for (size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.nodes()[i];
    const bool enqueue = is_enqueue_op(n.op), dequeue = is_dequeue_op(n.op), close = n.op == "QueueCloseV2";
    if (!enqueue && !dequeue && !close) continue;
    if (queue_node_of(graph, static_cast<int>(i)) != queue) continue;
    if (enqueue) u.enqueue_ops.push_back(static_cast<int>(i));
    if (dequeue) u.dequeue_ops.push_back(static_cast<int>(i));
    if (close) (n.attr_bool("cancel_pending_enqueues", false) ? u.cancel_ops : u.close_ops).push_back(static_cast<int>(i));
  }
  return u;
}

}  // namespace flowlens
