// Feed values as people give them (exec/feed_values.h), which the GUI's
// Feeds dock and flowlens-run's --feed share: typed, generated and .npy
// values; the shape check tf.Session.run's feed_dict makes; and which
// placeholders a run would reach without a value.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include "exec/feed_values.h"
#include "analysis/graph_analysis.h"
#include "io/graph_io.h"
#include "tensor/npy.h"

using namespace flowlens;

namespace {

// x [?,2] float and a bool flag feed y = x * w; `unused` is a placeholder nothing reads;
// `d` (PlaceholderWithDefault) has a value of its own.
constexpr const char* kGraph = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "flag" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } }
       attr { key: "shape" value { shape { } } } }
node { name: "unused" op: "PlaceholderV2" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "shape" value { shape { unknown_rank: true } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "y" op: "Mul" input: "x" input: "w" input: "^flag" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "z" op: "Identity" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
)";

std::vector<float> floats(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.num_elements()}; }

}  // namespace

class TestFeedValues : public QObject {
  Q_OBJECT

  std::shared_ptr<const Graph> graph_ = std::make_shared<const Graph>(parse_graph_text(kGraph, "feeds.pbtxt"));

 private slots:
  void slots_list_placeholders_with_type() {
    const auto found = feed_slots(*graph_);
    QCOMPARE(found.size(), std::size_t{3});
    QCOMPARE(found[0].name, std::string("x"));
    QCOMPARE(found[0].describe_type(), std::string("float32 [?,2]"));
    QCOMPARE(found[1].describe_type(), std::string("bool []"));
    QCOMPARE(found[2].name, std::string("unused"));
    QVERIFY(!found[2].shape.rank_known());
  }

  void missing_feeds_follow_data_and_control_edges() {
    QCOMPARE(missing_feeds(*graph_, {"y"}, {}), (std::vector<std::string>{"x", "flag"}));
    QCOMPARE(missing_feeds(*graph_, {"y"}, {"x"}), (std::vector<std::string>{"flag"}));
    QCOMPARE(missing_feeds(*graph_, {"y:0"}, {"x:0", "flag"}), std::vector<std::string>{});
    QCOMPARE(missing_feeds(*graph_, {"z"}, {}), std::vector<std::string>{});
    // Feeding the fetched tensor itself cuts everything above it.
    QCOMPARE(missing_feeds(*graph_, {"y"}, {"y"}), std::vector<std::string>{});
  }

  void typed_values_read_as_the_slot_dtype() {
    const Tensor list = parse_feed_value("1,0, 1", DType::Float, Shape{-1});
    QCOMPARE(list.dtype(), DType::Float);
    QCOMPARE(floats(list), (std::vector<float>{1, 0, 1}));
    const Tensor nested = parse_feed_value("[[1,0],[1,1]]", DType::Float, Shape{-1, 2});
    QCOMPARE(nested.shape(), (Shape{2, 2}));
    const Tensor text = parse_feed_value("\"a,b\"", DType::String, Shape{});
    QCOMPARE(text.shape(), Shape{});  // the comma is inside quotes: one string
    QVERIFY_THROWS_EXCEPTION(Error, parse_feed_value("[1,2", DType::Float, Shape{}));
    QVERIFY_THROWS_EXCEPTION(Error, parse_feed_value("  ", DType::Float, Shape{}));
  }

  void generated_values_fill_unknown_dimensions_with_one() {
    const Tensor ones = parse_feed_value("ones", DType::Float, Shape{-1, 2});
    QCOMPARE(ones.shape(), (Shape{1, 2}));
    QCOMPARE(floats(ones), (std::vector<float>{1, 1}));
    const Tensor zeros = parse_feed_value("zeros[3]", DType::Int32, Shape{-1});
    QCOMPARE(zeros.shape(), Shape{3});
    QCOMPARE(zeros.data<int32_t>()[2], 0);
    const Tensor a = parse_feed_value("random[4,2]", DType::Float, Shape{-1, 2});
    const Tensor b = parse_feed_value("random [4,2]", DType::Float, Shape{-1, 2});
    QCOMPARE(floats(a), floats(b));  // reproducible
    for (float v : floats(a)) QVERIFY(v >= 0 && v < 1);
    QVERIFY_THROWS_EXCEPTION(Error, parse_feed_value("random[?,2]", DType::Float, Shape{}));
    // A typing slip is refused, not allocated (40 GB here).
    QVERIFY_THROWS_EXCEPTION(Error, parse_feed_value("random[100000,100000]", DType::Float, Shape{}));
    QVERIFY_THROWS_EXCEPTION(Error, parse_feed_value("zeros[9223372036854775807,2]", DType::Float, Shape{}));
    // Pasted nesting deeper than any tensor's rank is refused before the stack runs out.
    QVERIFY_THROWS_EXCEPTION(Error, parse_feed_value(std::string(100000, '['), DType::Float, Shape{}));
    // For a string slot the words are text.
    QCOMPARE(parse_feed_value("ones", DType::String, Shape{}).strings()[0], std::string("ones"));
  }

  void npy_values_keep_their_own_dtype_and_name_the_file() {
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("x.npy")).toStdString();
    write_npy(Tensor::from_vector<int32_t>(Shape{2}, {1, 2}), path);
    const Tensor value = parse_feed_value(path, DType::Float, Shape{-1, 2});
    QCOMPARE(value.dtype(), DType::Int32);
    QCOMPARE(feed_mismatch(DType::Float, Shape{-1, 2}, value), std::string("expected float32 [?,2], got int32 [2]"));
    try {
      parse_feed_value(dir.filePath(QStringLiteral("missing.npy")).toStdString(), DType::Float, Shape{});
      QFAIL("a missing file must throw");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("missing.npy") != std::string::npos, e.what());
    }
  }

  // feed_dict converts a placeholder's value to its dtype (np.asarray(v, dtype=...)).
  void placeholder_feeds_convert_as_numpy_does() {
    const Tensor doubles = Tensor::from_vector<double>(Shape{3}, {1.5, -2.7, 0});
    const Tensor f = convert_placeholder_feed(doubles, DType::Float);
    QCOMPARE(f.dtype(), DType::Float);
    QCOMPARE(floats(f), (std::vector<float>{1.5f, -2.7f, 0.0f}));
    const Tensor i = convert_placeholder_feed(doubles, DType::Int32);
    QCOMPARE(std::vector<int32_t>(i.data<int32_t>(), i.data<int32_t>() + 3), (std::vector<int32_t>{1, -2, 0}));
    const Tensor b = convert_placeholder_feed(doubles, DType::Bool);
    QCOMPARE(b.data<bool>()[2], false);
    QCOMPARE(b.data<bool>()[0], true);
    const Tensor text = Tensor::from_strings(Shape{1}, {"a"});
    QCOMPARE(convert_placeholder_feed(text, DType::Float).dtype(), DType::String);  // reported as a mismatch later
  }

  void shapes_fit_as_feed_dict_checks() {
    QVERIFY(shape_fits(Shape{-1, 2}, Shape{4, 2}));
    QVERIFY(!shape_fits(Shape{-1, 2}, Shape{4, 3}));
    QVERIFY(!shape_fits(Shape{-1, 2}, Shape{2}));
    QVERIFY(shape_fits(Shape::unknown_rank(), Shape{7, 7, 7}));
    QVERIFY(feed_mismatch(DType::Float, Shape{-1, 2}, Tensor(DType::Float, Shape{3, 2})).empty());
  }

  void dtype_and_declared_shape_come_from_the_graph() {
    const GraphAnalysis analysis(graph_);
    QCOMPARE(feed_dtype(analysis, "x"), DType::Float);
    QCOMPARE(feed_dtype(analysis, "y"), DType::Float);  // by shape inference
    QCOMPARE(feed_declared_shape(analysis, "x"), (Shape{-1, 2}));
    QCOMPARE(feed_declared_shape(analysis, "y:0"), (Shape{-1, 2}));
    QVERIFY_THROWS_EXCEPTION(Error, feed_dtype(analysis, "nope"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestFeedValues)
#include "test_feed_values.moc"
