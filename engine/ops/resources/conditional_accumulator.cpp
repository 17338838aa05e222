#include "ops/resources/conditional_accumulator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "common/blocking_region.h"
#include "common/error.h"
#include "tensor/float16.h"

namespace flowlens {
namespace {

// Calls f(T{}) for the accumulators' element types (TensorFlow registers
// its CPU kernels for half, float and double only).
template <class F>
void accumulator_dispatch(DType dtype, const std::string& what, F&& f) {
  switch (dtype) {
    case DType::Half: f(float16{}); return;
    case DType::Float: f(float{}); return;
    case DType::Double: f(double{}); return;
    default:
      throw Error(what + ": no kernel for dtype " + dtype_name(dtype) +
                  " (TensorFlow's accumulators take half, float or double)");
  }
}

std::string accumulator_seconds_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", seconds);
  return buf;
}

// The accumulator's partial shape admits `actual` (PartialTensorShape::IsCompatibleWith).
bool accumulator_shape_admits(const Shape& partial, const Shape& actual) {
  if (!partial.rank_known()) return true;
  if (partial.rank() != actual.rank()) return false;
  for (int i = 0; i < partial.rank(); ++i)
    if (partial.dim(i) >= 0 && partial.dim(i) != actual.dim(i)) return false;
  return true;
}

// The length of one row of a tensor seen as [dim 0, everything else] (flat_outer_dims).
int64_t accumulator_row_length(const Tensor& t) {
  int64_t n = 1;
  for (int i = 1; i < t.shape().rank(); ++i) n *= t.shape().dim(i);
  return n;
}

}  // namespace

// ---- the base: counter, global step, the line of takes ----------------------------

ConditionalAccumulatorBase::ConditionalAccumulatorBase(DType dtype, Shape shape, std::string name,
                                                       AccumulatorReduction reduction)
    : dtype_(dtype), shape_(std::move(shape)), name_(std::move(name)), reduction_(reduction) {}

std::string ConditionalAccumulatorBase::describe_locked() const {
  return kind() + " '" + name_ + "' (" + std::to_string(counter_) + " gradient(s) accumulated, global step " +
         std::to_string(current_global_step_) + ")";
}

std::string ConditionalAccumulatorBase::describe() const {
  std::lock_guard lock(mu_);
  return describe_locked();
}

int32_t ConditionalAccumulatorBase::num_accumulated() const {
  std::lock_guard lock(mu_);
  return counter_;
}

int64_t ConditionalAccumulatorBase::global_step() const {
  std::lock_guard lock(mu_);
  return current_global_step_;
}

std::string ConditionalAccumulatorBase::set_global_step(int64_t new_global_step) {
  std::lock_guard lock(mu_);
  std::string warning;
  if (new_global_step < current_global_step_)
    warning = "Attempt to set current_global_step_ to smaller value: current_global_step_ = " +
              std::to_string(current_global_step_) + " >= " + std::to_string(new_global_step) + " = new_global_step.";
  current_global_step_ = new_global_step;
  return warning;
}

bool ConditionalAccumulatorBase::accepts_locked(int64_t local_step) {
  if (local_step >= current_global_step_) return true;
  ++stale_dropped_;
  return false;
}

// A place in the line of takes, left (and the others woken) however the take ends.
struct ConditionalAccumulatorBase::TakeTicket {
  ConditionalAccumulatorBase& acc;
  uint64_t ticket;
  explicit TakeTicket(ConditionalAccumulatorBase& a) : acc(a), ticket(a.next_ticket_++) {
    acc.take_line_.push_back(ticket);
  }
  ~TakeTicket() {
    acc.take_line_.erase(std::find(acc.take_line_.begin(), acc.take_line_.end(), ticket));
    acc.cv_.notify_all();
  }
  bool first() const { return acc.take_line_.front() == ticket; }
};

void ConditionalAccumulatorBase::wait_for_take_locked(std::unique_lock<std::mutex>& lock, const TakeTicket& ticket,
                                                      int64_t num_required, const AccumulatorWait& wait) {
  auto ready = [&] { return ticket.first() && counter_ >= num_required; };
  if (wait.run && wait.run->is_cancelled()) throw CancelledError("TakeGrad operation was cancelled");
  if (ready()) return;
  if (!wait.run)
    throw Error(wait.op + " would wait for " + std::to_string(num_required) + " gradient(s) on " + describe_locked() +
                " and runs outside a session, where nothing else can apply gradients to it");
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(std::max(0.0, wait.timeout_s)));
  BlockingRegion region;  // the pool lends a thread while this one waits
  for (;;) {
    cv_.wait_for(lock, std::chrono::milliseconds(20));
    if (ready()) return;
    if (wait.run->is_cancelled()) throw CancelledError("TakeGrad operation was cancelled");
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string m = wait.op + " waited " + accumulator_seconds_text(wait.timeout_s) + " s for " +
                      std::to_string(num_required) + " gradient(s) on " + describe_locked();
      if (stale_dropped_ > 0)
        m += "; " + std::to_string(stale_dropped_) +
             " stale gradient(s) were dropped since the last take (local_step below the global step: each worker "
             "must take its local_step from the sync token queue)";
      else
        m += "; run the ops that apply gradients to it (in other runs or threads), or ask for fewer";
      throw DeadlineExceededError(m);
    }
  }
}

// ---- dense -------------------------------------------------------------------------

bool ConditionalAccumulator::apply(int64_t local_step, const Tensor& gradient) {
  std::unique_lock lock(mu_);
  if (!accepts_locked(local_step)) return false;
  // TensorFlow's ValidateShape: against the gradients so far, then the attr.
  if (counter_ > 0 && accum_.shape() != gradient.shape())
    throw Error("Shape mismatch: expected " + accum_.shape().to_string() + ", got " + gradient.shape().to_string());
  if (!accumulator_shape_admits(shape_, gradient.shape()))
    throw Error("Shape mismatch: expected " + shape_.to_string() + ", got " + gradient.shape().to_string());
  const Tensor host = gradient.to_host();
  if (counter_ == 0) {
    accum_ = host.clone();
  } else {
    accumulator_dispatch(dtype_, kind(), [&](auto zero) {
      using T = decltype(zero);
      T* a = accum_.data<T>();
      const T* g = host.data<T>();
      for (int64_t i = 0, n = accum_.num_elements(); i < n; ++i) a[i] += g[i];
    });
  }
  ++counter_;
  cv_.notify_all();
  return true;
}

Tensor ConditionalAccumulator::take(int64_t num_required, const AccumulatorWait& wait) {
  if (num_required <= 0)
    throw Error("Argument num_required must be positive, but was " + std::to_string(num_required));
  std::unique_lock lock(mu_);
  TakeTicket ticket(*this);
  wait_for_take_locked(lock, ticket, num_required, wait);
  // TakeGradLockedHelper: the step first, then the average, then the reset.
  ++current_global_step_;
  if (reduction_ == AccumulatorReduction::Mean) {
    accumulator_dispatch(dtype_, kind(), [&](auto zero) {
      using T = decltype(zero);
      const T count = static_cast<T>(counter_);
      T* a = accum_.data<T>();
      for (int64_t i = 0, n = accum_.num_elements(); i < n; ++i) a[i] = a[i] / count;
    });
  }
  counter_ = 0;
  stale_dropped_ = 0;
  // With the count at 0 the next apply starts a fresh sum: the result can go.
  return std::move(accum_);
}

Shape ConditionalAccumulator::pending_shape() const {
  std::lock_guard lock(mu_);
  return counter_ > 0 ? accum_.shape() : shape_;
}

// ---- sparse ------------------------------------------------------------------------

void SparseConditionalAccumulator::check_gradient_locked(const Tensor& indices, const Tensor& values,
                                                         const Tensor* dense_shape) const {
  // GetAndValidateTensorInputForApplyGrad, then ValidateShape, in TensorFlow's order.
  if (indices.shape().rank() != 1)
    throw Error("Input indices should be vector but received shape: " + indices.shape().to_string());
  const int64_t nnz = indices.shape().dim(0);
  if (values.shape().rank() < 1) throw Error("Values cannot be 0-dimensional.");
  if (values.shape().dim(0) != nnz)
    throw Error("Expected " + std::to_string(nnz) + " non-empty input values, got " +
                std::to_string(values.shape().dim(0)));
  const int rank = shape_.rank_known() ? shape_.rank() : -1;
  if (dense_shape) {
    if (rank > dense_shape->num_elements())
      throw Error("Shape mismatch: expected shape rank at least " + std::to_string(rank) + ", got " +
                  std::to_string(dense_shape->num_elements()));
    const int64_t* d = dense_shape->data<int64_t>();
    for (int i = 0; i < rank; ++i)
      if (shape_.dim(i) != -1 && shape_.dim(i) != d[i])
        throw Error("Shape mismatch: expected shape dim " + std::to_string(i) + " to be " +
                    std::to_string(shape_.dim(i)) + ", got " + std::to_string(d[i]));
  }
  if (rank > 0 && shape_.dim(0) != -1) {
    const int64_t* idx = indices.data<int64_t>();
    for (int64_t i = 0; i < nnz; ++i)
      if (idx[i] >= shape_.dim(0))
        throw Error("Shape mismatch: index of slice " + std::to_string(i) + " exceeded limits of shape; index is " +
                    std::to_string(idx[i]) + " exceeded " + std::to_string(shape_.dim(0)));
  }
  const int values_rank = values.shape().rank();
  if (counter_ > 0) {
    const int accum_rank = accum_values_.shape().rank();
    if (accum_rank != values_rank)
      throw Error("Shape mismatch: expected values rank " + std::to_string(accum_rank) + ", got " +
                  std::to_string(values_rank));
    for (int i = 1; i < accum_rank; ++i)
      if (accum_values_.shape().dim(i) != values.shape().dim(i))
        throw Error("Shape mismatch: expected values dim " + std::to_string(i) + " to be " +
                    std::to_string(accum_values_.shape().dim(i)) + ", got " + std::to_string(values.shape().dim(i)));
  } else {
    if (rank > values_rank)
      throw Error("Shape mismatch: expected values rank at least " + std::to_string(rank) + ", got " +
                  std::to_string(values_rank));
    for (int i = 1; i < rank; ++i)
      if (shape_.dim(i) != -1 && shape_.dim(i) != values.shape().dim(i))
        throw Error("Shape mismatch: expected values dim " + std::to_string(i) + " to be " +
                    std::to_string(shape_.dim(i)) + ", got " + std::to_string(values.shape().dim(i)));
  }
}

bool SparseConditionalAccumulator::apply(int64_t local_step, const Tensor& indices_in, const Tensor& values_in,
                                         const Tensor* dense_shape_in) {
  const Tensor indices = indices_in.to_host();
  const Tensor values = values_in.to_host();
  Tensor dense_shape;
  if (dense_shape_in) dense_shape = dense_shape_in->to_host();
  std::unique_lock lock(mu_);
  if (!accepts_locked(local_step)) return false;
  check_gradient_locked(indices, values, dense_shape_in ? &dense_shape : nullptr);
  const int64_t nnz = indices.shape().dim(0);
  const int64_t* idx = indices.data<int64_t>();
  if (counter_ == 0) {
    accum_indices_.assign(idx, idx + nnz);
    accum_values_ = values.clone();
    counts_.assign(static_cast<size_t>(nnz), 1);
  } else {
    // AddToAccumGradFunction: a merge of the two index lists as if both were
    // sorted; indices that meet add up.
    const int64_t cols = accumulator_row_length(values);
    const auto accum_nnz = static_cast<int64_t>(accum_indices_.size());
    enum Source { FromAccum, FromGrad, FromBoth };
    struct Entry {
      Source source;
      int64_t a, g;
    };
    std::vector<Entry> entries;
    entries.reserve(static_cast<size_t>(accum_nnz + nnz));
    int64_t i = 0, j = 0;
    while (i < accum_nnz && j < nnz) {
      const int64_t a = accum_indices_[static_cast<size_t>(i)], b = idx[j];
      if (a < b)
        entries.push_back({FromAccum, i++, -1});
      else if (a > b)
        entries.push_back({FromGrad, -1, j++});
      else
        entries.push_back({FromBoth, i++, j++});
    }
    while (i < accum_nnz) entries.push_back({FromAccum, i++, -1});
    while (j < nnz) entries.push_back({FromGrad, -1, j++});
    std::vector<int64_t> sum_indices;
    std::vector<int> sum_counts;
    sum_indices.reserve(entries.size());
    sum_counts.reserve(entries.size());
    std::vector<int64_t> dims = values.shape().dims();
    dims[0] = static_cast<int64_t>(entries.size());
    Tensor sum(dtype_, Shape(dims));
    accumulator_dispatch(dtype_, kind(), [&](auto zero) {
      using T = decltype(zero);
      T* out = sum.data<T>();
      const T* acc = accum_values_.data<T>();
      const T* grad = values.data<T>();
      for (size_t k = 0; k < entries.size(); ++k) {
        const Entry& e = entries[k];
        T* row = out + static_cast<int64_t>(k) * cols;
        if (e.source == FromAccum) {
          sum_indices.push_back(accum_indices_[static_cast<size_t>(e.a)]);
          std::copy(acc + e.a * cols, acc + (e.a + 1) * cols, row);
          sum_counts.push_back(counts_[static_cast<size_t>(e.a)]);
        } else if (e.source == FromBoth) {
          sum_indices.push_back(accum_indices_[static_cast<size_t>(e.a)]);
          for (int64_t c = 0; c < cols; ++c) row[c] = grad[e.g * cols + c] + acc[e.a * cols + c];
          sum_counts.push_back(counts_[static_cast<size_t>(e.a)] + 1);
        } else {
          sum_indices.push_back(idx[e.g]);
          std::copy(grad + e.g * cols, grad + (e.g + 1) * cols, row);
          sum_counts.push_back(1);
        }
      }
    });
    accum_indices_ = std::move(sum_indices);
    accum_values_ = std::move(sum);
    counts_ = std::move(sum_counts);
  }
  ++counter_;
  cv_.notify_all();
  return true;
}

SparseGradient SparseConditionalAccumulator::take(int64_t num_required, const AccumulatorWait& wait) {
  if (num_required <= 0)
    throw Error("Argument num_required must be positive, but was " + std::to_string(num_required));
  std::unique_lock lock(mu_);
  TakeTicket ticket(*this);
  wait_for_take_locked(lock, ticket, num_required, wait);
  ++current_global_step_;
  if (reduction_ == AccumulatorReduction::Mean) {
    // Each slice by its own count (TensorFlow's "average element-wise").
    const int64_t cols = accumulator_row_length(accum_values_);
    accumulator_dispatch(dtype_, kind(), [&](auto zero) {
      using T = decltype(zero);
      T* a = accum_values_.data<T>();
      for (size_t r = 0; r < counts_.size(); ++r) {
        const T count = static_cast<T>(counts_[r]);
        T* row = a + static_cast<int64_t>(r) * cols;
        for (int64_t c = 0; c < cols; ++c) row[c] = row[c] / count;
      }
    });
  }
  SparseGradient out;
  out.indices = Tensor::from_vector<int64_t>(Shape{static_cast<int64_t>(accum_indices_.size())}, accum_indices_);
  // ReturnShapeTensor: dim 0 from the accumulator's shape (-1 when unknown),
  // the others from the values.
  const int values_rank = accum_values_.shape().rank();
  std::vector<int64_t> dense(static_cast<size_t>(values_rank));
  if (values_rank > 0) dense[0] = shape_.rank_known() && shape_.rank() > 0 ? shape_.dim(0) : -1;
  for (int i = 1; i < values_rank; ++i) dense[static_cast<size_t>(i)] = accum_values_.shape().dim(i);
  out.shape = Tensor::from_vector<int64_t>(Shape{static_cast<int64_t>(values_rank)}, dense);
  out.values = std::move(accum_values_);
  counter_ = 0;
  stale_dropped_ = 0;
  return out;
}

}  // namespace flowlens
