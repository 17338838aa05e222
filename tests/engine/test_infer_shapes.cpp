// Whole-graph shape inference: shapes flow through the samples, static
// mismatches are found before running, unknown ops just stop the knowledge.
#include "test_main.h"
#include <QtTest>

#include "analysis/infer_shapes.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"

using namespace flowlens;

namespace {

const TensorInfo& output_of(const Graph& g, const ShapeInferenceResult& r, const std::string& node, int port = 0) {
  return r.outputs[static_cast<size_t>(g.index_of(node))][static_cast<size_t>(port)];
}

const char* kMatrices = R"(
node { name: 'a' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 1 } } float_val: 0 } } } }
)";

}  // namespace

class TestInferShapes : public QObject {
  Q_OBJECT
 private slots:
  void samples_have_known_shapes() {
    for (const char* sample : {"matmul_baseline.pbtxt", "matmul_in_graph.pbtxt"}) {
      Graph g = load_graph(std::string(FLOWLENS_SAMPLES) + "/" + sample);
      ShapeInferenceResult r = infer_shapes(g, OpRegistry::global());
      QVERIFY2(r.errors.empty(), r.errors.empty() ? "" : r.errors[0].to_string().c_str());
      QCOMPARE(output_of(g, r, "output").shape, Shape({4, 1}));
      QCOMPARE(output_of(g, r, "output").dtype, DType::Float);
    }
    Graph g = load_graph(std::string(FLOWLENS_SAMPLES) + "/matmul_in_graph.pbtxt");
    ShapeInferenceResult r = infer_shapes(g, OpRegistry::global());
    QCOMPARE(output_of(g, r, "split", 1).shape, Shape({2, 3}));
  }

  void static_mismatch_is_reported_with_the_node() {
    Graph g = parse_graph_text(std::string(kMatrices) +
                                   "node { name: 'bad' op: 'MatMul' input: 'a' input: 'w' attr { key: 'T' value { type: DT_FLOAT } } }",
                               "m.pbtxt");
    ShapeInferenceResult r = infer_shapes(g, OpRegistry::global());
    QCOMPARE(r.errors.size(), size_t(1));
    QCOMPARE(r.errors[0].node, std::string("bad"));
  }

  // A requested shape whose element count wraps int64 (2^62+1 x 4 wraps to
  // 4) once passed for the input's 4 elements.
  void reshape_to_an_overflowing_shape_is_an_error() {
    Graph g = parse_graph_text(
        "node { name: 'x' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { tensor {"
        " dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 1 } } } }"
        "node { name: 's' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } attr { key: 'value' value { tensor {"
        " dtype: DT_INT64 tensor_shape { dim { size: 2 } } int64_val: 4611686018427387905 int64_val: 4 } } } }"
        "node { name: 'r' op: 'Reshape' input: 'x' input: 's' attr { key: 'T' value { type: DT_FLOAT } }"
        " attr { key: 'Tshape' value { type: DT_INT64 } } }",
        "r.pbtxt");
    ShapeInferenceResult r = infer_shapes(g, OpRegistry::global());
    QCOMPARE(r.errors.size(), size_t(1));
    QCOMPARE(r.errors[0].node, std::string("r"));
    QVERIFY2(r.errors[0].message.find("more elements than int64 can count") != std::string::npos,
             r.errors[0].message.c_str());
  }

  void unknown_dims_propagate() {
    Graph g = parse_graph_text(std::string(kMatrices) +
                                   "node { name: 'ok' op: 'MatMul' input: 'a' input: 'w' "
                                   "attr { key: 'transpose_b' value { b: false } } attr { key: 'T' value { type: DT_FLOAT } } }"
                                   "node { name: 't' op: 'NotARegisteredOp' input: 'a' }"
                                   "node { name: 'r' op: 'Relu' input: 't' attr { key: 'T' value { type: DT_FLOAT } } }",
                               "m.pbtxt");
    // 'ok' multiplies [?,3] by [4,1]: the inner dims 3 and 4 clash.
    ShapeInferenceResult r = infer_shapes(g, OpRegistry::global());
    QCOMPARE(r.errors.size(), size_t(1));
    // After an unknown op shapes are unknown, not errors.
    QVERIFY(!output_of(g, r, "r").shape.rank_known());
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestInferShapes)
#include "test_infer_shapes.moc"
