#pragma once
// Registry-walk cases for the strings, summary and logging ops.
#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_strings_cases(OpCases& c) {
  const DType f = DType::Float;
  c.add({"StringToHashBucketFast", {{"num_buckets", 3}}, {S({3}, {"Hello", "TensorFlow", "2.x"})}});
  c.add({"StringToHashBucketFast", {{"num_buckets", 10}}, {S({2, 0}, {})}});
  c.add({"StringFormat", {{"T", type_list({f, DType::Int8})}, {"template", "x={} y={}"}, {"placeholder", "{}"}},
         {gen(f, {2, 3}), gen(DType::Int8, {4}, -100, 100)}});
  c.add({"StringFormat", {{"T", type_list({})}, {"template", "no placeholders"}}, {}});

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
