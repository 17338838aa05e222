// Histogram and image summaries in TensorBoard logs (io/event_log.h): legacy
// HistogramProto and Summary.Image values, TF2 tensor summaries of the
// "histograms" and "images" plugins, TensorBoard's reservoir sampling per
// tag, the bounds on kept image bytes, damaged content reported by file and
// offset, and the histogram compressor (distributions) and rebinning checked
// against values worked out by hand.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>
#include <numeric>

#include "io/event.pb.h"
#include "io/event_log.h"
#include "io/png_writer.h"
#include "io/tfrecord.h"

using namespace flowlens;

namespace {

std::string summaries_file_version() {
  proto::Event e;
  e.set_wall_time(1.0);
  e.set_file_version("brain.Event:2");
  return e.SerializeAsString();
}

// Uniform on [0, 4]: one value in each of (0,1], (1,2], (2,3], (3,4].
proto::HistogramProto uniform_histogram() {
  proto::HistogramProto h;
  h.set_min(0);
  h.set_max(4);
  h.set_num(4);
  h.set_sum(8);
  h.set_sum_squares(30);
  for (double limit : {1.0, 2.0, 3.0, 4.0}) h.add_bucket_limit(limit);
  for (double count : {1.0, 1.0, 1.0, 1.0}) h.add_bucket(count);
  return h;
}

std::string histogram_event(int64_t step, const proto::HistogramProto& h) {
  proto::Event e;
  e.set_wall_time(10.0 + static_cast<double>(step));
  e.set_step(step);
  proto::Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag("weights");
  *v->mutable_histo() = h;
  return e.SerializeAsString();
}

// TF2: a [rows, 3] double tensor of (left, right, count), the plugin named on the first value only.
std::string tf2_histogram_event(int64_t step, const std::vector<double>& rows3, int64_t declared_rows, bool metadata) {
  proto::Event e;
  e.set_step(step);
  proto::Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag("tf2/hist");
  if (metadata) v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("histograms");
  proto::TensorProto* t = v->mutable_tensor();
  t->set_dtype(proto::DT_DOUBLE);
  t->mutable_tensor_shape()->add_dim()->set_size(declared_rows);
  t->mutable_tensor_shape()->add_dim()->set_size(3);
  std::string content(rows3.size() * sizeof(double), '\0');
  std::memcpy(content.data(), rows3.data(), content.size());
  t->set_tensor_content(content);
  return e.SerializeAsString();
}

std::string image_event(int64_t step, const std::string& tag, int width, int height, const std::string& encoded) {
  proto::Event e;
  e.set_step(step);
  proto::Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  proto::Summary::Image* im = v->mutable_image();
  im->set_width(width);
  im->set_height(height);
  im->set_colorspace(1);
  im->set_encoded_image_string(encoded);
  return e.SerializeAsString();
}

std::string tf2_image_event(int64_t step, const std::vector<std::string>& strings) {
  proto::Event e;
  e.set_step(step);
  proto::Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag("tf2/image");
  v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("images");
  proto::TensorProto* t = v->mutable_tensor();
  t->set_dtype(proto::DT_STRING);
  t->mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(strings.size()));
  for (const std::string& s : strings) t->add_string_val(s);
  return e.SerializeAsString();
}

std::string grey_png(int width, int height) {
  std::vector<uint8_t> pixels(static_cast<std::size_t>(width * height));
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7);
  return io::encode_png(pixels.data(), width, height, 1, width);
}

std::string all_problems_text(const EventRun& run) {
  std::string out;
  for (const auto& p : run.problems) out += p.to_string() + "\n";
  return out;
}

}  // namespace

class TestEventSummaries : public QObject {
  Q_OBJECT

 private slots:
  void decodes_histograms_and_images_of_both_generations() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.out.tfevents.1.host").toStdString();
    const std::string png = grey_png(5, 3);
    {
      TFRecordWriter w(path);
      w.write(summaries_file_version());
      for (int64_t step = 0; step < 3; ++step) w.write(histogram_event(step, uniform_histogram()));
      w.write(tf2_histogram_event(4, {0, 1, 2, 1, 3, 5}, 2, true));
      w.write(tf2_histogram_event(5, {-1, 0, 1}, 1, false));  // plugin remembered from the first value
      w.write(image_event(7, "digits/image/0", 5, 3, png));
      w.write(tf2_image_event(8, {"5", "3", png, "second"}));
    }
    const EventLog log = read_event_file(path);
    const EventRun& run = log.runs.at(0);
    QVERIFY2(run.problems.empty(), all_problems_text(run).c_str());

    const auto& weights = run.histograms.at("weights");
    QCOMPARE(weights.size(), std::size_t{3});
    QCOMPARE(weights[2].step, int64_t{2});
    QCOMPARE(weights[2].wall_time, 12.0);
    QCOMPARE(weights[0].num, 4.0);
    QCOMPARE(weights[0].sum_squares, 30.0);
    QCOMPARE(weights[0].bucket_limit, (std::vector<double>{1, 2, 3, 4}));
    QCOMPARE(std::accumulate(weights[1].bucket.begin(), weights[1].bucket.end(), 0.0), 4.0);
    QCOMPARE(run.other_tags.at("weights").kind, std::string("histogram"));
    QCOMPARE(run.other_tags.at("weights").count, int64_t{3});

    const auto& tf2 = run.histograms.at("tf2/hist");
    QCOMPARE(tf2.size(), std::size_t{2});
    QCOMPARE(tf2[0].min, 0.0);
    QCOMPARE(tf2[0].max, 3.0);
    QCOMPARE(tf2[0].num, 7.0);
    QCOMPARE(tf2[0].bucket_limit, (std::vector<double>{1, 3}));
    QCOMPARE(tf2[0].bucket, (std::vector<double>{2, 5}));
    QCOMPARE(tf2[1].step, int64_t{5});
    QCOMPARE(tf2[1].num, 1.0);

    const auto& legacy = run.images.at("digits/image/0");
    QCOMPARE(legacy.size(), std::size_t{1});
    QCOMPARE(legacy[0].step, int64_t{7});
    QCOMPARE(legacy[0].width, 5);
    QCOMPARE(legacy[0].height, 3);
    QCOMPARE(legacy[0].colorspace, 1);
    QVERIFY(legacy[0].encoded == png);
    const auto& tf2_image = run.images.at("tf2/image");
    QCOMPARE(tf2_image.size(), std::size_t{1});
    QCOMPARE(tf2_image[0].width, 5);
    QCOMPARE(tf2_image[0].height, 3);
    QVERIFY(tf2_image[0].encoded == png);  // the first of the batch
    QVERIFY(!run.scalars.count("weights"));
  }

  void damaged_content_is_reported_with_file_and_offset() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.out.tfevents.2.host").toStdString();
    proto::HistogramProto mismatched = uniform_histogram();
    mismatched.add_bucket(9);  // five counts for four limits
    const std::string big(4000, 'x');
    std::vector<uint64_t> offsets;
    {
      TFRecordWriter w(path);
      w.write(summaries_file_version());
      w.write(histogram_event(0, uniform_histogram()));
      w.write(histogram_event(1, mismatched));
      // A million rows declared, one row's bytes present: refused before any allocation.
      w.write(tf2_histogram_event(2, {0, 1, 1}, 1000000, true));
      w.write(tf2_image_event(3, {"wide", "3", "png"}));
      w.write(image_event(4, "big", 100, 100, big));
      w.write(image_event(5, "small", 1, 1, "tiny"));
    }
    // The offsets of the records, for the messages.
    for (const TFRecord& r : read_tfrecords(path)) offsets.push_back(r.offset);
    QCOMPARE(offsets.size(), std::size_t{7});
    // A last record cut short: the file as a writer left it when killed.
    {
      std::string cut = frame_tfrecord(histogram_event(6, uniform_histogram()));
      cut.resize(cut.size() - 9);
      std::ofstream(path, std::ios::binary | std::ios::app) << cut;
    }
    EventLimits limits;
    limits.image_bytes = 1000;
    const EventLog log = read_event_file(path, limits);
    const EventRun& run = log.runs.at(0);
    const std::string text = all_problems_text(run);
    QCOMPARE(run.problems.size(), std::size_t{5});
    QCOMPARE(run.problems[0].offset, offsets[2]);
    QVERIFY2(run.problems[0].what.find("'weights' at step 1 has 4 bucket limit(s) for 5 bucket(s)") != std::string::npos,
             text.c_str());
    QCOMPARE(run.problems[1].offset, offsets[3]);
    QVERIFY2(run.problems[1].what.find("[1000000, 3] shape larger than") != std::string::npos, text.c_str());
    QCOMPARE(run.problems[2].offset, offsets[4]);
    QVERIFY2(run.problems[2].what.find("width and height that are not numbers") != std::string::npos, text.c_str());
    QCOMPARE(run.problems[3].offset, offsets[5]);
    QVERIFY2(run.problems[3].what.find("'big' at step 4: 4000 encoded bytes, more than the 1000") != std::string::npos,
             text.c_str());
    QVERIFY2(run.problems[4].what.find("truncated") != std::string::npos, text.c_str());
    QCOMPARE(run.problems[0].file, path);
    // What was intact is kept.
    QCOMPARE(run.histograms.at("weights").size(), std::size_t{1});
    QVERIFY(!run.images.count("big"));
    QCOMPARE(run.images.at("small").size(), std::size_t{1});
    QCOMPARE(run.other_tags.at("big").count, int64_t{1});  // still counted
  }

  // Every byte of each kind of event flipped in turn, each framed with a
  // good CRC so the damaged protobuf reaches the decoder: reading never
  // throws, and what it keeps stays within the limits.
  void flipped_bytes_never_throw() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.out.tfevents.5.host").toStdString();
    const std::string png = grey_png(4, 4);
    const std::vector<std::string> originals = {
        histogram_event(1, uniform_histogram()), tf2_histogram_event(2, {0, 1, 2, 1, 3, 5}, 2, true),
        image_event(3, "img", 4, 4, png), tf2_image_event(4, {"4", "4", png})};
    std::size_t written = 0;
    {
      TFRecordWriter w(path);
      w.write(summaries_file_version());
      for (const std::string& original : originals)
        for (std::size_t i = 0; i < original.size(); ++i)
          for (unsigned char flip : {0xffu, 0x80u, 0x01u}) {
            std::string bad = original;
            bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ flip);
            w.write(bad);
            ++written;
          }
    }
    QVERIFY(written > 300);
    EventLimits limits;
    limits.histograms = 50;
    limits.images = 5;
    EventLog log;
    try {
      log = read_event_file(path, limits);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    const EventRun& run = log.runs.at(0);
    for (const auto& [tag, points] : run.histograms) QVERIFY(points.size() <= limits.histograms);
    for (const auto& [tag, points] : run.images) QVERIFY(points.size() <= limits.images);
    for (const EventProblem& p : run.problems) {
      QCOMPARE(p.file, path);
      QVERIFY(p.offset > 0);
    }
    // Some damage is caught as such, some yields other valid messages: both happen.
    QVERIFY(!run.problems.empty());
    QVERIFY(!run.histograms.empty() && !run.images.empty());
  }

  void reservoirs_keep_a_sample_with_the_last_step() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.out.tfevents.3.host").toStdString();
    {
      TFRecordWriter w(path);
      w.write(summaries_file_version());
      for (int64_t step = 0; step < 40; ++step) {
        w.write(image_event(step, "img", 1, 1, std::string(100, static_cast<char>('a' + step % 26))));
        w.write(histogram_event(step, uniform_histogram()));
      }
    }
    EventLimits limits;
    limits.histograms = 8;
    limits.run_image_bytes = 450;  // room for four images: the fifth and later are refused
    const EventLog log = read_event_file(path, limits);
    const EventRun& run = log.runs.at(0);
    const auto& hist = run.histograms.at("weights");
    QCOMPARE(hist.size(), std::size_t{8});
    QCOMPARE(hist.back().step, int64_t{39});  // the last step is always kept
    for (std::size_t i = 1; i < hist.size(); ++i) QVERIFY(hist[i - 1].step < hist[i].step);
    QCOMPARE(run.other_tags.at("weights").count, int64_t{40});
    // Sampling is seeded: the same file reads the same way.
    const EventLog again = read_event_file(path, limits);
    for (std::size_t i = 0; i < hist.size(); ++i) QCOMPARE(again.runs[0].histograms.at("weights")[i].step, hist[i].step);

    QCOMPARE(run.images.at("img").size(), std::size_t{4});
    std::size_t refused = 0;
    for (const EventProblem& p : run.problems) refused += p.what.find("bytes of images; not kept") != std::string::npos;
    QCOMPARE(refused, std::size_t{36});

    // With TensorBoard's image reservoir (10) and a budget that suffices: ten kept, the last among them.
    const EventLog defaults = read_event_file(path);
    const auto& images = defaults.runs[0].images.at("img");
    QCOMPARE(images.size(), std::size_t{10});
    QCOMPARE(images.back().step, int64_t{39});
    QVERIFY(images.back().encoded == std::string(100, static_cast<char>('a' + 39 % 26)));
    QVERIFY(defaults.runs[0].problems.empty());
  }

  void compresses_histograms_as_tensorboard() {
    HistogramPoint h;
    h.min = 0;
    h.max = 4;
    h.num = 4;
    h.bucket_limit = {1, 2, 3, 4};
    h.bucket = {1, 1, 1, 1};
    // Cumulative weights 2500, 5000, 7500, 10000 basis points: a uniform
    // spread on [0, 4], so each basis point b lies at 4 * b / 10000.
    const std::vector<double> c = compress_histogram(h);
    QCOMPARE(c.size(), std::size_t{9});
    const double expected[9] = {0, 0.2672, 0.6348, 1.234, 2, 2.766, 3.3652, 3.7328, 4};
    for (int i = 0; i < 9; ++i)
      QVERIFY2(std::abs(c[static_cast<std::size_t>(i)] - expected[i]) < 1e-9,
               qPrintable(QStringLiteral("bp %1: %2").arg(kDistributionBasisPoints[i]).arg(c[static_cast<std::size_t>(i)])));
    // An empty histogram compresses to zeros.
    HistogramPoint empty;
    QCOMPARE(compress_histogram(empty), std::vector<double>(9, 0.0));
    // Counts all in one bucket: the lerp stays inside it, clipped to min and max.
    HistogramPoint one;
    one.min = 1.5;
    one.max = 1.75;
    one.num = 10;
    one.bucket_limit = {1, 2, 3};
    one.bucket = {0, 10, 0};
    const std::vector<double> d = compress_histogram(one);
    QCOMPARE(d[0], 1.5);
    QCOMPARE(d[4], 1.625);
    QCOMPARE(d[8], 1.75);
    // Arrays of different lengths (a point built by hand) are read as far as both go.
    HistogramPoint ragged = h;
    ragged.bucket.push_back(5);
    QCOMPARE(compress_histogram(ragged), c);
  }

  void tf2_histograms_follow_tensorflows_typed_field_rules() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.out.tfevents.4.host").toStdString();
    auto event = [](int64_t step, std::vector<double> typed, int64_t rows) {
      proto::Event e;
      e.set_step(step);
      proto::Summary::Value* v = e.mutable_summary()->add_value();
      v->set_tag("splat");
      v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("histograms");
      proto::TensorProto* t = v->mutable_tensor();
      t->set_dtype(proto::DT_DOUBLE);
      t->mutable_tensor_shape()->add_dim()->set_size(rows);
      t->mutable_tensor_shape()->add_dim()->set_size(3);
      for (double d : typed) t->add_double_val(d);
      return e.SerializeAsString();
    };
    {
      TFRecordWriter w(path);
      w.write(summaries_file_version());
      w.write(event(0, {}, 4));          // no values: zeros, an empty histogram of 4 buckets
      w.write(event(1, {0, 1, 2}, 2));   // fewer values than elements: the last repeats
      w.write(event(2, {0, 1, 2, 3, 4, 5, 6}, 2));  // more values than elements
    }
    const EventLog log = read_event_file(path);
    const EventRun& run = log.runs.at(0);
    const auto& splat = run.histograms.at("splat");
    QCOMPARE(splat.size(), std::size_t{2});
    QCOMPARE(splat[0].bucket, std::vector<double>(4, 0.0));
    QCOMPARE(splat[0].num, 0.0);
    QCOMPARE(splat[1].bucket_limit, (std::vector<double>{1, 2}));
    QCOMPARE(splat[1].bucket, (std::vector<double>{2, 2}));
    QCOMPARE(splat[1].min, 0.0);
    QCOMPARE(run.problems.size(), std::size_t{1});
    QVERIFY2(run.problems[0].what.find("7 value(s) for 6 element(s)") != std::string::npos,
             run.problems[0].what.c_str());
  }

  void rebins_keeping_the_counts() {
    HistogramPoint h;
    h.min = 0;
    h.max = 4;
    h.num = 4;
    h.bucket_limit = {1, 2, 3, 4};
    h.bucket = {1, 1, 1, 1};
    QCOMPARE(rebin_histogram(h, 0, 4, 2), (std::vector<double>{2, 2}));
    const std::vector<double> eight = rebin_histogram(h, 0, 4, 8);
    QCOMPARE(eight, std::vector<double>(8, 0.5));
    // A wider range: the counts land in the bins [0, 4] covers.
    const std::vector<double> wide = rebin_histogram(h, -4, 4, 4);
    QCOMPARE(wide, (std::vector<double>{0, 0, 2, 2}));
    // All values equal (a zero-width bucket): one bin holds them.
    HistogramPoint flat;
    flat.min = flat.max = 2;
    flat.num = 3;
    flat.bucket_limit = {1, 2.5};
    flat.bucket = {0, 3};
    QCOMPARE(rebin_histogram(flat, 0, 4, 4), (std::vector<double>{0, 0, 3, 0}));
    QVERIFY(rebin_histogram(h, 1, 0, 4).empty());
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestEventSummaries)
#include "test_event_summaries.moc"
