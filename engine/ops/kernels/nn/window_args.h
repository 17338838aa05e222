#pragma once
// The geometry every sliding-window op shares (convolution, depthwise
// convolution, pooling and their gradients): TensorFlow's data_format and
// padding attrs, and the output size and padding of one spatial dimension as
// TensorFlow's GetWindowedOutputSizeVerbose (framework/kernel_shape_util.cc)
// computes them, so shape functions and kernels agree with TensorFlow's.
#include <cstdint>
#include <string>

namespace flowlens::ops {

enum class Padding { Valid, Same, Explicit };
enum class DataFormat { NHWC, NCHW };

// "VALID", "SAME", "EXPLICIT"; anything else fails naming the value.
Padding padding_from(const std::string& attr);
// "NHWC", "NCHW"; anything else fails naming the value.
DataFormat data_format_from(const std::string& attr);
const char* to_string(DataFormat format);

// Where batch, height, width and channels sit in a rank-4 tensor.
struct Dims4 {
  int n, h, w, c;
};
Dims4 dims_of(DataFormat format);

struct WindowedSize {
  int64_t output = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

// One spatial dimension: input size, window (filter or ksize) size, dilation
// rate, stride, and for EXPLICIT padding the given amounts. Fails with
// TensorFlow's messages when the stride or dilation is below 1, an explicit
// pad is negative, or the output would be negative; sizes are bounded so that
// no intermediate overflows.
WindowedSize windowed_output_size(int64_t input, int64_t window, int64_t dilation, int64_t stride,
                                  Padding padding, int64_t explicit_before = 0, int64_t explicit_after = 0);

}  // namespace flowlens::ops
