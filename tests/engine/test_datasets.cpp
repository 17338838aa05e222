// tf.data: datasets as DT_VARIANT values, iterators as session resources,
// MapDataset and OneShotIterator through a FunctionCaller, end of sequence as
// OutOfRangeError, and TF 1.x input-pipeline graphs run through a Session.
#include "test_main.h"
#include <QtTest/QtTest>

#include <functional>
#include <map>

#include "engine/op_cases/data.h"
#include "exec/session.h"
#include "io/graph_io.h"
#include "ops/resources/dataset.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// A function library for the tests: named C++ functions, recording who called.
class TestCaller : public FunctionCaller {
 public:
  using Fn = std::function<std::vector<Tensor>(std::span<const Tensor>)>;
  std::map<std::string, Fn> fns;
  std::vector<std::string> callers;
  int calls = 0;

  bool has_function(std::string_view name) const override { return fns.count(std::string(name)) > 0; }
  std::vector<Tensor> call(const Node& caller, std::string_view function, const AttrMap&,
                           std::span<const Tensor> args) override {
    auto it = fns.find(std::string(function));
    if (it == fns.end()) throw Error("no function '" + std::string(function) + "' (called by " + caller.name + ")");
    ++calls;
    callers.push_back(caller.name);
    return it->second(args);
  }
};

// Runs op's kernel the way the executor does, with a RunContext.
std::vector<Tensor> run_in(const RunContext& run, const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
                           const std::string& name = "node") {
  const OpDef& def = op_def(op);
  Node node = make_node(op, std::move(attrs), name);
  std::vector<Tensor> outputs(static_cast<size_t>(def.outputs_for(node)));
  std::vector<Variable*> refs(inputs.size(), nullptr);
  KernelContext ctx(node, inputs, refs, outputs, nullptr, nullptr, nullptr, &def, nullptr, &run);
  def.kernel("CPU")(ctx);
  return outputs;
}

AttrMap sig(std::vector<DType> types, std::vector<Shape> shapes) {
  return {{"output_types", type_list(std::move(types))}, {"output_shapes", shapes_list(std::move(shapes))}};
}
AttrMap i64_scalar_sig() { return sig({DType::Int64}, {Shape{}}); }

Tensor batch(const Tensor& ds, int64_t size, std::optional<bool> drop = std::nullopt) {
  if (drop) return run1("BatchDatasetV2", sig({DType::Int64}, {Shape{*drop ? size : -1}}), {ds, I64({}, {size}), B({}, {*drop})});
  return run1("BatchDataset", sig({DType::Int64}, {Shape{-1}}), {ds, I64({}, {size})});
}
Tensor repeat(const Tensor& ds, int64_t count) { return run1("RepeatDataset", i64_scalar_sig(), {ds, I64({}, {count})}); }
Tensor shuffle(const Tensor& ds, int64_t buffer, int64_t seed, int64_t seed2, bool reshuffle = true) {
  AttrMap a = i64_scalar_sig();
  a["reshuffle_each_iteration"] = reshuffle;
  return run1("ShuffleDataset", a, {ds, I64({}, {buffer}), I64({}, {seed}), I64({}, {seed2})});
}

// Every element of a dataset (at most `limit`), through an IteratorResource.
std::vector<DatasetElement> drain(const Tensor& ds, FunctionCaller* functions = nullptr, int limit = 1000) {
  DatasetPtr d = dataset_from_tensor(ds, "test");
  IteratorResource it(d->output_types(), d->output_shapes(), "it");
  it.set_dataset(d);
  IteratorContext ctx{functions, nullptr};
  std::vector<DatasetElement> out;
  try {
    while (static_cast<int>(out.size()) < limit) out.push_back(it.get_next(ctx));
  } catch (const OutOfRangeError& e) {
    if (std::string(e.what()) != "End of sequence") throw;
  }
  return out;
}

// Component 0 of each element as int64 vectors.
std::vector<std::vector<int64_t>> ints(const std::vector<DatasetElement>& elements) {
  std::vector<std::vector<int64_t>> out;
  for (const DatasetElement& e : elements) {
    const Tensor& t = e.at(0);
    out.emplace_back(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
  }
  return out;
}

std::vector<int64_t> flat(const std::vector<DatasetElement>& elements) {
  std::vector<int64_t> out;
  for (const auto& v : ints(elements)) out.insert(out.end(), v.begin(), v.end());
  return out;
}

std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// tf.data.Dataset.range(10).batch(3) with make_initializable_iterator, as
// TF 1.15 writes it (OptimizeDataset and ModelDataset from _apply_options).
const char* kInitializableGraph = R"pb(
node { name: "start" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 0 } } } }
node { name: "stop" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 10 } } } }
node { name: "step" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 1 } } } }
node { name: "RangeDataset" op: "RangeDataset" input: "start" input: "stop" input: "step"
  attr { key: "output_shapes" value { list { shape {} } } }
  attr { key: "output_types" value { list { type: DT_INT64 } } } }
node { name: "batch_size" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 3 } } } }
node { name: "drop_remainder" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
  attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } } }
node { name: "BatchDatasetV2" op: "BatchDatasetV2" input: "RangeDataset" input: "batch_size" input: "drop_remainder"
  attr { key: "output_shapes" value { list { shape { dim { size: -1 } } } } }
  attr { key: "output_types" value { list { type: DT_INT64 } } }
  attr { key: "parallel_copy" value { b: false } } }
node { name: "optimizations" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 3 } }
    string_val: "map_and_batch_fusion" string_val: "noop_elimination" string_val: "shuffle_and_repeat_fusion" } } } }
node { name: "OptimizeDataset" op: "OptimizeDataset" input: "BatchDatasetV2" input: "optimizations"
  attr { key: "optimization_configs" value { list { s: "map_vectorization:use_choose_fastest:false" } } }
  attr { key: "output_shapes" value { list { shape { dim { size: -1 } } } } }
  attr { key: "output_types" value { list { type: DT_INT64 } } } }
node { name: "ModelDataset" op: "ModelDataset" input: "OptimizeDataset"
  attr { key: "cpu_budget" value { i: 0 } }
  attr { key: "output_shapes" value { list { shape { dim { size: -1 } } } } }
  attr { key: "output_types" value { list { type: DT_INT64 } } } }
node { name: "IteratorV2" op: "IteratorV2" device: "/device:CPU:0"
  attr { key: "container" value { s: "" } }
  attr { key: "output_shapes" value { list { shape { dim { size: -1 } } } } }
  attr { key: "output_types" value { list { type: DT_INT64 } } }
  attr { key: "shared_name" value { s: "" } } }
node { name: "MakeIterator" op: "MakeIterator" input: "ModelDataset" input: "IteratorV2" device: "/device:CPU:0" }
node { name: "IteratorToStringHandle" op: "IteratorToStringHandle" input: "IteratorV2" device: "/device:CPU:0" }
node { name: "IteratorGetNext" op: "IteratorGetNext" input: "IteratorV2" device: "/device:CPU:0"
  attr { key: "output_shapes" value { list { shape { dim { size: -1 } } } } }
  attr { key: "output_types" value { list { type: DT_INT64 } } } }
versions { producer: 134 }
)pb";

// The same pipeline with make_one_shot_iterator: the dataset is built by the
// dataset_factory function in the graph's library.
const char* kOneShotGraph = R"pb(
node { name: "OneShotIterator" op: "OneShotIterator" device: "/device:CPU:0"
  attr { key: "container" value { s: "" } }
  attr { key: "dataset_factory" value { func { name: "_make_dataset_0d5f3a1c" } } }
  attr { key: "output_shapes" value { list { shape { dim { size: -1 } } } } }
  attr { key: "output_types" value { list { type: DT_INT64 } } }
  attr { key: "shared_name" value { s: "" } } }
node { name: "IteratorGetNext" op: "IteratorGetNext" input: "OneShotIterator" device: "/device:CPU:0"
  attr { key: "output_shapes" value { list { shape { dim { size: -1 } } } } }
  attr { key: "output_types" value { list { type: DT_INT64 } } } }
library {
  function {
    signature { name: "_make_dataset_0d5f3a1c" output_arg { name: "batchdatasetv2" type: DT_VARIANT } is_stateful: true }
    node_def { name: "start" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
      attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 0 } } } }
    node_def { name: "stop" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
      attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 10 } } } }
    node_def { name: "step" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
      attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 1 } } } }
    node_def { name: "RangeDataset" op: "RangeDataset" input: "start:output:0" input: "stop:output:0" input: "step:output:0"
      attr { key: "output_shapes" value { list { shape {} } } }
      attr { key: "output_types" value { list { type: DT_INT64 } } } }
    node_def { name: "batch_size" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
      attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 3 } } } }
    node_def { name: "drop_remainder" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
      attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } } }
    node_def { name: "BatchDatasetV2" op: "BatchDatasetV2"
      input: "RangeDataset:handle:0" input: "batch_size:output:0" input: "drop_remainder:output:0"
      attr { key: "output_shapes" value { list { shape { dim { size: -1 } } } } }
      attr { key: "output_types" value { list { type: DT_INT64 } } }
      attr { key: "parallel_copy" value { b: false } } }
    ret { key: "batchdatasetv2" value: "BatchDatasetV2:handle:0" }
  }
}
versions { producer: 134 }
)pb";

std::vector<int64_t> fetch_ints(Session& s, const std::string& name) {
  Tensor t = s.run({}, {name}, {})[0];
  return {t.data<int64_t>(), t.data<int64_t>() + t.num_elements()};
}

}  // namespace

class TestDatasets : public QObject {
  Q_OBJECT

 private slots:
  void range_batch_repeat_values() {
    const auto got = ints(drain(repeat(batch(range_dataset(0, 7), 3), 2)));
    const std::vector<std::vector<int64_t>> want = {{0, 1, 2}, {3, 4, 5}, {6}, {0, 1, 2}, {3, 4, 5}, {6}};
    QCOMPARE(got, want);
    // Negative steps count down; the dataset's element shapes follow TensorFlow's.
    QCOMPARE(flat(drain(range_dataset(5, 0, -2))), (std::vector<int64_t>{5, 3, 1}));
    DatasetPtr b = dataset_from_tensor(batch(range_dataset(0, 7), 3), "test");
    QCOMPARE(b->output_shapes().at(0), Shape{-1});
  }

  void batch_drop_remainder_drops_the_short_batch() {
    const Tensor b = batch(range_dataset(0, 7), 3, true);
    QCOMPARE(ints(drain(b)), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}}));
    QCOMPARE(dataset_from_tensor(b, "test")->output_shapes().at(0), Shape{3});
    // An empty input makes no batch at all.
    QVERIFY(drain(batch(range_dataset(0, 0), 3)).empty());
  }

  void tensor_slices_of_a_matrix() {
    const Tensor m = F({3, 2}, {1, 2, 3, 4, 5, 6});
    const Tensor names = S({3}, {"a", "b", "c"});
    const Tensor ds = run1("TensorSliceDataset",
                           {{"Toutput_types", type_list({DType::Float, DType::String})},
                            {"output_shapes", shapes_list({Shape{2}, Shape{}})}},
                           {m, names});
    const auto got = drain(ds);
    QCOMPARE(got.size(), size_t{3});
    for (int r = 0; r < 3; ++r) {
      QCOMPARE(got[r][0].shape(), Shape{2});
      QCOMPARE(got[r][0].data<float>()[0], float(2 * r + 1));
      QCOMPARE(got[r][0].data<float>()[1], float(2 * r + 2));
      QCOMPARE(got[r][1].strings()[0], std::string(1, char('a' + r)));
    }
    // The slices batch back into the matrix.
    const Tensor rebatched = run1("BatchDataset", sig({DType::Float, DType::String}, {Shape{-1, 2}, Shape{-1}}),
                                  {ds, I64({}, {3})});
    const auto whole = drain(rebatched);
    QCOMPARE(whole.size(), size_t{1});
    QVERIFY(whole[0][0].equals(m));
    QVERIFY(whole[0][1].equals(names));
    // TensorDataset: the components once.
    const auto once = drain(run1("TensorDataset", {{"Toutput_types", type_list({DType::Float})},
                                                   {"output_shapes", shapes_list({Shape{3, 2}})}}, {m}));
    QCOMPARE(once.size(), size_t{1});
    QVERIFY(once[0][0].equals(m));
    QVERIFY(error_message([&] {
              run1("TensorSliceDataset", {{"Toutput_types", type_list({DType::Float, DType::Float})},
                                          {"output_shapes", shapes_list({Shape{2}, Shape{}})}},
                   {m, F({2}, {1, 2})});
            }).find("same size in the 0th dimension") != std::string::npos);
    QVERIFY(error_message([&] {
              run1("TensorSliceDataset", {{"Toutput_types", type_list({DType::Float})},
                                          {"output_shapes", shapes_list({Shape{}})}},
                   {F({}, {1})});
            }).find("at least 1-dimensional") != std::string::npos);
  }

  void shuffle_is_seeded_and_deterministic() {
    const auto a = flat(drain(shuffle(range_dataset(0, 20), 5, 7, 3)));
    const auto b = flat(drain(shuffle(range_dataset(0, 20), 5, 7, 3)));
    QCOMPARE(a, b);  // same seeds, same order
    std::vector<int64_t> sorted = a, identity(20);
    std::iota(identity.begin(), identity.end(), 0);
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(sorted, identity);  // a permutation
    QVERIFY(a != identity);
    QVERIFY(flat(drain(shuffle(range_dataset(0, 20), 5, 8, 3))) != a);  // other seeds, other order
    // A buffer of 5 never moves an element earlier than 4 places ahead of its turn.
    for (size_t i = 0; i < a.size(); ++i) QVERIFY(a[i] <= static_cast<int64_t>(i) + 4);
    // reshuffle_each_iteration: each epoch of a repeat draws another order,
    // deterministically; without it every epoch has the same order.
    const auto epochs = flat(drain(repeat(shuffle(range_dataset(0, 20), 20, 7, 3), 2)));
    QCOMPARE(epochs, flat(drain(repeat(shuffle(range_dataset(0, 20), 20, 7, 3), 2))));
    QVERIFY(!std::equal(epochs.begin(), epochs.begin() + 20, epochs.begin() + 20));
    const auto same = flat(drain(repeat(shuffle(range_dataset(0, 20), 20, 7, 3, false), 2)));
    QVERIFY(std::equal(same.begin(), same.begin() + 20, same.begin() + 20));
  }

  void map_calls_its_function_with_captured_arguments() {
    TestCaller caller;
    caller.fns["scale"] = [](std::span<const Tensor> args) -> std::vector<Tensor> {
      if (args.size() != 2) throw Error("scale takes 2 arguments");
      return {Tensor::scalar<int64_t>(args[0].data<int64_t>()[0] * args[1].data<int64_t>()[0])};
    };
    caller.fns["wrong_type"] = [](std::span<const Tensor>) -> std::vector<Tensor> { return {F({}, {1})}; };
    FuncRef f;
    f.name = "scale";
    AttrMap attrs = i64_scalar_sig();
    attrs["f"] = AttrValue(f);
    attrs["Targuments"] = type_list({DType::Int64});
    RunContext run;  // the map's dataset is made without the library ...
    const Tensor mapped = run_in(run, "MapDataset", attrs, {range_dataset(0, 4), I64({}, {10})}, "map")[0];
    // ... which the run asking for elements supplies.
    QCOMPARE(flat(drain(mapped, &caller)), (std::vector<int64_t>{0, 10, 20, 30}));
    QCOMPARE(caller.calls, 4);
    QCOMPARE(caller.callers.front(), std::string("map"));  // the MapDataset node is the caller

    // Through the kernels, as a session runs them: IteratorGetNext's run context has the library.
    run.functions = &caller;
    const Tensor handle = iterator_handle({DType::Int64}, {Shape{}}, mapped);
    QCOMPARE(run_in(run, "IteratorGetNext", i64_scalar_sig(), {handle})[0].data<int64_t>()[0], int64_t{0});
    QCOMPARE(run_in(run, "IteratorGetNext", i64_scalar_sig(), {handle})[0].data<int64_t>()[0], int64_t{10});

    // ParallelMapDatasetV2: same elements, in order.
    attrs["deterministic"] = AttrValue(std::string("true"));
    const Tensor pmapped = run_in(run, "ParallelMapDatasetV2", attrs, {range_dataset(0, 4), I64({}, {10}), I64({}, {4})})[0];
    QCOMPARE(flat(drain(pmapped, &caller)), (std::vector<int64_t>{0, 10, 20, 30}));
    QVERIFY(error_message([&] {
              run_in(run, "ParallelMapDatasetV2", attrs, {range_dataset(0, 4), I64({}, {10}), I64({}, {0})});
            }).find("num_parallel_calls must be greater than zero") != std::string::npos);

    // No function library: a clear error naming the node and function.
    std::string e = error_message([&] { drain(mapped, nullptr); });
    QVERIFY2(e.find("MapDataset 'map' calls function 'scale', and no function library") != std::string::npos, e.c_str());
    // A result of the wrong dtype is refused.
    f.name = "wrong_type";
    attrs["f"] = AttrValue(f);
    const Tensor bad = run_in(run, "MapDataset", attrs, {range_dataset(0, 4), I64({}, {10})}, "map")[0];
    e = error_message([&] { drain(bad, &caller); });
    QVERIFY2(e.find("Data type mismatch at component 0: expected int64 but got float") != std::string::npos, e.c_str());
  }

  void prefetch_take_skip() {
    const Tensor p = run1("PrefetchDataset", i64_scalar_sig(), {range_dataset(0, 5), I64({}, {2})});
    QCOMPARE(flat(drain(p)), (std::vector<int64_t>{0, 1, 2, 3, 4}));
    const Tensor autotuned = run1("PrefetchDataset", i64_scalar_sig(), {range_dataset(0, 3), I64({}, {-1})});
    QCOMPARE(flat(drain(autotuned)), (std::vector<int64_t>{0, 1, 2}));
    QVERIFY(error_message([&] { run1("PrefetchDataset", i64_scalar_sig(), {range_dataset(0, 5), I64({}, {-2})}); })
                .find("buffer_size must be >= 0") != std::string::npos);
    const Tensor take = run1("TakeDataset", i64_scalar_sig(), {range_dataset(0, 5), I64({}, {2})});
    QCOMPARE(flat(drain(take)), (std::vector<int64_t>{0, 1}));
    const Tensor skip = run1("SkipDataset", i64_scalar_sig(), {range_dataset(0, 5), I64({}, {3})});
    QCOMPARE(flat(drain(skip)), (std::vector<int64_t>{3, 4}));
    // Take(3) of an endless repeat ends.
    const Tensor endless = run1("TakeDataset", i64_scalar_sig(), {repeat(range_dataset(0, 2), -1), I64({}, {3})});
    QCOMPARE(flat(drain(endless)), (std::vector<int64_t>{0, 1, 0}));
  }

  void one_shot_iterator_builds_its_dataset_once() {
    TestCaller caller;
    caller.fns["_make_dataset"] = [](std::span<const Tensor> args) -> std::vector<Tensor> {
      if (!args.empty()) throw Error("dataset_factory takes no arguments");
      return {batch(range_dataset(0, 5), 2)};
    };
    ResourceManager resources;
    RunContext run;
    run.resources = &resources;
    run.functions = &caller;
    FuncRef factory;
    factory.name = "_make_dataset";
    AttrMap attrs = sig({DType::Int64}, {Shape{-1}});
    attrs["dataset_factory"] = AttrValue(factory);
    std::vector<std::vector<int64_t>> got;
    for (int i = 0; i < 3; ++i) {
      const Tensor handle = run_in(run, "OneShotIterator", attrs, {}, "OneShotIterator")[0];
      const Tensor t = run_in(run, "IteratorGetNext", sig({DType::Int64}, {Shape{-1}}), {handle})[0];
      got.emplace_back(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
    }
    QCOMPARE(got, (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}, {4}}));
    QCOMPARE(caller.calls, 1);  // the factory ran once; later runs reuse the iterator
    QCOMPARE(caller.callers.front(), std::string("OneShotIterator"));
    const Tensor handle = run_in(run, "OneShotIterator", attrs, {}, "OneShotIterator")[0];
    bool out_of_range = false;
    try {
      run_in(run, "IteratorGetNext", sig({DType::Int64}, {Shape{-1}}), {handle});
    } catch (const OutOfRangeError& e) {
      out_of_range = std::string(e.what()) == "End of sequence";
    }
    QVERIFY(out_of_range);
    QCOMPARE(resources.list().size(), size_t{1});
    QCOMPARE(resources.list()[0].first, std::string("localhost/_OneShotIterator"));
  }

  void end_of_sequence_is_out_of_range() {
    const Tensor handle = iterator_handle({DType::Int64}, {Shape{}}, range_dataset(0, 1));
    QCOMPARE(run_op("IteratorGetNext", i64_scalar_sig(), {handle})[0].data<int64_t>()[0], int64_t{0});
    for (int i = 0; i < 2; ++i) {  // and stays at the end
      try {
        run_op("IteratorGetNext", i64_scalar_sig(), {handle});
        QFAIL("no OutOfRangeError");
      } catch (const OutOfRangeError& e) {
        QCOMPARE(std::string(e.what()), std::string("End of sequence"));
      }
    }
    // An iterator nobody initialized is an error, not the end.
    const std::string e = error_message(
        [&] { run_op("IteratorGetNext", i64_scalar_sig(), {iterator_handle({DType::Int64}, {Shape{}})}); });
    QVERIFY2(e.find("has not been initialized") != std::string::npos, e.c_str());
  }

  void bounds_and_bad_input() {
    auto msg = [](const std::string& op, AttrMap a, std::vector<Tensor> in) {
      return error_message([&] { run1(op, std::move(a), std::move(in)); });
    };
    QVERIFY(msg("RangeDataset", i64_scalar_sig(), {I64({}, {0}), I64({}, {5}), I64({}, {0})})
                .find("step must be a non-zero integer") != std::string::npos);
    QVERIFY(msg("BatchDataset", sig({DType::Int64}, {Shape{-1}}), {range_dataset(0, 5), I64({}, {0})})
                .find("Batch size must be greater than zero") != std::string::npos);
    QVERIFY(msg("ShuffleDataset", i64_scalar_sig(), {range_dataset(0, 5), I64({}, {0}), I64({}, {1}), I64({}, {1})})
                .find("buffer_size must be greater than zero") != std::string::npos);
    QVERIFY(msg("RepeatDataset", i64_scalar_sig(), {range_dataset(0, 5), I64({2}, {1, 2})}).find("must be a scalar") !=
            std::string::npos);
    QVERIFY(msg("RepeatDataset", i64_scalar_sig(), {F({}, {1}), I64({}, {1})}).find("expected a dataset") !=
            std::string::npos);
    // A huge batch_size is a bound, not an allocation.
    QCOMPARE(flat(drain(batch(range_dataset(0, 4), int64_t{1} << 62))), (std::vector<int64_t>{0, 1, 2, 3}));
    // Repeat(-1) of an empty dataset ends instead of spinning, however nested.
    QVERIFY(drain(repeat(range_dataset(0, 0), -1)).empty());
    QVERIFY(drain(repeat(repeat(range_dataset(3, 3), -1), -1)).empty());
    const Tensor skip_all = run1("SkipDataset", i64_scalar_sig(), {range_dataset(0, 5), I64({}, {-1})});
    QVERIFY(drain(repeat(skip_all, -1)).empty());
    QCOMPARE(drain(repeat(range_dataset(0, 2), -1), nullptr, 7).size(), size_t{7});  // forever means forever
    // Batching elements of different shapes names the component and elements.
    TestCaller caller;
    caller.fns["ragged"] = [](std::span<const Tensor> args) -> std::vector<Tensor> {
      const int64_t n = args[0].data<int64_t>()[0];
      return {Tensor(DType::Float, Shape{n})};
    };
    FuncRef f;
    f.name = "ragged";
    AttrMap attrs = sig({DType::Float}, {Shape{-1}});
    attrs["f"] = AttrValue(f);
    attrs["Targuments"] = type_list({});
    const Tensor ragged = run1("MapDataset", attrs, {range_dataset(1, 4)});
    const std::string e = error_message(
        [&] { drain(run1("BatchDataset", sig({DType::Float}, {Shape{-1, -1}}), {ragged, I64({}, {3})}), &caller); });
    QVERIFY2(e.find("Cannot batch tensors with different shapes in component 0. First element had shape [1] and "
                    "element 1 had shape [2].") != std::string::npos,
             e.c_str());
    // MakeIterator refuses a dataset of other types or shapes.
    const std::string mismatch = error_message([&] {
      run_op("MakeIterator", {}, {range_dataset(0, 3), iterator_handle({DType::Int32}, {Shape{}})});
    });
    QVERIFY2(mismatch.find("Data type mismatch at component 0: expected int32 but got int64") != std::string::npos,
             mismatch.c_str());
    const std::string shapes = error_message([&] {
      run_op("MakeIterator", {}, {batch(range_dataset(0, 3), 2), iterator_handle({DType::Int64}, {Shape{}})});
    });
    QVERIFY2(shapes.find("Incompatible shapes at component 0: expected [] but got [?]") != std::string::npos,
             shapes.c_str());
  }

  void shape_functions_follow_the_attrs() {
    const auto out = infer("IteratorGetNext", sig({DType::Float, DType::Int64}, {Shape{-1, 4}, Shape{}}),
                           {{DType::Resource, Shape{}}});
    QCOMPARE(out.size(), size_t{2});
    QCOMPARE(out[0].dtype, DType::Float);
    QCOMPARE(out[0].shape, (Shape{-1, 4}));
    QCOMPARE(out[1].dtype, DType::Int64);
    const std::string e = error_message([&] {
      infer("IteratorGetNext", {{"output_types", type_list({DType::Float})}, {"output_shapes", shapes_list({})}},
            {{DType::Resource, Shape{}}});
    });
    QVERIFY2(e.find("`output_shapes` must be the same length as `output_types` (0 vs. 1)") != std::string::npos, e.c_str());
    const std::string rank = error_message([&] {
      infer("BatchDataset", sig({DType::Int64}, {Shape{-1}}), {{DType::Variant, Shape{}}, {DType::Int64, Shape{2}}});
    });
    QVERIFY2(rank.find("Shape must be rank 0 but is rank 1") != std::string::npos, rank.c_str());
    const auto ds = infer("RangeDataset", i64_scalar_sig(), {{DType::Int64, Shape{}}, {DType::Int64, Shape{}}, {DType::Int64, Shape{}}});
    QCOMPARE(ds.at(0).dtype, DType::Variant);
    QCOMPARE(ds.at(0).shape, Shape{});
  }

  void initializable_iterator_graph_runs_in_a_session() {
    Session s(parse_graph_text(kInitializableGraph, "initializable.pbtxt"));
    s.run({}, {}, {"MakeIterator"});
    QCOMPARE(fetch_ints(s, "IteratorGetNext"), (std::vector<int64_t>{0, 1, 2}));
    QCOMPARE(fetch_ints(s, "IteratorGetNext"), (std::vector<int64_t>{3, 4, 5}));
    QCOMPARE(fetch_ints(s, "IteratorGetNext"), (std::vector<int64_t>{6, 7, 8}));
    QCOMPARE(fetch_ints(s, "IteratorGetNext"), (std::vector<int64_t>{9}));
    // The end of the input reaches the caller as OutOfRange, naming the node.
    try {
      s.run({}, {"IteratorGetNext"}, {});
      QFAIL("no OutOfRangeError at the end of the input");
    } catch (const OutOfRangeError& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("IteratorGetNext") != std::string::npos && what.find("End of sequence") != std::string::npos,
               e.what());
    }
    // MakeIterator re-initializes: iteration starts over.
    s.run({}, {}, {"MakeIterator"});
    QCOMPARE(fetch_ints(s, "IteratorGetNext"), (std::vector<int64_t>{0, 1, 2}));
    // The iterator is a session resource, named by its string handle.
    const Tensor h = s.run({}, {"IteratorToStringHandle"}, {})[0];
    QCOMPARE(h.strings()[0], std::string("localhost:_IteratorV2"));
    bool listed = false;
    for (const auto& [name, r] : s.resources().list())
      listed = listed || (name == "localhost/_IteratorV2" && r->describe().find("over ModelDataset") != std::string::npos &&
                          r->kind() == "Iterator");
    QVERIFY(listed);
  }

  void uninitialized_iterator_in_a_session_is_an_error_not_the_end() {
    Session s(parse_graph_text(kInitializableGraph, "initializable.pbtxt"));
    try {
      s.run({}, {"IteratorGetNext"}, {});
      QFAIL("no error");
    } catch (const OutOfRangeError&) {
      QFAIL("an uninitialized iterator is not the end of the input");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("has not been initialized") != std::string::npos, e.what());
    }
  }

  void one_shot_iterator_graph_loads_and_runs_with_a_function_library() {
    Graph g = parse_graph_text(kOneShotGraph, "one_shot.pbtxt");
    Session s(std::move(g));
    // The iterator's outputs are known from its attrs before anything runs.
    // Running needs the graph's function library (FunctionCaller): when the
    // session has one the pipeline's values come out; when not, the error says so.
    try {
      QCOMPARE(fetch_ints(s, "IteratorGetNext"), (std::vector<int64_t>{0, 1, 2}));
      QCOMPARE(fetch_ints(s, "IteratorGetNext"), (std::vector<int64_t>{3, 4, 5}));
    } catch (const OutOfRangeError& e) {
      QFAIL(e.what());
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("no function library is available") != std::string::npos, e.what());
    }
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestDatasets)
#include "test_datasets.moc"
