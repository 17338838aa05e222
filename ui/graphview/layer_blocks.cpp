#include "ui/graphview/layer_blocks.h"

#include <algorithm>
#include <regex>
#include <set>
#include <unordered_map>

#include "graph/edge_index.h"
#include "graph/node_class.h"

namespace flowlens::ui {
namespace {

std::string_view top_level_of(std::string_view name) { return name.substr(0, name.find('/')); }

// Ops that only connect layers (activations, merges, padding, dropout's
// arithmetic): a layer of these joins the block its inputs come from.
bool is_glue_op(const std::string& op) {
  static const std::set<std::string, std::less<>> kGlue = {
      "Relu",    "Relu6",   "Elu",      "Selu",      "LeakyRelu", "Sigmoid",  "Tanh",     "Softplus",
      "Swish",   "Add",     "AddV2",    "AddN",      "Mul",       "Identity", "Pad",      "ConcatV2",
      "Concat",  "Maximum", "Minimum",  "onnx::Add", "onnx::Relu", "onnx::Concat", "onnx::Sum",
      "onnx::Clip", "onnx::Sigmoid", "onnx::Mul", "onnx::Pad", "Const", "ReadVariableOp", "VarHandleOp",
      "VariableV2", "Shape", "Reshape", "StridedSlice", "Pack", "Cast"};
  return kGlue.contains(op);
}

// Weights, their reads and what is computed from constants alone (Keras's
// shared "1 - momentum", Grappler's folded shapes): drawn inside or beside
// the op that uses them, they go with that op's block, and the edges they
// send never tie layers together (one folded constant read by every block
// would make the whole model one knot).
enum ConstantKind : char { kComputed = 0, kFolded, kWeight };
std::vector<char> constant_like_nodes(const Graph& graph) {
  const auto& nodes = graph.nodes();
  const int n = static_cast<int>(nodes.size());
  const EdgeIndex& edges = graph.edges();
  std::vector<char> constant(static_cast<std::size_t>(n), kComputed);
  std::vector<int> pending(static_cast<std::size_t>(n), 0), ready;
  for (int v = 0; v < n; ++v)
    for (const InputEdge& in : edges.inputs(v)) pending[static_cast<std::size_t>(v)] += in.resolved() && !in.is_control();
  for (int v = 0; v < n; ++v)
    if (pending[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
  for (std::size_t next = 0; next < ready.size(); ++next) {
    const int v = ready[next];
    const Node& node = nodes[static_cast<std::size_t>(v)];
    const std::string& op = node.op;
    bool from_constants = !is_placeholder(node) && !is_arg(node) && !op.starts_with("Iterator");
    bool any_input = false;
    for (const InputEdge& in : edges.inputs(v)) {
      if (!in.resolved() || in.is_control()) continue;
      any_input = true;
      from_constants &= constant[static_cast<std::size_t>(in.producer)] == kFolded;
    }
    // A variable and its reads are weights; what is computed from them is
    // not (a Keras step reads its input batch from a variable too).
    const auto inputs = edges.inputs(v);
    const bool variable = is_variable(node);
    const bool weight_read = (op == "ReadVariableOp" || op == "Identity") && !inputs.empty() && inputs[0].resolved() &&
                             constant[static_cast<std::size_t>(inputs[0].producer)] == kWeight;
    constant[static_cast<std::size_t>(v)] = is_constant(node) || (any_input && from_constants) ? kFolded
                                            : variable || weight_read                             ? kWeight
                                                                                                  : kComputed;
    for (const OutputEdge& e : edges.outputs(v))
      if (!e.is_control() && --pending[static_cast<std::size_t>(e.consumer)] == 0) ready.push_back(e.consumer);
  }
  return constant;
}

// The backward pass and the optimizer: consumers of every forward
// activation, so they are left out when looking for the forward chain's cuts.
bool is_training_path(std::string_view name, const std::string& op) {
  if (op.ends_with("Grad") || op.starts_with("Apply") || op.starts_with("ResourceApply")) return true;
  for (std::size_t start = 0; start <= name.size();) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part == "gradients" || part == "training" || part.starts_with("gradients_")) return true;
    start = end + 1;
  }
  return false;
}

const std::string kNoBlock;

}  // namespace

std::string block_of_layer_name(std::string_view layer) {
  // Keras ResNet50 (v1): res2a_branch2a, bn2a_branch2a, scale2a_branch2a;
  // a model built twice adds "_1".
  static const std::regex kResNetV1(R"(^(?:res|bn|scale)(\d+[a-z]+)_branch\w+$)");
  // tf.keras.applications and MobileNet / EfficientNet: conv2_block1_1_conv,
  // block_1_expand, block1a_dwconv.
  static const std::regex kBlock(R"(^(.*?block_?\d+[a-z]?)_\w+$)");
  // MXNet / Gluon exports: resnetv17_stage1_conv0_fwd, stage1_unit2_conv1.
  static const std::regex kStage(R"(^(.*?stage\d+(?:_unit\d+)?)_\w+$)");
  // Each pattern needs its word: most names (an ONNX file's thousands of
  // Conv_12) are turned down without running a regex.
  const std::string text(layer);
  std::smatch m;
  if (text.find("_branch") != std::string::npos && std::regex_match(text, m, kResNetV1)) return "res" + m[1].str();
  if (text.find("block") != std::string::npos && std::regex_match(text, m, kBlock)) return m[1].str();
  if (text.find("stage") != std::string::npos && std::regex_match(text, m, kStage)) return m[1].str();
  return {};
}

std::vector<std::string> layer_block_paths(const Graph& graph) {
  const auto& nodes = graph.nodes();
  const int n = static_cast<int>(nodes.size());
  // Top-level layers, in order of first appearance.
  std::unordered_map<std::string_view, int> layer_index;
  std::vector<std::string_view> layers;
  std::vector<int> layer_of(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const std::string_view top = top_level_of(nodes[static_cast<std::size_t>(i)].name);
    auto [it, fresh] = layer_index.try_emplace(top, static_cast<int>(layers.size()));
    if (fresh) layers.push_back(top);
    layer_of[static_cast<std::size_t>(i)] = it->second;
  }
  const int layer_count = static_cast<int>(layers.size());
  if (layer_count < kMinLayersForBlocks) return {};

  const std::vector<char> constant = constant_like_nodes(graph);
  // Per layer: whether every node is glue, a parameter, on the training path.
  std::vector<char> glue(static_cast<std::size_t>(layer_count), 1), parameter(static_cast<std::size_t>(layer_count), 1),
      training(static_cast<std::size_t>(layer_count), 1);
  for (int i = 0; i < n; ++i) {
    const Node& node = nodes[static_cast<std::size_t>(i)];
    const auto l = static_cast<std::size_t>(layer_of[static_cast<std::size_t>(i)]);
    glue[l] &= is_glue_op(node.op);
    parameter[l] &= constant[static_cast<std::size_t>(i)] != kComputed;
    training[l] &= is_training_path(node.name, node.op);
  }

  // Data edges between layers (each pair once), and a topological order of
  // the layers (Kahn; layers on a cycle are left out of blocks).
  const EdgeIndex& edges = graph.edges();
  // Edges from weights and folded constants are kept apart (weight_users):
  // they decide where a parameter goes, never the order of layers.
  std::vector<std::vector<int>> producers(static_cast<std::size_t>(layer_count)), consumers(producers.size()),
      weight_users(producers.size());
  {
    std::set<std::pair<int, int>> seen, seen_weights;
    for (int i = 0; i < n; ++i)
      for (const InputEdge& in : edges.inputs(i)) {
        if (!in.resolved() || in.is_control()) continue;
        const int from = layer_of[static_cast<std::size_t>(in.producer)], to = layer_of[static_cast<std::size_t>(i)];
        if (from == to) continue;
        if (constant[static_cast<std::size_t>(in.producer)] != kComputed) {
          if (seen_weights.emplace(from, to).second) weight_users[static_cast<std::size_t>(from)].push_back(to);
          continue;
        }
        if (!seen.emplace(from, to).second) continue;
        producers[static_cast<std::size_t>(to)].push_back(from);
        consumers[static_cast<std::size_t>(from)].push_back(to);
      }
  }
  std::vector<int> order, pending(static_cast<std::size_t>(layer_count));
  for (int l = 0; l < layer_count; ++l) {
    pending[static_cast<std::size_t>(l)] = static_cast<int>(producers[static_cast<std::size_t>(l)].size());
    if (pending[static_cast<std::size_t>(l)] == 0) order.push_back(l);
  }
  for (std::size_t next = 0; next < order.size(); ++next)
    for (int c : consumers[static_cast<std::size_t>(order[next])])
      if (--pending[static_cast<std::size_t>(c)] == 0) order.push_back(c);
  std::vector<int> rank(static_cast<std::size_t>(layer_count), -1);  // position in `order`
  for (std::size_t k = 0; k < order.size(); ++k) rank[static_cast<std::size_t>(order[k])] = static_cast<int>(k);

  // Blocks by name, then glue joins the block of its latest input.
  std::vector<std::string> block(static_cast<std::size_t>(layer_count));
  for (int l = 0; l < layer_count; ++l) block[static_cast<std::size_t>(l)] = block_of_layer_name(layers[static_cast<std::size_t>(l)]);
  std::set<std::string> block_names;
  for (const std::string& b : block)
    if (!b.empty()) block_names.insert(b);
  if (block_names.size() >= 2) {
    for (int l : order) {
      auto& b = block[static_cast<std::size_t>(l)];
      if (!b.empty() || !glue[static_cast<std::size_t>(l)] || parameter[static_cast<std::size_t>(l)]) continue;
      // The latest producer's block: a residual add closes the block whose
      // branch it adds (its other input is the skip from the block before).
      int latest = -1;
      for (int p : producers[static_cast<std::size_t>(l)])
        if (latest < 0 || rank[static_cast<std::size_t>(p)] > rank[static_cast<std::size_t>(latest)]) latest = p;
      if (latest >= 0) b = block[static_cast<std::size_t>(latest)];
    }
  } else {
    // By structure: cut the forward chain where no data edge jumps over.
    // Positions in topological order, over the forward layers that are not
    // parameters; a cut after position k when every edge from positions
    // before k lands at ≤ k: all data then flows through layer k (a residual
    // block's output activation, an Inception block's concatenation).
    std::vector<int> chain;
    std::vector<int> position(static_cast<std::size_t>(layer_count), -1);
    for (int l : order)
      if (!parameter[static_cast<std::size_t>(l)] && !training[static_cast<std::size_t>(l)]) {
        position[static_cast<std::size_t>(l)] = static_cast<int>(chain.size());
        chain.push_back(l);
      }
    if (chain.size() < static_cast<std::size_t>(kMinLayersForBlocks)) return {};
    std::vector<int> reach(chain.size());  // the farthest position an edge from here lands
    for (std::size_t k = 0; k < chain.size(); ++k) {
      int far = static_cast<int>(k);
      for (int c : consumers[static_cast<std::size_t>(chain[k])])
        far = std::max(far, position[static_cast<std::size_t>(c)]);
      reach[k] = far;
    }
    // Blocks of at least kMinBlockLayers layers between cuts: a plain chain
    // (every layer a cut) is grouped in runs of that many.
    constexpr int kMinBlockLayers = 4;
    std::vector<char> cut_after(chain.size(), 0);
    for (std::size_t k = 0, far_before = 0; k < chain.size(); ++k) {
      cut_after[k] = far_before <= k;
      far_before = std::max(far_before, static_cast<std::size_t>(reach[k]));
    }
    int number = 1, in_block = 0;
    for (std::size_t k = 0; k < chain.size(); ++k) {
      block[static_cast<std::size_t>(chain[k])] = "block_" + std::to_string(number);
      ++in_block;
      // A cut that the next layer alone continues (an add, then its relu)
      // moves to after that layer: the block ends with its output.
      const bool deferred = k + 1 < chain.size() && cut_after[k + 1] && reach[k] == static_cast<int>(k) + 1;
      if (cut_after[k] && !deferred && in_block >= kMinBlockLayers) {
        ++number;
        in_block = 0;
      }
    }
    if (number < 3) return {};
    for (int l = 0; l < layer_count; ++l)
      if (!block[static_cast<std::size_t>(l)].empty()) block_names.insert(block[static_cast<std::size_t>(l)]);
  }
  // Parameters go with the block of the layer they feed, when that is one.
  for (int l = 0; l < layer_count; ++l) {
    if (!parameter[static_cast<std::size_t>(l)] || !block[static_cast<std::size_t>(l)].empty()) continue;
    std::string to;
    for (int c : weight_users[static_cast<std::size_t>(l)]) {
      const std::string& cb = block[static_cast<std::size_t>(c)];
      if (cb.empty() || (!to.empty() && cb != to)) {
        to.clear();
        break;
      }
      to = cb;
    }
    block[static_cast<std::size_t>(l)] = to;
  }
  if (block_names.size() < 2) return {};
  // A block named like a layer outside it would merge with that layer's scope.
  std::unordered_map<std::string, std::string> renamed;
  for (const std::string& b : block_names) {
    std::string name = b;
    while (layer_index.contains(name)) name += "_block";
    renamed.emplace(b, name);
  }
  std::vector<std::string> paths(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const std::string* b = &block[static_cast<std::size_t>(layer_of[static_cast<std::size_t>(i)])];
    // A constant read by several blocks (Keras shares one epsilon among all
    // its batch norms) belongs to none: inside one, it would tie that block
    // to every other.
    if (!b->empty() && constant[static_cast<std::size_t>(i)] != kComputed)
      for (const OutputEdge& e : edges.outputs(i)) {
        const std::string& used_by = block[static_cast<std::size_t>(layer_of[static_cast<std::size_t>(e.consumer)])];
        // (The optimizer, outside every block, reads every weight: no matter.)
        if (!e.is_control() && !used_by.empty() && used_by != *b) {
          b = &kNoBlock;
          break;
        }
      }
    const std::string& name = nodes[static_cast<std::size_t>(i)].name;
    paths[static_cast<std::size_t>(i)] = b->empty() ? name : renamed.at(*b) + "/" + name;
  }
  return paths;
}

}  // namespace flowlens::ui
