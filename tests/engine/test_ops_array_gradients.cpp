// Gradients of the array family against central differences (gradient_check.h),
// with static and unknown shapes, plus the graphs array_grad.py builds and
// the ops TensorFlow gives no gradient. Gradients built from ops another
// family registers (InvertPermutation, UnsortedSegmentSum, Range, Tile, Prod)
// are checked numerically once those ops exist; their graph is checked here.
#include "test_main.h"
#include <QtTest>

#include <set>

#include "engine/gradient_ops_gate.h"

using namespace flowlens;
using flowlens::testing::check_gradients;
using flowlens::testing::Model;

namespace {

Tensor D(Shape s, std::vector<double> v) { return Tensor::from_vector<double>(std::move(s), v); }
Tensor I32(Shape s, std::vector<int32_t> v) { return Tensor::from_vector<int32_t>(std::move(s), v); }
Tensor I64(Shape s, std::vector<int64_t> v) { return Tensor::from_vector<int64_t>(std::move(s), v); }

// Uneven values 0.3, -0.8, 1.3 ... for a shape.
Tensor values(Shape s) {
  Tensor t(DType::Double, s);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<double>()[i] = 0.3 + 0.5 * static_cast<double>(i % 7) - (i % 2 ? 1.6 : 0);
  return t;
}

// The ops of the nodes add_gradients put under "gradients/".
std::set<std::string> gradient_ops(const Graph& g) {
  std::set<std::string> ops;
  for (const Node& n : g.nodes())
    if (n.name.rfind("gradients/", 0) == 0) ops.insert(n.op);
  return ops;
}

std::string add(Model& m, const std::string& op, std::vector<std::string> in, AttrMap attrs) {
  return m.b.add(op, op, std::move(in), std::move(attrs));
}

std::string strided_slice(Model& m, const std::string& x, std::vector<int32_t> b, std::vector<int32_t> e,
                          std::vector<int32_t> s, AttrMap masks) {
  const auto n = static_cast<int64_t>(b.size());
  return m.op("StridedSlice", {x, m.c("begin", I32({n}, b)), m.c("end", I32({n}, e)), m.c("strides", I32({n}, s))},
              std::move(masks));
}

}  // namespace

class TestOpsArrayGradients : public QObject {
  Q_OBJECT
 private slots:
  void shape_changes_data() {
    QTest::addColumn<bool>("static_shapes");
    QTest::newRow("static") << true;
    QTest::newRow("unknown shapes") << false;
  }
  void shape_changes() {
    QFETCH(bool, static_shapes);
    Model m;
    m.static_shapes = static_shapes;
    const std::string x = m.x("x", values({2, 3}));
    const std::string e = m.op("ExpandDims", {x, m.c("dim", I32({}, {-1}))}, {{"Tdim", AttrValue(DType::Int32)}});
    AttrList dims;
    dims.i = {0};
    const std::string sq = m.op("Squeeze", {m.op("ExpandDims", {e, m.c("dim0", I32({}, {0}))})}, {{"squeeze_dims", dims}});
    const std::string r = m.op("Reshape", {sq, m.c("shape", I32({2}, {3, -1}))}, {{"Tshape", AttrValue(DType::Int32)}});
    check_gradients(m, m.op("Square", {r}));
  }

  void reshape_with_one_unknown_dim() {
    Model m;
    Node p;
    p.name = "x";
    p.op = "Placeholder";
    p.attrs = {{"dtype", AttrValue(DType::Double)}, {"shape", AttrValue(Shape{-1, 3})}};
    m.g.add_node(p);
    m.feeds.emplace_back("x", values({2, 3}));
    const std::string r = m.op("Reshape", {"x", m.c("shape", I32({1}, {-1}))}, {{"Tshape", AttrValue(DType::Int32)}});
    check_gradients(m, m.op("Square", {r}));
    // _ReshapeGrad reshapes to a constant [-1, 3] rather than Shape(x).
    bool constant_shape = false;
    for (const Node& n : m.g.nodes())
      if (n.op == "Reshape" && n.name.rfind("gradients/", 0) == 0)
        constant_shape = m.g.find(n.inputs[1])->op == "Const";
    QVERIFY(constant_shape);
  }

  void transpose_and_reverse() {
    Model m;
    const std::string x = m.x("x", values({2, 3, 4}));
    const std::string r = m.op("ReverseV2", {x, m.c("axis", I32({2}, {0, -1}))}, {{"Tidx", AttrValue(DType::Int32)}});
    Model t;
    const std::string tx = t.op("Transpose", {t.x("x", values({2, 3, 4})), t.c("perm", I32({3}, {2, 0, 1}))},
                                {{"Tperm", AttrValue(DType::Int32)}});
    check_gradients(m, m.op("Square", {r}));
    add_gradients(t.g, {tx}, {"x"}, OpRegistry::global());
    QVERIFY(gradient_ops(t.g).count("InvertPermutation"));
    REQUIRE_OPS({"InvertPermutation"});
    Model n;
    check_gradients(n, n.op("Transpose", {n.x("x", values({2, 3, 4})), n.c("perm", I32({3}, {2, 0, 1}))},
                            {{"Tperm", AttrValue(DType::Int32)}}));
  }

  void strided_slice_data() {
    QTest::addColumn<bool>("static_shapes");
    QTest::newRow("static") << true;
    QTest::newRow("unknown shapes") << false;
  }
  void strided_slice() {
    QFETCH(bool, static_shapes);
    // y[1:, ::-2], y[..., 2], y[tf.newaxis, 1:, ::2], y[-1, -1] on a [3, 4] y.
    struct Spec {
      std::vector<int32_t> b, e, s;
      AttrMap masks;
    };
    const Spec specs[] = {
        {{1, 0}, {0, 0}, {1, -2}, {{"end_mask", AttrValue(3)}, {"begin_mask", AttrValue(2)}}},
        {{0, 2}, {0, 3}, {1, 1}, {{"ellipsis_mask", AttrValue(1)}, {"shrink_axis_mask", AttrValue(2)}}},
        {{0, 1, 0}, {0, 0, 0}, {1, 1, 2}, {{"new_axis_mask", AttrValue(1)}, {"begin_mask", AttrValue(4)}, {"end_mask", AttrValue(6)}}},
        {{-1, -1}, {0, 0}, {1, 1}, {{"shrink_axis_mask", AttrValue(3)}}},
    };
    for (const Spec& s : specs) {
      Model m;
      m.static_shapes = static_shapes;
      AttrMap masks = s.masks;
      masks["Index"] = AttrValue(DType::Int32);
      const std::string y = ::strided_slice(m, m.x("x", values({3, 4})), s.b, s.e, s.s, masks);
      check_gradients(m, m.op("Square", {y}));
      QVERIFY(gradient_ops(m.g).count("StridedSliceGrad"));
    }
    // StridedSliceGrad's own gradient is a StridedSlice of the incoming gradient.
    Model g;
    const auto i32 = [](std::vector<int32_t> v) { return I32({static_cast<int64_t>(v.size())}, v); };
    const std::string dy = g.x("dy", values({2, 2}));
    check_gradients(g, g.op("StridedSliceGrad", {g.c("shape", i32({3, 4})), g.c("b", i32({1, 1})), g.c("e", i32({3, 0})),
                                                 g.c("s", i32({1, 2})), dy},
                            {{"Index", AttrValue(DType::Int32)}, {"end_mask", AttrValue(2)}}));
  }

  void slice_data() {
    QTest::addColumn<bool>("static_shapes");
    QTest::newRow("static") << true;
    QTest::newRow("unknown shapes") << false;
  }
  void slice() {
    QFETCH(bool, static_shapes);
    for (DType index : {DType::Int32, DType::Int64}) {
      Model m;
      m.static_shapes = static_shapes;
      const std::string b = index == DType::Int32 ? m.c("begin", I32({3}, {1, 0, 1})) : m.c("begin", I64({3}, {1, 0, 1}));
      const std::string s = index == DType::Int32 ? m.c("size", I32({3}, {1, -1, 2})) : m.c("size", I64({3}, {1, -1, 2}));
      const std::string y = m.op("Slice", {m.x("x", values({2, 2, 4})), b, s}, {{"Index", AttrValue(index)}});
      check_gradients(m, m.op("Square", {y}));
      const std::set<std::string> ops = gradient_ops(m.g);
      QVERIFY(ops.count("Pad") && ops.count("ConcatV2") && ops.count("Pack") && ops.count("Sub"));
    }
  }

  void pads() {
    for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
      Model m;
      const std::string y = m.op("MirrorPad", {m.x("x", values({3, 4})), m.c("p", I32({2, 2}, {1, 2, 2, 0}))},
                                 {{"mode", AttrValue(mode)}, {"Tpaddings", AttrValue(DType::Int32)}});
      check_gradients(m, m.op("Square", {y}));
      Model g;
      const std::string back = g.op("MirrorPadGrad", {g.x("x", values({6, 6})), g.c("p", I64({2, 2}, {1, 2, 2, 0}))},
                                    {{"mode", AttrValue(mode)}, {"Tpaddings", AttrValue(DType::Int64)}});
      check_gradients(g, g.op("Square", {back}));
    }
    for (bool v2 : {false, true}) {
      Model m;
      m.static_shapes = v2;
      std::vector<std::string> in = {m.x("x", values({2, 3})), m.c("p", I64({2, 2}, {1, 0, 2, 1}))};
      if (v2) in.push_back(m.c("c", D({}, {1.5})));
      check_gradients(m, m.op("Square", {m.op(v2 ? "PadV2" : "Pad", in, {{"Tpaddings", AttrValue(DType::Int64)}})}));
    }
  }

  void depth_to_space_and_back() {
    Model m;
    const std::string d = m.op("DepthToSpace", {m.x("x", values({1, 2, 2, 8}))}, {{"block_size", AttrValue(2)}});
    check_gradients(m, m.op("Square", {d}));
    Model s;
    const std::string sd = s.op("SpaceToDepth", {s.x("x", values({2, 4, 2, 1}))}, {{"block_size", AttrValue(2)}});
    check_gradients(s, s.op("Square", {sd}));
  }

  void identity_n_and_fill() {
    Model m;
    AttrList types;
    types.type = {DType::Double, DType::Double};
    const std::string ids = add(m, "IdentityN", {m.x("a", values({2})), m.x("b", values({3}))}, {{"T", AttrValue(types)}});
    check_gradients(m, m.op("Mul", {m.op("Square", {tensor_name(ids, 1)}), m.op("Sum", {ids, m.c("axis", I32({1}, {0}))},
                                                                              {{"Tidx", AttrValue(DType::Int32)}})}));
    Model f;
    const std::string fill = f.op("Fill", {f.c("dims", I32({2}, {2, 3})), f.x("v", D({}, {0.7}))},
                                  {{"index_type", AttrValue(DType::Int32)}});
    check_gradients(f, f.op("Square", {fill}));
  }

  void concat_with_unknown_shapes() {
    Model m;
    m.static_shapes = false;
    const std::string cat = m.op("ConcatV2", {m.x("a", values({2, 1})), m.x("b", values({2, 3})), m.c("axis", I32({}, {-1}))},
                                 {{"N", AttrValue(2)}, {"Tidx", AttrValue(DType::Int32)}});
    check_gradients(m, m.op("Square", {cat}));
    QVERIFY(gradient_ops(m.g).count("ShapeN"));  // _ExtractInputShapes without static shapes
  }

  void scatter_and_gather_nd() {
    Model s;
    const std::string sc = s.op("ScatterNd", {s.c("idx", I32({3, 1}, {2, 0, 2})), s.x("u", values({3, 2})), s.c("shape", I32({2}, {4, 2}))},
                                {{"Tindices", AttrValue(DType::Int32)}});
    check_gradients(s, s.op("Square", {sc}));
    QVERIFY(gradient_ops(s.g).count("GatherNd"));
    Model g;
    const std::string gn = add(g, "GatherNd", {g.x("p", values({3, 4})), g.c("idx", I64({3, 2}, {0, 1, 2, 3, 0, 1}))},
                               {{"Tparams", AttrValue(DType::Double)}, {"Tindices", AttrValue(DType::Int64)}});
    check_gradients(g, g.op("Square", {gn}));
    QVERIFY(gradient_ops(g.g).count("ScatterNd"));
  }

  void gather_graphs() {
    // Axis 0 (and Gather): the IndexedSlices made dense, UnsortedSegmentSum(values, indices, dense_shape[0]).
    Model m;
    const std::string g = add(m, "GatherV2", {m.x("p", values({5, 3})), m.c("i", I32({3}, {4, 0, 4})), m.c("axis", I32({}, {0}))},
                              {{"Tparams", AttrValue(DType::Double)}, {"Tindices", AttrValue(DType::Int32)},
                               {"Taxis", AttrValue(DType::Int32)}});
    add_gradients(m.g, {g}, {"p"}, OpRegistry::global());
    const std::set<std::string> ops = gradient_ops(m.g);
    for (const char* op : {"UnsortedSegmentSum", "StridedSlice", "ConcatV2", "ExpandDims", "Reshape"}) QVERIFY2(ops.count(op), op);
    QVERIFY(!ops.count("Transpose"));
    // Another axis: the dense path with Transpose around the segment sum.
    Model a;
    const std::string ga = add(a, "GatherV2", {a.x("p", values({2, 5})), a.c("i", I32({2}, {1, 1})), a.c("axis", I32({}, {1}))},
                               {{"Tparams", AttrValue(DType::Double)}, {"Tindices", AttrValue(DType::Int32)},
                                {"Taxis", AttrValue(DType::Int32)}});
    add_gradients(a.g, {ga}, {"p"}, OpRegistry::global());
    for (const char* op : {"UnsortedSegmentSum", "Transpose", "Range", "GatherV2"}) QVERIFY2(gradient_ops(a.g).count(op), op);
  }

  void gather_values() {
    REQUIRE_OPS({"UnsortedSegmentSum"});
    Model m;  // duplicate indices add up
    const std::string g = add(m, "Gather", {m.x("p", values({5, 3})), m.c("i", I32({2, 2}, {4, 0, 4, 2}))},
                              {{"Tparams", AttrValue(DType::Double)}, {"Tindices", AttrValue(DType::Int32)}});
    check_gradients(m, m.op("Square", {g}));
    Model n;
    const std::string gn = add(n, "GatherNd", {n.x("p", values({4, 2})), n.c("idx", I32({3, 1}, {3, 0, 3}))},
                               {{"Tparams", AttrValue(DType::Double)}, {"Tindices", AttrValue(DType::Int32)}});
    check_gradients(n, n.op("Square", {gn}));
    REQUIRE_OPS({"Range"});
    Model a;
    const std::string ga = add(a, "GatherV2", {a.x("p", values({2, 5, 2})), a.c("i", I64({3}, {1, 4, 1})), a.c("axis", I32({}, {-2}))},
                               {{"Tparams", AttrValue(DType::Double)}, {"Tindices", AttrValue(DType::Int64)},
                                {"Taxis", AttrValue(DType::Int32)}});
    check_gradients(a, a.op("Square", {ga}));
    REQUIRE_OPS({"Tile", "Prod"});
    Model b;
    const std::string gb = add(b, "GatherV2", {b.x("p", values({2, 3, 2})), b.c("i", I32({2, 2}, {2, 0, 1, 1})), b.c("axis", I32({}, {1}))},
                               {{"Tparams", AttrValue(DType::Double)}, {"Tindices", AttrValue(DType::Int32)},
                                {"Taxis", AttrValue(DType::Int32)}, {"batch_dims", AttrValue(1)}});
    check_gradients(b, b.op("Square", {gb}));
  }

  void ops_without_gradients() {
    // PreventGradient raises TensorFlow's LookupError text.
    Model p;
    const std::string y = p.op("PreventGradient", {p.x("x", values({2}))}, {{"message", AttrValue("no second derivative")}});
    try {
      add_gradients(p.g, {y}, {"x"}, OpRegistry::global());
      QFAIL("PreventGradient gave a gradient");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("Gradient explicitly disabled. Reason: no second derivative") != std::string::npos, e.what());
    }
    // Unique, ListDiff and Snapshot have none registered: asking through them fails.
    for (const char* op : {"Unique", "Snapshot"}) {
      Model u;
      AttrMap attrs;
      const std::string out = u.op(op, {u.x("x", values({4}))}, attrs);
      QVERIFY_THROWS_EXCEPTION(Error, add_gradients(u.g, {out}, {"x"}, OpRegistry::global()));
    }
    // OneHot is not differentiable: no gradient reaches on_value.
    Model o;
    const std::string oh = o.op("OneHot", {o.c("i", I32({2}, {0, 2})), o.c("d", I32({}, {3})), o.x("on", D({}, {2})), o.c("off", D({}, {0}))},
                                {{"TI", AttrValue(DType::Int32)}});
    QCOMPARE(add_gradients(o.g, {oh}, {"on"}, OpRegistry::global())[0], std::string());
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpsArrayGradients)
#include "test_ops_array_gradients.moc"
