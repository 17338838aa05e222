// StridedSlice with every mask against Python's slicing semantics (a table
// of x[...] expressions, expected values worked out by hand), TensorFlow's
// documented examples, StridedSliceGrad and Slice.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

std::vector<double> iota(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

struct SliceCase {
  const char* python;  // the expression the spec encodes
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  Shape shape;
  std::vector<double> values;
};

AttrMap masks(const SliceCase& c) {
  return {{"begin_mask", AttrValue(c.begin_mask)},
          {"end_mask", AttrValue(c.end_mask)},
          {"ellipsis_mask", AttrValue(c.ellipsis_mask)},
          {"new_axis_mask", AttrValue(c.new_axis_mask)},
          {"shrink_axis_mask", AttrValue(c.shrink_axis_mask)}};
}

Tensor vec(DType t, const std::vector<int64_t>& v) {
  return t == DType::Int64 ? I64({static_cast<int64_t>(v.size())}, v)
                           : I32({static_cast<int64_t>(v.size())}, std::vector<int32_t>(v.begin(), v.end()));
}

Tensor strided_slice(const Tensor& x, const SliceCase& c, DType index = DType::Int32) {
  return run1("StridedSlice", masks(c), {x, vec(index, c.begin), vec(index, c.end), vec(index, c.strides)});
}

// x = arange(10)
const std::vector<SliceCase> kVectorCases = {
    {"x[2:8:2]", {2}, {8}, {2}, 0, 0, 0, 0, 0, {3}, {2, 4, 6}},
    {"x[::-1]", {0}, {0}, {-1}, 1, 1, 0, 0, 0, {10}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
    {"x[8:2:-2]", {8}, {2}, {-2}, 0, 0, 0, 0, 0, {3}, {8, 6, 4}},
    {"x[-3:]", {-3}, {0}, {1}, 0, 1, 0, 0, 0, {3}, {7, 8, 9}},
    {"x[:-7:-3]", {0}, {-7}, {-3}, 1, 0, 0, 0, 0, {2}, {9, 6}},
    {"x[-1]", {-1}, {0}, {1}, 0, 0, 0, 0, 1, {}, {9}},
    {"x[3]", {3}, {4}, {1}, 0, 0, 0, 0, 1, {}, {3}},
    {"x[20:]", {20}, {0}, {1}, 0, 1, 0, 0, 0, {0}, {}},
    {"x[-20:3]", {-20}, {3}, {1}, 0, 0, 0, 0, 0, {3}, {0, 1, 2}},
    {"x[5:100:-1]", {5}, {100}, {-1}, 0, 0, 0, 0, 0, {0}, {}},
    {"x[3:3]", {3}, {3}, {1}, 0, 0, 0, 0, 0, {0}, {}},
    {"x[-1:-11:-4]", {-1}, {-11}, {-4}, 0, 0, 0, 0, 0, {3}, {9, 5, 1}},
    {"x[...]", {0}, {0}, {1}, 0, 0, 1, 0, 0, {10}, iota(10)},
    {"x[tf.newaxis, 7:]", {0, 7}, {0, 0}, {1, 1}, 0, 2, 0, 1, 0, {1, 3}, {7, 8, 9}},
};

// y = arange(12).reshape(3, 4)
const std::vector<SliceCase> kMatrixCases = {
    {"y[1]", {1}, {2}, {1}, 0, 0, 0, 0, 1, {4}, {4, 5, 6, 7}},
    {"y[:, 1]", {0, 1}, {0, 2}, {1, 1}, 1, 1, 0, 0, 2, {3}, {1, 5, 9}},
    {"y[..., 2]", {0, 2}, {0, 3}, {1, 1}, 0, 0, 1, 0, 2, {3}, {2, 6, 10}},
    {"y[tf.newaxis, 1:, ::2]", {0, 1, 0}, {0, 0, 0}, {1, 1, 2}, 4, 6, 0, 1, 0, {1, 2, 2}, {4, 6, 8, 10}},
    {"y[..., tf.newaxis]", {0, 0}, {0, 0}, {1, 1}, 0, 0, 1, 2, 0, {3, 4, 1}, iota(12)},
    {"y[1:, tf.newaxis, -1]", {1, 0, -1}, {0, 0, 0}, {1, 1, 1}, 0, 1, 0, 2, 4, {2, 1}, {7, 11}},
    {"y[::-1, ::-1]", {0, 0}, {0, 0}, {-1, -1}, 3, 3, 0, 0, 0, {3, 4}, {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
    {"y[-1:-4:-1, 1:3]", {-1, 1}, {-4, 3}, {-1, 1}, 0, 0, 0, 0, 0, {3, 2}, {9, 10, 5, 6, 1, 2}},
    {"y[:2]", {0}, {2}, {1}, 1, 0, 0, 0, 0, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}},
    {"y[1, ..., 1:3]", {1, 0, 1}, {2, 0, 3}, {1, 1, 1}, 0, 0, 2, 0, 1, {2}, {5, 6}},
    {"y[-1, -1]", {-1, -1}, {0, 0}, {1, 1}, 0, 0, 0, 0, 3, {}, {11}},
    {"y[5:, 1]", {5, 1}, {0, 2}, {1, 1}, 0, 1, 0, 0, 2, {0}, {}},
    {"y[tf.newaxis, ..., tf.newaxis]", {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0, 0, 2, 5, 0, {1, 3, 4, 1}, iota(12)},
};

}  // namespace

class TestOpsStridedSlice : public QObject {
  Q_OBJECT
 private slots:
  void python_slicing_table() {
    const Tensor x = T(DType::Int32, {10}, iota(10));
    for (const SliceCase& c : kVectorCases)
      for (DType index : {DType::Int32, DType::Int64})
        QVERIFY2(tensor_near(strided_slice(x, c, index), DType::Int32, c.shape, c.values), c.python);
    const Tensor y = T(DType::Int32, {3, 4}, iota(12));
    for (const SliceCase& c : kMatrixCases) QVERIFY2(tensor_near(strided_slice(y, c), DType::Int32, c.shape, c.values), c.python);
  }

  void every_dtype() {
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int16,
                    DType::UInt32, DType::Int64, DType::Bool}) {
      const std::vector<double> v = t == DType::Bool ? std::vector<double>{1, 0, 0, 1, 1, 0} : std::vector<double>{0, 1, 2, 3, 4, 5};
      const SliceCase rev = {"y[::-1, 1]", {0, 1}, {0, 2}, {-1, 1}, 1, 1, 0, 0, 2, {2}, {}};
      QVERIFY(tensor_near(strided_slice(T(t, {2, 3}, v), rev), t, {2}, {v[4], v[1]}));
    }
    const SliceCase odd = {"s[1::2]", {1}, {0}, {2}, 0, 1, 0, 0, 0, {2}, {}};
    Tensor s = strided_slice(Tensor::from_strings({4}, {"a", "b", "c", "d"}), odd);
    QCOMPARE(s.strings(), (std::vector<std::string>{"b", "d"}));
  }

  void documented_examples() {
    // t = [[[1,1,1],[2,2,2]],[[3,3,3],[4,4,4]],[[5,5,5],[6,6,6]]]
    const Tensor t = F({3, 2, 3}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6});
    auto ss = [&](std::vector<int32_t> b, std::vector<int32_t> e, std::vector<int32_t> s) {
      return run1("StridedSlice", {}, {t, I32({3}, b), I32({3}, e), I32({3}, s)});
    };
    QVERIFY(tensor_near(ss({1, 0, 0}, {2, 1, 3}, {1, 1, 1}), DType::Float, {1, 1, 3}, {3, 3, 3}));
    QVERIFY(tensor_near(ss({1, 0, 0}, {2, 2, 3}, {1, 1, 1}), DType::Float, {1, 2, 3}, {3, 3, 3, 4, 4, 4}));
    QVERIFY(tensor_near(ss({1, -1, 0}, {2, -3, 3}, {1, -1, 1}), DType::Float, {1, 2, 3}, {4, 4, 4, 3, 3, 3}));
    // The whole input is forwarded, not copied.
    Tensor all = run1("StridedSlice", {{"begin_mask", 1}, {"end_mask", 1}}, {t, I32({1}, {0}), I32({1}, {0}), I32({1}, {1})});
    QVERIFY(all.shares_buffer_with(t));
  }

  void errors() {
    const Tensor x = T(DType::Float, {10}, iota(10));
    auto ss = [&](std::vector<int32_t> b, std::vector<int32_t> e, std::vector<int32_t> s, AttrMap m = {}) {
      return run1("StridedSlice", std::move(m),
                  {x, I32({static_cast<int64_t>(b.size())}, b), I32({static_cast<int64_t>(e.size())}, e),
                   I32({static_cast<int64_t>(s.size())}, s)});
    };
    EXPECT_ERROR(ss({0}, {5}, {0}), "strides[0] must be non-zero");
    EXPECT_ERROR(ss({10}, {11}, {1}, {{"shrink_axis_mask", 1}}), "slice index 10 of dimension 0 out of bounds.");
    EXPECT_ERROR(ss({-11}, {0}, {1}, {{"shrink_axis_mask", 1}}), "slice index -1 of dimension 0 out of bounds.");
    EXPECT_ERROR(ss({3}, {2}, {-1}, {{"shrink_axis_mask", 1}}), "only stride 1 allowed on non-range indexing.");
    EXPECT_ERROR(ss({0, 0}, {1, 1}, {1, 1}, {{"ellipsis_mask", 3}}), "Multiple ellipses in slice spec not allowed");
    EXPECT_ERROR(ss({0, 0}, {1, 1}, {1, 1}), "Index out of range using input dim 1; input has only 1 dims");
    EXPECT_ERROR(ss({0, 0}, {1}, {1, 1}),
                 "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [1], and [2] instead.");
  }

  void shape_function() {
    Tensor b = I32({2}, {1, 0}), e = I32({2}, {3, 0}), s = I32({2}, {1, 2});
    const std::vector<TensorInfo> in = {{DType::Float, Shape{5, -1}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{2}},
                                        {DType::Int32, Shape{2}}};
    auto info = infer("StridedSlice", {{"end_mask", 2}}, in, {nullptr, &b, &e, &s});
    QCOMPARE(qshape(info[0].shape), QString("[2,?]"));
    // Only the strides known: dims covered by both masks still get their size.
    info = infer("StridedSlice", {{"begin_mask", 1}, {"end_mask", 1}, {"shrink_axis_mask", 2}}, in, {nullptr, nullptr, nullptr, &s});
    QCOMPARE(qshape(info[0].shape), QString("[5]"));
    info = infer("StridedSlice", {}, in);
    QVERIFY(!info[0].shape.rank_known());
    Tensor shape = I32({2}, {4, 6});
    info = infer("StridedSliceGrad", {}, {{DType::Int32, Shape{2}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{2}},
                                          {DType::Int32, Shape{2}}, {DType::Float, Shape{2, 3}}},
                 {&shape, nullptr, nullptr, nullptr, nullptr});
    QCOMPARE(qshape(info[0].shape), QString("[4,6]"));
  }

  void strided_slice_grad() {
    // dy of y = x[1:3, 1::2] for x of shape [3, 4] lands at rows 1-2, columns 1 and 3.
    for (DType t : {DType::Float, DType::Half, DType::Int32, DType::Int8}) {
      Tensor out = run1("StridedSliceGrad", {{"end_mask", 2}},
                        {I32({2}, {3, 4}), I32({2}, {1, 1}), I32({2}, {3, 0}), I32({2}, {1, 2}), T(t, {2, 2}, {1, 2, 3, 4})});
      QVERIFY(tensor_near(out, t, {3, 4}, {0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4}));
    }
    // x[-1] of a [3, 2] tensor: the shrunk row.
    Tensor out = run1("StridedSliceGrad", {{"shrink_axis_mask", 1}},
                      {I64({2}, {3, 2}), I64({1}, {-1}), I64({1}, {0}), I64({1}, {1}), F({2}, {5, 6})});
    QVERIFY(tensor_near(out, DType::Float, {3, 2}, {0, 0, 0, 0, 5, 6}));
    EXPECT_ERROR(run1("StridedSliceGrad", {}, {I32({1}, {4}), I32({1}, {0}), I32({1}, {2}), I32({1}, {1}), F({3}, {1, 2, 3})}),
                 "shape of dy was [3] instead of [2]");
    EXPECT_ERROR(run1("StridedSliceGrad", {}, {I32({1, 1}, {4}), I32({1}, {0}), I32({1}, {2}), I32({1}, {1}), F({2}, {1, 2})}),
                 "shape must be 1-D, got shape.shape = [1,1]");
  }

  void slice() {
    // TensorFlow's tf.slice examples.
    const Tensor t = F({3, 2, 3}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6});
    QVERIFY(tensor_near(run1("Slice", {}, {t, I32({3}, {1, 0, 0}), I32({3}, {1, 1, 3})}), DType::Float, {1, 1, 3}, {3, 3, 3}));
    QVERIFY(tensor_near(run1("Slice", {}, {t, I32({3}, {1, 0, 0}), I32({3}, {1, 2, 3})}), DType::Float, {1, 2, 3},
                        {3, 3, 3, 4, 4, 4}));
    QVERIFY(tensor_near(run1("Slice", {}, {t, I64({3}, {1, 0, 0}), I64({3}, {2, 1, 3})}), DType::Float, {2, 1, 3},
                        {3, 3, 3, 5, 5, 5}));
    const Tensor y = T(DType::Int16, {3, 4}, iota(12));
    QVERIFY(tensor_near(run1("Slice", {}, {y, I32({2}, {1, 1}), I32({2}, {-1, 2})}), DType::Int16, {2, 2}, {5, 6, 9, 10}));
    QVERIFY(tensor_near(run1("Slice", {}, {T(DType::BFloat16, {4}, {1, 2, 3, 4}), I32({1}, {3}), I32({1}, {1})}),
                        DType::BFloat16, {1}, {4}));
    QVERIFY(tensor_near(run1("Slice", {}, {F({0, 2}, {}), I32({2}, {0, 1}), I32({2}, {0, 1})}), DType::Float, {0, 1}, {}));
    Tensor s = run1("Slice", {}, {Tensor::from_strings({2, 2}, {"a", "b", "c", "d"}), I32({2}, {0, 1}), I32({2}, {2, 1})});
    QCOMPARE(s.strings(), (std::vector<std::string>{"b", "d"}));
    QVERIFY(run1("Slice", {}, {y, I32({2}, {0, 0}), I32({2}, {-1, -1})}).shares_buffer_with(y));
    EXPECT_ERROR(run1("Slice", {}, {y, I32({2}, {1, 4}), I32({2}, {1, 1})}), "Expected size[1] in [0, 0], but got 1");
    EXPECT_ERROR(run1("Slice", {}, {y, I32({2}, {-1, 0}), I32({2}, {1, 1})}), "Expected begin[0] in [0, 3], but got -1");
    EXPECT_ERROR(run1("Slice", {}, {y, I32({1}, {0}), I32({2}, {1, 1})}),
                 "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [1] and [2] instead.");
    EXPECT_ERROR(run1("Slice", {}, {F({0, 2}, {}), I32({2}, {1, 0}), I32({2}, {0, 1})}),
                 "Expected begin[0] == 0 (got 1) and size[0] == 0 (got 0) when input.dim_size(0) == 0");
    Tensor begin = I32({2}, {1, 1}), size = I32({2}, {2, -1});
    auto info = infer("Slice", {}, {{DType::Float, Shape{3, 4}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{2}}},
                      {nullptr, &begin, &size});
    QCOMPARE(qshape(info[0].shape), QString("[2,3]"));
    info = infer("Slice", {}, {{DType::Float, Shape{3, 4}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{2}}},
                 {nullptr, nullptr, &size});
    QCOMPARE(qshape(info[0].shape), QString("[2,?]"));
    Tensor bad = I32({2}, {-2, 1});
    EXPECT_ERROR(infer("Slice", {}, {{DType::Float, Shape{3, 4}}, {DType::Int32, Shape{2}}, {DType::Int32, Shape{2}}},
                       {nullptr, &begin, &bad}),
                 "Out of bounds slicing on dimension 0 of length 3: sizes vector cannot be < -1, but was -2");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsStridedSlice)
#include "test_ops_strided_slice.moc"
