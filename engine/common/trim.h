#pragma once
// Text typed by people (a shape, a list of names) with the spaces around it
// dropped: the whitespace QString::trimmed drops, which these fields were
// read with before the parsers moved into the engine.
#include <string_view>

namespace flowlens {

inline std::string_view trimmed(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const std::size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

}  // namespace flowlens
