#pragma once
// A graph node as a GraphDef NodeDef describes it, plus the parsed form of its
// input strings ("x", "x:1", "^x").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/attr_value.h"

namespace flowlens {

// One endpoint named in NodeDef.input: a data output `node:index`, or a
// control dependency `^node` (index == kControl).
struct TensorIdView;

struct TensorId {
  static constexpr int kControl = -1;
  std::string node;
  int index = 0;

  bool is_control() const { return index == kControl; }
  // Parses "x", "x:1", "^x". nullopt on an empty name, a bad port, or "^x:1".
  static std::optional<TensorId> parse(std::string_view text);
  // "x" for port 0, "x:1", "^x".
  std::string to_string() const;
  bool operator==(const TensorId&) const = default;
};

// TensorId without a copy of the name: `node` points into the parsed text.
// Used where every input of a big graph is parsed (the edge index).
struct TensorIdView {
  std::string_view node;
  int index = 0;

  bool is_control() const { return index == TensorId::kControl; }
  static std::optional<TensorIdView> parse(std::string_view text);
};

struct Node {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;  // as written: data inputs first, then ^control
  std::string device;               // requested device, may be empty or partial
  AttrMap attrs;

  const AttrValue* find_attr(std::string_view key) const;
  // Typed lookups returning `fallback` when the attr is absent; throw Error
  // naming the node and attr if present with another kind.
  int64_t attr_int(std::string_view key, int64_t fallback) const;
  float attr_float(std::string_view key, float fallback) const;
  bool attr_bool(std::string_view key, bool fallback) const;
  DType attr_type(std::string_view key, DType fallback) const;
  std::string attr_string(std::string_view key, const std::string& fallback) const;
  // Throws Error when the attr is absent.
  const AttrValue& attr(std::string_view key) const;
};

}  // namespace flowlens
