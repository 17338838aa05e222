// String ops: StringToHashBucketFast against TensorFlow's documented buckets
// and FarmHash's Fingerprint64 values, and StringFormat (tf.strings.format /
// tf.print) against the outputs TensorFlow's documentation shows.
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

AttrValue types(std::vector<DType> t) {
  AttrList l;
  l.type = std::move(t);
  return AttrValue(std::move(l));
}

std::vector<int64_t> buckets(const std::vector<std::string>& in, int64_t n) {
  Tensor out = run1("StringToHashBucketFast", {{"num_buckets", n}}, {S({static_cast<int64_t>(in.size())}, in)});
  return {out.data<int64_t>(), out.data<int64_t>() + out.num_elements()};
}

QString format(const std::string& tmpl, std::vector<Tensor> inputs, AttrMap attrs = {}) {
  std::vector<DType> dtypes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype());
  attrs["T"] = types(dtypes);
  attrs["template"] = AttrValue(tmpl);
  attrs.try_emplace("placeholder", AttrValue("{}"));
  Tensor out = run1("StringFormat", std::move(attrs), std::move(inputs));
  if (out.dtype() != DType::String || out.shape().rank() != 0) return "<not a string scalar>";
  return QString::fromStdString(out.strings()[0]);
}

Tensor range(DType dtype, Shape shape) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return T(dtype, std::move(shape), v);
}

}  // namespace

class TestOpsStrings : public QObject {
  Q_OBJECT
 private slots:
  void hash_bucket_matches_tensorflows_documented_example() {
    // tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3) -> [0, 2, 2]
    QCOMPARE(buckets({"Hello", "TensorFlow", "2.x"}, 3), (std::vector<int64_t>{0, 2, 2}));
  }

  void hash_bucket_covers_every_farmhash_length_path() {
    // Fingerprint64 % 1000 for each of FarmHash's length branches (0-16,
    // 17-32, 33-64, >64) and the empty string, whose fingerprint is k2.
    QCOMPARE(buckets({"", "a", "hello world", std::string(20, 'x'), std::string(40, 'y'), std::string(100, 'z')}, 1000),
             (std::vector<int64_t>{263, 939, 11, 348, 6, 73}));
    // 0x9ae16a3b2f90404f % (2^63 - 1): the full 64-bit hash, not a truncated one.
    QCOMPARE(buckets({""}, INT64_MAX), (std::vector<int64_t>{static_cast<int64_t>(0x9ae16a3b2f90404fULL % INT64_MAX)}));
    QCOMPARE(buckets({"a", "b"}, 1), (std::vector<int64_t>{0, 0}));
  }

  void hash_bucket_hashes_raw_bytes_and_keeps_the_shape() {
    // Embedded NULs are part of the string: "a\0" hashes differently from "a".
    const std::string with_nul("a\0", 2);
    Tensor out = run1("StringToHashBucketFast", {{"num_buckets", int64_t{1} << 40}}, {S({2, 1}, {"a", with_nul})});
    QCOMPARE(out.dtype(), DType::Int64);
    QCOMPARE(out.shape(), (Shape{2, 1}));
    QVERIFY(out.data<int64_t>()[0] != out.data<int64_t>()[1]);
    QCOMPARE(run1("StringToHashBucketFast", {{"num_buckets", 5}}, {S({0}, {})}).shape(), Shape{0});
    auto info = infer("StringToHashBucketFast", {{"num_buckets", 5}}, {{DType::String, Shape{-1, 3}}});
    QCOMPARE(info[0].dtype, DType::Int64);
    QCOMPARE(info[0].shape, (Shape{-1, 3}));
  }

  void hash_bucket_errors() {
    EXPECT_ERROR(run1("StringToHashBucketFast", {{"num_buckets", 0}}, {S({1}, {"a"})}),
                 "Value for attr 'num_buckets' of 0 must be at least minimum 1");
    EXPECT_ERROR(run1("StringToHashBucketFast", {{"num_buckets", 3}}, {F({1}, {1})}), "must be a string tensor");
    EXPECT_ERROR(run1("StringToHashBucketFast", {}, {S({1}, {"a"})}), "num_buckets");
  }

  void format_follows_tensorflows_documentation() {
    // tf.strings.format("tensor: {}, suffix", tf.range(10)) with the default summarize=3.
    QCOMPARE(format("tensor: {}, suffix", {range(DType::Int32, {10})}), QString("tensor: [0 1 2 ... 7 8 9], suffix"));
    QCOMPARE(format("{}, {}", {range(DType::Int32, {5}), range(DType::Int32, {5})}), QString("[0 1 2 3 4], [0 1 2 3 4]"));
    // tf.strings.format("{}", tf.reshape(tf.range(100), [10, 10]), summarize=2)
    QCOMPARE(format("{}", {range(DType::Int32, {10, 10})}, {{"summarize", 2}}),
             QString("[[0 1 ... 8 9]\n [10 11 ... 18 19]\n ...\n [80 81 ... 88 89]\n [90 91 ... 98 99]]"));
  }

  void format_nests_dimensions_with_newlines() {
    QCOMPARE(format("{}", {range(DType::Int64, {2, 2, 2})}),
             QString("[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"));
    QCOMPARE(format("{}", {range(DType::Int32, {7})}, {{"summarize", -1}}), QString("[0 1 2 3 4 5 6]"));
    QCOMPARE(format("{}", {range(DType::Int32, {0})}), QString("[]"));
    QCOMPARE(format("{}", {Tensor::scalar<int32_t>(7)}), QString("7"));
  }

  void format_prints_values_as_tensorflow_does() {
    // Floats through FloatToBuffer (%.6g, %.9g when that does not read back);
    // the 16-bit floats through float; bools as 1/0; strings quoted and escaped.
    QCOMPARE(format("{}", {F({3}, {0.1f, 1.0f / 3.0f, 1e10f})}), QString("[0.1 0.333333343 1e+10]"));
    QCOMPARE(format("{}", {D({2}, {0.1, 1.0 / 3.0})}), QString("[0.1 0.33333333333333331]"));
    QCOMPARE(format("{}", {T(DType::Half, {2}, {0.1, 2})}), QString("[0.0999755859 2]"));
    QCOMPARE(format("{}", {T(DType::BFloat16, {1}, {0.1})}), QString("[0.100097656]"));
    QCOMPARE(format("{}", {B({2}, {true, false})}), QString("[1 0]"));
    QCOMPARE(format("{}", {T(DType::Int8, {2}, {-128, 5})}), QString("[-128 5]"));
    QCOMPARE(format("{}", {T(DType::UInt64, {1}, {1e19})}), QString("[10000000000000000000]"));
    QCOMPARE(format("{}", {S({2}, {"a b", "say \"hi\"\n"})}), QString("[\"a b\" \"say \\\"hi\\\"\\n\"]"));
    QCOMPARE(format("{}", {S({}, {std::string("\x01\xc3\xa9", 3)})}), QString::fromUtf8("\"\\001\xc3\xa9\""));
    const float inf = std::numeric_limits<float>::infinity();
    QCOMPARE(format("{}", {F({3}, {inf, -inf, std::nanf("")})}), QString("[inf -inf nan]"));
  }

  void format_template_and_placeholder_rules() {
    // The default template is '%s' with placeholder '%s'.
    Tensor out = run1("StringFormat", {{"T", types({DType::Int32})}}, {Tensor::scalar<int32_t>(4)});
    QCOMPARE(QString::fromStdString(out.strings()[0]), QString("4"));
    QCOMPARE(format("no inputs", {}), QString("no inputs"));
    QCOMPARE(format("{}{}", {Tensor::scalar<int32_t>(1), Tensor::scalar<int32_t>(2)}), QString("12"));
    EXPECT_ERROR(format("{} and {}", {Tensor::scalar<int32_t>(1)}),
                 "num placeholders in template and num inputs must match: 2 vs. 1");
    EXPECT_ERROR(infer("StringFormat", {{"template", "{}"}, {"placeholder", "{}"}, {"T", types({})}}, {}),
                 "num placeholders in template and num inputs must match: 1 vs. 0");
    auto info = infer("StringFormat", {{"template", "{}"}, {"placeholder", "{}"}, {"T", types({DType::Float})}},
                      {{DType::Float, Shape{3}}});
    QCOMPARE(info[0].dtype, DType::String);
    QCOMPARE(info[0].shape, Shape{});
  }
};

QTEST_APPLESS_MAIN(TestOpsStrings)
#include "test_ops_strings.moc"
