// ImageSummary (TensorFlow's summary_image_op.cc): the Summary's tags and
// image fields, every PNG decoded back with libpng and its pixels checked
// against TensorFlow's normalisation worked out by hand (uint8 as is; float,
// half and double scaled per image, non-finite pixels painted bad_color),
// and TensorFlow's errors.
#include "test_main.h"
#include <png.h>

#include <cmath>
#include <cstring>

#include "io/summary.pb.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

proto::Summary summary_of(const Tensor& tensor, AttrMap attrs = {}, const std::string& tag = "img") {
  attrs.try_emplace("T", AttrValue(tensor.dtype()));
  const Tensor out = run1("ImageSummary", attrs, {S({}, {tag}), tensor});
  proto::Summary s;
  if (out.dtype() != DType::String || out.shape().rank() != 0 || !s.ParseFromString(out.strings()[0]))
    qWarning("not a serialized Summary scalar");
  return s;
}

struct Decoded {
  int width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

// The PNG decoded by libpng into its own channel count.
Decoded decode(const std::string& png) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  Decoded d;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
    qWarning("not a PNG: %s", image.message);
    return d;
  }
  d.width = static_cast<int>(image.width);
  d.height = static_cast<int>(image.height);
  d.channels = static_cast<int>(PNG_IMAGE_SAMPLE_CHANNELS(image.format));
  image.format &= ~static_cast<png_uint_32>(PNG_FORMAT_FLAG_LINEAR);  // 8-bit samples as stored
  d.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, d.pixels.data(), 0, nullptr)) qWarning("PNG read failed: %s", image.message);
  return d;
}

bool pixels_are(const proto::Summary::Value& v, int h, int w, int depth, const std::vector<int>& expected) {
  const proto::Summary::Image& img = v.image();
  if (img.height() != h || img.width() != w || img.colorspace() != depth) {
    qWarning("image %dx%d colorspace %d", img.height(), img.width(), img.colorspace());
    return false;
  }
  const Decoded d = decode(img.encoded_image_string());
  if (d.width != w || d.height != h || d.channels != depth) {
    qWarning("PNG %dx%d with %d channels", d.width, d.height, d.channels);
    return false;
  }
  if (d.pixels.size() != expected.size()) return false;
  for (size_t i = 0; i < expected.size(); ++i)
    if (d.pixels[i] != expected[i]) {
      qWarning("sample %zu is %d, expected %d", i, d.pixels[i], expected[i]);
      return false;
    }
  return true;
}

}  // namespace

class TestOpsImageSummary : public QObject {
  Q_OBJECT
 private slots:
  void uint8_images_as_is() {
    const std::vector<double> v = {0, 10, 20, 30, 40, 50, 255, 254, 253, 1, 2, 3};
    const proto::Summary s = summary_of(T(DType::UInt8, {2, 2, 3, 1}, v));  // max_images 3 by default
    QCOMPARE(s.value_size(), 2);
    QCOMPARE(s.value(0).tag(), std::string("img/image/0"));
    QCOMPARE(s.value(1).tag(), std::string("img/image/1"));
    QVERIFY(pixels_are(s.value(0), 2, 3, 1, {0, 10, 20, 30, 40, 50}));
    QVERIFY(pixels_are(s.value(1), 2, 3, 1, {255, 254, 253, 1, 2, 3}));
    // max_images 1: one image, tagged ".../image".
    const proto::Summary one = summary_of(T(DType::UInt8, {2, 2, 3, 1}, v), {{"max_images", AttrValue(int64_t{1})}});
    QCOMPARE(one.value_size(), 1);
    QCOMPARE(one.value(0).tag(), std::string("img/image"));
    // RGB uint8.
    const proto::Summary rgb = summary_of(T(DType::UInt8, {1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}));
    QVERIFY(pixels_are(rgb.value(0), 1, 2, 3, {1, 2, 3, 4, 5, 6}));
  }

  void floats_are_scaled_per_image() {
    // All >= 0: 255 / max = 63.75; truncated.
    const proto::Summary pos = summary_of(F({1, 1, 2, 3}, {0, 1, 2, 4, 0.5f, 4}));
    QVERIFY(pixels_are(pos.value(0), 1, 2, 3, {0, 63, 127, 255, 31, 255}));
    // Some < 0: 127 / max|v| = 63.5 around 128.
    const proto::Summary neg = summary_of(D({1, 2, 2, 1}, {-2, 1, 0, 2}));
    QVERIFY(pixels_are(neg.value(0), 2, 2, 1, {1, 191, 128, 255}));
    // Each image has its own scale.
    const proto::Summary two = summary_of(F({2, 1, 2, 1}, {1, 2, 10, 5}));
    QVERIFY(pixels_are(two.value(0), 1, 2, 1, {127, 255}));
    QVERIFY(pixels_are(two.value(1), 1, 2, 1, {255, 127}));
    // Below 1e-6 the scale is 0.
    const proto::Summary tiny = summary_of(F({1, 1, 2, 1}, {0, 1e-7f}));
    QVERIFY(pixels_are(tiny.value(0), 1, 2, 1, {0, 0}));
    // half: scale and products in half.
    const proto::Summary h = summary_of(T(DType::Half, {1, 1, 3, 1}, {0, 1, 2}));
    QVERIFY(pixels_are(h.value(0), 1, 3, 1, {0, 127, 255}));
  }

  void non_finite_pixels_get_bad_color() {
    // Pixel 0 has a NaN channel: the whole pixel is bad_color (red, opaque by
    // default); the min/max ignore it.
    const proto::Summary s = summary_of(F({1, 1, 2, 4}, {NAN, 100, 100, 100, 1, 2, 3, 4}));
    QVERIFY(pixels_are(s.value(0), 1, 2, 4, {255, 0, 0, 255, 63, 127, 191, 255}));
    AttrMap attrs{{"bad_color", AttrValue(T(DType::UInt8, {3}, {7, 8, 9}))}};
    const proto::Summary c = summary_of(D({1, 1, 2, 3}, {1, INFINITY, 1, 0, 1, 2}), attrs);
    QVERIFY(pixels_are(c.value(0), 1, 2, 3, {7, 8, 9, 0, 127, 255}));
    const Tensor* deflt = op_def("ImageSummary").find_attr("bad_color")->default_value->get_if<Tensor>();
    QVERIFY(deflt && deflt->dtype() == DType::UInt8 && deflt->shape() == Shape({4}));
    QCOMPARE(std::vector<uint8_t>(deflt->data<uint8_t>(), deflt->data<uint8_t>() + 4), (std::vector<uint8_t>{255, 0, 0, 255}));
  }

  void tensorflow_errors() {
    EXPECT_ERROR(summary_of(F({1, 2, 2, 2}, std::vector<float>(8, 1))),
                 "Tensor must be 4-D with last dim 1, 3, or 4, not [1,2,2,2]");
    EXPECT_ERROR(summary_of(F({2, 2, 1}, {1, 2, 3, 4})), "Tensor must be 4-D with last dim 1, 3, or 4, not [2,2,1]");
    EXPECT_ERROR(run1("ImageSummary", {}, {S({2}, {"a", "b"}), F({1, 1, 1, 1}, {1})}), "Tags must be a scalar");
    EXPECT_ERROR(summary_of(F({1, 1, 1, 3}, {1, 2, 3}), {{"bad_color", AttrValue(T(DType::UInt8, {2}, {1, 2}))}}),
                 "expected depth <= bad_color.size, got depth = 3, bad_color.size = 2");
    EXPECT_ERROR(summary_of(F({1, 1, 1, 1}, {1}), {{"bad_color", AttrValue(F({1}, {1}))}}), "bad_color must be uint8, got float32");
    EXPECT_ERROR(summary_of(T(DType::UInt8, {1, 1, 1, 1}, {1}), {{"bad_color", AttrValue(T(DType::UInt8, {1, 1}, {1}))}}),
                 "bad_color must be a vector, got shape [1,1]");
    EXPECT_ERROR(summary_of(F({1, 1, 1, 1}, {1}), {{"max_images", AttrValue(int64_t{1} << 31)}}), "max_images must be < 2^31");
    EXPECT_ERROR(summary_of(T(DType::Int32, {1, 1, 1, 1}, {1})), "ImageSummary: unsupported dtype int32");
    // A 1x0 image: libpng cannot write an empty PNG (TensorFlow: "PNG encoding failed").
    EXPECT_ERROR(summary_of(Tensor(DType::UInt8, Shape{1, 1, 0, 1})), "PNG encoding failed");
    // No images at all is an empty Summary.
    QCOMPARE(summary_of(Tensor(DType::Float, Shape{0, 2, 2, 1})).value_size(), 0);
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsImageSummary)
#include "test_ops_image_summary.moc"
