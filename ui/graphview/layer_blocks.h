#pragma once
// Long chains without useful name scopes, the graphs people open most (Keras
// models, ONNX files), get a hierarchy the view can collapse: their hundreds
// of top-level layers are gathered into the model's blocks.
//
// - By name, where the exporter's naming says what a block is: Keras
//   ResNet's res2a_branch2a / bn2a_branch2a → block "res2a";
//   tf.keras.applications' conv2_block1_1_conv, MobileNet's block_1_expand,
//   EfficientNet's block1a_dwconv → "conv2_block1", "block_1", "block1a";
//   MXNet/Gluon exports' resnetv17_stage1_conv0_fwd → "resnetv17_stage1".
//   The unnamed glue between them (activation_4, add_1: activations,
//   additions, concatenations, padding) joins the block all its inputs come
//   from, so a residual block ends with its add and activation.
// - By structure otherwise (an ONNX file's Conv_0, Relu_1, or n4, n10): the
//   forward chain is cut where the data narrows to one tensor (no edge jumps
//   over the cut: the output of a residual or Inception block), and the
//   pieces between cuts are the blocks "block_1", "block_2", ... in order.
//
// Qt-free, like NameScopeGrouping, which groups by the paths returned here.
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace flowlens::ui {

// Fewer top-level names than this read fine as they are.
inline constexpr int kMinLayersForBlocks = 64;

// Per node, the path the view groups it by: "res2a/res2a_branch2a_1/Conv2D"
// for a node of a block, the node's name otherwise. Empty when the graph
// needs no blocks (few top-level names, or no blocks found).
std::vector<std::string> layer_block_paths(const Graph& graph);

// The block a top-level layer name belongs to by naming convention, "" for
// none: "bn2a_branch2a_1" → "res2a", "conv2_block1_1_conv" → "conv2_block1".
std::string block_of_layer_name(std::string_view layer);

}  // namespace flowlens::ui
