#pragma once
// Text with the spaces around it dropped: shapes and names people type (the
// whitespace QString::trimmed drops, which those fields were read with before
// their parsers moved into the engine) and the items of op specs.
#include <string_view>

namespace flowlens {

inline std::string_view trimmed(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const std::size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

}  // namespace flowlens
