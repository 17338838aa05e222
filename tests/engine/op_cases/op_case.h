#pragma once
// One generated case per op (or several) for the registry walk
// (test_op_registry.cpp): attrs and inputs that the op's CPU kernel must run
// on, and whose result the op's shape function must predict. Each op family
// keeps its cases in its own header beside this one.
#include <optional>
#include <string>
#include <vector>

#include "engine/op_test_util.h"

namespace flowlens::testing {

struct OpCase {
  std::string op;
  AttrMap attrs;
  std::vector<Tensor> inputs;
  // Per input: the initial value of a variable bound to that ref input
  // (Assign, Apply*); nullopt for value inputs.
  std::vector<std::optional<Tensor>> ref_values = {};
  // The node's own state (a Variable's value) before it runs, if any.
  std::optional<Tensor> own_value = std::nullopt;
  // Outputs the kernel leaves empty on purpose (a Switch's untaken side,
  // which the executor reads as a dead tensor).
  std::vector<int> dead_outputs = {};
};

// Ops the walk does not run, with the reason (the distributed runtime's
// _Send/_Recv, an op whose kernel needs a session).
struct OpSkip {
  std::string op;
  std::string why;
};

struct OpCases {
  std::vector<OpCase> cases;
  std::vector<OpSkip> skipped;
  void add(OpCase c) { cases.push_back(std::move(c)); }
  void skip(std::string op, std::string why) { skipped.push_back({std::move(op), std::move(why)}); }
};

// Deterministic values in [lo, hi] for a numeric dtype (integers rounded).
inline Tensor gen(DType dtype, Shape shape, double lo = -2.0, double hi = 2.0, uint32_t seed = 1) {
  const int64_t n = shape.num_elements();
  std::vector<double> v(static_cast<size_t>(n));
  uint32_t x = seed * 2654435761u + 12345u;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    const double u = (x >> 8) / double(1u << 24);
    e = lo + (hi - lo) * u;
    if (!dtype_is_floating(dtype)) e = std::round(e);
  }
  return T(dtype, std::move(shape), v);
}

// A string tensor of the given shape.
inline Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }

// A list(type) attr value.
inline AttrList type_list(std::vector<DType> types) {
  AttrList l;
  l.type = std::move(types);
  return l;
}

// A list(int) attr value.
inline AttrList int_list(std::vector<int64_t> values) {
  AttrList l;
  l.i = std::move(values);
  return l;
}

}  // namespace flowlens::testing
