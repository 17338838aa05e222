#include "ops/kernels/nn/window_args.h"

#include <algorithm>

#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {
// Far above any real tensor dimension, far below where (in + pads) * 2 could overflow.
constexpr int64_t kMaxDim = int64_t{1} << 40;
}  // namespace

Padding padding_from(const std::string& attr) {
  if (attr == "VALID") return Padding::Valid;
  if (attr == "SAME") return Padding::Same;
  if (attr == "EXPLICIT") return Padding::Explicit;
  fail("padding must be SAME, VALID or EXPLICIT, not '" + attr + "'");
}

DataFormat data_format_from(const std::string& attr) {
  if (attr == "NHWC") return DataFormat::NHWC;
  if (attr == "NCHW") return DataFormat::NCHW;
  fail("Invalid data format '" + attr + "': expected NHWC or NCHW");
}

const char* to_string(DataFormat format) { return format == DataFormat::NHWC ? "NHWC" : "NCHW"; }

Dims4 dims_of(DataFormat format) {
  return format == DataFormat::NHWC ? Dims4{0, 1, 2, 3} : Dims4{0, 2, 3, 1};
}

WindowedSize windowed_output_size(int64_t input, int64_t window, int64_t dilation, int64_t stride,
                                  Padding padding, int64_t explicit_before, int64_t explicit_after) {
  if (stride <= 0) fail("Stride must be > 0, but got " + std::to_string(stride));
  if (dilation < 1) fail("Dilation rate must be >= 1, but got " + std::to_string(dilation));
  if (input < 0 || window < 0) fail("Input and window sizes must be >= 0");
  if (input > kMaxDim || window > kMaxDim || dilation > kMaxDim || stride > kMaxDim || explicit_before > kMaxDim ||
      explicit_after > kMaxDim)
    fail("Window geometry out of range (input " + std::to_string(input) + ", window " + std::to_string(window) + ")");
  // TensorFlow computes the dilated window in int64 with no check; the bound above keeps it finite.
  const int64_t effective = (window - 1) * dilation + 1;
  WindowedSize s;
  switch (padding) {
    case Padding::Valid:
      s.output = (input - effective + stride) / stride;
      break;
    case Padding::Explicit:
      if (explicit_before < 0 || explicit_after < 0)
        fail("All explicit paddings must be nonnegative, got " + std::to_string(explicit_before) + " and " +
             std::to_string(explicit_after));
      s.pad_before = explicit_before;
      s.pad_after = explicit_after;
      s.output = (input + explicit_before + explicit_after - effective + stride) / stride;
      break;
    case Padding::Same: {
      s.output = (input + stride - 1) / stride;
      const int64_t needed = std::max<int64_t>(0, (s.output - 1) * stride + effective - input);
      // For odd padding TensorFlow pads more after (Caffe pads before).
      s.pad_before = needed / 2;
      s.pad_after = needed - s.pad_before;
      break;
    }
  }
  if (s.output < 0)
    fail("Computed output size would be negative: " + std::to_string(s.output) + " [input_size: " +
         std::to_string(input) + ", effective_filter_size: " + std::to_string(effective) +
         ", stride: " + std::to_string(stride) + "]");
  return s;
}

}  // namespace flowlens::ops
