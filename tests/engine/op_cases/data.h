#pragma once
// Registry-walk cases for tf.data: the dataset ops (each builds a DT_VARIANT
// dataset from its inputs) and the iterator ops that take a handle. Ops that
// make iterators in the session's ResourceManager need a session, which the
// walk's direct kernel calls do not have: test_datasets runs them.
#include "engine/op_cases/function.h"
#include "engine/op_cases/op_case.h"
#include "ops/resources/dataset.h"

namespace flowlens::testing {

inline AttrList shapes_list(std::vector<Shape> shapes) {
  AttrList l;
  l.shape = std::move(shapes);
  return l;
}

// RangeDataset(start, stop, step) as its kernel makes it.
inline Tensor range_dataset(int64_t start, int64_t stop, int64_t step = 1) {
  return run1("RangeDataset",
              {{"output_types", type_list({DType::Int64})}, {"output_shapes", shapes_list({Shape{}})}},
              {I64({}, {start}), I64({}, {stop}), I64({}, {step})});
}

// A handle to an iterator outside any session, over `dataset` when given.
inline Tensor iterator_handle(std::vector<DType> types, std::vector<Shape> shapes, const Tensor& dataset = Tensor()) {
  auto it = std::make_shared<IteratorResource>(std::move(types), std::move(shapes), "it");
  if (dataset.valid()) it->set_dataset(dataset_from_tensor(dataset, "test"));
  ResourceHandle h;
  h.container = "localhost";
  h.name = "it";
  h.resource = std::move(it);
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

inline void add_data_cases(OpCases& c) {
  const AttrValue i64 = type_list({DType::Int64});
  const AttrValue scalar = shapes_list({Shape{}});
  const AttrValue vec = shapes_list({Shape{-1}});
  const Tensor m23 = gen(DType::Float, {2, 3});
  c.add({"TensorDataset",
         {{"Toutput_types", type_list({DType::Float, DType::Int32})}, {"output_shapes", shapes_list({{2, 3}, {}})}},
         {m23, I32({}, {7})}});
  c.add({"TensorSliceDataset",
         {{"Toutput_types", type_list({DType::Float, DType::String})}, {"output_shapes", shapes_list({{3}, {}})}},
         {m23, S({2}, {"a", "b"})}});
  c.add({"RangeDataset", {{"output_types", i64}, {"output_shapes", scalar}}, {I64({}, {0}), I64({}, {10}), I64({}, {3})}});
  c.add({"RangeDataset",
         {{"output_types", type_list({DType::Float})}, {"output_shapes", scalar}},
         {I64({}, {5}), I64({}, {0}), I64({}, {-1})}});
  const Tensor range = range_dataset(0, 10);
  c.add({"BatchDataset", {{"output_types", i64}, {"output_shapes", vec}}, {range, I64({}, {3})}});
  c.add({"BatchDatasetV2", {{"output_types", i64}, {"output_shapes", shapes_list({Shape{3}})}},
         {range, I64({}, {3}), B({}, {true})}});
  for (const char* op : {"RepeatDataset", "TakeDataset", "SkipDataset"})
    c.add({op, {{"output_types", i64}, {"output_shapes", scalar}}, {range, I64({}, {2})}});
  c.add({"ShuffleDataset", {{"output_types", i64}, {"output_shapes", scalar}},
         {range, I64({}, {4}), I64({}, {1}), I64({}, {2})}});
  FuncRef f;
  f.name = "double_it";
  c.add({"MapDataset",
         {{"f", AttrValue(f)}, {"Targuments", type_list({DType::Int64})}, {"output_types", i64}, {"output_shapes", scalar}},
         {range, I64({}, {2})}});
  c.add({"ParallelMapDataset",
         {{"f", AttrValue(f)}, {"Targuments", type_list({})}, {"output_types", i64}, {"output_shapes", scalar}},
         {range, I32({}, {2})}});
  c.add({"ParallelMapDatasetV2",
         {{"f", AttrValue(f)}, {"Targuments", type_list({})}, {"output_types", i64}, {"output_shapes", scalar}},
         {range, I64({}, {-1})}});
  c.add({"PrefetchDataset", {{"output_types", i64}, {"output_shapes", scalar}}, {range, I64({}, {2})}});
  c.add({"OptimizeDataset", {{"output_types", i64}, {"output_shapes", scalar}},
         {range, S({1}, {"noop_elimination"})}});
  c.add({"ModelDataset", {{"output_types", i64}, {"output_shapes", scalar}}, {range}});

  c.add({"MakeIterator", {}, {range, iterator_handle({DType::Int64}, {Shape{}})}});
  for (const char* op : {"IteratorGetNext", "IteratorGetNextSync"})
    c.add({op, {{"output_types", i64}, {"output_shapes", scalar}},
           {iterator_handle({DType::Int64}, {Shape{}}, range)}});
  c.add({"IteratorToStringHandle", {}, {iterator_handle({DType::Int64}, {Shape{}})}});
  const char* session = "makes or finds its iterator in the session's ResourceManager, which a kernel run outside "
                        "a session lacks; test_datasets runs it in a Session";
  for (const char* op : {"Iterator", "IteratorV2", "AnonymousIterator", "AnonymousIteratorV2", "AnonymousIteratorV3",
                         "DeleteIterator", "IteratorFromStringHandle", "IteratorFromStringHandleV2"})
    c.skip(op, session);
  c.skip("OneShotIterator",
         "keeps its iterator in the session's ResourceManager and calls its dataset_factory through the function "
         "library; test_datasets runs it with a test FunctionCaller");
}

}  // namespace flowlens::testing
