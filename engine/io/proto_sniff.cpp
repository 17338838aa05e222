#include "io/proto_sniff.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <cctype>
#include <climits>

namespace flowlens::io_detail {

bool looks_like_text(std::string_view bytes) {
  const std::size_t limit = std::min<std::size_t>(bytes.size(), 64 * 1024);
  for (std::size_t k = 0; k < limit; ++k) {
    const auto c = static_cast<unsigned char>(bytes[k]);
    if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') continue;
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

bool top_level_fields(std::string_view bytes, std::map<std::pair<int, int>, int>* counts) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) return false;
  namespace gp = google::protobuf;
  gp::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(INT_MAX);
  for (uint32_t tag; (tag = in.ReadTag()) != 0;) {
    ++(*counts)[{static_cast<int>(tag >> 3), static_cast<int>(tag & 7)}];
    if (!gp::internal::WireFormatLite::SkipField(&in, tag)) return false;
  }
  return in.CurrentPosition() == static_cast<int>(bytes.size());
}

TextWordSpan find_first_text_word(std::string_view text) {
  std::size_t k = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (k < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[k]))) {
      ++k;
    } else if (text[k] == '#') {
      while (k < text.size() && text[k] != '\n') ++k;
    } else {
      break;
    }
  }
  std::size_t end = k;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
  return {k, end};
}

std::string first_text_word(std::string_view text) {
  const TextWordSpan word = find_first_text_word(text);
  return std::string(text.substr(word.begin, word.end - word.begin));
}

}  // namespace flowlens::io_detail
