#pragma once
// Cheap looks at protobuf bytes, for telling formats apart before parsing.
// Internal to engine/io.
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace flowlens::io_detail {

// Text when the first 64 KiB hold no control characters besides whitespace;
// binary protobuf always has some (field tags such as 0x0a).
bool looks_like_text(std::string_view bytes);

// Counts of the top-level (field number, wire type) pairs of a binary
// message; false when the bytes are not a well-formed sequence of fields.
bool top_level_fields(std::string_view bytes, std::map<std::pair<int, int>, int>* counts);

// The first field name of a text proto or word of a text file ("node",
// "meta_info_def", "digraph"), skipping blank lines and # comments; "" if none.
std::string first_text_word(std::string_view text);
// Where that word stands in `text` (begin == end when there is none).
struct TextWordSpan {
  std::size_t begin = 0, end = 0;
};
TextWordSpan find_first_text_word(std::string_view text);

}  // namespace flowlens::io_detail
