#pragma once
// Comma-separated lists of names: node and tensor names as people type them
// in the debugger's and the editor's Fetch boxes ("loss, logits/BiasAdd:0";
// each is then read by TensorIdView::parse, graph/node.h), and the {a, b}
// lists of op specs.
#include <string_view>
#include <vector>

namespace flowlens {

// Splits at commas and drops the spaces around each name; empty items
// ("a,,b", a trailing comma) are skipped. The views point into `text`.
std::vector<std::string_view> split_name_list(std::string_view text);

}  // namespace flowlens
