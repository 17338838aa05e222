// Element-permuting ops: Transpose, ReverseV2, DepthToSpace, SpaceToDepth,
// with the examples of TensorFlow's op documentation on several dtypes.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

std::vector<double> iota(int n, double from = 0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = from + i;
  return v;
}

const DType kTypes[] = {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int8,
                        DType::UInt8, DType::Int32,  DType::Int64, DType::UInt64};

}  // namespace

class TestOpsTranspose : public QObject {
  Q_OBJECT
 private slots:
  void transpose() {
    for (DType t : kTypes) {
      // tf.transpose([[1, 2, 3], [4, 5, 6]]) = [[1, 4], [2, 5], [3, 6]]
      QVERIFY(tensor_near(run1("Transpose", {}, {T(t, {2, 3}, {1, 2, 3, 4, 5, 6}), I32({2}, {1, 0})}), t, {3, 2},
                          {1, 4, 2, 5, 3, 6}));
      // perm [0, 2, 1] on [[[1,2,3],[4,5,6]],[[7,8,9],[10,11,12]]]
      QVERIFY(tensor_near(run1("Transpose", {}, {T(t, {2, 2, 3}, iota(12, 1)), I64({3}, {0, 2, 1})}), t, {2, 3, 2},
                          {1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12}));
    }
    // [2,3,4] with perm [2,0,1]: out[k][i][j] = in[i][j][k] = 12i + 4j + k.
    std::vector<double> want;
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) want.push_back(12 * i + 4 * j + k);
    QVERIFY(tensor_near(run1("Transpose", {}, {T(DType::Int16, {2, 3, 4}, iota(24)), I32({3}, {2, 0, 1})}), DType::Int16,
                        {4, 2, 3}, want));
    // Negative entries wrap; size-0 and size-1 dims.
    QVERIFY(tensor_near(run1("Transpose", {}, {F({2, 1}, {1, 2}), I32({2}, {-1, -2})}), DType::Float, {1, 2}, {1, 2}));
    QVERIFY(tensor_near(run1("Transpose", {}, {F({0, 3}, {}), I32({2}, {1, 0})}), DType::Float, {3, 0}, {}));
    Tensor b = run1("Transpose", {}, {B({2, 2}, {true, false, false, false}), I32({2}, {1, 0})});
    QVERIFY(tensor_near(b, DType::Bool, {2, 2}, {1, 0, 0, 0}));
    Tensor s = run1("Transpose", {}, {Tensor::from_strings({2, 2}, {"a", "b", "c", "d"}), I32({2}, {1, 0})});
    QCOMPARE(s.strings(), (std::vector<std::string>{"a", "c", "b", "d"}));
    Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
    EXPECT_ERROR(run1("Transpose", {}, {x, I32({2}, {0, 0})}), "1 is missing from {0,0}.");
    EXPECT_ERROR(run1("Transpose", {}, {x, I32({2}, {0, 2})}), "2 is out of range [0 .. 2)");
    EXPECT_ERROR(run1("Transpose", {}, {x, I32({3}, {0, 1, 2})}),
                 "transpose expects a vector of size 2. But input(1) is a vector of size 3");
    EXPECT_ERROR(run1("Transpose", {}, {x, I32({1, 2}, {1, 0})}), "perm must be rank 1, got shape [1,2]");
    Tensor perm = I32({3}, {2, 0, 1});
    auto info = infer("Transpose", {}, {{DType::Float, Shape{2, -1, 4}}, {DType::Int32, Shape{3}}}, {nullptr, &perm});
    QCOMPARE(qshape(info[0].shape), QString("[4,2,?]"));
    info = infer("Transpose", {}, {{DType::Float, Shape::unknown_rank()}, {DType::Int32, Shape{3}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,?,?]"));
  }

  void reverse() {
    // TensorFlow's tf.reverse example: t of shape [1, 2, 3, 4] holding 0..23.
    const Tensor t = I32({1, 2, 3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
    QVERIFY(tensor_near(run1("ReverseV2", {}, {t, I32({1}, {3})}), DType::Int32, {1, 2, 3, 4},
                        {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20}));
    QVERIFY(tensor_near(run1("ReverseV2", {}, {t, I32({1}, {1})}), DType::Int32, {1, 2, 3, 4},
                        {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    QVERIFY(tensor_near(run1("ReverseV2", {}, {t, I64({1}, {-2})}), DType::Int32, {1, 2, 3, 4},
                        {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15}));
    for (DType d : {DType::Half, DType::BFloat16, DType::Int8, DType::Bool}) {
      QVERIFY(tensor_near(run1("ReverseV2", {}, {T(d, {2, 2}, {1, 0, 0, 1}), I32({2}, {0, 1})}), d, {2, 2}, {1, 0, 0, 1}));
      QVERIFY(tensor_near(run1("ReverseV2", {}, {T(d, {3}, {1, 1, 0}), I32({0}, {})}), d, {3}, {1, 1, 0}));
    }
    Tensor s = run1("ReverseV2", {}, {Tensor::from_strings({3}, {"a", "b", "c"}), I32({1}, {0})});
    QCOMPARE(s.strings(), (std::vector<std::string>{"c", "b", "a"}));
    QVERIFY(tensor_near(run1("ReverseV2", {}, {scalar_f(5), I32({1}, {7})}), DType::Float, {}, {5}));  // scalars pass
    QVERIFY(tensor_near(run1("ReverseV2", {}, {F({0, 2}, {}), I32({1}, {1})}), DType::Float, {0, 2}, {}));
    EXPECT_ERROR(run1("ReverseV2", {}, {t, I32({1}, {4})}), "'axis'[0] = 4 is out of valid range [0, 3");
    EXPECT_ERROR(run1("ReverseV2", {}, {t, I32({2}, {1, -3})}), "axis 1 specified more than once.");
    EXPECT_ERROR(run1("ReverseV2", {}, {t, I32({}, {1})}), "'dims' must be 1-dimension, not 0");
    Tensor axis = I32({1}, {5});
    EXPECT_ERROR(infer("ReverseV2", {}, {{DType::Float, Shape{2, 3}}, {DType::Int32, Shape{1}}}, {nullptr, &axis}),
                 "'axis'[0] = 5 is out of valid range [0, 1");
  }

  void depth_to_space_and_back() {
    struct Case {
      Shape deep, wide;
      std::vector<double> deep_values, wide_values;
    };
    // The three examples of TensorFlow's DepthToSpace / SpaceToDepth documentation (block_size 2).
    const Case cases[] = {
        {{1, 1, 1, 4}, {1, 2, 2, 1}, {1, 2, 3, 4}, {1, 2, 3, 4}},
        {{1, 1, 1, 12}, {1, 2, 2, 3}, iota(12, 1), iota(12, 1)},
        {{1, 2, 2, 4}, {1, 4, 4, 1}, iota(16, 1), {1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16}},
    };
    for (const Case& c : cases)
      for (DType t : {DType::Float, DType::Half, DType::Int8, DType::UInt16}) {
        QVERIFY(tensor_near(run1("DepthToSpace", {{"block_size", 2}}, {T(t, c.deep, c.deep_values)}), t, c.wide,
                            c.wide_values));
        QVERIFY(tensor_near(run1("SpaceToDepth", {{"block_size", 2}}, {T(t, c.wide, c.wide_values)}), t, c.deep,
                            c.deep_values));
      }
    // Two batches, block 3: depth 9 spreads over 3x3.
    Tensor deep = T(DType::Int32, {2, 1, 1, 9}, iota(18));
    Tensor wide = run1("DepthToSpace", {{"block_size", 3}}, {deep});
    QVERIFY(tensor_near(wide, DType::Int32, {2, 3, 3, 1}, iota(18)));
    QVERIFY(tensor_near(run1("SpaceToDepth", {{"block_size", 3}}, {wide}), DType::Int32, {2, 1, 1, 9}, iota(18)));
    Tensor x = F({1, 2, 2, 4}, std::vector<float>(16, 0));
    EXPECT_ERROR(run1("DepthToSpace", {{"block_size", 2}, {"data_format", "NCHW"}}, {x}),
                 "Only NHWC data_format supported on CPU. Got NCHW");
    EXPECT_ERROR(run1("SpaceToDepth", {{"block_size", 2}, {"data_format", "NCHW"}}, {x}),
                 "Only NHWC data_format supported on CPU. Got NCHW");
    EXPECT_ERROR(run1("DepthToSpace", {{"block_size", 3}}, {x}), "Input depth dimension 4 should be divisible by: 9");
    EXPECT_ERROR(run1("SpaceToDepth", {{"block_size", 3}}, {x}),
                 "Image width 2 and height 2 should be divisible by block_size: 3");
    EXPECT_ERROR(run1("DepthToSpace", {{"block_size", 2}}, {F({4}, {1, 2, 3, 4})}), "Input rank should be: 4 instead of: 1");
    auto info = infer("DepthToSpace", {{"block_size", 2}}, {{DType::Float, Shape{-1, 3, 5, 8}}});
    QCOMPARE(qshape(info[0].shape), QString("[?,6,10,2]"));
    info = infer("SpaceToDepth", {{"block_size", 2}, {"data_format", "NCHW"}}, {{DType::Float, Shape{1, 3, 4, 6}}});
    QCOMPARE(qshape(info[0].shape), QString("[1,12,2,3]"));
    EXPECT_ERROR(infer("SpaceToDepth", {{"block_size", 2}}, {{DType::Float, Shape{1, 3, 4, 6}}}),
                 "Dimension size must be evenly divisible by 2 but is 3");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsTranspose)
#include "test_ops_transpose.moc"
