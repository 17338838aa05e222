// Summary ops: the serialized Summary protos parsed back (tags, values,
// histogram buckets worked out by hand with TensorFlow's histogram.cc
// algorithm), the exact bytes TensorFlow writes, MergeSummary's rules, and
// TensorFlow's error messages.
#include "test_main.h"
#include <cfloat>

#include "io/summary.pb.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

proto::Summary parsed(const Tensor& t) {
  proto::Summary s;
  if (t.dtype() != DType::String || t.shape().rank() != 0 || !s.ParseFromString(t.strings()[0]))
    qWarning("not a serialized Summary scalar");
  return s;
}

proto::HistogramProto histogram_of(const Tensor& values, const std::string& tag = "h") {
  proto::Summary s = parsed(run1("HistogramSummary", {{"T", values.dtype()}}, {S({}, {tag}), values}));
  if (s.value_size() != 1 || s.value(0).tag() != tag || !s.value(0).has_histo()) qWarning("expected one histo value");
  return s.value(0).histo();
}

// (limit, count) pairs of a HistogramProto.
std::vector<std::pair<double, double>> buckets(const proto::HistogramProto& h) {
  std::vector<std::pair<double, double>> out;
  for (int i = 0; i < h.bucket_size(); ++i) out.emplace_back(h.bucket_limit(i), h.bucket(i));
  return out;
}

}  // namespace

class TestOpsSummary : public QObject {
  Q_OBJECT
 private slots:
  void scalar_summary_has_one_value_per_tag() {
    proto::Summary s = parsed(run1("ScalarSummary", {{"T", DType::Double}},
                                   {S({2, 2}, {"a", "b", "c", "d"}), D({2, 2}, {1.5, -2, 1.0 / 3.0, 1e300})}));
    QCOMPARE(s.value_size(), 4);
    QCOMPARE(QString::fromStdString(s.value(0).tag()), QString("a"));
    QCOMPARE(QString::fromStdString(s.value(3).tag()), QString("d"));
    QCOMPARE(s.value(0).simple_value(), 1.5f);
    QCOMPARE(s.value(1).simple_value(), -2.0f);
    QCOMPARE(s.value(2).simple_value(), static_cast<float>(1.0 / 3.0));  // float(value), as TF converts
    QVERIFY(std::isinf(s.value(3).simple_value()));
    QVERIFY(!s.value(0).has_histo());
  }

  void scalar_summary_bytes_are_tensorflows() {
    // ScalarSummary(tags="loss", values=1.0f) in TensorFlow serializes to these 13 bytes.
    Tensor out = run1("ScalarSummary", {{"T", DType::Float}}, {S({}, {"loss"}), F({}, {1})});
    QCOMPARE(QByteArray::fromStdString(out.strings()[0]).toHex(), QByteArray("0a0b0a046c6f7373150000803f"));
    // No values: an empty Summary, i.e. empty bytes.
    out = run1("ScalarSummary", {{"T", DType::Float}}, {S({0}, {}), F({0}, {})});
    QCOMPARE(out.strings()[0], std::string());
  }

  void scalar_summary_takes_every_real_dtype() {
    for (DType t : {DType::Half, DType::BFloat16, DType::Int8, DType::UInt16, DType::Int64, DType::UInt64}) {
      proto::Summary s = parsed(run1("ScalarSummary", {{"T", t}}, {S({}, {"x"}), T(t, {}, {3})}));
      QCOMPARE(s.value_size(), 1);
      QCOMPARE(s.value(0).simple_value(), 3.0f);
    }
    proto::Summary s = parsed(run1("ScalarSummary", {{"T", DType::Half}}, {S({}, {"x"}), T(DType::Half, {}, {0.1})}));
    QCOMPARE(s.value(0).simple_value(), 0.0999755859375f);  // float16(0.1) widened exactly
  }

  void scalar_summary_errors() {
    EXPECT_ERROR(run1("ScalarSummary", {{"T", DType::Float}}, {S({1}, {"loss"}), F({}, {1})}),
                 "tags and values not the same shape: [1] != [] (tag 'loss')");
    EXPECT_ERROR(run1("ScalarSummary", {{"T", DType::Float}}, {S({2}, {"a", "b"}), F({3}, {1, 2, 3})}),
                 "tags and values not the same shape: [2] != [3]");
    const std::string msg = error_of([] { run1("ScalarSummary", {}, {S({2}, {"a", "b"}), F({1, 2}, {1, 2})}); });
    QVERIFY2(msg.find("(tag") == std::string::npos, msg.c_str());  // the tag is named only when there is one
    EXPECT_ERROR(run1("ScalarSummary", {}, {S({}, {"a"}), S({}, {"b"})}), "unsupported dtype string");
  }

  void histogram_of_one_two_three() {
    // Worked by hand with histogram.cc: limits grow by 1.1 from 1e-12; each
    // value lands in the bucket of the first limit above it; the empty runs
    // between collapse to one zero entry carrying the run's last limit.
    const proto::HistogramProto h = histogram_of(F({3}, {1, 2, 3}));
    QCOMPARE(h.min(), 1.0);
    QCOMPARE(h.max(), 3.0);
    QCOMPARE(h.num(), 3.0);
    QCOMPARE(h.sum(), 6.0);
    QCOMPARE(h.sum_squares(), 14.0);
    const std::vector<std::pair<double, double>> expected = {
        {0.917246389039776, 0}, {1.0089710279437536, 1}, {1.9661990955585713, 0}, {2.1628190051144287, 1},
        {2.8787120958073054, 0}, {3.1665833053880363, 1}, {DBL_MAX, 0}};
    QCOMPARE(buckets(h), expected);
  }

  void histogram_of_zero_negatives_and_nothing() {
    QCOMPARE(buckets(histogram_of(F({1}, {0}))),
             (std::vector<std::pair<double, double>>{{0.0, 0}, {1e-12, 1}, {DBL_MAX, 0}}));
    proto::HistogramProto h = histogram_of(D({2}, {-1.5, 0.5}));
    QCOMPARE(h.sum(), -1.0);
    QCOMPARE(h.sum_squares(), 2.5);
    QCOMPARE(buckets(h), (std::vector<std::pair<double, double>>{{-1.624957930213695, 0},
                                                                 {-1.47723448201245, 1},
                                                                 {0.47069243095356195, 0},
                                                                 {0.5177616740489182, 1},
                                                                 {DBL_MAX, 0}}));
    // No values: min is the last limit, max its negative, one collapsed entry.
    h = histogram_of(F({0}, {}));
    QCOMPARE(h.min(), DBL_MAX);
    QCOMPARE(h.max(), -DBL_MAX);
    QCOMPARE(h.num(), 0.0);
    QCOMPARE(buckets(h), (std::vector<std::pair<double, double>>{{DBL_MAX, 0}}));
  }

  void histogram_counts_repeats_and_the_lowest_bucket() {
    // -DBL_MAX is the first limit: a value just above it is in bucket 1, so
    // the output starts with the single empty bucket 0 ending at -DBL_MAX.
    proto::HistogramProto h = histogram_of(D({3}, {-1e300, 2, 2}));
    QCOMPARE(h.bucket_limit(0), -DBL_MAX);
    QCOMPARE(h.bucket(0), 0.0);
    QCOMPARE(h.bucket(1), 1.0);   // -1e300 in (-DBL_MAX, -9.92e19]
    QCOMPARE(h.bucket_limit(1), -9.920775621859783e+19);
    QCOMPARE(h.bucket(3), 2.0);   // both 2s share [1.966, 2.163)
    QCOMPARE(h.bucket_limit(3), 2.1628190051144287);
    // Integer and 16-bit values are converted to double first.
    QCOMPARE(histogram_of(T(DType::UInt8, {2}, {1, 255})).sum(), 256.0);
    QCOMPARE(histogram_of(T(DType::Half, {1}, {0.1})).sum(), 0.0999755859375);
  }

  void histogram_errors_name_the_node() {
    EXPECT_ERROR(run1("HistogramSummary", {}, {S({}, {"h"}), F({2}, {1, std::nanf("")})}),
                 "Nan in summary histogram for: test_node");
    EXPECT_ERROR(run1("HistogramSummary", {}, {S({}, {"h"}), D({1}, {-HUGE_VAL})}),
                 "Infinity in summary histogram for: test_node");
    EXPECT_ERROR(run1("HistogramSummary", {}, {S({1}, {"h"}), F({1}, {1})}), "tags must be scalar");
  }

  void merge_keeps_values_in_order() {
    Tensor a = run1("ScalarSummary", {}, {S({2}, {"a", "b"}), F({2}, {1, 2})});
    Tensor c = run1("ScalarSummary", {}, {S({}, {"c"}), F({}, {3})});
    Tensor h = run1("HistogramSummary", {}, {S({}, {"h"}), F({1}, {1})});
    Tensor list = S({2}, {c.strings()[0], h.strings()[0]});
    proto::Summary s = parsed(run1("MergeSummary", {{"N", 2}}, {a, list}));
    QCOMPARE(s.value_size(), 4);
    QCOMPARE(QString::fromStdString(s.value(0).tag() + s.value(1).tag() + s.value(2).tag() + s.value(3).tag()),
             QString("abch"));
    QVERIFY(s.value(3).has_histo());
    // Canonically serialized inputs merge to their byte concatenation.
    QCOMPARE(run1("MergeSummary", {{"N", 2}}, {a, c}).strings()[0], a.strings()[0] + c.strings()[0]);
  }

  void merge_errors() {
    Tensor a = run1("ScalarSummary", {}, {S({}, {"loss"}), F({}, {1})});
    EXPECT_ERROR(run1("MergeSummary", {{"N", 2}}, {a, a}), "Duplicate tag loss found in summary inputs");
    EXPECT_ERROR(run1("MergeSummary", {{"N", 1}}, {S({}, {"\xff\xff"})}), "Could not parse one of the summary inputs");
    // Values without a tag are never duplicates.
    proto::Summary untagged;
    untagged.add_value()->set_simple_value(1);
    const std::string bytes = untagged.SerializeAsString();
    QCOMPARE(parsed(run1("MergeSummary", {{"N", 2}}, {S({}, {bytes}), S({}, {bytes})})).value_size(), 2);
  }

  void shapes_are_string_scalars() {
    for (const char* op : {"ScalarSummary", "HistogramSummary"}) {
      auto info = infer(op, {{"T", DType::Float}}, {{DType::String, Shape{2}}, {DType::Float, Shape{2}}});
      QCOMPARE(info[0].dtype, DType::String);
      QCOMPARE(info[0].shape, Shape{});
    }
    auto info = infer("MergeSummary", {{"N", 2}}, {{DType::String, Shape{}}, {DType::String, Shape{3}}});
    QCOMPARE(info[0].shape, Shape{});
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsSummary)
#include "test_ops_summary.moc"
