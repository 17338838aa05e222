// Summary ops: ScalarSummary, HistogramSummary, ImageSummary and MergeSummary output a
// DT_STRING scalar holding a serialized Summary proto (io/summary.proto,
// TensorFlow's field numbers), built exactly as TensorFlow's kernels build
// it (kernels/summary_op.cc, lib/histogram/histogram.cc), so TensorBoard and
// the GUI's summary charts read the same bytes TensorFlow would write.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <unordered_set>

#include "io/png_writer.h"
#include "io/summary.pb.h"
#include "ops/framework/dtype_dispatch.h"

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

// ---- ImageSummary ------------------------------------------------------------------

// TensorFlow's summary_image_op.cc: up to max_images PNGs of a [batch, h, w,
// 1|3|4] tensor. uint8 is written as is; float, half and double images are
// mapped into [0, 255] per image: all finite values >= 0 scaled by 255 / max,
// otherwise by 127 / max|v| around 128 (below 1e-6 the scale is 0), each
// product computed in T and truncated to uint8; a pixel with any non-finite
// channel becomes bad_color.
using ImageTypes = TypeList<uint8_t, float, float16, double>;

std::vector<uint8_t> bad_color_of(const KernelContext& ctx) {
  const Tensor* t = ctx.attrs().get("bad_color").get_if<Tensor>();
  if (!t || !t->valid()) fail("ImageSummary: bad_color must be a tensor");
  if (t->dtype() != DType::UInt8) fail("bad_color must be uint8, got " + dtype_name(t->dtype()));
  if (t->shape().rank() != 1) fail("bad_color must be a vector, got shape " + shape_str(t->shape()));
  return std::vector<uint8_t>(t->data<uint8_t>(), t->data<uint8_t>() + t->num_elements());
}

template <class T>
void normalize_image(const T* values, int64_t hw, int64_t depth, const std::vector<uint8_t>& bad_color,
                     uint8_t* image) {
  auto pixel_finite = [&](int64_t i) {
    for (int64_t j = 0; j < depth; ++j)
      if (!std::isfinite(static_cast<double>(values[i * depth + j]))) return false;
    return true;
  };
  float image_min = std::numeric_limits<float>::infinity();
  float image_max = -image_min;
  for (int64_t i = 0; i < hw; ++i)
    if (pixel_finite(i))
      for (int64_t j = 0; j < depth; ++j) {
        const auto v = static_cast<float>(values[i * depth + j]);
        image_min = std::min(image_min, v);
        image_max = std::max(image_max, v);
      }
  constexpr float kZeroThreshold = 1e-6f;
  T scale, offset;
  if (image_min < 0) {
    const float max_val = std::max(std::abs(image_min), std::abs(image_max));
    scale = T(max_val < kZeroThreshold ? 0.0f : 127.0f / max_val);
    offset = T(128.0f);
  } else {
    scale = T(image_max < kZeroThreshold ? 0.0f : 255.0f / image_max);
    offset = T(0.0f);
  }
  for (int64_t i = 0; i < hw; ++i) {
    uint8_t* px = image + i * depth;
    if (!pixel_finite(i)) {
      for (int64_t j = 0; j < depth; ++j) px[j] = bad_color[static_cast<size_t>(j)];
      continue;
    }
    for (int64_t j = 0; j < depth; ++j) {
      // Eigen's cast<uint8> of (v * scale + offset), computed in T; clamped
      // so rounding past 255 cannot wrap.
      const T scaled = T(values[i * depth + j] * scale) + offset;
      const double d = static_cast<double>(scaled);
      px[j] = static_cast<uint8_t>(d <= 0.0 ? 0.0 : (d >= 255.0 ? 255.0 : d));
    }
  }
}

void image_summary_kernel(KernelContext& ctx) {
  const int64_t max_images = ctx.attrs().integer("max_images");
  if (max_images >= (int64_t{1} << 31)) fail("max_images must be < 2^31");
  if (max_images < 1) fail("ImageSummary: max_images must be >= 1, got " + std::to_string(max_images));
  const std::vector<uint8_t> bad_color = bad_color_of(ctx);  // checked for every dtype, as TF's constructor does
  const Tensor& tags = tags_input(ctx);
  const Tensor& tensor = input(ctx, 1);
  if (tags.num_elements() != 1 || tags.shape().rank() > 1) fail("Tags must be a scalar");
  const Shape& s = tensor.shape();
  if (s.rank() != 4 || !(s.dim(3) == 1 || s.dim(3) == 3 || s.dim(3) == 4))
    fail("Tensor must be 4-D with last dim 1, 3, or 4, not " + shape_str(s));
  const std::string& base_tag = tags.strings()[0];
  constexpr int64_t k31 = int64_t{1} << 31;
  if (!(s.dim(0) < k31 && s.dim(1) < k31 && s.dim(2) < k31 && s.dim(1) * s.dim(2) < (int64_t{1} << 29)))
    fail("Tensor too large for summary " + shape_str(s));
  const int64_t batch = s.dim(0), h = s.dim(1), w = s.dim(2), depth = s.dim(3), hw = h * w;
  const int64_t n = std::min(max_images, batch);
  if (tensor.dtype() != DType::UInt8) {
    if (static_cast<int64_t>(bad_color.size()) < depth)
      fail("expected depth <= bad_color.size, got depth = " + std::to_string(depth) +
           ", bad_color.size = " + std::to_string(bad_color.size()));
  }
  proto::Summary summary;
  dispatch<ImageTypes>(tensor.dtype(), "ImageSummary", [&](auto type_tag) {
    using T = decltype(type_tag);
    std::vector<uint8_t> image;
    if constexpr (!std::is_same_v<T, uint8_t>) image.resize(static_cast<size_t>(hw * depth));
    for (int64_t i = 0; i < n; ++i) {
      proto::Summary::Value* v = summary.add_value();
      // The tag depends on the number of images asked for, not produced.
      v->set_tag(max_images > 1 ? base_tag + "/image/" + std::to_string(i) : base_tag + "/image");
      const T* values = tensor.data<T>() + i * hw * depth;
      const uint8_t* pixels = nullptr;
      if constexpr (std::is_same_v<T, uint8_t>) {
        pixels = values;
      } else {
        normalize_image(values, hw, depth, bad_color, image.data());
        pixels = image.data();
      }
      proto::Summary::Image* si = v->mutable_image();
      si->set_height(static_cast<int32_t>(h));
      si->set_width(static_cast<int32_t>(w));
      si->set_colorspace(static_cast<int32_t>(depth));
      try {
        si->set_encoded_image_string(
            io::encode_png(pixels, static_cast<int>(w), static_cast<int>(h), static_cast<int>(depth), w * depth));
      } catch (const Error& e) {
        fail(std::string("ImageSummary: ") + e.what());
      }
    }
  });
  output_summary(ctx, summary);
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
  r.add(OpBuilder("ImageSummary")
            .input("tag: string")
            .input("tensor: T")
            .output("summary: string")
            .attr("max_images: int >= 1 = 3")
            .attr("T: {uint8, float, half, float64} = DT_FLOAT")
            .attr("bad_color: tensor = { dtype: DT_UINT8 tensor_shape: { dim { size: 4 } } int_val: 255 int_val: 0 "
                  "int_val: 0 int_val: 255 }")
            .shape(scalar_string_shape)
            .cpu(image_summary_kernel, dtypes_of<ImageTypes>())
            .not_differentiable("TensorFlow: ops.NotDifferentiable(\"ImageSummary\")")
            .no_gpu(kHostSummaries)
            .category("summary")
            .doc("A Summary proto with up to max_images PNG images of a [batch, height, width, 1|3|4] tensor."));
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
