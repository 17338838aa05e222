#pragma once
// Lists of node and tensor names as people type them ("loss, logits/BiasAdd:0"
// in the debugger's and the editor's Fetch boxes). Each name is then read by
// TensorId / TensorIdView::parse (graph/node.h).
#include <string_view>
#include <vector>

namespace flowlens {

// Splits at commas and drops the spaces around each name; empty items
// ("a,,b", a trailing comma) are skipped. The views point into `text`.
std::vector<std::string_view> split_name_list(std::string_view text);

}  // namespace flowlens
