// tf.Example parsing (ParseExample, ParseExampleV2, ParseSingleExample)
// against TensorFlow's kernel semantics: serialized Examples written byte by
// byte from the protobuf wire format (example_wire_util.h) and through the
// generated classes of io/example.proto, dense features of every dtype with
// defaults and shapes, variable-length padding, sparse and ragged outputs,
// TensorFlow's error texts, and malformed bytes that must never crash.
#include "test_main.h"
#include "op_test_util.h"

#include "engine/example_wire_util.h"
#include "io/example.pb.h"
#include "io/example_wire.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

AttrValue types(std::vector<DType> t) {
  AttrList l;
  l.type = std::move(t);
  return AttrValue(std::move(l));
}

AttrValue shapes(std::vector<Shape> s) {
  AttrList l;
  l.shape = std::move(s);
  return AttrValue(std::move(l));
}

AttrValue strs(std::vector<std::string> s) {
  AttrList l;
  l.s = std::move(s);
  return AttrValue(std::move(l));
}

// One dense feature request: key, dtype, shape and default (an empty tensor
// of the dtype: required).
struct Dense {
  std::string key;
  DType dtype;
  Shape shape;
  Tensor default_value;
};

Tensor required(DType t) { return t == DType::String ? S({0}, {}) : Tensor(t, Shape{0}); }

struct Sparse {
  std::string key;
  DType dtype;
};

// ParseExample (V1) with these features over a batch.
std::vector<Tensor> parse_v1(const std::vector<std::string>& serialized, const std::vector<Dense>& dense,
                             const std::vector<Sparse>& sparse = {}, std::vector<std::string> names = {}) {
  std::vector<DType> sparse_types, dense_types;
  std::vector<Shape> dense_shapes;
  std::vector<Tensor> inputs{S({static_cast<int64_t>(serialized.size())}, serialized),
                             S({static_cast<int64_t>(names.size())}, names)};
  for (const Sparse& s : sparse) {
    sparse_types.push_back(s.dtype);
    inputs.push_back(S({}, {s.key}));
  }
  for (const Dense& d : dense) {
    dense_types.push_back(d.dtype);
    dense_shapes.push_back(d.shape);
    inputs.push_back(S({}, {d.key}));
  }
  for (const Dense& d : dense) inputs.push_back(d.default_value);
  return run_op("ParseExample",
                {{"Nsparse", static_cast<int64_t>(sparse.size())}, {"Ndense", static_cast<int64_t>(dense.size())},
                 {"sparse_types", types(sparse_types)}, {"Tdense", types(dense_types)},
                 {"dense_shapes", shapes(dense_shapes)}},
                std::move(inputs));
}

struct Ragged {
  std::string key;
  DType dtype;
  DType splits;
};

// ParseExampleV2; `serialized` is a scalar or a vector.
std::vector<Tensor> parse_v2(Tensor serialized, const std::vector<Dense>& dense, const std::vector<Sparse>& sparse = {},
                             const std::vector<Ragged>& ragged = {}) {
  std::vector<DType> sparse_types, dense_types, ragged_types, split_types;
  std::vector<Shape> dense_shapes;
  std::vector<std::string> sparse_keys, dense_keys, ragged_keys;
  for (const Sparse& s : sparse) {
    sparse_types.push_back(s.dtype);
    sparse_keys.push_back(s.key);
  }
  for (const Dense& d : dense) {
    dense_types.push_back(d.dtype);
    dense_shapes.push_back(d.shape);
    dense_keys.push_back(d.key);
  }
  for (const Ragged& r : ragged) {
    ragged_types.push_back(r.dtype);
    split_types.push_back(r.splits);
    ragged_keys.push_back(r.key);
  }
  std::vector<Tensor> inputs{std::move(serialized), S({0}, {}),
                             S({static_cast<int64_t>(sparse_keys.size())}, sparse_keys),
                             S({static_cast<int64_t>(dense_keys.size())}, dense_keys),
                             S({static_cast<int64_t>(ragged_keys.size())}, ragged_keys)};
  for (const Dense& d : dense) inputs.push_back(d.default_value);
  return run_op("ParseExampleV2",
                {{"num_sparse", static_cast<int64_t>(sparse.size())}, {"sparse_types", types(sparse_types)},
                 {"Tdense", types(dense_types)}, {"dense_shapes", shapes(dense_shapes)},
                 {"ragged_value_types", types(ragged_types)}, {"ragged_split_types", types(split_types)}},
                std::move(inputs));
}

std::vector<Tensor> parse_single(const std::string& serialized, const std::vector<Dense>& dense,
                                 const std::vector<Sparse>& sparse = {}) {
  std::vector<DType> sparse_types, dense_types;
  std::vector<Shape> dense_shapes;
  std::vector<std::string> sparse_keys, dense_keys;
  for (const Sparse& s : sparse) {
    sparse_types.push_back(s.dtype);
    sparse_keys.push_back(s.key);
  }
  std::vector<Tensor> inputs{S({}, {serialized})};
  for (const Dense& d : dense) {
    dense_types.push_back(d.dtype);
    dense_shapes.push_back(d.shape);
    dense_keys.push_back(d.key);
    inputs.push_back(d.default_value);
  }
  return run_op("ParseSingleExample",
                {{"num_sparse", static_cast<int64_t>(sparse.size())}, {"sparse_keys", strs(sparse_keys)},
                 {"sparse_types", types(sparse_types)}, {"dense_keys", strs(dense_keys)},
                 {"Tdense", types(dense_types)}, {"dense_shapes", shapes(dense_shapes)}},
                std::move(inputs));
}

std::vector<std::string> strings_of(const Tensor& t) { return t.strings(); }
std::vector<int64_t> ints_of(const Tensor& t) { return {t.data<int64_t>(), t.data<int64_t>() + t.num_elements()}; }

// The Example most tests use, written from the wire format:
//   age: int64 [42], score: float [0.5, 1.5], name: bytes ["ann"]
std::string person(int64_t age, float a, float b, const std::string& name) {
  namespace pb = flowlens::testing::pb;
  return pb::example({{"age", pb::ints({age})}, {"score", pb::floats({a, b})}, {"name", pb::bytes({name})}});
}

}  // namespace

class TestOpsParseExample : public QObject {
  Q_OBJECT
 private slots:
  // ---- the schema ------------------------------------------------------------------

  void hand_written_bytes_match_the_generated_classes() {
    namespace pb = flowlens::testing::pb;
    // One feature per Example, so map order cannot differ: the generated
    // serializer must produce exactly the hand-written bytes (field numbers,
    // packed floats and int64s).
    proto::Example e;
    (*e.mutable_features()->mutable_feature())["score"].mutable_float_list()->add_value(0.5f);
    (*e.mutable_features()->mutable_feature())["score"].mutable_float_list()->add_value(-2.0f);
    QCOMPARE(QByteArray::fromStdString(e.SerializeAsString()),
             QByteArray::fromStdString(pb::example({{"score", pb::floats({0.5f, -2.0f})}})));
    proto::Example i;
    auto* ints = (*i.mutable_features()->mutable_feature())["age"].mutable_int64_list();
    ints->add_value(42);
    ints->add_value(-1);
    QCOMPARE(QByteArray::fromStdString(i.SerializeAsString()),
             QByteArray::fromStdString(pb::example({{"age", pb::ints({42, -1})}})));
    proto::Example b;
    (*b.mutable_features()->mutable_feature())["name"].mutable_bytes_list()->add_value(std::string("a\0b", 3));
    QCOMPARE(QByteArray::fromStdString(b.SerializeAsString()),
             QByteArray::fromStdString(pb::example({{"name", pb::bytes({std::string("a\0b", 3)})}})));
    // And the literal bytes of the smallest of them, from the wire format by hand:
    // Example.features(1) { feature(1) { key(1) "a" value(2) { int64_list(3) { value(1) packed [5] } } } }
    QCOMPARE(QByteArray::fromStdString(pb::example({{"a", pb::ints({5})}})),
             QByteArray("\x0a\x0c\x0a\x0a\x0a\x01" "a" "\x12\x05\x1a\x03\x0a\x01\x05", 14));
    // The generated parser reads the hand-written multi-feature Example.
    proto::Example parsed;
    QVERIFY(parsed.ParseFromString(person(42, 0.5f, 1.5f, "ann")));
    const auto& f = parsed.features().feature();
    QCOMPARE(f.at("age").int64_list().value(0), int64_t{42});
    QCOMPARE(f.at("score").float_list().value(1), 1.5f);
    QCOMPARE(f.at("name").bytes_list().value(0), std::string("ann"));
  }

  void the_wire_reader_takes_what_protobuf_writes() {
    // Several features through the generated classes, read back by the
    // kernel's wire reader.
    proto::Example e;
    auto& map = *e.mutable_features()->mutable_feature();
    map["f"].mutable_float_list()->add_value(3.25f);
    map["i"].mutable_int64_list()->add_value(-7);
    map["b"].mutable_bytes_list()->add_value("xy");
    map["empty"];  // a Feature with no kind
    const std::string serialized = e.SerializeAsString();  // the entries are views into it
    std::vector<example_wire::FeatureEntry> entries;
    QVERIFY(example_wire::read_example(serialized, entries));
    QCOMPARE(entries.size(), size_t{4});
    for (const auto& entry : entries) {
      if (entry.key == "f") {
        QCOMPARE(example_wire::feature_kind(entry.feature), example_wire::Kind::Float);
        std::vector<float> v;
        QVERIFY(example_wire::read_float_list(entry.feature, v));
        QCOMPARE(v, std::vector<float>{3.25f});
      } else if (entry.key == "i") {
        std::vector<int64_t> v;
        QVERIFY(example_wire::read_int64_list(entry.feature, v));
        QCOMPARE(v, std::vector<int64_t>{-7});
      } else if (entry.key == "b") {
        std::vector<std::string> v;
        QVERIFY(example_wire::read_bytes_list(entry.feature, v));
        QCOMPARE(v, std::vector<std::string>{"xy"});
      } else {
        QCOMPARE(entry.key, std::string_view("empty"));
        QCOMPARE(example_wire::feature_kind(entry.feature), example_wire::Kind::None);
      }
    }
    // The kernel on the same bytes.
    auto out = parse_v1({serialized},
                        {{"f", DType::Float, Shape{}, required(DType::Float)},
                         {"i", DType::Int64, Shape{1}, required(DType::Int64)},
                         {"b", DType::String, Shape{}, required(DType::String)}});
    QVERIFY(tensor_near(out[0], DType::Float, Shape{1}, {3.25}));
    QVERIFY(tensor_near(out[1], DType::Int64, Shape{1, 1}, {-7}));
    QCOMPARE(strings_of(out[2]), std::vector<std::string>{"xy"});
  }

  // ---- dense features -------------------------------------------------------------

  void dense_features_of_every_dtype_over_a_batch() {
    auto out = parse_v1({person(42, 0.5f, 1.5f, "ann"), person(7, -1, 2, "bob")},
                        {{"age", DType::Int64, Shape{}, required(DType::Int64)},
                         {"score", DType::Float, Shape{2}, required(DType::Float)},
                         {"name", DType::String, Shape{1}, required(DType::String)}});
    QCOMPARE(out.size(), size_t{3});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{2}, {42, 7}));
    QVERIFY(tensor_near(out[1], DType::Float, Shape{2, 2}, {0.5, 1.5, -1, 2}));
    QCOMPARE(out[2].shape(), (Shape{2, 1}));
    QCOMPARE(strings_of(out[2]), (std::vector<std::string>{"ann", "bob"}));
  }

  void dense_shapes_shape_each_row() {
    namespace pb = flowlens::testing::pb;
    const std::string ex = pb::example({{"m", pb::floats({1, 2, 3, 4, 5, 6})}});
    auto out = parse_v1({ex, ex}, {{"m", DType::Float, Shape{2, 3}, required(DType::Float)}});
    QVERIFY(tensor_near(out[0], DType::Float, Shape{2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
    EXPECT_ERROR(parse_v1({ex}, {{"m", DType::Float, Shape{4}, required(DType::Float)}}),
                 "Name: <unknown>, Key: m, Index: 0.  Number of float values != expected.  Values size: 6 but output "
                 "shape: [4]");
  }

  void defaults_fill_missing_and_empty_features() {
    namespace pb = flowlens::testing::pb;
    const std::string only_age = pb::example({{"age", pb::ints({3})}});
    // A Feature with no kind set counts as missing.
    const std::string empty_score = pb::example({{"age", pb::ints({4})}, {"score", pb::empty_feature()}});
    auto out = parse_v1({person(1, 1, 2, "x"), only_age, empty_score, pb::example({})},
                        {{"age", DType::Int64, Shape{}, I64({}, {-1})},
                         {"score", DType::Float, Shape{2}, F({2}, {9, 8})},
                         {"name", DType::String, Shape{}, S({}, {"?"})}});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{4}, {1, 3, 4, -1}));
    QVERIFY(tensor_near(out[1], DType::Float, Shape{4, 2}, {1, 2, 9, 8, 9, 8, 9, 8}));
    QCOMPARE(strings_of(out[2]), (std::vector<std::string>{"x", "?", "?", "?"}));
    // An empty serialized string is an Example with no features.
    out = parse_v1({""}, {{"age", DType::Int64, Shape{}, I64({}, {5})}});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{1}, {5}));
  }

  void a_missing_required_feature_names_the_example_and_key() {
    namespace pb = flowlens::testing::pb;
    const std::vector<Dense> age = {{"age", DType::Int64, Shape{}, required(DType::Int64)}};
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x"), pb::example({{"other", pb::ints({1})}})}, age),
                 "Name: <unknown>, Feature: age (data type: int64) is required but could not be found.");
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x"), pb::example({})}, age, {}, {"first", "second"}),
                 "Name: second, Feature: age (data type: int64) is required but could not be found.");
    EXPECT_ERROR(parse_single(pb::example({}), age),
                 "Feature: age (data type: int64) is required but could not be found.");
  }

  void a_feature_of_the_wrong_type_is_refused() {
    const std::vector<Dense> age_float = {{"age", DType::Float, Shape{}, required(DType::Float)}};
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x"), person(2, 1, 2, "y")}, age_float),
                 "Name: <unknown>, Key: age, Index: 0.  Data types don't match. Data type: int64 but expected type: float");
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x")}, {{"name", DType::Int64, Shape{}, required(DType::Int64)}}),
                 "Data types don't match. Data type: string but expected type: int64");
    EXPECT_ERROR(parse_single(person(1, 1, 2, "x"), age_float),
                 "Key: age.  Data types don't match. Data type: int64 but expected type: float");
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x")}, {}, {{"score", DType::Int64}}),
                 "Name: <unknown>, Key: score, Index: 0.  Data types don't match. Expected type: int64, Actual type: float");
  }

  void a_value_count_that_does_not_fit_the_shape_is_refused() {
    const std::vector<Dense> score3 = {{"score", DType::Float, Shape{3}, required(DType::Float)}};
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x"), person(1, 1, 2, "x")}, score3),
                 "Name: <unknown>, Key: score, Index: 0.  Number of float values != expected.  Values size: 2 but "
                 "output shape: [3]");
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x")}, {{"age", DType::Int64, Shape{2}, required(DType::Int64)}}),
                 "Number of int64 values != expected.  Values size: 1 but output shape: [2]");
    // Too many strings fail the parse of the fixed slots, as in TensorFlow; too few are counted.
    namespace pb = flowlens::testing::pb;
    const std::string two_names = pb::example({{"name", pb::bytes({"a", "b"})}});
    EXPECT_ERROR(parse_v1({two_names}, {{"name", DType::String, Shape{}, required(DType::String)}}),
                 "Name: <unknown>, Key: name, Index: 0.  Can't parse serialized Example.");
    EXPECT_ERROR(parse_v1({two_names}, {{"name", DType::String, Shape{3}, required(DType::String)}}),
                 "Number of bytes values != expected.  Values size: 2 but output shape: [3]");
    EXPECT_ERROR(parse_single(person(1, 1, 2, "x"), score3),
                 "Key: score.  Can't parse serialized Example: Some float_list slice was not parsed.");
    EXPECT_ERROR(parse_single(person(1, 1, 2, "x"), {{"name", DType::String, Shape{0}, S({0}, {})}}),
                 "Key: name.  Can't parse serialized Example: Parsing bytes_list failed.");
  }

  void default_values_must_fit_their_feature() {
    const Tensor ex = S({1}, {person(1, 1, 2, "x")});
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x")}, {{"score", DType::Float, Shape{2}, F({3}, {1, 2, 3})}}),
                 "def_value[0].shape() == [3] is not compatible with dense_shapes_[0] == [2]");
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x")}, {{"score", DType::Float, Shape{2}, I64({2}, {1, 2})}}),
                 "dense_defaults[0].dtype() == int64 != dense_types_[0] == float");
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x")}, {{"score", DType::Float, Shape{-1}, F({2}, {1, 2})}}),
                 "dense_shape[0] is a variable length shape: [?], therefore def_value[0] must contain a single element "
                 "(the padding element).  But its shape is: [2]");
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x")}, {{"score", DType::Float, Shape{2, -1}, F({}, {0})}}),
                 "dense_shapes[0] has unknown rank or unknown inner dimensions: [2,?]");
    EXPECT_ERROR(parse_v1({person(1, 1, 2, "x")}, {{"score", DType::Double, Shape{2}, D({0}, {})}}),
                 "Received input dtype: double");
  }

  void the_last_entry_of_a_repeated_key_wins() {
    namespace pb = flowlens::testing::pb;
    // The same key twice in one Features, and two concatenated Examples:
    // protobuf keeps the last value, and so does the kernel.
    const std::string twice = pb::example({{"age", pb::ints({1})}, {"age", pb::ints({2})}});
    const std::string concatenated = pb::example({{"age", pb::ints({3})}}) + pb::example({{"age", pb::ints({4})}});
    proto::Example check;
    QVERIFY(check.ParseFromString(concatenated));
    QCOMPARE(check.features().feature().at("age").int64_list().value(0), int64_t{4});
    auto out = parse_v1({twice, concatenated}, {{"age", DType::Int64, Shape{}, required(DType::Int64)}});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{2}, {2, 4}));
  }

  void unpacked_lists_and_unknown_fields_are_read() {
    namespace pb = flowlens::testing::pb;
    // Unpacked float/int64 encodings, and an unknown Example field (number 7,
    // varint) before the features: both as protobuf reads them.
    const std::string ex = pb::tag(7, 0) + pb::varint(300) +
                           pb::example({{"f", pb::floats({1.5f, 2.5f}, false)}, {"i", pb::ints({-3, 1LL << 40}, false)}});
    proto::Example check;
    QVERIFY(check.ParseFromString(ex));
    QCOMPARE(check.features().feature().at("i").int64_list().value(1), int64_t{1} << 40);
    auto out = parse_v1({ex}, {{"f", DType::Float, Shape{2}, required(DType::Float)},
                               {"i", DType::Int64, Shape{2}, required(DType::Int64)}});
    QVERIFY(tensor_near(out[0], DType::Float, Shape{1, 2}, {1.5, 2.5}));
    QCOMPARE(ints_of(out[1]), (std::vector<int64_t>{-3, int64_t{1} << 40}));
  }

  void variable_length_dense_features_are_padded() {
    namespace pb = flowlens::testing::pb;
    const std::string a = pb::example({{"v", pb::ints({1, 2, 3, 4})}, {"w", pb::floats({1, 2, 3, 4})}});
    const std::string b = pb::example({{"v", pb::ints({5})}, {"w", pb::floats({5, 6})}});
    const std::string c = pb::example({});
    auto out = parse_v1({a, b, c}, {{"v", DType::Int64, Shape{-1}, I64({}, {-1})},
                                    {"w", DType::Float, Shape{-1, 2}, F({}, {0})}});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{3, 4}, {1, 2, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1}));
    QVERIFY(tensor_near(out[1], DType::Float, Shape{3, 2, 2}, {1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0}));
    EXPECT_ERROR(parse_v1({pb::example({{"w", pb::floats({1, 2, 3})}})}, {{"w", DType::Float, Shape{-1, 2}, F({}, {0})}}),
                 "Name: <unknown>, Key: w, Index: 0.  Number of float values is not a multiple of stride length. Saw 3 "
                 "values but output shape is: [?,2]");
    // One example: [rows, inner...] without padding; absent: zero rows.
    out = parse_single(b, {{"w", DType::Float, Shape{-1, 2}, F({}, {0})}, {"v", DType::Int64, Shape{-1}, I64({}, {0})}});
    QVERIFY(tensor_near(out[0], DType::Float, Shape{1, 2}, {5, 6}));
    QVERIFY(tensor_near(out[1], DType::Int64, Shape{1}, {5}));
    out = parse_single(c, {{"w", DType::Float, Shape{-1, 2}, F({}, {0})}});
    QCOMPARE(out[0].shape(), (Shape{0, 2}));
    EXPECT_ERROR(parse_single(pb::example({{"w", pb::floats({1, 2, 3})}}), {{"w", DType::Float, Shape{-1, 2}, F({}, {0})}}),
                 "Error while parsing feature with key w: number of elements should be divisible by 2, found 3 instead");
  }

  // ---- sparse and ragged ----------------------------------------------------------

  void sparse_features_give_indices_values_and_shape() {
    namespace pb = flowlens::testing::pb;
    const std::string a = pb::example({{"ids", pb::ints({10, 11, 12})}, {"tags", pb::bytes({"x"})}});
    const std::string b = pb::example({{"tags", pb::bytes({"y", "z"})}});
    const std::string c = pb::example({{"ids", pb::ints({13})}});
    // Outputs: indices..., values..., shapes...
    auto out = parse_v1({a, b, c}, {}, {{"ids", DType::Int64}, {"tags", DType::String}});
    QCOMPARE(out.size(), size_t{6});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{4, 2}, {0, 0, 0, 1, 0, 2, 2, 0}));
    QVERIFY(tensor_near(out[1], DType::Int64, Shape{3, 2}, {0, 0, 1, 0, 1, 1}));
    QVERIFY(tensor_near(out[2], DType::Int64, Shape{4}, {10, 11, 12, 13}));
    QCOMPARE(strings_of(out[3]), (std::vector<std::string>{"x", "y", "z"}));
    QVERIFY(tensor_near(out[4], DType::Int64, Shape{2}, {3, 3}));
    QVERIFY(tensor_near(out[5], DType::Int64, Shape{2}, {3, 2}));
    // One example: indices [n, 1], shape [n].
    out = parse_single(a, {}, {{"ids", DType::Int64}, {"missing", DType::Float}});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{3, 1}, {0, 1, 2}));
    QVERIFY(tensor_near(out[1], DType::Int64, Shape{0, 1}, {}));
    QVERIFY(tensor_near(out[2], DType::Int64, Shape{3}, {10, 11, 12}));
    QVERIFY(tensor_near(out[3], DType::Float, Shape{0}, {}));
    QVERIFY(tensor_near(out[4], DType::Int64, Shape{1}, {3}));
    QVERIFY(tensor_near(out[5], DType::Int64, Shape{1}, {0}));
  }

  void a_key_requested_twice_is_refused() {
    namespace pb = flowlens::testing::pb;
    const std::string a = pb::example({{"r", pb::floats({1, 2})}});
    EXPECT_ERROR(parse_v2(S({1}, {a}), {}, {}, {{"r", DType::Float, DType::Int64}, {"r", DType::Float, DType::Int32}}),
                 "Could not avoid collision. This should not happen.");
  }

  void v2_outputs() {
    namespace pb = flowlens::testing::pb;
    const std::string a = pb::example({{"r", pb::floats({1, 2})}, {"d", pb::ints({5})}, {"s", pb::bytes({"p"})}});
    const std::string b = pb::example({{"d", pb::ints({6})}});
    const std::string c = pb::example({{"r", pb::floats({3})}, {"d", pb::ints({7})}});
    // Outputs: sparse indices, values, shapes, dense, ragged values, ragged splits.
    auto out = parse_v2(S({3}, {a, b, c}), {{"d", DType::Int64, Shape{}, required(DType::Int64)}},
                        {{"s", DType::String}}, {{"r", DType::Float, DType::Int32}});
    QCOMPARE(out.size(), size_t{6});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{1, 2}, {0, 0}));
    QCOMPARE(strings_of(out[1]), std::vector<std::string>{"p"});
    QVERIFY(tensor_near(out[2], DType::Int64, Shape{2}, {3, 1}));
    QVERIFY(tensor_near(out[3], DType::Int64, Shape{3}, {5, 6, 7}));
    QVERIFY(tensor_near(out[4], DType::Float, Shape{3}, {1, 2, 3}));
    QVERIFY(tensor_near(out[5], DType::Int32, Shape{4}, {0, 2, 2, 3}));
    // A scalar: dense values without the batch dimension, sparse of rank 1,
    // ragged values and empty row splits.
    out = parse_v2(S({}, {a}), {{"d", DType::Int64, Shape{}, required(DType::Int64)}}, {{"s", DType::String}},
                   {{"r", DType::Float, DType::Int64}});
    QVERIFY(tensor_near(out[0], DType::Int64, Shape{1, 1}, {0}));
    QVERIFY(tensor_near(out[2], DType::Int64, Shape{1}, {1}));
    QVERIFY(tensor_near(out[3], DType::Int64, Shape{}, {5}));
    QVERIFY(tensor_near(out[4], DType::Float, Shape{2}, {1, 2}));
    QVERIFY(tensor_near(out[5], DType::Int64, Shape{0}, {}));
    // An empty batch.
    out = parse_v2(S({0}, {}), {{"d", DType::Int64, Shape{2}, required(DType::Int64)}}, {{"s", DType::String}},
                   {{"r", DType::Float, DType::Int64}});
    QCOMPARE(out[0].shape(), (Shape{0, 2}));
    QVERIFY(tensor_near(out[2], DType::Int64, Shape{2}, {0, 0}));
    QCOMPARE(out[3].shape(), (Shape{0, 2}));
    QVERIFY(tensor_near(out[5], DType::Int64, Shape{1}, {0}));
    EXPECT_ERROR(parse_v2(S({1, 1}, {a}), {}), "Expected serialized to be a scalar or vector, got shape: [1,1]");
  }

  void input_and_attr_checks() {
    const std::string ex = person(1, 1, 2, "x");
    EXPECT_ERROR(run_op("ParseExample",
                        {{"Nsparse", 0}, {"Ndense", 0}, {"sparse_types", types({})}, {"Tdense", types({})},
                         {"dense_shapes", shapes({})}},
                        {S({}, {ex}), S({0}, {})}),
                 "Expected serialized to be a vector, got shape: []");
    EXPECT_ERROR(parse_v1({ex, ex}, {}, {}, {"only one"}),
                 "Expected names have the same shape as serialized: name.shape=[1], serialized.shape=[2]");
    EXPECT_ERROR(run_op("ParseExample",
                        {{"Nsparse", 0}, {"Ndense", 1}, {"sparse_types", types({})}, {"Tdense", types({DType::Float})},
                         {"dense_shapes", shapes({})}},
                        {S({1}, {ex}), S({0}, {}), S({}, {"score"}), F({0}, {})}),
                 "len(dense_keys) != len(dense_shapes)");
    EXPECT_ERROR(run_op("ParseExampleV2",
                        {{"num_sparse", 0}, {"sparse_types", types({})}, {"Tdense", types({DType::Float})},
                         {"dense_shapes", shapes({Shape{2}})}, {"ragged_value_types", types({})},
                         {"ragged_split_types", types({})}},
                        {S({1}, {ex}), S({0}, {}), S({0}, {}), S({2}, {"score", "x"}), S({0}, {}), F({0}, {})}),
                 "Expected len(dense_keys) == len(dense_types) but got: 2 vs. 1");
    EXPECT_ERROR(parse_v2(S({1}, {ex}), {}, {}, {{"r", DType::Float, DType::Float}}), "Invalid ragged_split_type: float");
    EXPECT_ERROR(run_op("ParseSingleExample",
                        {{"num_sparse", 2}, {"sparse_keys", strs({"a"})}, {"sparse_types", types({DType::Float})},
                         {"dense_keys", strs({})}, {"Tdense", types({})}, {"dense_shapes", shapes({})}},
                        {S({}, {ex})}),
                 "num_sparse (2) must match the size of sparse_keys (1) and sparse_types (1)");
    EXPECT_ERROR(run_op("ParseSingleExample",
                        {{"num_sparse", 0}, {"sparse_keys", strs({})}, {"sparse_types", types({})},
                         {"dense_keys", strs({})}, {"Tdense", types({})}, {"dense_shapes", shapes({})}},
                        {S({1}, {ex})}),
                 "Expected serialized to be a scalar, got shape: [1]");
  }

  // ---- shape functions --------------------------------------------------------------

  void shape_functions_follow_tensorflow() {
    auto v1 = infer("ParseExample",
                    {{"Nsparse", 1}, {"Ndense", 2}, {"sparse_types", types({DType::String})},
                     {"Tdense", types({DType::Float, DType::Int64})}, {"dense_shapes", shapes({Shape{2, 3}, Shape{-1}})}},
                    {{DType::String, Shape{-1}}, {DType::String, Shape{0}}, {DType::String, Shape{}},
                     {DType::String, Shape{}}, {DType::String, Shape{}}, {DType::Float, Shape{0}}, {DType::Int64, Shape{}}});
    QCOMPARE(v1.size(), size_t{5});
    QCOMPARE(v1[0].shape, (Shape{-1, 2}));
    QCOMPARE(v1[1].dtype, DType::String);
    QCOMPARE(v1[1].shape, (Shape{-1}));
    QCOMPARE(v1[2].shape, (Shape{2}));
    QCOMPARE(v1[3].dtype, DType::Float);
    QCOMPARE(v1[3].shape, (Shape{-1, 2, 3}));
    QCOMPARE(v1[4].shape, (Shape{-1, -1}));
    EXPECT_ERROR(infer("ParseExample",
                       {{"Nsparse", 0}, {"Ndense", 0}, {"sparse_types", types({})}, {"Tdense", types({})},
                        {"dense_shapes", shapes({})}},
                       {{DType::String, Shape{}}, {DType::String, Shape{0}}}),
                 "Shape must be rank 1 but is rank 0");
    const AttrMap v2_attrs = {{"num_sparse", 1}, {"sparse_types", types({DType::Int64})},
                              {"Tdense", types({DType::Float})}, {"dense_shapes", shapes({Shape{2}})},
                              {"ragged_value_types", types({DType::Float})}, {"ragged_split_types", types({DType::Int32})}};
    const std::vector<TensorInfo> keys = {{DType::String, Shape{1}}, {DType::String, Shape{1}}, {DType::String, Shape{1}},
                                          {DType::Float, Shape{2}}};
    auto with = [&](Shape serialized) {
      std::vector<TensorInfo> in = {{DType::String, serialized}, {DType::String, Shape{0}}};
      in.insert(in.end(), keys.begin(), keys.end());
      return infer("ParseExampleV2", v2_attrs, in);
    };
    auto vec = with(Shape{5});
    QCOMPARE(vec.size(), size_t{6});
    QCOMPARE(vec[0].shape, (Shape{-1, 2}));
    QCOMPARE(vec[3].shape, (Shape{5, 2}));
    QCOMPARE(vec[4].dtype, DType::Float);
    QCOMPARE(vec[5].dtype, DType::Int32);
    QCOMPARE(vec[5].shape, (Shape{6}));
    auto scalar = with(Shape{});
    QCOMPARE(scalar[0].shape, (Shape{-1, 1}));
    QCOMPARE(scalar[2].shape, (Shape{1}));
    QCOMPARE(scalar[3].shape, (Shape{2}));
    QCOMPARE(scalar[5].shape, (Shape{-1}));
    EXPECT_ERROR(with(Shape{2, 2}), "Shape must be at most rank 1 but is rank 2");
    auto single = infer("ParseSingleExample",
                        {{"num_sparse", 0}, {"sparse_keys", strs({})}, {"sparse_types", types({})},
                         {"dense_keys", strs({"x"})}, {"Tdense", types({DType::String})}, {"dense_shapes", shapes({Shape{-1, 3}})}},
                        {{DType::String, Shape{}}, {DType::String, Shape{}}});
    QCOMPARE(single[0].dtype, DType::String);
    QCOMPARE(single[0].shape, (Shape{-1, 3}));
  }

  // ---- malformed bytes ---------------------------------------------------------------

  void malformed_bytes_are_refused_never_crash() {
    namespace pb = flowlens::testing::pb;
    const std::vector<Dense> dense = {{"age", DType::Int64, Shape{}, I64({}, {0})},
                                      {"score", DType::Float, Shape{-1}, F({}, {0})},
                                      {"name", DType::String, Shape{}, S({}, {""})}};
    const std::vector<Sparse> sparse = {{"score", DType::Float}};
    const std::string good = person(42, 0.5f, 1.5f, "ann") + pb::tag(9, 5) + "abcd";
    int refused = 0, parsed = 0;
    auto attempt = [&](const std::string& bytes) {
      for (int variant = 0; variant < 3; ++variant) {
        try {
          if (variant == 0) parse_v1({bytes}, dense);
          else if (variant == 1) parse_single(bytes, {}, sparse);
          else parse_v2(S({}, {bytes}), {}, {}, {{"name", DType::String, DType::Int64}});
          ++parsed;
        } catch (const Error&) {
          ++refused;
        }
      }
    };
    // Every truncation, and every single byte replaced by a few values.
    for (size_t n = 0; n < good.size(); ++n) attempt(good.substr(0, n));
    for (size_t i = 0; i < good.size(); ++i)
      for (unsigned char v : {0x00, 0x01, 0x07, 0x0a, 0x12, 0x1a, 0x7f, 0x80, 0xff}) {
        std::string bad = good;
        bad[i] = static_cast<char>(v);
        attempt(bad);
      }
    // Lengths that claim more than there is, a group tag, an overlong varint.
    attempt(std::string("\x0a\xff\xff\xff\xff\x0f", 6));
    attempt(std::string("\x0b\x0c", 2));
    attempt(std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12));
    attempt(pb::example({{"age", pb::field(3, pb::field(1, "\xff\xff"))}}));
    QVERIFY(refused > 0);
    QVERIFY(parsed > 0);
    // A message names the bad example.
    EXPECT_ERROR(parse_v1({good.substr(0, 5)}, dense), "Could not parse example input, value: '");
    EXPECT_ERROR(parse_v1({pb::example({{"age", pb::field(4, "")}})}, dense), "Unsupported datatype.");
    EXPECT_ERROR(parse_v1({pb::example({{"age", pb::field(3, pb::field(1, "\xff"))}})}, dense),
                 "Name: <unknown>, Key: age, Index: 0.  Can't parse serialized Example.");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsParseExample)
#include "test_ops_parse_example.moc"
