// TensorArrayV3 and StackV2 in a session: graphs as TensorFlow 1 builds them
// (the flow chaining writes before reads), round trips of write/read,
// scatter/gather and split/concat with hand-computed values, the gradient
// array (shared by source, accumulating, zeros where nothing was written),
// clear_after_read, stacks in LIFO order, TensorFlow's errors for bad use,
// and gradients through a TensorArray by add_gradients.
#include "test_main.h"
#include <QtTest>

#include "engine/op_test_util.h"
#include "exec/session.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/graph_builder.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

std::vector<float> floats_of(const Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

struct Array {
  std::string handle;
  std::string flow;
};

Array tensor_array(GraphBuilder& b, const std::string& name, int32_t size, AttrMap extra = {}) {
  AttrMap attrs = {{"dtype", AttrValue(DType::Float)}};
  for (auto& [k, v] : extra) attrs[k] = v;
  const std::string size_node = b.constant(name + "/size", I32({}, {size}));
  const std::string n = b.add("TensorArrayV3", name, {size_node}, attrs);
  return {n, n + ":1"};
}

// A write returning the new flow.
std::string write(GraphBuilder& b, const Array& a, const std::string& flow, int32_t index, const std::string& value,
                  const std::string& base = "write") {
  const std::string i = b.constant(base + "/index", I32({}, {index}));
  return b.add("TensorArrayWriteV3", base, {a.handle, i, value, flow}, {{"T", AttrValue(DType::Float)}});
}

std::string read(GraphBuilder& b, const std::string& handle, const std::string& flow, int32_t index,
                 const std::string& base = "read") {
  const std::string i = b.constant(base + "/index", I32({}, {index}));
  return b.add("TensorArrayReadV3", base, {handle, i, flow}, {{"dtype", AttrValue(DType::Float)}});
}

void expect_error(Session& s, const std::vector<std::string>& fetches, const std::string& text,
                  const std::vector<std::string>& targets = {}) {
  try {
    s.run({}, fetches, targets);
  } catch (const Error& e) {
    QVERIFY2(std::string(e.what()).find(text) != std::string::npos, e.what());
    return;
  }
  QFAIL(("expected an error containing: " + text).c_str());
}

}  // namespace

class TestTensorArrayOps : public QObject {
  Q_OBJECT

 private slots:
  void write_read_and_size_round_trip() {
    Graph g;
    GraphBuilder b(g);
    const Array ta = tensor_array(b, "ta", 3, {{"element_shape", AttrValue(Shape{2})}});
    const std::string w0 = write(b, ta, ta.flow, 0, b.constant("a", F({2}, {1, 2})), "w0");
    const std::string w1 = write(b, ta, w0, 2, b.constant("c", F({2}, {5, 6})), "w1");
    const std::string r2 = read(b, ta.handle, w1, 2, "r2");
    const std::string r0 = read(b, ta.handle, w1, 0, "r0");
    const std::string size = b.add("TensorArraySizeV3", "size", {ta.handle, w1});
    const std::string r1 = read(b, ta.handle, w1, 1, "r1");
    Session s(std::move(g));
    for (int run = 0; run < 2; ++run) {  // a fresh array each run: clear_after_read never trips
      const auto out = s.run({}, {r2, r0, size});
      QCOMPARE(floats_of(out[0]), (std::vector<float>{5, 6}));
      QCOMPARE(floats_of(out[1]), (std::vector<float>{1, 2}));
      QCOMPARE(out[2].values<int32_t>()[0], 3);
    }
    expect_error(s, {r1}, "Could not read from TensorArray index 1 because it has not yet been written to.");
  }

  void scatter_then_gather() {
    Graph g;
    GraphBuilder b(g);
    const Array ta = tensor_array(b, "ta", 3);
    const std::string idx = b.constant("idx", I32({3}, {2, 0, 1}));
    const std::string value = b.constant("value", F({3, 2}, {1, 2, 3, 4, 5, 6}));
    const std::string sc = b.add("TensorArrayScatterV3", "scatter", {ta.handle, idx, value, ta.flow}, {{"T", AttrValue(DType::Float)}});
    const std::string order = b.constant("order", I32({3}, {0, 1, 2}));
    const std::string ga = b.add("TensorArrayGatherV3", "gather", {ta.handle, order, sc}, {{"dtype", AttrValue(DType::Float)}});
    Session s(std::move(g));
    const Tensor out = s.run({}, {ga})[0];
    QCOMPARE(out.shape(), (Shape{3, 2}));
    QCOMPARE(floats_of(out), (std::vector<float>{3, 4, 5, 6, 1, 2}));
  }

  void split_then_concat_and_read() {
    Graph g;
    GraphBuilder b(g);
    const Array ta = tensor_array(b, "ta", 2, {{"clear_after_read", AttrValue(false)}});
    const std::string value = b.constant("value", F({5, 1}, {1, 2, 3, 4, 5}));
    const std::string lengths = b.constant("lengths", I64({2}, {2, 3}));
    const std::string sp = b.add("TensorArraySplitV3", "split", {ta.handle, value, lengths, ta.flow}, {{"T", AttrValue(DType::Float)}});
    const std::string cc = b.add("TensorArrayConcatV3", "concat", {ta.handle, sp}, {{"dtype", AttrValue(DType::Float)}});
    const std::string r1 = read(b, ta.handle, sp, 1, "r1");
    Session s(std::move(g));
    const auto out = s.run({}, {cc, cc + ":1", r1});
    QCOMPARE(out[0].shape(), (Shape{5, 1}));
    QCOMPARE(floats_of(out[0]), (std::vector<float>{1, 2, 3, 4, 5}));
    QCOMPARE(std::vector<int64_t>(out[1].values<int64_t>().begin(), out[1].values<int64_t>().end()), (std::vector<int64_t>{2, 3}));
    QCOMPARE(out[2].shape(), (Shape{3, 1}));
    QCOMPARE(floats_of(out[2]), (std::vector<float>{3, 4, 5}));
  }

  void gradient_array_accumulates_and_is_shared_by_source() {
    Graph g;
    GraphBuilder b(g);
    const Array ta = tensor_array(b, "ta", 2);
    const std::string w0 = write(b, ta, ta.flow, 0, b.constant("x0", F({2}, {1, 2})), "w0");
    const std::string w1 = write(b, ta, w0, 1, b.constant("x1", F({2}, {3, 4})), "w1");
    const AttrMap src = {{"source", AttrValue(std::string("gradients"))}};
    const std::string ga = b.add("TensorArrayGradV3", "grad_a", {ta.handle, w1}, src);
    const std::string gb = b.add("TensorArrayGradV3", "grad_b", {ta.handle, w1}, src);  // the same array
    const std::string other = b.add("TensorArrayGradV3", "grad_other", {ta.handle, w1},
                                    {{"source", AttrValue(std::string("gradients_1"))}});
    const Array A{ga, ga + ":1"}, Bh{gb, gb + ":1"};
    const std::string g1 = write(b, A, A.flow, 0, b.constant("d1", F({2}, {10, 20})), "gw1");
    const std::string g2 = write(b, Bh, g1, 0, b.constant("d2", F({2}, {1, 2})), "gw2");
    const std::string sum0 = read(b, ga, g2, 0, "gr0");
    const std::string zero1 = read(b, ga, g2, 1, "gr1");
    const std::string size = b.add("TensorArraySizeV3", "gsize", {ga, g2});
    const std::string other_read = read(b, other, other + ":1", 0, "other_r0");
    const std::string shaped = b.add("TensorArrayGradWithShape", "grad_shaped", {ta.handle, w1, b.constant("prepend", I32({1}, {3}))},
                                     {{"source", AttrValue(std::string("gradients_2"))}});
    const std::string shaped_read = read(b, shaped, shaped + ":1", 1, "shaped_r1");
    Session s(std::move(g));
    const Tensor prepended = s.run({}, {shaped_read})[0];
    QCOMPARE(prepended.shape(), (Shape{3, 2}));  // the forward element's [2], [3] prepended, as zeros
    QCOMPARE(floats_of(prepended), std::vector<float>(6, 0.0f));
    const auto out = s.run({}, {sum0, zero1, size, other_read});
    QCOMPARE(floats_of(out[0]), (std::vector<float>{11, 22}));  // two writes to one index add up
    QCOMPARE(floats_of(out[1]), (std::vector<float>{0, 0}));    // the forward element's shape, as zeros
    QCOMPARE(out[2].values<int32_t>()[0], 2);
    QCOMPARE(floats_of(out[3]), (std::vector<float>{0, 0}));  // another source, another (empty) accumulator
  }

  void clear_after_read_and_write_after_read() {
    Graph g;
    GraphBuilder b(g);
    const Array ta = tensor_array(b, "ta", 1);
    const std::string w = write(b, ta, ta.flow, 0, b.constant("x", F({1}, {7})), "w");
    const std::string r_a = read(b, ta.handle, w, 0, "ra");
    const std::string r_b = b.add("TensorArrayReadV3", "rb", {ta.handle, b.constant("rb/index", I32({}, {0})), w},
                                  {{"dtype", AttrValue(DType::Float)}}, {r_a});
    const std::string again = b.add("TensorArrayWriteV3", "again",
                                    {ta.handle, b.constant("again/index", I32({}, {0})), b.constant("y", F({1}, {8})), w},
                                    {{"T", AttrValue(DType::Float)}}, {r_a});
    const Array keep = tensor_array(b, "keep", 1, {{"clear_after_read", AttrValue(false)}});
    const std::string kw = write(b, keep, keep.flow, 0, b.constant("k", F({1}, {9})), "kw");
    const std::string k1 = read(b, keep.handle, kw, 0, "k1");
    const std::string k2 = b.add("TensorArrayReadV3", "k2", {keep.handle, b.constant("k2/index", I32({}, {0})), kw},
                                 {{"dtype", AttrValue(DType::Float)}}, {k1});
    Session s(std::move(g));
    expect_error(s, {r_b}, "Could not read index 0 twice because it was cleared after a previous read");
    expect_error(s, {again}, "Could not write to TensorArray index 0 because it has already been read.");
    const auto out = s.run({}, {k1, k2});
    QCOMPARE(floats_of(out[0]), (std::vector<float>{9}));
    QCOMPARE(floats_of(out[1]), (std::vector<float>{9}));
  }

  void bad_use_is_refused_with_tensorflows_errors() {
    Graph g;
    GraphBuilder b(g);
    const Array ta = tensor_array(b, "ta", 3, {{"element_shape", AttrValue(Shape{2})}});
    const std::string x2 = b.constant("x2", F({2}, {1, 2}));
    const std::string past = write(b, ta, ta.flow, 3, x2, "past");
    const std::string shape = write(b, ta, ta.flow, 0, b.constant("x3", F({3}, {1, 2, 3})), "shape");
    const std::string twice = write(b, ta, write(b, ta, ta.flow, 1, x2, "once"), 1, x2, "twice");
    const std::string idx2 = b.constant("idx2", I32({2}, {0, 1}));
    const std::string scatter = b.add("TensorArrayScatterV3", "scatter",
                                      {ta.handle, idx2, b.constant("v3", F({3, 2}, {1, 2, 3, 4, 5, 6})), ta.flow},
                                      {{"T", AttrValue(DType::Float)}});
    const std::string split = b.add("TensorArraySplitV3", "split",
                                    {ta.handle, b.constant("v4", F({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})),
                                     b.constant("len", I64({2}, {2, 2})), ta.flow},
                                    {{"T", AttrValue(DType::Float)}});
    const std::string wrong_dtype = b.add("TensorArrayReadV3", "wrong_dtype",
                                          {ta.handle, b.constant("wd/index", I32({}, {0})), write(b, ta, ta.flow, 0, x2, "wd_w")},
                                          {{"dtype", AttrValue(DType::Int32)}});
    const std::string close = b.add("TensorArrayCloseV3", "close", {ta.handle});
    const std::string closed = b.add("TensorArraySizeV3", "closed_size", {ta.handle, ta.flow}, {}, {close});
    const std::string negative = b.add("TensorArrayV3", "negative", {b.constant("neg", I32({}, {-1}))},
                                       {{"dtype", AttrValue(DType::Float)}});
    Session s(std::move(g));
    expect_error(s, {past}, "Tried to write to index 3 but array is not resizeable and size is: 3");
    expect_error(s, {shape}, "because the value shape is [3] which is incompatible with the TensorArray's element shape: [2].");
    expect_error(s, {twice}, "Could not write to TensorArray index 1 because it has already been written to.");
    expect_error(s, {scatter}, "Expected len(indices) == values.shape[0], but saw: 2 vs. 3");
    expect_error(s, {split}, "TensorArray's size is not equal to the size of lengths (2 vs. 3)");
    expect_error(s, {wrong_dtype}, "TensorArray dtype is float but Op requested dtype int32.");
    expect_error(s, {closed}, "has already been closed.");
    expect_error(s, {negative}, "Size should be >= 0.");
  }

  void dynamic_size_grows_on_write() {
    Graph g;
    GraphBuilder b(g);
    const Array ta = tensor_array(b, "ta", 0, {{"dynamic_size", AttrValue(true)}});
    const std::string w = write(b, ta, ta.flow, 5, b.constant("x", F({}, {4})), "w");
    const std::string size = b.add("TensorArraySizeV3", "size", {ta.handle, w});
    Session s(std::move(g));
    QCOMPARE(s.run({}, {size})[0].values<int32_t>()[0], 6);
  }

  void stack_pops_in_lifo_order() {
    Graph g;
    GraphBuilder b(g);
    const std::string st = b.add("StackV2", "stack", {b.constant("max", I32({}, {-1}))},
                                 {{"elem_type", AttrValue(DType::Float)}, {"stack_name", AttrValue(std::string("s"))}});
    const AttrMap t = {{"T", AttrValue(DType::Float)}};
    const std::string p1 = b.add("StackPushV2", "p1", {st, b.constant("one", F({1}, {1}))}, t);
    const std::string p2 = b.add("StackPushV2", "p2", {st, b.constant("two", F({2}, {2, 2}))}, t, {p1});
    const AttrMap e = {{"elem_type", AttrValue(DType::Float)}};
    const std::string q1 = b.add("StackPopV2", "q1", {st}, e, {p2});
    const std::string q2 = b.add("StackPopV2", "q2", {st}, e, {q1});
    const std::string q3 = b.add("StackPopV2", "q3", {st}, e, {q2});
    const std::string bounded = b.add("StackV2", "bounded", {b.constant("max1", I32({}, {1}))}, e);
    const std::string b1 = b.add("StackPushV2", "b1", {bounded, b.constant("x", F({}, {1}))}, t);
    const std::string b2 = b.add("StackPushV2", "b2", {bounded, b.constant("y", F({}, {2}))}, t, {b1});
    const std::string cl = b.add("StackCloseV2", "close", {st}, {}, {p1});
    const std::string after_close = b.add("StackPopV2", "after_close", {st}, e, {cl});
    Session s(std::move(g));
    const auto out = s.run({}, {p2, q1, q2});
    QCOMPARE(floats_of(out[0]), (std::vector<float>{2, 2}));  // a push outputs what it pushed
    QCOMPARE(floats_of(out[1]), (std::vector<float>{2, 2}));
    QCOMPARE(floats_of(out[2]), (std::vector<float>{1}));
    expect_error(s, {q3}, "] is empty.");
    expect_error(s, {q3}, "Stack[s_");
    expect_error(s, {b2}, "overflowed its max_size (1)");
    expect_error(s, {after_close}, "has already been closed.");
  }

  void gradients_flow_through_a_tensor_array() {
    // loss = sum(r0 * r0) + sum(r1) with r0 = x and r1 = 3x read back from
    // the array: dloss/dx = 2x + 3; a gather of both gives 1 + 3.
    for (bool gather : {false, true}) {
      Graph g;
      GraphBuilder b(g);
      const std::string x = b.constant("x", F({2}, {1, 2}));
      const std::string x3 = b.binary("Mul", x, b.constant("three", F({}, {3})), DType::Float);
      const Array ta = tensor_array(b, "ta", 2);
      const std::string w0 = write(b, ta, ta.flow, 0, x, "w0");
      const std::string w1 = write(b, ta, w0, 1, x3, "w1");
      const std::string axes = b.int32_vector("axes", {0});
      std::string loss;
      if (!gather) {
        const std::string r0 = read(b, ta.handle, w1, 0, "r0");
        const std::string r1 = read(b, ta.handle, w1, 1, "r1");
        const std::string sq = b.binary("Mul", r0, r0, DType::Float);
        loss = b.binary("AddV2", b.sum(sq, axes, DType::Float), b.sum(r1, axes, DType::Float), DType::Float);
      } else {
        const std::string all = b.add("TensorArrayGatherV3", "gather", {ta.handle, b.constant("order", I32({2}, {0, 1})), w1},
                                      {{"dtype", AttrValue(DType::Float)}});
        loss = b.sum(all, b.int32_vector("axes2", {0, 1}), DType::Float);
      }
      const auto grads = add_gradients(g, {loss}, {x}, OpRegistry::global());
      QVERIFY(!grads[0].empty());
      Session s(std::move(g));
      const Tensor dx = s.run({}, {grads[0]})[0];
      QCOMPARE(floats_of(dx), gather ? (std::vector<float>{4, 4}) : (std::vector<float>{5, 7}));
    }
  }

  void gradients_of_split_concat_and_scatter_gather() {
    // concat(split(x)) = x, loss = sum(y * y): dloss/dx = 2x. gather(scatter(x,
    // [2,0,1]), [0,1,2]) weighted by w = [1,2,3]: dloss/dx[i] = w[idx[i]].
    for (bool split : {true, false}) {
      Graph g;
      GraphBuilder b(g);
      const std::string x = b.constant("x", F({3, 1}, {1, 2, 3}));
      const Array ta = tensor_array(b, "ta", split ? 2 : 3);
      std::string y;
      if (split) {
        const std::string sp = b.add("TensorArraySplitV3", "split", {ta.handle, x, b.constant("len", I64({2}, {1, 2})), ta.flow},
                                     {{"T", AttrValue(DType::Float)}});
        y = b.add("TensorArrayConcatV3", "concat", {ta.handle, sp}, {{"dtype", AttrValue(DType::Float)}});
        y = b.binary("Mul", y, y, DType::Float);
      } else {
        const std::string sc = b.add("TensorArrayScatterV3", "scatter", {ta.handle, b.constant("idx", I32({3}, {2, 0, 1})), x, ta.flow},
                                     {{"T", AttrValue(DType::Float)}});
        y = b.add("TensorArrayGatherV3", "gather", {ta.handle, b.constant("order", I32({3}, {0, 1, 2})), sc},
                  {{"dtype", AttrValue(DType::Float)}});
        y = b.binary("Mul", y, b.constant("w", F({3, 1}, {1, 2, 3})), DType::Float);
      }
      const std::string loss = b.sum(y, b.int32_vector("axes", {0, 1}), DType::Float);
      const auto grads = add_gradients(g, {loss}, {x}, OpRegistry::global());
      Session s(std::move(g));
      const Tensor dx = s.run({}, {grads[0]})[0];
      QCOMPARE(dx.shape(), (Shape{3, 1}));
      QCOMPARE(floats_of(dx), split ? (std::vector<float>{2, 4, 6}) : (std::vector<float>{3, 1, 2}));
    }
  }

  void parallel_writes_to_one_gradient_index_all_add_up() {
    // Sixteen independent writes (no flow between them) to index 0 of a
    // gradient array may run at once; the mutex keeps every one.
    Graph g;
    GraphBuilder b(g);
    const Array ta = tensor_array(b, "ta", 1);
    const std::string w = write(b, ta, ta.flow, 0, b.constant("x", F({2}, {0, 0})), "w");
    const std::string gr = b.add("TensorArrayGradV3", "grad", {ta.handle, w}, {{"source", AttrValue(std::string("gradients"))}});
    const Array G{gr, gr + ":1"};
    std::vector<std::string> flows;
    for (int i = 0; i < 16; ++i)
      flows.push_back(write(b, G, G.flow, 0, b.constant("one" + std::to_string(i), F({2}, {1, 2})), "gw" + std::to_string(i)));
    const std::string joined = b.add_n(flows, DType::Float);
    const std::string total = read(b, gr, joined, 0, "total");
    Session s(std::move(g));
    QCOMPARE(floats_of(s.run({}, {total})[0]), (std::vector<float>{16, 32}));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestTensorArrayOps)
#include "test_tensor_array_ops.moc"
