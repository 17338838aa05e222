#pragma once
// TensorFlow's gradient accumulators (tensorflow/core/kernels/
// conditional_accumulator_base.{h,cc}, typed_conditional_accumulator_base.h,
// conditional_accumulator.h, sparse_conditional_accumulator.h) as session
// resources (ops/framework/run_context.h), the state behind
// tf.train.SyncReplicasOptimizer.
//
// An accumulator sums the gradients applied to it. One whose local_step is
// below the accumulator's global step is stale and silently dropped, before
// any check of its shape (TensorFlow's TryApplyGrad). A take waits until at
// least num_required gradients have arrived, then increments the global
// step, divides by the count when reduction_type is MEAN, hands the result
// out and resets the count. Takes are served in arrival order; a waiting
// take gives up when its run is cancelled ("TakeGrad operation was
// cancelled") and after the session's blocking timeout, with a message naming
// the accumulator, how many gradients arrived and how many were stale;
// outside a session a take that would wait fails at once.
//
// The sparse accumulator keeps TensorFlow's representation: row indices, one
// values slice per index and a count per index. A new gradient is merged as
// a sorted merge of two index lists, the way TensorFlow does it: indices that
// meet in that merge add up (their counts too), and MEAN divides each slice
// by its own count, not by the number of gradients. Neither side is sorted
// first, exactly as in TensorFlow, so gradients with unsorted or repeated
// indices give TensorFlow's (merge-order) result.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "ops/framework/run_context.h"
#include "tensor/resource_handle.h"
#include "tensor/tensor.h"

namespace flowlens {

enum class AccumulatorReduction { Mean, Sum };

// How a take waits.
struct AccumulatorWait {
  // nullptr (outside a session): a take that would wait fails at once.
  const RunContext* run = nullptr;
  double timeout_s = 60;
  std::string op;  // "AccumulatorTakeGradient 'take'", for messages
};

class ConditionalAccumulatorBase : public ResourceBase {
 public:
  ConditionalAccumulatorBase(DType dtype, Shape shape, std::string name, AccumulatorReduction reduction);

  std::string describe() const override;
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const std::string& name() const { return name_; }
  AccumulatorReduction reduction() const { return reduction_; }

  // TensorFlow's num_accumulated: gradients applied since the last take.
  int32_t num_accumulated() const;
  int64_t global_step() const;
  // TensorFlow's SetGlobalStep: the step is set even when smaller than the
  // current one (TensorFlow then only logs a warning); returns that warning's
  // text in that case, else "".
  std::string set_global_step(int64_t new_global_step);

 protected:
  struct TakeTicket;
  // With the lock held and a place in the line of takes: waits until this
  // take is first in line and num_required gradients have arrived.
  void wait_for_take_locked(std::unique_lock<std::mutex>& lock, const TakeTicket& ticket, int64_t num_required,
                            const AccumulatorWait& wait);
  std::string describe_locked() const;
  // Whether a gradient computed at local_step still counts; counts a stale one.
  bool accepts_locked(int64_t local_step);

  const DType dtype_;
  const Shape shape_;
  const std::string name_;
  const AccumulatorReduction reduction_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int counter_ = 0;
  int64_t current_global_step_ = 0;
  int64_t stale_dropped_ = 0;  // since the last take, for timeout messages
  uint64_t next_ticket_ = 0;
  std::deque<uint64_t> take_line_;
};

// ConditionalAccumulator / ResourceConditionalAccumulator: dense gradients
// of dtype half, float or double (TensorFlow's CPU kernels).
class ConditionalAccumulator : public ConditionalAccumulatorBase {
 public:
  using ConditionalAccumulatorBase::ConditionalAccumulatorBase;
  std::string kind() const override { return "ConditionalAccumulator"; }

  // TryApplyGrad: false when the gradient was stale and dropped. Throws
  // Error "Shape mismatch: expected [2,3], got [3]" against the gradients
  // accumulated so far and against the accumulator's (partial) shape.
  bool apply(int64_t local_step, const Tensor& gradient);
  Tensor take(int64_t num_required, const AccumulatorWait& wait);
  // What a take would give now: the pending sum's shape, else the attr's.
  Shape pending_shape() const;

 private:
  Tensor accum_;
};

struct SparseGradient {
  Tensor indices;  // int64 [nnz]
  Tensor values;   // dtype [nnz, ...]
  Tensor shape;    // int64 [rank]
};

// SparseConditionalAccumulator: IndexedSlices gradients.
class SparseConditionalAccumulator : public ConditionalAccumulatorBase {
 public:
  using ConditionalAccumulatorBase::ConditionalAccumulatorBase;
  std::string kind() const override { return "SparseConditionalAccumulator"; }

  // `dense_shape` is nullptr when has_known_shape is false.
  bool apply(int64_t local_step, const Tensor& indices, const Tensor& values, const Tensor* dense_shape);
  SparseGradient take(int64_t num_required, const AccumulatorWait& wait);

 private:
  void check_gradient_locked(const Tensor& indices, const Tensor& values, const Tensor* dense_shape) const;
  std::vector<int64_t> accum_indices_;
  std::vector<int> counts_;
  Tensor accum_values_;
};

}  // namespace flowlens
