// tf.data datasets (tensorflow/core/ops/dataset_ops.cc, kernels in
// tensorflow/core/kernels/data/): TensorDataset, TensorSliceDataset,
// RangeDataset, BatchDataset(V2), RepeatDataset, TakeDataset, SkipDataset,
// ShuffleDataset, MapDataset, ParallelMapDataset(V2), PrefetchDataset, and
// the pass-through OptimizeDataset and ModelDataset TF 1.15's
// make_one_shot_iterator / make_initializable_iterator insert. Each kernel
// outputs a DT_VARIANT scalar holding a Dataset (ops/resources/dataset.h); nothing is
// computed until an iterator asks for elements.
//
// Differences from TensorFlow, on purpose: ShuffleDataset draws from its own
// seeded generator (std::mt19937_64 seeded from seed and seed2), so a seeded
// shuffle is deterministic but not TensorFlow's order; PrefetchDataset and the
// parallel maps produce their elements on the asking thread, in order (the
// same elements, no background threads).
#include <atomic>
#include <limits>
#include <random>

#include "ops/resources/dataset.h"
#include "ops/framework/op_helpers.h"
#include "ops/kernels/training/training_kernel.h"
#include "tensor/allocator.h"
#include "tensor/copy_rows.h"

namespace flowlens::ops {
namespace {

// ---- element helpers ------------------------------------------------------------

Shape drop_dim0(const Shape& s) {
  if (!s.rank_known()) return s;
  if (s.rank() == 0) return s;
  return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
}

Shape prepend_dim(int64_t d, const Shape& s) {
  if (!s.rank_known()) return Shape::unknown_rank();
  std::vector<int64_t> dims{d};
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  return Shape(std::move(dims));
}

// Row i of t along dimension 0.
Tensor slice0(const Tensor& t, int64_t i) {
  Tensor out(t.dtype(), drop_dim0(t.shape()));
  copy_host_elements(out, 0, t, i * out.num_elements(), out.num_elements());
  return out;
}

// Roughly what an element holds, for the shuffle buffer's bound.
std::size_t element_bytes(const DatasetElement& e) {
  std::size_t bytes = 0;
  for (const Tensor& t : e) {
    if (t.dtype() == DType::String)
      for (const std::string& s : t.strings()) bytes += s.size() + sizeof(std::string);
    else
      bytes += static_cast<std::size_t>(t.num_elements()) * std::max<std::size_t>(dtype_size(t.dtype()), 8);
  }
  return bytes;
}

std::vector<Shape> shapes_of(const std::vector<Tensor>& ts) {
  std::vector<Shape> s;
  for (const Tensor& t : ts) s.push_back(t.shape());
  return s;
}
std::vector<DType> types_of(const std::vector<Tensor>& ts) {
  std::vector<DType> s;
  for (const Tensor& t : ts) s.push_back(t.dtype());
  return s;
}

// ---- kernel input helpers ---------------------------------------------------------

std::string who(const KernelContext& ctx) { return ctx.node().op; }

int64_t scalar_arg(const KernelContext& ctx, int i, const char* name) {
  const Tensor& t = input(ctx, i);
  if (t.shape().rank() != 0)
    fail(who(ctx) + ": " + name + " must be a scalar, got shape " + shape_str(t.shape()));
  return read_scalar_int(who(ctx).c_str(), name, t);
}

bool scalar_bool(const KernelContext& ctx, int i, const char* name) {
  const Tensor& t = input(ctx, i);
  if (t.shape().rank() != 0 || t.dtype() != DType::Bool)
    fail(who(ctx) + ": " + name + " must be a bool scalar, got " + dtype_name(t.dtype()) + " " + shape_str(t.shape()));
  return t.data<bool>()[0];
}

// The data inputs of a list argument from `first` (components, other_arguments),
// `count` of them; host copies, checked to hold values.
std::vector<Tensor> list_inputs(const KernelContext& ctx, int first, int count) {
  std::vector<Tensor> out;
  for (int i = first; i < first + count; ++i) out.push_back(input(ctx, i).to_host());
  return out;
}

// ---- TensorDataset, TensorSliceDataset ----------------------------------------------

class TensorDataset final : public Dataset {
 public:
  explicit TensorDataset(std::vector<Tensor> components)
      : Dataset("TensorDataset", types_of(components), shapes_of(components)), components_(std::move(components)) {}
  std::unique_ptr<DatasetIterator> make_iterator() const override {
    struct It : DatasetIterator {
      const TensorDataset* d;
      bool done = false;
      explicit It(const TensorDataset* ds) : d(ds) {}
      bool get_next(IteratorContext&, DatasetElement& out) override {
        if (done) return false;
        done = true;
        out = d->components_;
        return true;
      }
    };
    return std::make_unique<It>(this);
  }

 private:
  std::vector<Tensor> components_;
};

class TensorSliceDataset final : public Dataset {
 public:
  TensorSliceDataset(std::vector<Tensor> components, std::vector<Shape> shapes)
      : Dataset("TensorSliceDataset", types_of(components), std::move(shapes)), components_(std::move(components)),
        rows_(components_.front().shape().dim(0)) {}
  std::unique_ptr<DatasetIterator> make_iterator() const override {
    struct It : DatasetIterator {
      const TensorSliceDataset* d;
      int64_t next = 0;
      explicit It(const TensorSliceDataset* ds) : d(ds) {}
      bool get_next(IteratorContext&, DatasetElement& out) override {
        if (next >= d->rows_) return false;
        out.clear();
        for (const Tensor& c : d->components_) out.push_back(slice0(c, next));
        ++next;
        return true;
      }
    };
    return std::make_unique<It>(this);
  }

 private:
  std::vector<Tensor> components_;
  int64_t rows_;
};

int components_count(const KernelContext& ctx, const char* list_attr) {
  const int n = static_cast<int>(ctx.attrs().list(list_attr).type.size());
  if (n == 0) fail(who(ctx) + ": " + list_attr + " must list at least one type");
  if (n != ctx.num_inputs())
    fail(who(ctx) + ": " + list_attr + " lists " + std::to_string(n) + " type(s) for " +
         std::to_string(ctx.num_inputs()) + " component(s)");
  return n;
}

void check_component_types(const KernelContext& ctx, const std::vector<Tensor>& components, const char* list_attr) {
  const std::vector<DType>& types = ctx.attrs().list(list_attr).type;
  for (size_t i = 0; i < components.size(); ++i)
    if (dtype_base(types[i]) != components[i].dtype())
      fail(who(ctx) + ": component " + std::to_string(i) + " is " + dtype_name(components[i].dtype()) + ", and " +
           list_attr + " says " + dtype_name(types[i]));
}

void tensor_dataset_kernel(KernelContext& ctx) {
  const int n = components_count(ctx, "Toutput_types");
  std::vector<Tensor> components = list_inputs(ctx, 0, n);
  check_component_types(ctx, components, "Toutput_types");
  ctx.set_output(0, dataset_tensor(std::make_shared<TensorDataset>(std::move(components))));
}

void tensor_slice_dataset_kernel(KernelContext& ctx) {
  const int n = components_count(ctx, "Toutput_types");
  std::vector<Tensor> components = list_inputs(ctx, 0, n);
  check_component_types(ctx, components, "Toutput_types");
  std::vector<Shape> shapes;
  for (const Tensor& c : components) {
    if (c.shape().rank() < 1) fail(who(ctx) + ": All components must be at least 1-dimensional");
    if (c.shape().dim(0) != components.front().shape().dim(0))
      fail(who(ctx) + ": All components must have the same size in the 0th dimension");
    shapes.push_back(drop_dim0(c.shape()));
  }
  ctx.set_output(0, dataset_tensor(std::make_shared<TensorSliceDataset>(std::move(components), std::move(shapes))));
}

// ---- RangeDataset ---------------------------------------------------------------------

class RangeDataset final : public Dataset {
 public:
  RangeDataset(int64_t start, int64_t stop, int64_t step, DType dtype)
      : Dataset("RangeDataset", {dtype}, {Shape{}}), start_(start), stop_(stop), step_(step), dtype_(dtype) {}
  std::string describe() const override {
    return "RangeDataset(" + std::to_string(start_) + ", " + std::to_string(stop_) + ", " + std::to_string(step_) + ")";
  }
  std::unique_ptr<DatasetIterator> make_iterator() const override {
    struct It : DatasetIterator {
      const RangeDataset* d;
      int64_t next;
      bool done = false;
      explicit It(const RangeDataset* ds) : d(ds), next(ds->start_) {}
      bool get_next(IteratorContext&, DatasetElement& out) override {
        if (done || (d->step_ > 0 ? next >= d->stop_ : next <= d->stop_)) {
          done = true;
          return false;
        }
        out.assign(1, Tensor());
        switch (d->dtype_) {
          case DType::Int64: out[0] = Tensor::scalar<int64_t>(next); break;
          case DType::Int32: out[0] = Tensor::scalar<int32_t>(static_cast<int32_t>(next)); break;
          case DType::Float: out[0] = Tensor::scalar<float>(static_cast<float>(next)); break;
          default: out[0] = Tensor::scalar<double>(static_cast<double>(next)); break;
        }
        // Past int64's range the sequence ends (TensorFlow's would wrap).
        if (__builtin_add_overflow(next, d->step_, &next)) done = true;
        return true;
      }
    };
    return std::make_unique<It>(this);
  }

 private:
  int64_t start_, stop_, step_;
  DType dtype_;
};

void range_dataset_kernel(KernelContext& ctx) {
  const int64_t start = scalar_arg(ctx, 0, "start");
  const int64_t stop = scalar_arg(ctx, 1, "stop");
  const int64_t step = scalar_arg(ctx, 2, "step");
  if (step == 0) fail(who(ctx) + ": step must be a non-zero integer.");
  const std::vector<DType>& types = ctx.attrs().list("output_types").type;
  if (types.size() != 1) fail(who(ctx) + ": output_types must list one type, got " + std::to_string(types.size()));
  const DType t = dtype_base(types[0]);
  if (t != DType::Int64 && t != DType::Int32 && t != DType::Float && t != DType::Double)
    fail(who(ctx) + ": Unsupported output type " + tf_type_name(t) + " (int32, int64, float or double)");
  ctx.set_output(0, dataset_tensor(std::make_shared<RangeDataset>(start, stop, step, t)));
}

// ---- BatchDataset, BatchDatasetV2 -----------------------------------------------------

class BatchDataset final : public Dataset {
 public:
  BatchDataset(std::string op, DatasetPtr input, int64_t batch_size, bool drop_remainder)
      : Dataset(std::move(op), input->output_types(), batched_shapes(*input, batch_size, drop_remainder)),
        input_(std::move(input)), batch_size_(batch_size), drop_remainder_(drop_remainder) {}
  std::unique_ptr<DatasetIterator> make_iterator() const override {
    struct It : DatasetIterator {
      const BatchDataset* d;
      std::unique_ptr<DatasetIterator> in;
      explicit It(const BatchDataset* ds) : d(ds), in(ds->input_->make_iterator()) {}
      bool get_next(IteratorContext& ctx, DatasetElement& out) override {
        if (!in) return false;
        std::vector<DatasetElement> rows;
        while (static_cast<int64_t>(rows.size()) < d->batch_size_) {
          DatasetElement e;
          if (!in->get_next(ctx, e)) {
            in.reset();
            break;
          }
          if (e.size() != d->output_types().size())
            fail(d->op() + ": an input element has " + std::to_string(e.size()) + " component(s), expected " +
                 std::to_string(d->output_types().size()));
          rows.push_back(std::move(e));
          // The batch's size is checked as it grows: no batch_size from the
          // graph makes it gather more than one tensor may hold.
          for (const Tensor& t : rows.back())
            if (std::string p = Tensor::size_problem(t.dtype(), prepend_dim(static_cast<int64_t>(rows.size()), t.shape()));
                !p.empty())
              fail(d->op() + ": batch of " + std::to_string(rows.size()) + " elements: " + p);
        }
        if (rows.empty()) return false;
        if (d->drop_remainder_ && static_cast<int64_t>(rows.size()) < d->batch_size_) return false;
        out.clear();
        const auto n = static_cast<int64_t>(rows.size());
        for (size_t c = 0; c < rows.front().size(); ++c) {
          const Tensor& first = rows.front()[c];
          for (size_t r = 1; r < rows.size(); ++r)
            if (!(rows[r][c].shape() == first.shape()))
              fail(d->op() + ": Cannot batch tensors with different shapes in component " + std::to_string(c) +
                   ". First element had shape " + shape_str(first.shape()) + " and element " + std::to_string(r) +
                   " had shape " + shape_str(rows[r][c].shape()) + ".");
          Tensor batch(first.dtype(), prepend_dim(n, first.shape()));
          const int64_t per = first.num_elements();
          for (int64_t r = 0; r < n; ++r)
            copy_host_elements(batch, r * per, rows[static_cast<size_t>(r)][c].to_host(), 0, per);
          out.push_back(std::move(batch));
        }
        return true;
      }
    };
    return std::make_unique<It>(this);
  }

 private:
  static std::vector<Shape> batched_shapes(const Dataset& in, int64_t batch_size, bool drop_remainder) {
    std::vector<Shape> out;
    for (const Shape& s : in.output_shapes()) out.push_back(prepend_dim(drop_remainder ? batch_size : -1, s));
    return out;
  }
  DatasetPtr input_;
  int64_t batch_size_;
  bool drop_remainder_;
};

void batch_dataset_kernel(KernelContext& ctx) {
  DatasetPtr in = dataset_from_tensor(input(ctx, 0), who(ctx));
  const int64_t batch_size = scalar_arg(ctx, 1, "batch_size");
  if (batch_size <= 0) fail(who(ctx) + ": Batch size must be greater than zero.");
  const bool drop_remainder = ctx.num_inputs() > 2 ? scalar_bool(ctx, 2, "drop_remainder") : false;
  ctx.set_output(0, dataset_tensor(std::make_shared<BatchDataset>(who(ctx), std::move(in), batch_size, drop_remainder)));
}

// ---- RepeatDataset, TakeDataset, SkipDataset -------------------------------------------

class RepeatDataset final : public Dataset {
 public:
  RepeatDataset(DatasetPtr input, int64_t count)
      : Dataset("RepeatDataset", input->output_types(), input->output_shapes()), input_(std::move(input)),
        count_(count) {}
  std::unique_ptr<DatasetIterator> make_iterator() const override {
    struct It : DatasetIterator {
      const RepeatDataset* d;
      std::unique_ptr<DatasetIterator> in;
      int64_t pass = 0;
      bool fresh = true;  // `in` has produced nothing yet
      bool done = false;
      explicit It(const RepeatDataset* ds) : d(ds) {}
      bool get_next(IteratorContext& ctx, DatasetElement& out) override {
        while (!done) {
          if (d->count_ >= 0 && pass >= d->count_) break;
          if (!in) {
            in = d->input_->make_iterator();
            fresh = true;
          }
          if (in->get_next(ctx, out)) {
            fresh = false;
            return true;
          }
          in.reset();
          // A pass that produced nothing: the input is empty, and repeating
          // it forever would spin (TensorFlow's ForeverIterator ends here too).
          if (fresh) break;
          ++pass;
        }
        done = true;
        return false;
      }
    };
    return std::make_unique<It>(this);
  }

 private:
  DatasetPtr input_;
  int64_t count_;
};

class TakeSkipDataset final : public Dataset {
 public:
  TakeSkipDataset(bool take, DatasetPtr input, int64_t count)
      : Dataset(take ? "TakeDataset" : "SkipDataset", input->output_types(), input->output_shapes()),
        input_(std::move(input)), take_(take), count_(count) {}
  std::unique_ptr<DatasetIterator> make_iterator() const override {
    struct It : DatasetIterator {
      const TakeSkipDataset* d;
      std::unique_ptr<DatasetIterator> in;
      int64_t seen = 0;
      explicit It(const TakeSkipDataset* ds) : d(ds), in(ds->input_->make_iterator()) {}
      bool get_next(IteratorContext& ctx, DatasetElement& out) override {
        if (!in) return false;
        if (d->take_) {
          if (d->count_ >= 0 && seen >= d->count_) {
            in.reset();
            return false;
          }
        } else {
          // count -1 skips everything.
          while (d->count_ < 0 || seen < d->count_) {
            DatasetElement skipped;
            if (!in->get_next(ctx, skipped)) {
              in.reset();
              return false;
            }
            ++seen;
          }
        }
        if (!in->get_next(ctx, out)) {
          in.reset();
          return false;
        }
        if (d->take_) ++seen;
        return true;
      }
    };
    return std::make_unique<It>(this);
  }

 private:
  DatasetPtr input_;
  bool take_;
  int64_t count_;
};

void repeat_dataset_kernel(KernelContext& ctx) {
  DatasetPtr in = dataset_from_tensor(input(ctx, 0), who(ctx));
  const int64_t count = scalar_arg(ctx, 1, "count");
  ctx.set_output(0, dataset_tensor(std::make_shared<RepeatDataset>(std::move(in), count)));
}

template <bool kTake>
void take_skip_dataset_kernel(KernelContext& ctx) {
  DatasetPtr in = dataset_from_tensor(input(ctx, 0), who(ctx));
  const int64_t count = scalar_arg(ctx, 1, "count");
  ctx.set_output(0, dataset_tensor(std::make_shared<TakeSkipDataset>(kTake, std::move(in), count)));
}

// ---- ShuffleDataset -----------------------------------------------------------------------

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class ShuffleDataset final : public Dataset {
 public:
  ShuffleDataset(DatasetPtr input, int64_t buffer_size, uint64_t seed, uint64_t seed2, bool reshuffle)
      : Dataset("ShuffleDataset", input->output_types(), input->output_shapes()), input_(std::move(input)),
        buffer_size_(buffer_size), seed_(seed), seed2_(seed2), reshuffle_(reshuffle) {}
  std::unique_ptr<DatasetIterator> make_iterator() const override {
    // Each iteration (each epoch under a Repeat, each MakeIterator) draws
    // another order when reshuffle_each_iteration is set, the same one when not.
    const uint64_t epoch = reshuffle_ ? iterations_.fetch_add(1) : 0;
    struct It : DatasetIterator {
      const ShuffleDataset* d;
      std::unique_ptr<DatasetIterator> in;
      std::mt19937_64 rng;
      std::vector<DatasetElement> buffer;
      std::size_t bytes = 0;
      It(const ShuffleDataset* ds, uint64_t epoch)
          : d(ds), in(ds->input_->make_iterator()),
            rng(splitmix64(ds->seed_) ^ splitmix64(ds->seed2_ * 0x2545f4914f6cdd1dull + epoch)) {}
      bool get_next(IteratorContext& ctx, DatasetElement& out) override {
        while (in && static_cast<int64_t>(buffer.size()) < d->buffer_size_) {
          DatasetElement e;
          if (!in->get_next(ctx, e)) {
            in.reset();
            break;
          }
          bytes += element_bytes(e);
          if (bytes > HostAllocator::max_tensor_bytes())
            fail("ShuffleDataset: a buffer of " + std::to_string(buffer.size() + 1) + " element(s) would hold more than " +
                 std::to_string(HostAllocator::max_tensor_bytes()) + " bytes (the per-tensor limit); use a smaller "
                 "buffer_size");
          buffer.push_back(std::move(e));
        }
        if (buffer.empty()) return false;
        const std::size_t pick = static_cast<std::size_t>(rng() % buffer.size());
        out = std::move(buffer[pick]);
        bytes -= std::min(bytes, element_bytes(out));
        if (pick + 1 != buffer.size()) buffer[pick] = std::move(buffer.back());
        buffer.pop_back();
        return true;
      }
    };
    return std::make_unique<It>(this, epoch);
  }

 private:
  DatasetPtr input_;
  int64_t buffer_size_;
  uint64_t seed_, seed2_;
  bool reshuffle_;
  mutable std::atomic<uint64_t> iterations_{0};
};

void shuffle_dataset_kernel(KernelContext& ctx) {
  DatasetPtr in = dataset_from_tensor(input(ctx, 0), who(ctx));
  const int64_t buffer_size = scalar_arg(ctx, 1, "buffer_size");
  if (buffer_size <= 0) fail(who(ctx) + ": buffer_size must be greater than zero.");
  int64_t seed = scalar_arg(ctx, 2, "seed");
  int64_t seed2 = scalar_arg(ctx, 3, "seed2");
  // TensorFlow: both seeds zero means "not seeded": random seeds.
  if (seed == 0 && seed2 == 0) {
    std::random_device rd;
    seed = static_cast<int64_t>((uint64_t{rd()} << 32) | rd());
    seed2 = static_cast<int64_t>((uint64_t{rd()} << 32) | rd());
  }
  ctx.set_output(0, dataset_tensor(std::make_shared<ShuffleDataset>(std::move(in), buffer_size, static_cast<uint64_t>(seed),
                                                                     static_cast<uint64_t>(seed2),
                                                                     ctx.attrs().boolean("reshuffle_each_iteration"))));
}

// ---- MapDataset, ParallelMapDataset(V2) -------------------------------------------------

class MapDataset final : public Dataset {
 public:
  MapDataset(const Node& node, DatasetPtr input, FuncRef f, std::vector<Tensor> captured, std::vector<DType> types,
             std::vector<Shape> shapes)
      : Dataset(node.op, std::move(types), std::move(shapes)), node_(node), input_(std::move(input)), f_(std::move(f)),
        captured_(std::move(captured)) {}
  std::string describe() const override { return node_.op + "(" + f_.name + ")"; }
  std::unique_ptr<DatasetIterator> make_iterator() const override {
    struct It : DatasetIterator {
      const MapDataset* d;
      std::unique_ptr<DatasetIterator> in;
      explicit It(const MapDataset* ds) : d(ds), in(ds->input_->make_iterator()) {}
      bool get_next(IteratorContext& ctx, DatasetElement& out) override {
        if (!in) return false;
        DatasetElement e;
        if (!in->get_next(ctx, e)) {
          in.reset();
          return false;
        }
        out = d->apply(ctx, std::move(e));
        return true;
      }
    };
    return std::make_unique<It>(this);
  }

  DatasetElement apply(IteratorContext& ctx, DatasetElement args) const {
    const std::string where = node_.op + " '" + node_.name + "'";
    if (!ctx.functions)
      fail(where + " calls function '" + f_.name + "', and no function library is available");
    args.insert(args.end(), captured_.begin(), captured_.end());
    DatasetElement results = ctx.functions->call(node_, f_.name, f_.attrs, args);
    try {
      verify_types_match(output_types(), types_of(results));
      verify_shapes_compatible(output_shapes(), shapes_of(results));
    } catch (const Error& e) {
      fail(where + ": function '" + f_.name + "' returned a value that does not match output_types/output_shapes: " +
           e.what());
    }
    return results;
  }

 private:
  Node node_;  // the MapDataset node: the caller the function library names
  DatasetPtr input_;
  FuncRef f_;
  std::vector<Tensor> captured_;
};

void map_dataset_kernel(KernelContext& ctx) {
  DatasetPtr in = dataset_from_tensor(input(ctx, 0), who(ctx));
  const AttrValue& f = ctx.attrs().get("f");
  const auto* fn = f.get_if<std::shared_ptr<FuncRef>>();
  if (!fn || !*fn || (*fn)->name.empty()) fail(who(ctx) + ": attr 'f' must name a function, got " + f.to_string());
  const int n_args = static_cast<int>(ctx.attrs().list("Targuments").type.size());
  const bool parallel = ctx.node().op != "MapDataset";
  if (ctx.num_inputs() != 1 + n_args + (parallel ? 1 : 0))
    fail(who(ctx) + ": Targuments lists " + std::to_string(n_args) + " type(s), and the node has " +
         std::to_string(ctx.num_inputs()) + " input(s)");
  std::vector<Tensor> captured = list_inputs(ctx, 1, n_args);
  for (int i = 0; i < n_args; ++i)
    if (captured[static_cast<size_t>(i)].dtype() != dtype_base(ctx.attrs().list("Targuments").type[static_cast<size_t>(i)]))
      fail(who(ctx) + ": other_arguments " + std::to_string(i) + " is " +
           dtype_name(captured[static_cast<size_t>(i)].dtype()) + ", and Targuments says otherwise");
  if (parallel) {
    const int64_t calls = scalar_arg(ctx, 1 + n_args, "num_parallel_calls");
    if (calls <= 0 && calls != -1) fail(who(ctx) + ": num_parallel_calls must be greater than zero.");
  }
  std::vector<DType> types = ctx.attrs().list("output_types").type;
  std::vector<Shape> shapes = ctx.attrs().list("output_shapes").shape;
  if (types.size() != shapes.size())
    fail(who(ctx) + ": output_types lists " + std::to_string(types.size()) + " type(s) and output_shapes " +
         std::to_string(shapes.size()));
  ctx.set_output(0, dataset_tensor(std::make_shared<MapDataset>(ctx.node(), std::move(in), **fn, std::move(captured),
                                                                std::move(types), std::move(shapes))));
}

// ---- PrefetchDataset, OptimizeDataset, ModelDataset ----------------------------------------

// The input's elements unchanged (ops/resources/dataset.h: produced on the asking thread).
class PassThroughDataset final : public Dataset {
 public:
  PassThroughDataset(std::string op, DatasetPtr input)
      : Dataset(std::move(op), input->output_types(), input->output_shapes()), input_(std::move(input)) {}
  std::unique_ptr<DatasetIterator> make_iterator() const override { return input_->make_iterator(); }

 private:
  DatasetPtr input_;
};

void prefetch_dataset_kernel(KernelContext& ctx) {
  DatasetPtr in = dataset_from_tensor(input(ctx, 0), who(ctx));
  const int64_t buffer_size = scalar_arg(ctx, 1, "buffer_size");
  if (buffer_size < 0 && buffer_size != -1)
    fail(who(ctx) + ": buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning");
  ctx.set_output(0, dataset_tensor(std::make_shared<PassThroughDataset>(who(ctx), std::move(in))));
}

void pass_through_dataset_kernel(KernelContext& ctx) {
  DatasetPtr in = dataset_from_tensor(input(ctx, 0), who(ctx));
  if (ctx.node().op == "OptimizeDataset" && input(ctx, 1).dtype() != DType::String)
    fail(who(ctx) + ": optimizations must be strings");
  ctx.set_output(0, dataset_tensor(std::make_shared<PassThroughDataset>(who(ctx), std::move(in))));
}

// ---- shape functions ------------------------------------------------------------------------

// ScalarShape, after checking that inputs [first, last] are scalars where known.
void with_rank0(ShapeContext& ctx, int i) {
  if (i < 0 || i >= ctx.num_inputs()) return;
  const Shape& s = ctx.input(i).shape;
  if (s.rank_known() && s.rank() != 0)
    fail(ctx.node().op + ": Shape must be rank 0 but is rank " + std::to_string(s.rank()) + " for input " +
         std::to_string(i));
}

template <int First, int Last>
void dataset_shape(ShapeContext& ctx) {
  for (int i = First; i >= 0 && i <= Last; ++i) with_rank0(ctx, i);
  ctx.set_output(0, DType::Variant, Shape{});
}

const char* kNoGradient = "a dataset (DT_VARIANT) carries no gradient; TensorFlow registers none for tf.data ops";
const char* kNoGpu = "tf.data runs its input pipeline on the host (TensorFlow's dataset kernels are CPU kernels)";

OpBuilder dataset_op(const char* name) {
  OpBuilder b(name);
  b.output("handle: variant").no_gradient(kNoGradient).no_gpu(kNoGpu).category("io");
  return b;
}

}  // namespace

void register_dataset_ops(OpRegistry& r) {
  for (const char* op : {"TensorDataset", "TensorSliceDataset"}) {
    const bool slice = std::string_view(op) == "TensorSliceDataset";
    OpBuilder b = dataset_op(op);
    b.input("components: Toutput_types")
        .attr("Toutput_types: list(type) >= 1")
        .attr("output_shapes: list(shape) >= 1");
    if (slice) b.attr("is_files: bool = false");
    b.attr("metadata: string = ''")
        .stateful()
        .shape(dataset_shape<-1, -1>)
        .cpu(slice ? tensor_slice_dataset_kernel : tensor_dataset_kernel)
        .doc(slice ? "A dataset of the dim-0 slices of `components` (tf.data.Dataset.from_tensor_slices)."
                   : "A dataset of one element, `components` (tf.data.Dataset.from_tensors).");
    r.add(b);
  }
  r.add(dataset_op("RangeDataset")
            .input("start: int64")
            .input("stop: int64")
            .input("step: int64")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("metadata: string = ''")
            .stateful()
            .shape(dataset_shape<0, 2>)
            .cpu(range_dataset_kernel)
            .doc("A dataset of start, start + step, ... up to stop (tf.data.Dataset.range)."));
  r.add(dataset_op("BatchDataset")
            .input("input_dataset: variant")
            .input("batch_size: int64")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("metadata: string = ''")
            .shape(dataset_shape<1, 1>)
            .cpu(batch_dataset_kernel)
            .doc("Stacks batch_size consecutive elements (the last batch may be smaller)."));
  r.add(dataset_op("BatchDatasetV2")
            .input("input_dataset: variant")
            .input("batch_size: int64")
            .input("drop_remainder: bool")
            .attr("parallel_copy: bool = false")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("metadata: string = ''")
            .shape(dataset_shape<1, 2>)
            .cpu(batch_dataset_kernel)
            .doc("Stacks batch_size consecutive elements; drop_remainder drops a last, smaller batch "
                 "(tf.data.Dataset.batch)."));
  r.add(dataset_op("RepeatDataset")
            .input("input_dataset: variant")
            .input("count: int64")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("metadata: string = ''")
            .shape(dataset_shape<1, 1>)
            .cpu(repeat_dataset_kernel)
            .doc("The input's elements count times (-1: forever; an empty input ends instead of spinning)."));
  for (const bool take : {true, false})
    r.add(dataset_op(take ? "TakeDataset" : "SkipDataset")
              .input("input_dataset: variant")
              .input("count: int64")
              .attr("output_types: list(type) >= 1")
              .attr("output_shapes: list(shape) >= 1")
              .attr("metadata: string = ''")
              .shape(dataset_shape<1, 1>)
              .cpu(take ? take_skip_dataset_kernel<true> : take_skip_dataset_kernel<false>)
              .doc(take ? "The first count elements of the input (-1: all)."
                        : "The input without its first count elements (-1: skips everything)."));
  r.add(dataset_op("ShuffleDataset")
            .input("input_dataset: variant")
            .input("buffer_size: int64")
            .input("seed: int64")
            .input("seed2: int64")
            .attr("reshuffle_each_iteration: bool = true")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("metadata: string = ''")
            .shape(dataset_shape<1, 3>)
            .cpu(shuffle_dataset_kernel)
            .doc("The input's elements in random order from a buffer of buffer_size (seeded: deterministic, but "
                 "not TensorFlow's order)."));
  r.add(dataset_op("MapDataset")
            .input("input_dataset: variant")
            .input("other_arguments: Targuments")
            .attr("f: func")
            .attr("Targuments: list(type) >= 0")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("use_inter_op_parallelism: bool = true")
            .attr("preserve_cardinality: bool = false")
            .attr("metadata: string = ''")
            .shape(dataset_shape<-1, -1>)
            .cpu(map_dataset_kernel)
            .doc("Applies function f to each element, with other_arguments appended (tf.data.Dataset.map)."));
  r.add(dataset_op("ParallelMapDataset")
            .input("input_dataset: variant")
            .input("other_arguments: Targuments")
            .input("num_parallel_calls: int32")
            .attr("f: func")
            .attr("Targuments: list(type) >= 0")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("use_inter_op_parallelism: bool = true")
            .attr("sloppy: bool = false")
            .attr("preserve_cardinality: bool = false")
            .attr("metadata: string = ''")
            .shape(dataset_shape<-1, -1>)
            .cpu(map_dataset_kernel)
            .doc("MapDataset with num_parallel_calls (here: one call at a time, in order)."));
  r.add(dataset_op("ParallelMapDatasetV2")
            .input("input_dataset: variant")
            .input("other_arguments: Targuments")
            .input("num_parallel_calls: int64")
            .attr("f: func")
            .attr("Targuments: list(type) >= 0")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("use_inter_op_parallelism: bool = true")
            .attr("deterministic: string = 'default'")
            .attr("preserve_cardinality: bool = false")
            .attr("metadata: string = ''")
            .shape(dataset_shape<-1, -1>)
            .cpu(map_dataset_kernel)
            .doc("MapDataset with num_parallel_calls (here: one call at a time, in order, i.e. deterministic)."));
  r.add(dataset_op("PrefetchDataset")
            .input("input_dataset: variant")
            .input("buffer_size: int64")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("slack_period: int = 0")
            .attr("legacy_autotune: bool = true")
            .attr("buffer_size_min: int = 0")
            .attr("metadata: string = ''")
            .shape(dataset_shape<1, 1>)
            .cpu(prefetch_dataset_kernel)
            .doc("The input's elements (buffer_size >= 0 or -1; here produced on demand, without a background "
                 "thread)."));
  r.add(dataset_op("OptimizeDataset")
            .input("input_dataset: variant")
            .input("optimizations: string")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .attr("optimization_configs: list(string) = []")
            .shape(dataset_shape<-1, -1>)
            .cpu(pass_through_dataset_kernel)
            .doc("tf.data's graph rewrites of the input pipeline; here the input unchanged (same elements)."));
  r.add(dataset_op("ModelDataset")
            .input("input_dataset: variant")
            .attr("algorithm: int = 0")
            .attr("cpu_budget: int = 0")
            .attr("ram_budget: int = 0")
            .attr("output_types: list(type) >= 1")
            .attr("output_shapes: list(shape) >= 1")
            .shape(dataset_shape<-1, -1>)
            .cpu(pass_through_dataset_kernel)
            .doc("tf.data's autotuning wrapper; here the input unchanged."));
}

}  // namespace flowlens::ops
