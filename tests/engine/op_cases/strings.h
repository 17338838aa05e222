#pragma once
// Registry-walk cases for the strings, parsing, summary and logging ops.
#include "engine/example_wire_util.h"
#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_strings_cases(OpCases& c) {
  const DType f = DType::Float;
  c.add({"StringToHashBucketFast", {{"num_buckets", 3}}, {S({3}, {"Hello", "TensorFlow", "2.x"})}});
  c.add({"StringToHashBucketFast", {{"num_buckets", 10}}, {S({2, 0}, {})}});
  c.add({"StringFormat", {{"T", type_list({f, DType::Int8})}, {"template", "x={} y={}"}, {"placeholder", "{}"}},
         {gen(f, {2, 3}), gen(DType::Int8, {4}, -100, 100)}});
  c.add({"StringFormat", {{"T", type_list({})}, {"template", "no placeholders"}}, {}});
  c.add({"StringJoin", {{"N", 2}, {"separator", "-"}}, {S({2}, {"a", "b"}), S({}, {"x"})}});
  c.add({"StringJoin", {{"N", 1}}, {S({}, {"alone"})}});
  c.add({"ShardedFilename", {}, {S({}, {"ckpt/model"}), I32({}, {3}), I32({}, {10})}});
  c.add({"ShardedFilespec", {}, {S({}, {"ckpt/model"}), I32({}, {10})}});

  // tf.Example parsing: two examples written from the wire format.
  {
    namespace pb = flowlens::testing::pb;
    const std::string ex1 = pb::example({{"x", pb::floats({1, 2})}, {"id", pb::ints({7, 8})}, {"s", pb::bytes({"a"})}});
    const std::string ex2 = pb::example({{"x", pb::floats({3, 4})}, {"r", pb::floats({0.5f})}});
    AttrList shapes_x_s, shape_x, shape_var;
    shapes_x_s.shape = {Shape{2}, Shape{}};
    shape_x.shape = {Shape{2}};
    shape_var.shape = {Shape{-1}};
    AttrList keys_id, keys_x;
    keys_id.s = {"id"};
    keys_x.s = {"x"};
    c.add({"ParseExample",
           {{"Nsparse", 1}, {"Ndense", 2}, {"sparse_types", type_list({DType::Int64})},
            {"Tdense", type_list({f, DType::String})}, {"dense_shapes", shapes_x_s}},
           {S({2}, {ex1, ex2}), S({0}, {}), S({}, {"id"}), S({}, {"x"}), S({}, {"s"}), F({0}, {}), S({}, {"none"})}});
    c.add({"ParseExampleV2",
           {{"num_sparse", 0}, {"sparse_types", type_list({})}, {"Tdense", type_list({DType::Int64})},
            {"dense_shapes", shape_var}, {"ragged_value_types", type_list({f})},
            {"ragged_split_types", type_list({DType::Int32})}},
           {S({2}, {ex1, ex2}), S({2}, {"one", "two"}), S({0}, {}), S({1}, {"id"}), S({1}, {"r"}), I64({}, {-1})}});
    c.add({"ParseExampleV2",
           {{"num_sparse", 1}, {"sparse_types", type_list({DType::String})}, {"Tdense", type_list({f})},
            {"dense_shapes", shape_x}, {"ragged_value_types", type_list({})}, {"ragged_split_types", type_list({})}},
           {S({}, {ex1}), S({0}, {}), S({1}, {"s"}), S({1}, {"x"}), S({0}, {}), F({0}, {})}});
    c.add({"ParseSingleExample",
           {{"num_sparse", 1}, {"sparse_keys", keys_id}, {"sparse_types", type_list({DType::Int64})},
            {"dense_keys", keys_x}, {"Tdense", type_list({f})}, {"dense_shapes", shape_x}},
           {S({}, {ex2}), F({2}, {0, 0})}});
  }

  c.add({"ScalarSummary", {{"T", f}}, {S({2}, {"loss", "acc"}), gen(f, {2})}});
  c.add({"ScalarSummary", {{"T", DType::Half}}, {S({}, {"h"}), gen(DType::Half, {})}});
  c.add({"ScalarSummary", {{"T", DType::Int64}}, {S({}, {"step"}), gen(DType::Int64, {}, 0, 100)}});
  c.add({"HistogramSummary", {{"T", f}}, {S({}, {"w"}), gen(f, {3, 4})}});
  c.add({"HistogramSummary", {{"T", DType::BFloat16}}, {S({}, {"b"}), gen(DType::BFloat16, {5})}});
  c.add({"HistogramSummary", {{"T", DType::UInt8}}, {S({}, {"u"}), gen(DType::UInt8, {5}, 0, 255)}});
  // Summary{value{tag:"a" simple_value:1}} and Summary{value{tag:"b" simple_value:2}}, serialized.
  c.add({"MergeSummary", {{"N", 2}},
         {S({}, {std::string("\x0a\x08\x0a\x01" "a" "\x15\x00\x00\x80\x3f", 10)}),
          S({1}, {std::string("\x0a\x08\x0a\x01" "b" "\x15\x00\x00\x00\x40", 10)})}});

  c.add({"CheckNumerics", {{"T", f}, {"message", "x"}}, {gen(f, {2, 3})}});
  c.add({"CheckNumerics", {{"T", DType::Half}, {"message", "h"}}, {gen(DType::Half, {4})}});
  c.add({"CheckNumerics", {{"T", DType::BFloat16}, {"message", "b"}}, {gen(DType::BFloat16, {4})}});
  c.add({"Assert", {{"T", type_list({DType::String, DType::Int32})}},
         {B({}, {true}), S({}, {"never shown"}), gen(DType::Int32, {3}, -5, 5)}});
  c.add({"Print", {{"T", f}, {"U", type_list({DType::Int16})}, {"message", "registry walk: "}},
         {gen(f, {2, 2}), gen(DType::Int16, {3}, -9, 9)}});
  c.add({"PrintV2", {}, {S({}, {"registry walk: PrintV2"})}});
}

}  // namespace flowlens::testing
