#pragma once
// A dataflow graph: the nodes of a GraphDef in file order, its version stamp,
// and its function library. The library is kept as serialized
// FunctionDefLibrary bytes so files round-trip without loss; only the function
// names are decoded (functions act as known ops for validation and `info`).
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/node.h"

namespace flowlens {

struct GraphVersions {
  int producer = 0;
  int min_consumer = 0;
  std::vector<int> bad_consumers;
  bool present = false;  // whether the file had a versions {} block
};

class Graph {
 public:
  Graph() = default;

  // Appends a node (duplicates are kept; validate() reports them).
  Node& add_node(Node node);
  const std::vector<Node>& nodes() const { return nodes_; }
  // Mutable access; call reindex() after renaming nodes through it.
  std::vector<Node>& mutable_nodes() { return nodes_; }
  std::size_t size() const { return nodes_.size(); }
  // Room for `count` nodes: readers that know the count avoid the vector's
  // doubling, which at a million nodes briefly holds 1.5 copies.
  void reserve(std::size_t count);

  // First node with this name, or nullptr.
  const Node* find(std::string_view name) const;
  Node* find(std::string_view name);
  // Index into nodes() of the first node with this name, or -1.
  int index_of(std::string_view name) const;
  void reindex();

  GraphVersions versions;
  int legacy_version = 0;             // GraphDef.version (deprecated field 3)
  std::string library_bytes;          // serialized FunctionDefLibrary, empty if none
  std::vector<std::string> function_names;  // names defined in the library
  std::string source_path;            // file it was loaded from, for messages

 private:
  // Lookups by string_view without building a std::string: validation and
  // shape inference look up every input of every node.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int, NameHash, std::equal_to<>> index_;
};

}  // namespace flowlens
