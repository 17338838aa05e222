#pragma once
// Gradient graphs are built from TensorFlow's ops, some of which another op
// family registers (GatherV2, StridedSlice, Tile ...). A numeric gradient
// check whose graph needs an op the registry lacks fails naming those ops
// (clearer than the executor's "unknown op").
#include <set>

#include "engine/gradient_check.h"

namespace flowlens::testing {

// The ops of `ops` that the registry does not know, sorted and
// comma-separated ("" if none).
inline std::string unregistered_among(const std::vector<std::string>& ops) {
  std::set<std::string> missing;
  for (const std::string& op : ops)
    if (!OpRegistry::global().find(op)) missing.insert(op);
  std::string out;
  for (const std::string& op : missing) out += (out.empty() ? "" : ", ") + op;
  return out;
}

// The ops in g that the registry does not know.
inline std::string unregistered_ops(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes()) ops.push_back(n.op);
  return unregistered_among(ops);
}

// Builds d y / d xs on a copy of m's graph and lists the unregistered ops it needs.
inline std::string ops_missing_for_gradient(const Model& m, const std::string& y) {
  Graph copy = m.g;
  std::vector<std::string> xs;
  for (const auto& [name, value] : m.feeds) xs.push_back(name);
  add_gradients(copy, {y}, xs, OpRegistry::global());
  return unregistered_ops(copy);
}

}  // namespace flowlens::testing

// Fails the test, naming them, when any of the ops (a braced list or a
// std::vector<std::string>) is unregistered.
#define REQUIRE_OPS(...)                                                                                  \
  do {                                                                                                    \
    const std::string missing_ = ::flowlens::testing::unregistered_among(__VA_ARGS__); \
    if (!missing_.empty()) QFAIL(qPrintable(QString::fromStdString("needs unregistered ops: " + missing_))); \
  } while (0)

// check_gradients(m, y); fails first, naming them, when its gradient graph uses unregistered ops.
#define CHECK_GRADIENTS_OF(m, y, ...)                                                       \
  do {                                                                                                   \
    const std::string missing_ = ::flowlens::testing::ops_missing_for_gradient(m, y);                   \
    if (!missing_.empty()) QFAIL(qPrintable(QString::fromStdString("gradient graph needs unregistered ops: " + missing_))); \
    ::flowlens::testing::check_gradients(m, y __VA_OPT__(, ) __VA_ARGS__);                               \
  } while (0)
