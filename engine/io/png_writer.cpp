#include "io/png_writer.h"

#include <png.h>

#include <cstring>

#include "common/error.h"

namespace flowlens::io {

std::string encode_png(const uint8_t* pixels, int width, int height, int channels, int64_t row_stride) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  switch (channels) {
    case 1: image.format = PNG_FORMAT_GRAY; break;
    case 2: image.format = PNG_FORMAT_GA; break;
    case 3: image.format = PNG_FORMAT_RGB; break;
    case 4: image.format = PNG_FORMAT_RGBA; break;
    default: throw Error("PNG encoding failed: " + std::to_string(channels) + " channels");
  }
  if (width <= 0 || height <= 0 || row_stride < int64_t{width} * channels || row_stride > INT32_MAX)
    throw Error("PNG encoding failed: a " + std::to_string(width) + "x" + std::to_string(height) + " image");
  const auto stride = static_cast<png_int_32>(row_stride);
  png_alloc_size_t size = 0;
  if (!png_image_write_get_memory_size(image, size, 0, pixels, stride, nullptr)) {
    const std::string why = image.message;
    png_image_free(&image);
    throw Error("PNG encoding failed: " + why);
  }
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&image, out.data(), &size, 0, pixels, stride, nullptr)) {
    const std::string why = image.message;
    png_image_free(&image);
    throw Error("PNG encoding failed: " + why);
  }
  out.resize(size);
  return out;
}

}  // namespace flowlens::io
