#pragma once
// PNG encoding of 8-bit images through libpng's simplified API, for the
// ImageSummary op (TensorFlow's lib/png/png_io WriteImageToBuffer: 8 bits a
// channel, zlib's default compression).
#include <cstdint>
#include <string>

namespace flowlens::io {

// The PNG bytes of a width x height image of `channels` (1 gray, 2 gray +
// alpha, 3 RGB, 4 RGBA) 8-bit samples, rows `row_stride` bytes apart.
// Throws flowlens::Error when libpng refuses the image.
std::string encode_png(const uint8_t* pixels, int width, int height, int channels, int64_t row_stride);

}  // namespace flowlens::io
