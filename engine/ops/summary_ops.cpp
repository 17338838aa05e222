// Summary ops: ScalarSummary, HistogramSummary and MergeSummary output a
// DT_STRING scalar holding a serialized Summary proto (io/summary.proto,
// TensorFlow's field numbers), built exactly as TensorFlow's kernels build
// it (kernels/summary_op.cc, lib/histogram/histogram.cc), so TensorBoard and
// the GUI's summary charts read the same bytes TensorFlow would write.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <unordered_set>

#include "io/summary.pb.h"
#include "ops/dtype_dispatch.h"

namespace flowlens::ops {
namespace {

constexpr const char* kHostSummaries =
    "summaries are serialized protos in host memory; TensorFlow registers CPU kernels only";

void scalar_string_shape(ShapeContext& ctx) { ctx.set_output(0, DType::String, Shape{}); }

void output_summary(KernelContext& ctx, const proto::Summary& summary) {
  std::string bytes;
  if (!summary.SerializeToString(&bytes)) fail(ctx.node().op + ": could not serialize the Summary");
  ctx.allocate_output(0, DType::String, Shape{}).strings()[0] = std::move(bytes);
}

const Tensor& tags_input(const KernelContext& ctx) {
  const Tensor& tags = input(ctx, 0);
  if (tags.dtype() != DType::String) fail(ctx.node().op + ": tags must be a string tensor, got " + dtype_name(tags.dtype()));
  return tags;
}

// ---- ScalarSummary ---------------------------------------------------------------

void scalar_summary_kernel(KernelContext& ctx) {
  const Tensor& tags = tags_input(ctx);
  const Tensor& values = input(ctx, 1);
  if (!(tags.shape() == values.shape())) {
    // The tag is named when there is exactly one, as TensorFlow does.
    const std::string single = tags.num_elements() == 1 ? " (tag '" + tags.strings()[0] + "')" : "";
    fail("tags and values not the same shape: " + shape_str(tags.shape()) + " != " + shape_str(values.shape()) + single);
  }
  proto::Summary summary;
  dispatch<RealTypes>(values.dtype(), "ScalarSummary", [&](auto tag) {
    using T = decltype(tag);
    const T* v = values.data<T>();
    for (int64_t i = 0; i < tags.num_elements(); ++i) {
      proto::Summary::Value* value = summary.add_value();
      value->set_tag(tags.strings()[static_cast<size_t>(i)]);
      value->set_simple_value(static_cast<float>(v[i]));
    }
  });
  output_summary(ctx, summary);
}

// ---- HistogramSummary ------------------------------------------------------------

// histogram.cc's default limits: buckets growing by 10% from 1e-12 to 1e20,
// mirrored below zero, with 0 and +-DBL_MAX: 1551 limits.
const std::vector<double>& default_bucket_limits() {
  static const std::vector<double> limits = [] {
    std::vector<double> positive, negative;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) {
      positive.push_back(v);
      negative.push_back(-v);
    }
    positive.push_back(DBL_MAX);
    negative.push_back(-DBL_MAX);
    std::reverse(negative.begin(), negative.end());
    std::vector<double> all = std::move(negative);
    all.push_back(0.0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return limits;
}

class Histogram {
 public:
  Histogram() : limits_(default_bucket_limits()), counts_(limits_.size(), 0.0), min_(limits_.back()) {}

  void add(double value) {
    // The first limit above the value; DBL_MAX itself (where TensorFlow would
    // index past the end) is counted in the last bucket.
    auto b = static_cast<size_t>(std::upper_bound(limits_.begin(), limits_.end(), value) - limits_.begin());
    counts_[std::min(b, counts_.size() - 1)] += 1.0;
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
    num_ += 1;
    sum_ += value;
    sum_squares_ += value * value;
  }

  // EncodeToProto(proto, preserve_zero_buckets = false): each run of empty
  // buckets collapses into one zero entry carrying the run's last limit.
  void encode(proto::HistogramProto* p) const {
    p->set_min(min_);
    p->set_max(max_);
    p->set_num(num_);
    p->set_sum(sum_);
    p->set_sum_squares(sum_squares_);
    for (size_t i = 0; i < counts_.size();) {
      double end = limits_[i];
      double count = counts_[i];
      ++i;
      if (count <= 0.0) {
        while (i < counts_.size() && counts_[i] <= 0.0) {
          end = limits_[i];
          count = counts_[i];
          ++i;
        }
      }
      p->add_bucket_limit(end);
      p->add_bucket(count);
    }
  }

 private:
  const std::vector<double>& limits_;
  std::vector<double> counts_;
  double min_;
  double max_ = -DBL_MAX;
  double num_ = 0, sum_ = 0, sum_squares_ = 0;
};

void histogram_summary_kernel(KernelContext& ctx) {
  const Tensor& tags = tags_input(ctx);
  const Tensor& values = input(ctx, 1);
  if (tags.shape().rank() != 0) fail("tags must be scalar");
  Histogram histogram;
  dispatch<RealTypes>(values.dtype(), "HistogramSummary", [&](auto tag) {
    using T = decltype(tag);
    const T* v = values.data<T>();
    for (int64_t i = 0; i < values.num_elements(); ++i) {
      const double d = static_cast<double>(v[i]);
      if (std::isnan(d)) fail("Nan in summary histogram for: " + ctx.node().name);
      if (std::isinf(d)) fail("Infinity in summary histogram for: " + ctx.node().name);
      histogram.add(d);
    }
  });
  proto::Summary summary;
  proto::Summary::Value* value = summary.add_value();
  value->set_tag(tags.strings()[0]);
  histogram.encode(value->mutable_histo());
  output_summary(ctx, summary);
}

// ---- MergeSummary ----------------------------------------------------------------

void merge_summary_kernel(KernelContext& ctx) {
  proto::Summary merged;
  std::unordered_set<std::string> tags;
  for (int k = 0; k < ctx.num_inputs(); ++k) {
    const Tensor& in = input(ctx, k);
    if (in.dtype() != DType::String) fail("MergeSummary: input " + std::to_string(k) + " must be a string tensor");
    for (const std::string& bytes : in.strings()) {
      proto::Summary summary;
      if (!summary.ParseFromString(bytes)) fail("Could not parse one of the summary inputs");
      for (const proto::Summary::Value& v : summary.value()) {
        // Values without a tag (TensorSummary's) are never duplicates.
        if (!v.tag().empty() && !tags.insert(v.tag()).second)
          fail("Duplicate tag " + v.tag() + " found in summary inputs");
        *merged.add_value() = v;
      }
    }
  }
  output_summary(ctx, merged);
}

}  // namespace

void register_summary_ops(OpRegistry& r) {
  r.add(OpBuilder("ScalarSummary")
            .input("tags: string")
            .input("values: T")
            .output("summary: string")
            .attr("T: realnumbertype")
            .shape(scalar_string_shape)
            .cpu(scalar_summary_kernel, dtypes_of<RealTypes>())
            .not_differentiable("TensorFlow: ops.NotDifferentiable(\"ScalarSummary\")")
            .no_gpu(kHostSummaries)
            .category("summary")
            .doc("A Summary proto with one simple_value per tag."));
  r.add(OpBuilder("HistogramSummary")
            .input("tag: string")
            .input("values: T")
            .output("summary: string")
            .attr("T: realnumbertype = DT_FLOAT")
            .shape(scalar_string_shape)
            .cpu(histogram_summary_kernel, dtypes_of<RealTypes>())
            .not_differentiable("TensorFlow: ops.NotDifferentiable(\"HistogramSummary\")")
            .no_gpu(kHostSummaries)
            .category("summary")
            .doc("A Summary proto with a histogram of the values (TensorFlow's default buckets)."));
  r.add(OpBuilder("MergeSummary")
            .input("inputs: N * string")
            .output("summary: string")
            .attr("N : int >= 1")
            .shape(scalar_string_shape)
            .cpu(merge_summary_kernel)
            .not_differentiable("TensorFlow: ops.NotDifferentiable(\"MergeSummary\")")
            .no_gpu(kHostSummaries)
            .category("summary")
            .doc("The union of the values of several Summary protos; duplicate tags are an error."));
}

}  // namespace flowlens::ops
