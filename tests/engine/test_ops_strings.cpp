// String ops: StringToHashBucketFast against TensorFlow's documented buckets
// and FarmHash's Fingerprint64 values, StringFormat (tf.strings.format /
// tf.print) against the outputs TensorFlow's documentation shows, StringJoin
// (tf.strings.join), and ShardedFilename / ShardedFilespec (the shard names a
// Saver writes and restores).
#include "test_main.h"
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
  // ---- StringJoin -----------------------------------------------------------------

  void join_scalars_and_vectors() {
    Tensor out = run1("StringJoin", {{"N", 2}, {"separator", " "}}, {S({}, {"hello"}), S({}, {"world"})});
    QCOMPARE(out.shape(), Shape{});
    QCOMPARE(out.strings()[0], std::string("hello world"));
    // tf.strings.join([["a", "b"], "x", ["1", "2"]], separator="-"): a scalar stands for every element.
    out = run1("StringJoin", {{"N", 3}, {"separator", "-"}}, {S({2}, {"a", "b"}), S({}, {"x"}), S({2}, {"1", "2"})});
    QCOMPARE(out.shape(), Shape{2});
    QCOMPARE(out.strings(), (std::vector<std::string>{"a-x-1", "b-x-2"}));
    // The default separator is empty; bytes are joined as they are.
    out = run1("StringJoin", {{"N", 2}}, {S({2, 1}, {"p", std::string("\0q", 2)}), S({2, 1}, {"r", ""})});
    QCOMPARE(out.shape(), (Shape{2, 1}));
    QCOMPARE(out.strings(), (std::vector<std::string>{"pr", std::string("\0q", 2)}));
    out = run1("StringJoin", {{"N", 2}, {"separator", ","}}, {S({0}, {}), S({}, {"x"})});
    QCOMPARE(out.shape(), Shape{0});
    out = run1("StringJoin", {{"N", 1}, {"separator", ","}}, {S({}, {"alone"})});
    QCOMPARE(out.strings()[0], std::string("alone"));
  }

  void join_refuses_shapes_that_differ() {
    // No broadcasting beyond scalars: [1] does not stretch to [2].
    EXPECT_ERROR(run1("StringJoin", {{"N", 2}}, {S({2}, {"a", "b"}), S({1}, {"c"})}),
                 "Input shapes do not match: [2] vs. [1]");
    EXPECT_ERROR(run1("StringJoin", {{"N", 2}}, {S({2}, {"a", "b"}), F({2}, {1, 2})}), "must be a string tensor");
  }

  void join_shape_function() {
    auto info = infer("StringJoin", {{"N", 2}}, {{DType::String, Shape{}}, {DType::String, Shape{}}});
    QCOMPARE(info[0].dtype, DType::String);
    QCOMPARE(info[0].shape, Shape{});
    info = infer("StringJoin", {{"N", 3}},
                 {{DType::String, Shape{-1, 3}}, {DType::String, Shape{}}, {DType::String, Shape{4, -1}}});
    QCOMPARE(info[0].shape, (Shape{4, 3}));
    // An input of unknown rank might be a scalar: it is not merged.
    info = infer("StringJoin", {{"N", 2}}, {{DType::String, Shape::unknown_rank()}, {DType::String, Shape{}}});
    QCOMPARE(info[0].shape, Shape::unknown_rank());
    info = infer("StringJoin", {{"N", 2}}, {{DType::String, Shape::unknown_rank()}, {DType::String, Shape{5}}});
    QCOMPARE(info[0].shape, Shape{5});
    EXPECT_ERROR(infer("StringJoin", {{"N", 2}}, {{DType::String, Shape{2}}, {DType::String, Shape{3}}}),
                 "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3].");
    EXPECT_ERROR(infer("StringJoin", {{"N", 2}}, {{DType::String, Shape{2}}, {DType::String, Shape{2, 1}}}),
                 "Shapes must be equal rank, but are 1 and 2");
  }

  // ---- ShardedFilename / ShardedFilespec -------------------------------------------------

  void sharded_names_follow_tensorflows_printf_formats() {
    auto name = [](const std::string& base, int32_t shard, int32_t n) {
      return run1("ShardedFilename", {}, {S({}, {base}), Tensor::scalar<int32_t>(shard), Tensor::scalar<int32_t>(n)})
          .strings()[0];
    };
    // "%s-%05d-of-%05d"
    QCOMPARE(name("/tmp/ckpt/model.ckpt", 0, 1), std::string("/tmp/ckpt/model.ckpt-00000-of-00001"));
    QCOMPARE(name("variables/variables", 3, 10), std::string("variables/variables-00003-of-00010"));
    QCOMPARE(name("m", 123456, 200000), std::string("m-123456-of-200000"));
    QCOMPARE(name("m", -1, 2), std::string("m--0001-of-00002"));
    // %s stops at a NUL.
    QCOMPARE(name(std::string("ab\0cd", 5), 1, 2), std::string("ab-00001-of-00002"));
    // TensorFlow's "%s-?????-of-%05d" (five question marks).
    Tensor spec = run1("ShardedFilespec", {}, {S({}, {"variables/variables"}), Tensor::scalar<int32_t>(2)});
    QCOMPARE(spec.shape(), Shape{});
    QCOMPARE(spec.strings()[0], std::string("variables/variables-\?\?\?\?\?-of-00002"));
  }

  void sharded_names_take_scalars_only() {
    EXPECT_ERROR(run1("ShardedFilename", {}, {S({1}, {"m"}), Tensor::scalar<int32_t>(0), Tensor::scalar<int32_t>(1)}),
                 "basename must be a scalar, got shape [1]");
    EXPECT_ERROR(run1("ShardedFilename", {}, {S({}, {"m"}), I32({2}, {0, 1}), Tensor::scalar<int32_t>(1)}),
                 "shard must be a scalar, got shape [2]");
    EXPECT_ERROR(run1("ShardedFilespec", {}, {S({}, {"m"}), I32({1}, {1})}), "num_shards must be a scalar, got shape [1]");
    EXPECT_ERROR(run1("ShardedFilespec", {}, {S({}, {"m"}), I64({}, {1})}), "num_shards must be int32, got int64");
    auto info = infer("ShardedFilename", {}, {{DType::String, Shape{}}, {DType::Int32, Shape{}}, {DType::Int32, Shape{}}});
    QCOMPARE(info[0].dtype, DType::String);
    QCOMPARE(info[0].shape, Shape{});
    EXPECT_ERROR(infer("ShardedFilespec", {}, {{DType::String, Shape{2}}, {DType::Int32, Shape{}}}),
                 "Shape must be rank 0 but is rank 1");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsStrings)
#include "test_ops_strings.moc"
