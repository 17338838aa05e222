#include "graph/name_list.h"

#include "common/trim.h"

namespace flowlens {

std::vector<std::string_view> split_name_list(std::string_view text) {
  std::vector<std::string_view> names;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    if (const std::string_view name = trimmed(text.substr(start, comma - start)); !name.empty()) names.push_back(name);
    start = comma + 1;
  }
  return names;
}

}  // namespace flowlens
