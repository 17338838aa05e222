#pragma once
// UTF-8 validation for names that end up in GraphDef string fields. proto3
// binary parsing rejects a string field that is not UTF-8, so a graph holding
// one (from GraphDef text or ONNX, whose parsers do not check) would save as a
// .pb that cannot be opened again.
#include <string_view>

namespace flowlens::io_detail {

// RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
inline bool is_valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const unsigned char c = *p++;
    if (c < 0x80) continue;
    int more;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the first continuation byte
    if (c >= 0xC2 && c <= 0xDF) more = 1;
    else if (c == 0xE0) more = 2, lo = 0xA0;
    else if (c == 0xED) more = 2, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) more = 2;
    else if (c == 0xF0) more = 3, lo = 0x90;
    else if (c == 0xF4) more = 3, hi = 0x8F;
    else if (c >= 0xF1 && c <= 0xF3) more = 3;
    else return false;
    if (end - p < more || *p < lo || *p > hi) return false;
    for (++p, --more; more > 0; --more, ++p)
      if (*p < 0x80 || *p > 0xBF) return false;
  }
  return true;
}

}  // namespace flowlens::io_detail
