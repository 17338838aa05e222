#pragma once
// TensorFlow's queues (tensorflow/core/kernels/queue_base.cc, fifo_queue.cc,
// random_shuffle_queue_op.cc, padding_fifo_queue.cc) as one session resource
// (ops/framework/run_context.h): a FIFOQueue, RandomShuffleQueue or PaddingFIFOQueue
// of tuples of tensors, with TensorFlow's checks and messages.
//
// Like TensorFlow's, enqueue attempts are served in arrival order, and so are
// dequeue attempts (a DequeueMany takes its elements contiguously, as they
// arrive, so a batch larger than the capacity still completes). A wait gives
// up when its run is cancelled and after the session's blocking timeout, with
// a message naming the queue and who should fill it (QueueWait); outside a
// session (a kernel called directly) an attempt that would wait fails at once.
// A waiting kernel sits in a BlockingRegion, so its thread pool lends a spare
// thread meanwhile.
//
// Differences from TensorFlow, on purpose: RandomShuffleQueue's draws come
// from a std::mt19937_64 seeded with seed and seed2 (reproducible, not
// TensorFlow's Philox stream); a cancelled DequeueMany puts the elements it
// had taken back at the front instead of dropping them; QueueClose returns at
// once, the queue counting as closed once the enqueues that came before it
// have finished (TensorFlow's close op waits for them).
#include <cstdint>
#include <deque>
#include <functional>
#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ops/framework/run_context.h"
#include "tensor/resource_handle.h"
#include "tensor/tensor.h"

namespace flowlens {

enum class QueueType { FIFO, RandomShuffle, PaddingFIFO };

struct QueueOptions {
  QueueType type = QueueType::FIFO;
  std::string name;           // shared_name, or the queue node's name
  int64_t capacity = -1;      // < 0: unbounded (TensorFlow's INT32_MAX)
  std::vector<DType> dtypes;  // component_types
  std::vector<Shape> shapes;  // empty: unspecified; PaddingFIFOQueue: dims may be -1
  int64_t min_after_dequeue = 0;
  int64_t seed = 0, seed2 = 0;
};

// What a timed-out wait reports (taken under the queue's lock).
struct QueueSnapshot {
  std::string description;  // "FIFOQueue 'q' (0 of 32 elements, open)"
  int64_t size = 0;
  bool closed = false;
  int64_t total_enqueued = 0;  // elements ever enqueued
  std::string runner_status;   // what a queue runner says about itself ("" when none runs)
};

struct QueueWait {
  // nullptr (outside a session): an attempt that would wait fails at once.
  const RunContext* run = nullptr;
  double timeout_s = 60;
  // The message of a wait that timed out ("QueueDequeueV2 'batch' waited 60 s
  // on ..."); `seconds` is the timeout it waited out.
  std::function<std::string(const QueueSnapshot&, double seconds)> timeout_message;
  // The message for an attempt that would wait outside a session.
  std::string op;  // "QueueDequeueV2 'batch'"
};

class Queue : public ResourceBase {
 public:
  using Tuple = std::vector<Tensor>;
  static constexpr int64_t kUnbounded = 2147483647;  // TensorFlow's INT32_MAX

  // Throws Error for options TensorFlow's queue ops refuse (shape counts,
  // min_after_dequeue against capacity, partial shapes outside PaddingFIFOQueue).
  explicit Queue(QueueOptions options);

  std::string kind() const override;
  std::string describe() const override;
  const std::string& name() const { return o_.name; }
  const QueueOptions& options() const { return o_; }
  int num_components() const { return static_cast<int>(o_.dtypes.size()); }
  int64_t capacity() const { return o_.capacity; }

  // A queue node naming this queue by its shared_name must ask for the same
  // queue (TensorFlow's MatchesNodeDef messages).
  void check_matches(const QueueOptions& requested) const;

  // Type and shape checks of a tuple (TensorFlow's ValidateTuple / ValidateManyTuple).
  void validate_tuple(const Tuple& tuple) const;
  void validate_many_tuple(const Tuple& tuple) const;

  void enqueue(const Tuple& tuple, const QueueWait& wait);
  void enqueue_many(const Tuple& tuple, const QueueWait& wait);
  Tuple dequeue(const QueueWait& wait);
  // DequeueMany (up_to false) or DequeueUpTo (true).
  Tuple dequeue_many(int64_t n, bool up_to, const QueueWait& wait);
  // cancel_pending_enqueues: waiting enqueues fail at once ("Enqueue
  // operation was cancelled"); otherwise they may still finish. Closing a
  // closed queue without cancelling is CancelledError "Queue 'q' is already closed."
  void close(bool cancel_pending_enqueues);

  bool is_closed() const;
  int64_t size() const;
  QueueSnapshot snapshot() const;

  // Set by a queue runner (exec/queue_runner.h) for timeout messages.
  void set_runner_status(std::string status);

 private:
  struct LineTicket;
  std::string describe_locked() const;
  QueueSnapshot snapshot_locked() const;
  int64_t available_locked() const;
  Tuple take_one_locked();
  void put_back_locked(std::vector<Tuple>& taken);
  Tuple batch_of(const std::vector<Tuple>& elements) const;
  bool specified_shapes() const { return !o_.shapes.empty(); }
  void finish_close_locked();
  // Waits with the lock held until pred() holds; throws CancelledError when
  // the run is cancelled or `cancelled()` says so, DeadlineExceededError
  // after the timeout, Error outside a session.
  template <class Pred, class Cancelled>
  void wait_locked(std::unique_lock<std::mutex>& lock, const QueueWait& wait, Pred pred, Cancelled cancelled,
                   const char* what);

  QueueOptions o_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Tuple> elements_;
  bool closed_ = false;
  bool closing_ = false;            // close requested; closed_ once earlier enqueues finish
  uint64_t close_ticket_ = 0;       // enqueues with a smaller ticket came before the close
  uint64_t cancel_below_ = 0;       // enqueues with a smaller ticket are cancelled
  uint64_t next_enqueue_ticket_ = 0, next_dequeue_ticket_ = 0;
  std::deque<uint64_t> enqueue_line_, dequeue_line_;
  int64_t total_enqueued_ = 0;
  std::string runner_status_;
  std::mt19937_64 rng_;
};

// ---- queues in a graph ------------------------------------------------------------
// (the dequeue ops' timeout messages and exec/queue_runner.h read these)

class Graph;

bool is_queue_op(std::string_view op);    // FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2
bool is_enqueue_op(std::string_view op);  // QueueEnqueueV2, QueueEnqueueManyV2
bool is_dequeue_op(std::string_view op);  // QueueDequeueV2, QueueDequeueManyV2, QueueDequeueUpToV2
// The queue node whose handle node `node`'s input 0 carries (through
// Identity), or -1.
int queue_node_of(const Graph& graph, int node);
// The nodes that act on the queue made by node `queue`, in graph order.
struct QueueUsers {
  std::vector<int> enqueue_ops;
  std::vector<int> dequeue_ops;
  std::vector<int> close_ops;   // QueueCloseV2, cancel_pending_enqueues false
  std::vector<int> cancel_ops;  // QueueCloseV2, cancel_pending_enqueues true
};
QueueUsers queue_users(const Graph& graph, int queue);

// "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue".
std::string queue_kind_name(QueueType type);

// "[2,3]" lists as TensorFlow's ShapeListString prints them: "[[2,3], [?]]".
std::string shape_list_string(const std::vector<Shape>& shapes);

}  // namespace flowlens
