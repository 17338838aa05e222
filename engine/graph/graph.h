#pragma once
// A dataflow graph: the nodes of a GraphDef in file order, its version stamp,
// and its function library. The library is kept as serialized
// FunctionDefLibrary bytes so files round-trip without loss; only the function
// names are decoded (functions act as known ops for validation and `info`).
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/node.h"

namespace flowlens {

class EdgeIndex;

// Graph's cached EdgeIndex. Built on first use and shared by copies (an
// index is immutable, and a copy has the same nodes); dropped when the
// nodes may change. The mutex lets views on several threads ask at once.
class EdgeIndexCache {
 public:
  EdgeIndexCache() = default;
  EdgeIndexCache(const EdgeIndexCache& other) : index_(other.snapshot()) {}
  EdgeIndexCache(EdgeIndexCache&& other) noexcept;
  EdgeIndexCache& operator=(const EdgeIndexCache& other);
  EdgeIndexCache& operator=(EdgeIndexCache&& other) noexcept;

  const EdgeIndex& get(const class Graph& graph) const;
  void reset();

 private:
  std::shared_ptr<const EdgeIndex> snapshot() const;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const EdgeIndex> index_;
};

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
  // Mutable access; call reindex() after renaming nodes through it. Drops
  // the edge index: change inputs before asking for edges() again.
  std::vector<Node>& mutable_nodes() {
    edges_.reset();
    return nodes_;
  }
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

  // Producers and consumers of every node, parsed once from the input
  // strings (graph/edge_index.h). Built on first use; thread-safe.
  const EdgeIndex& edges() const { return edges_.get(*this); }

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
  EdgeIndexCache edges_;
};

}  // namespace flowlens
