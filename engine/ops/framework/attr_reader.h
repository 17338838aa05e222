#pragma once
// A node's attrs as its op sees them: the node's own value, else the OpDef's
// default (TensorFlow's, from the REGISTER_OP spec), else an error naming the
// node and attr. Kernels and shape functions read attrs only through this, so
// a default is written once, in the OpDef.
#include <cstdint>
#include <string>
#include <string_view>

#include "graph/node.h"

namespace flowlens {

struct OpDef;

class AttrReader {
 public:
  // def may be nullptr (a kernel called outside any registry): node attrs only.
  AttrReader(const Node& node, const OpDef* def) : node_(node), def_(def) {}

  // nullptr when neither the node nor the def has it.
  const AttrValue* find(std::string_view name) const;
  const AttrValue& get(std::string_view name) const;  // throws when absent
  int64_t integer(std::string_view name) const;
  float real(std::string_view name) const;
  bool boolean(std::string_view name) const;
  DType type(std::string_view name) const;
  const std::string& string(std::string_view name) const;
  const Shape& shape(std::string_view name) const;
  const AttrList& list(std::string_view name) const;
  // A type attr, or `fallback` when the node and the def leave it unset (type
  // attrs inferred from inputs).
  DType type_or(std::string_view name, DType fallback) const;

 private:
  [[noreturn]] void wrong_kind(std::string_view name, const AttrValue& v, const char* want) const;
  const Node& node_;
  const OpDef* def_;
};

}  // namespace flowlens
