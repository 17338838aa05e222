// ReverseSequence against TensorFlow's kernel (reverse_sequence_op.cc): each
// slice i along batch_dim has its first seq_lengths[i] entries along seq_dim
// reversed. The kernel's checks and words, the shape function (array_ops.cc)
// and the gradient (array_grad._ReverseSequenceGrad) checked numerically.
#include "test_main.h"
#include "gradient_check.h"
#include "elementwise_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor reverse_sequence(const Tensor& x, const Tensor& lens, int64_t seq_dim, int64_t batch_dim = 0) {
  return run1("ReverseSequence",
              {{"T", x.dtype()}, {"Tlen", lens.dtype()}, {"seq_dim", seq_dim}, {"batch_dim", batch_dim}}, {x, lens});
}

std::vector<double> iota(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>(i);
  return v;
}

}  // namespace

class TestOpsReverseSequence : public QObject {
  Q_OBJECT
 private slots:
  void reverses_each_row_up_to_its_length() {
    const Tensor x = F({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    QVERIFY(values_are(reverse_sequence(x, I64({3}, {2, 4, 0}), 1), DType::Float, {3, 4},
                       {2, 1, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12}));
    // Length 1 leaves a row as it is.
    QVERIFY(values_are(reverse_sequence(x, I32({3}, {1, 1, 1}), 1), DType::Float, {3, 4}, as_doubles(x)));
  }

  void batch_dim_after_seq_dim() {
    // Column 0 reversed over all 3 rows, column 1 over its first row only.
    const Tensor x = I32({3, 2}, {1, 2, 3, 4, 5, 6});
    QVERIFY(values_are(reverse_sequence(x, I64({2}, {3, 1}), 0, 1), DType::Int32, {3, 2}, {5, 2, 3, 4, 1, 6}));
  }

  void moves_inner_slices_whole() {
    const Tensor x = T(DType::Double, {2, 3, 2}, iota(12));
    QVERIFY(values_are(reverse_sequence(x, I64({2}, {3, 2}), 1), DType::Double, {2, 3, 2},
                       {4, 5, 2, 3, 0, 1, 8, 9, 6, 7, 10, 11}));
    // Rank 5, seq_dim last: batch 0 reverses its last axis of 3, batch 1 its first 2.
    const Tensor y = T(DType::Int64, {2, 1, 1, 1, 3}, iota(6));
    QVERIFY(values_are(reverse_sequence(y, I32({2}, {3, 2}), 4), DType::Int64, {2, 1, 1, 1, 3}, {2, 1, 0, 4, 3, 5}));
  }

  void strings_and_bools() {
    const Tensor out = reverse_sequence(Tensor::from_strings({2, 2}, {"a", "b", "c", "d"}), I32({2}, {2, 0}), 1);
    QCOMPARE(out.strings(), (std::vector<std::string>{"b", "a", "c", "d"}));
    QVERIFY(values_are(reverse_sequence(B({1, 3}, {true, false, false}), I64({1}, {3}), 1), DType::Bool, {1, 3},
                       {0, 0, 1}));
  }

  void empty_input() {
    QVERIFY(values_are(reverse_sequence(F({0, 3}, {}), I64({0}, {}), 1), DType::Float, {0, 3}, {}));
    QVERIFY(values_are(reverse_sequence(F({2, 0}, {}), I64({2}, {0, 0}), 1), DType::Float, {2, 0}, {}));
  }

  void kernel_errors_in_tensorflow_order() {
    const Tensor x = T(DType::Float, {3, 4}, iota(12));
    EXPECT_ERROR(reverse_sequence(x, I64({1, 3}, {1, 1, 1}), 1), "seq_lengths must be 1-dim, not 2");
    EXPECT_ERROR(reverse_sequence(x, I64({3}, {1, 1, 1}), 0, 0), "batch_dim == seq_dim == 0");
    EXPECT_ERROR(reverse_sequence(x, I64({3}, {1, 1, 1}), 2), "seq_dim must be < input rank ( 2 vs. 2)");
    EXPECT_ERROR(reverse_sequence(x, I64({3}, {1, 1, 1}), 1, 3), "batch_dim must be < input rank ( 3 vs. 2)");
    EXPECT_ERROR(reverse_sequence(x, I64({2}, {1, 1}), 1), "Length of seq_lengths != input.dims(0), (2 vs. 3)");
    EXPECT_ERROR(reverse_sequence(x, I64({3}, {1, -1, 1}), 1), "seq_lens(1) < 0");
    EXPECT_ERROR(reverse_sequence(x, I32({3}, {5, 1, 1}), 1), "seq_lens(0) > input.dims(1)");
    EXPECT_ERROR(reverse_sequence(x, I64({3}, {1, 1, 1}), -1), "Invalid seq_dim -1");
    EXPECT_ERROR(reverse_sequence(x, I64({3}, {1, 1, 1}), 1, -2), "Invalid batch_dim -2");
    EXPECT_ERROR(reverse_sequence(x, I64({3}, {1, 1, 1}), int64_t(1) << 40), "out of range for an int32");
    EXPECT_ERROR(reverse_sequence(F({3}, {1, 2, 3}), I64({3}, {1, 1, 1}), 1),
                 "seq_dim must be < input rank ( 1 vs. 1)");
    // Only ranks 2 to 5 have a kernel.
    EXPECT_ERROR(reverse_sequence(T(DType::Float, {1, 1, 1, 1, 1, 2}, {1, 2}), I64({1}, {1}), 5),
                 "ReverseSequenceOp : Unhandled input dimensions: 6");
  }

  void shape_function() {
    const AttrMap attrs = {{"T", DType::Float}, {"Tlen", DType::Int64}, {"seq_dim", 1}, {"batch_dim", 0}};
    auto out = infer("ReverseSequence", attrs, {{DType::Float, Shape{-1, 4}}, {DType::Int64, Shape{3}}});
    QCOMPARE(qshape(out[0].shape), QStringLiteral("[3,4]"));
    QCOMPARE(out[0].dtype, DType::Float);
    out = infer("ReverseSequence", attrs, {{DType::Float, Shape::unknown_rank()}, {DType::Int64, Shape{3}}});
    QVERIFY(!out[0].shape.rank_known());
    EXPECT_ERROR(infer("ReverseSequence", attrs, {{DType::Float, Shape{2, 4}}, {DType::Int64, Shape{3}}}),
                 "Dimensions must be equal, but are 2 and 3");
    EXPECT_ERROR(infer("ReverseSequence", attrs, {{DType::Float, Shape{2, 4}}, {DType::Int64, Shape{2, 1}}}),
                 "Shape must be rank 1 but is rank 2");
    AttrMap far = attrs;
    far["seq_dim"] = AttrValue(int64_t(2));
    EXPECT_ERROR(infer("ReverseSequence", far, {{DType::Float, Shape{2, 4}}, {DType::Int64, Shape{2}}}),
                 "seq_dim must be < input rank: 2 vs. 2");
    far["seq_dim"] = AttrValue(int64_t(0));
    far["batch_dim"] = AttrValue(int64_t(2));
    EXPECT_ERROR(infer("ReverseSequence", far, {{DType::Float, Shape{2, 4}}, {DType::Int64, Shape{2}}}),
                 "batch_dim must be < input rank: 2 vs. 2");
  }

  void gradient_reverses_back() {
    Model m;
    const std::string x = m.x("x", T(DType::Double, {3, 4}, {0.3, -0.8, 1.3, 0.2, -1.1, 0.7, 2.1, -0.4, 0.9, 1.6, -2.2, 0.5}));
    check_gradients(m, m.op("ReverseSequence", {x, m.c("lens", I64({3}, {2, 4, 0}))},
                            {{"Tlen", AttrValue(DType::Int64)}, {"seq_dim", AttrValue(int64_t(1))}}));
    Model n;
    const std::string y = n.x("y", T(DType::Double, {3, 2, 2}, {0.3, -0.8, 1.3, 0.2, -1.1, 0.7, 2.1, -0.4, 0.9, 1.6, -2.2, 0.5}));
    check_gradients(n, n.op("ReverseSequence", {y, n.c("lens", I32({2}, {3, 1}))},
                            {{"Tlen", AttrValue(DType::Int32)},
                             {"seq_dim", AttrValue(int64_t(0))},
                             {"batch_dim", AttrValue(int64_t(1))}}));
  }

  void gradient_graph_is_a_reverse_sequence() {
    Model m;
    const std::string x = m.x("x", T(DType::Double, {2, 3}, iota(6)));
    const std::string y = m.op("ReverseSequence", {x, m.c("lens", I32({2}, {3, 2}))},
                               {{"Tlen", AttrValue(DType::Int32)}, {"seq_dim", AttrValue(int64_t(1))}});
    add_gradients(m.g, {y}, {x}, OpRegistry::global());
    int reversals = 0;
    for (const Node& n : m.g.nodes()) {
      if (n.name.rfind("gradients/", 0) != 0 || n.op != "ReverseSequence") continue;
      ++reversals;
      QCOMPARE(n.attr_int("seq_dim", -1), int64_t(1));
      QCOMPARE(n.attr_int("batch_dim", -1), int64_t(0));
      QCOMPARE(n.attr_type("Tlen", DType::Invalid), DType::Int32);
    }
    QCOMPARE(reversals, 1);
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsReverseSequence)
#include "test_ops_reverse_sequence.moc"
