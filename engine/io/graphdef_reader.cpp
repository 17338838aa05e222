#include "io/graphdef_reader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

#include "common/error.h"
#include "io/graphdef_convert.h"
#include "io/utf8.h"

namespace flowlens::io_detail {
namespace {

namespace gp = google::protobuf;

// Deepest message nesting accepted in GraphDef text (real graphs stay under 20).
constexpr int kMaxNesting = 100;

// ---- text -------------------------------------------------------------------

// Keeps the first error: later ones are usually consequences of it.
class FirstErrorCollector : public gp::io::ErrorCollector {
 public:
  void reset() {
    has_error = false;
    line = column = 0;
    message.clear();
  }
  void AddError(int line, gp::io::ColumnNumber column, const std::string& message) override {
    if (has_error) return;
    has_error = true;
    this->line = line < 0 ? 0 : line + 1;
    this->column = column < 0 ? 0 : column + 1;
    this->message = message;
  }
  bool has_error = false;
  int line = 0, column = 0;
  std::string message;
};

// protobuf's messages name the problem but not always the fix; add one for
// the common mistakes.
std::string with_hint(const std::string& message) {
  if (message.find("has no field named") != std::string::npos)
    return message + " (check the spelling against TensorFlow's GraphDef schema)";
  if (message.find("Unknown enumeration value") != std::string::npos)
    return message + " (expected a DataType such as DT_FLOAT, DT_INT32, DT_STRING)";
  if (message.find("non ascii codepoint") != std::string::npos)
    return message + " (outside quoted strings GraphDef text is ASCII)";
  if (message.find("Invalid control characters") != std::string::npos)
    return message + " (is this a binary GraphDef? binary files should end in .pb)";
  // The tokenizer reports end of input as an empty token ("got: ", or
  // 'found "".'): name it instead of printing the empty token.
  constexpr std::string_view kEmptyFound = " found \"\".";
  if (message.ends_with(kEmptyFound))
    return message.substr(0, message.size() - kEmptyFound.size()) +
           " found the end of the file (missing closing '}' or truncated file?)";
  if (message.ends_with("got: ")) return message + "the end of the file (missing closing '}' or truncated file?)";
  if (message.find("end of") != std::string::npos) return message + " (missing closing '}' or truncated file?)";
  return message;
}

std::string invalid_utf8_field(const gp::Message& m);

// The attr map of a NodeDef or NameAttrList, walked through its own API:
// reflection on a map field copies the whole map into a repeated field
// first, every tensor_content included.
template <class AttrMap>
std::string invalid_utf8_attr(const AttrMap& attrs) {
  for (const auto& [key, value] : attrs) {
    if (!is_valid_utf8(key)) return "attr.key";
    if (std::string inner = invalid_utf8_field(value); !inner.empty()) return "attr.value." + inner;
  }
  return {};
}

// Proto3 string fields must hold UTF-8 (see io/utf8.h); the text parser does
// not check. Returns the path of the first offending field below `m`, e.g.
// "attr.value.func.name", or "" when all are valid.
std::string invalid_utf8_field(const gp::Message& m) {
  const gp::Reflection* r = m.GetReflection();
  std::vector<const gp::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const gp::FieldDescriptor* f : fields) {
    if (f->is_map() && f->name() == "attr") {
      if (const auto* node = dynamic_cast<const proto::NodeDef*>(&m)) {
        if (std::string bad = invalid_utf8_attr(node->attr()); !bad.empty()) return bad;
        continue;
      }
      if (const auto* func = dynamic_cast<const proto::NameAttrList*>(&m)) {
        if (std::string bad = invalid_utf8_attr(func->attr()); !bad.empty()) return bad;
        continue;
      }
    }
    if (f->type() == gp::FieldDescriptor::TYPE_STRING) {
      const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
      for (int k = 0; k < n; ++k) {
        std::string scratch;
        const std::string& value = f->is_repeated() ? r->GetRepeatedStringReference(m, f, k, &scratch)
                                                    : r->GetStringReference(m, f, &scratch);
        if (!is_valid_utf8(value)) return f->name();
      }
    } else if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
      const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
      for (int k = 0; k < n; ++k) {
        const gp::Message& child = f->is_repeated() ? r->GetRepeatedMessage(m, f, k) : r->GetMessage(m, f);
        std::string inner = invalid_utf8_field(child);
        if (!inner.empty()) return f->name() + "." + inner;
      }
    }
  }
  return {};
}

const std::string kUtf8Hint =
    " is not valid UTF-8 (GraphDef string fields must be UTF-8; other bytes belong in bytes fields such as attr s)";

// One top-level field of GraphDef text: `node { ... }`, `versions < ... >`,
// `version: 12`. Only its extent is found here; protobuf parses it.
struct TextField {
  std::size_t begin = 0, end = 0;
  int line = 1;                // 1-based line of `begin`
  std::size_t line_start = 0;  // offset of that line's first byte
  bool is_node = false;
  // The field's big string literals: [first_big, end_big) in the scanner's list.
  std::size_t first_big = 0, end_big = 0;
};

// A quoted string of at least TextReadOptions::big_string_bytes, quotes
// included: what tensor_content holds in a Const with big values.
struct BigString {
  std::size_t begin = 0, end = 0;
};

// Finds the top-level fields' extents: identifiers, brackets balanced
// outside strings and comments. It never rejects anything: what does not
// look like a field ends the scan with one field reaching to the end of the
// text, whose parse then reports the error exactly as a whole-file parse
// would, since the fields together are the whole text.
class TextFieldScanner {
 public:
  // Strings of at least `big_string_bytes` (0: none) inside fields are
  // listed in big_strings().
  TextFieldScanner(std::string_view text, std::size_t big_string_bytes = 0)
      : t_(text), big_string_bytes_(big_string_bytes) {}

  const std::vector<BigString>& big_strings() const { return big_; }

  bool next(TextField* field) {
    skip_space_and_comments();
    if (pos_ >= t_.size()) return false;
    *field = TextField{pos_, t_.size(), line_, line_start_, false, big_.size(), big_.size()};
    next_field(field);
    field->end_big = big_.size();
    return true;
  }

 private:
  bool next_field(TextField* field) {
    if (!is_ident_start(t_[pos_])) return rest_is_one_field(field);
    const std::size_t name_begin = pos_;
    while (pos_ < t_.size() && is_ident_char(t_[pos_])) ++pos_;
    field->is_node = t_.substr(name_begin, pos_ - name_begin) == "node";
    skip_space_and_comments();
    if (pos_ < t_.size() && t_[pos_] == ':') {
      ++pos_;
      skip_space_and_comments();
    }
    if (pos_ >= t_.size()) return rest_is_one_field(field);
    const char c = t_[pos_];
    if (c == '{' || c == '<' || c == '[') skip_bracketed();
    else if (c == '"' || c == '\'') skip_adjacent_strings();
    else if (!skip_scalar()) return rest_is_one_field(field);
    field->end = pos_;
    // A field may end in one ';' or ','.
    skip_space_and_comments();
    if (pos_ < t_.size() && (t_[pos_] == ';' || t_[pos_] == ',')) ++pos_;
    return true;
  }

  static bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

  bool rest_is_one_field(TextField* field) {
    field->end = t_.size();
    pos_ = t_.size();
    return true;
  }
  void step() {
    if (t_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }
  void skip_comment() {
    while (pos_ < t_.size() && t_[pos_] != '\n') ++pos_;
  }
  void skip_space_and_comments() {
    while (pos_ < t_.size()) {
      const char c = t_[pos_];
      if (c == '#') skip_comment();
      else if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') step();
      else break;
    }
  }
  // A quoted string; one that runs into a newline or the end is left for
  // the parser to report.
  void skip_string() {
    const std::size_t begin = pos_;
    const char quote = t_[pos_++];
    // The string ends at its first quote after an even run of backslashes,
    // or unterminated at a newline (a backslash does not escape one): found
    // with memchr, since tensor_content strings run for megabytes.
    for (std::size_t from = pos_;;) {
      const void* q = std::memchr(t_.data() + from, quote, t_.size() - from);
      const std::size_t end = q ? static_cast<std::size_t>(static_cast<const char*>(q) - t_.data()) : t_.size();
      if (const void* nl = std::memchr(t_.data() + pos_, '\n', end - pos_)) {
        pos_ = static_cast<std::size_t>(static_cast<const char*>(nl) - t_.data());
        return;
      }
      pos_ = end;
      if (!q) return;
      std::size_t backslashes = 0;
      while (end - backslashes > begin + 1 && t_[end - backslashes - 1] == '\\') ++backslashes;
      if (backslashes % 2 == 0) break;
      from = end + 1;
    }
    if (pos_ < t_.size() && t_[pos_] == quote) {
      ++pos_;
      if (big_string_bytes_ > 0 && pos_ - begin >= big_string_bytes_) big_.push_back({begin, pos_});
    }
  }
  void skip_adjacent_strings() {  // "a" "b" is one string value
    while (pos_ < t_.size() && (t_[pos_] == '"' || t_[pos_] == '\'')) {
      skip_string();
      const std::size_t before = pos_;
      const int line_before = line_;
      const std::size_t line_start_before = line_start_;
      skip_space_and_comments();
      if (pos_ >= t_.size() || (t_[pos_] != '"' && t_[pos_] != '\'')) {
        pos_ = before;
        line_ = line_before;
        line_start_ = line_start_before;
        return;
      }
    }
  }
  // A number, an identifier or a signed one: up to whitespace or a separator.
  bool skip_scalar() {
    const std::size_t begin = pos_;
    while (pos_ < t_.size()) {
      const char c = t_[pos_];
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '#' || c == ';' ||
          c == ',' || c == '{' || c == '}' || c == '<' || c == '>' || c == '[' || c == ']' || c == '"' || c == '\'')
        break;
      ++pos_;
    }
    return pos_ > begin;
  }
  // The bytes skip_bracketed acts on; it runs over all others in a tight
  // loop (a field of float_val lines is megabytes of digits).
  static bool is_bracket_special(unsigned char c) {
    static const auto table = [] {
      std::array<bool, 256> t{};
      for (unsigned char s : std::string_view("\"'#\n{}<>[]")) t[s] = true;
      return t;
    }();
    return table[c];
  }

  void skip_bracketed() {
    int depth = 0;
    while (pos_ < t_.size()) {
      while (pos_ < t_.size() && !is_bracket_special(static_cast<unsigned char>(t_[pos_]))) ++pos_;
      if (pos_ >= t_.size()) return;
      const char c = t_[pos_];
      if (c == '"' || c == '\'') {
        skip_string();
        continue;
      }
      if (c == '#') {
        skip_comment();
        continue;
      }
      step();
      if (c == '{' || c == '<' || c == '[') ++depth;
      else if ((c == '}' || c == '>' || c == ']') && --depth == 0) return;
    }
  }

  std::string_view t_;
  std::size_t big_string_bytes_ = 0;
  std::vector<BigString> big_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::size_t line_start_ = 0;
};

// The field's text, preceded by its line's earlier bytes blanked out (tabs
// kept), so protobuf's columns, which expand tabs, match the file's.
std::string_view field_text(std::string_view text, const TextField& field, std::string* storage) {
  const std::string_view body = text.substr(field.begin, field.end - field.begin);
  if (field.begin == field.line_start) return body;
  storage->clear();
  for (std::size_t k = field.line_start; k < field.begin; ++k) storage->push_back(text[k] == '\t' ? '\t' : ' ');
  storage->append(body);
  return *storage;
}

class TextFieldParser {
 public:
  explicit TextFieldParser(const std::string& source) : source_(source) {
    parser_.RecordErrorsTo(&errors_);
    // The text parser recurses once per nested message and has no depth
    // limit of its own here; nested func attrs could otherwise overflow the
    // stack. The binary parser's default limit is the same 100.
    parser_.SetRecursionLimit(kMaxNesting);
  }
  // Parses `text` into `into`; false on any error (none is reported).
  bool try_parse(std::string_view text, proto::GraphDef* into) {
    if (text.size() > static_cast<std::size_t>(INT_MAX)) return false;
    errors_.reset();
    gp::io::ArrayInputStream stream(text.data(), static_cast<int>(text.size()));
    return parser_.Parse(&stream, into);
  }
  // Parses `text`, whose first line is line `first_line` of the file.
  void parse(std::string_view text, int first_line, proto::GraphDef* into) {
    errors_.reset();
    if (text.size() > static_cast<std::size_t>(INT_MAX))
      throw ParseError(source_, first_line, 0, "a field larger than protobuf's 2 GiB limit");
    gp::io::ArrayInputStream stream(text.data(), static_cast<int>(text.size()));
    if (parser_.Parse(&stream, into)) return;
    if (!errors_.has_error) throw ParseError(source_, first_line, 0, "not a valid GraphDef text file");
    throw ParseError(source_, first_line + errors_.line - 1, errors_.column, with_hint(errors_.message));
  }

 private:
  const std::string& source_;
  FirstErrorCollector errors_;
  gp::TextFormat::Parser parser_;
};

// ---- big strings: tensor_content decoded without protobuf's tokenizer --------

// Decodes string literal `literal` (quotes included) when it uses only what
// protobuf's CEscape writes for bytes: printable ASCII, \ooo with three
// octal digits (at most \377), \n \r \t \" \' \\. Anything else
// (hex or unicode escapes, raw control or non-ASCII bytes) returns false and
// is left to protobuf, which decodes or reports it exactly.
bool decode_plain_literal(std::string_view literal, std::string* out) {
  if (literal.size() < 2 || literal.back() != literal.front()) return false;
  const std::string_view body = literal.substr(1, literal.size() - 2);
  // Decoded through a small block appended as it fills: sizing `out` for the
  // escaped length would zero (and page in) three times the bytes it keeps.
  out->clear();
  char block[16 * 1024];
  char* o = block;
  const char* p = body.data();
  const char* const end = p + body.size();
  while (p < end) {
    if (o > block + sizeof block - 4) {
      out->append(block, static_cast<std::size_t>(o - block));
      o = block;
    }
    const auto c = static_cast<unsigned char>(*p);
    if (c != '\\') {
      if (c < 0x20 || c >= 0x7f) return false;
      *o++ = static_cast<char>(c);
      ++p;
      continue;
    }
    if (end - p < 2) return false;
    const char e = p[1];
    if (e >= '0' && e <= '3') {
      if (end - p < 4) return false;
      const char d1 = p[2], d2 = p[3];
      if (d1 < '0' || d1 > '7' || d2 < '0' || d2 > '7') return false;
      *o++ = static_cast<char>(((e - '0') << 6) | ((d1 - '0') << 3) | (d2 - '0'));
      p += 4;
      continue;
    }
    switch (e) {
      case 'n': *o++ = '\n'; break;
      case 'r': *o++ = '\r'; break;
      case 't': *o++ = '\t'; break;
      case '"': *o++ = '"'; break;
      case '\'': *o++ = '\''; break;
      case '\\': *o++ = '\\'; break;
      default: return false;
    }
    p += 2;
  }
  out->append(block, static_cast<std::size_t>(o - block));
  return true;
}

bool is_text_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
}

// True when the literal at [begin, end) of `text` is written as
// `tensor_content: "..."` (the colon optional, spaces only between) and is
// not followed by another literal that protobuf would join to it.
bool is_lone_tensor_content(std::string_view text, std::size_t begin, std::size_t end) {
  std::size_t k = begin;
  while (k > 0 && is_text_space(text[k - 1])) --k;
  if (k > 0 && text[k - 1] == ':') --k;
  while (k > 0 && is_text_space(text[k - 1])) --k;
  constexpr std::string_view kName = "tensor_content";
  if (k < kName.size() || text.substr(k - kName.size(), kName.size()) != kName) return false;
  k -= kName.size();
  if (k > 0 && (is_ident_char(text[k - 1]) || text[k - 1] == '.')) return false;
  for (std::size_t j = end; j < text.size();) {
    if (is_text_space(text[j])) {
      ++j;
    } else if (text[j] == '#') {
      while (j < text.size() && text[j] != '\n') ++j;
    } else {
      return text[j] != '"' && text[j] != '\'';
    }
  }
  return true;
}

constexpr std::string_view kBigStringMarker = "__flowlens_big_string_";

// The one tensor_content of `node`'s attrs (values and lists) that holds
// `marker`; nullptr unless exactly one does.
std::string* find_big_string(proto::NodeDef* node, const std::string& marker) {
  proto::TensorProto* found = nullptr;
  int count = 0;
  for (auto& [key, attr] : *node->mutable_attr()) {
    if (attr.has_tensor() && attr.tensor().tensor_content() == marker) {
      found = attr.mutable_tensor();
      ++count;
    }
    if (attr.has_list())
      for (proto::TensorProto& t : *attr.mutable_list()->mutable_tensor())
        if (t.tensor_content() == marker) {
          found = &t;
          ++count;
        }
  }
  return count == 1 ? found->mutable_tensor_content() : nullptr;
}

// The decoded big strings of one node field. They are swapped into the
// parsed message and back out once the node is converted, so a thread
// decodes into the same (already touched) memory node after node.
struct BigValues {
  std::vector<std::string> values;
  std::vector<std::string*> placed;  // where values[k] was swapped in
  void give_back() {
    for (std::size_t k = 0; k < placed.size(); ++k) placed[k]->swap(values[k]);
    placed.clear();
  }
};

// Parses one node field into `into`. Its big tensor_content literals are
// replaced by short markers before protobuf sees the text, decoded here and
// swapped into the parsed message (big->give_back() takes them out again);
// the result is the message protobuf would give. If anything is unusual
// (other escapes, a marker not found, any parse error) the field is parsed
// whole by protobuf, so errors are protobuf's own, at their own place.
void parse_node_field(std::string_view text, const TextField& field, const std::vector<BigString>& big,
                      TextFieldParser& parser, proto::GraphDef* into, std::string* storage, BigValues* decoded) {
  decoded->placed.clear();
  const std::string_view original = field_text(text, field, storage);
  if (field.first_big == field.end_big) return parser.parse(original, field.line, into);
  const std::string_view body = text.substr(field.begin, field.end - field.begin);
  std::vector<std::size_t> replaced;  // indices into `big`
  if (body.find(kBigStringMarker) == std::string_view::npos) {
    for (std::size_t b = field.first_big; b < field.end_big; ++b) {
      if (!is_lone_tensor_content(text, big[b].begin, big[b].end)) continue;
      if (decoded->values.size() <= replaced.size()) decoded->values.emplace_back();
      if (!decode_plain_literal(text.substr(big[b].begin, big[b].end - big[b].begin), &decoded->values[replaced.size()]))
        continue;
      replaced.push_back(b);
    }
  }
  if (replaced.empty()) return parser.parse(original, field.line, into);
  std::string cut;  // the field with markers for the big literals, same lines and columns before the first
  cut.reserve(field.begin - field.line_start + body.size() / 16 + 64 * replaced.size());
  for (std::size_t k = field.line_start; k < field.begin; ++k) cut.push_back(text[k] == '\t' ? '\t' : ' ');
  std::size_t at = field.begin;
  for (std::size_t r = 0; r < replaced.size(); ++r) {
    const BigString& b = big[replaced[r]];
    cut.append(text.substr(at, b.begin - at));
    cut.append("\"").append(kBigStringMarker).append(std::to_string(r)).append("\"");
    at = b.end;
  }
  cut.append(text.substr(at, field.end - at));
  bool ok = parser.try_parse(cut, into) && into->node_size() == 1;
  std::vector<std::string*> places;
  for (std::size_t r = 0; ok && r < replaced.size(); ++r) {
    std::string* place = find_big_string(into->mutable_node(0), std::string(kBigStringMarker) + std::to_string(r));
    ok = place != nullptr;
    places.push_back(place);
  }
  if (!ok) return parser.parse(original, field.line, into);
  for (std::size_t r = 0; r < replaced.size(); ++r) {
    places[r]->swap(decoded->values[r]);
    decoded->placed.push_back(places[r]);
  }
}

// ---- text: node fields in parallel chunks -------------------------------------

// A node field as the chunks keep it: 24 bytes, since a file may hold
// millions (text is under 2 GiB, so offsets fit 32 bits).
struct NodeField {
  uint32_t begin, end, line_start;
  int32_t line;
  uint32_t first_big, end_big;
  explicit NodeField(const TextField& f)
      : begin(static_cast<uint32_t>(f.begin)), end(static_cast<uint32_t>(f.end)),
        line_start(static_cast<uint32_t>(f.line_start)), line(f.line), first_big(static_cast<uint32_t>(f.first_big)),
        end_big(static_cast<uint32_t>(f.end_big)) {}
  TextField field() const { return TextField{begin, end, line, line_start, true, first_big, end_big}; }
};

// A run of consecutive node fields parsed by one thread, and what came of it:
// the nodes in file order, then (if the chunk failed) its first error.
struct TextChunk {
  std::size_t first = 0, last = 0;  // indices into the node fields
  std::vector<Node> nodes;
  std::exception_ptr error;
  // Set instead of `error` for a string field that is not UTF-8: the node's
  // index in the file is known only when the chunks are joined.
  std::string bad_utf8_field;
  int line = 0, column = 0;
};

void parse_text_chunk(std::string_view text, const std::vector<NodeField>& fields,
                      const std::vector<BigString>& big, const std::string& source, TextChunk* chunk) {
  try {
    TextFieldParser parser(source);
    proto::GraphDef parsed;
    std::string storage;
    BigValues decoded;
    chunk->nodes.reserve(chunk->last - chunk->first);
    for (std::size_t f = chunk->first; f < chunk->last; ++f) {
      const TextField field = fields[f].field();
      parse_node_field(text, field, big, parser, &parsed, &storage, &decoded);
      const int column = static_cast<int>(field.begin - field.line_start) + 1;
      for (const proto::NodeDef& def : parsed.node()) {
        // The name itself may be the invalid string, so the node goes by index.
        if (std::string bad = invalid_utf8_field(def); !bad.empty()) {
          chunk->bad_utf8_field = std::move(bad);
          chunk->line = field.line;
          chunk->column = column;
          return;
        }
        try {
          chunk->nodes.push_back(node_from_proto(def));
        } catch (const Error& e) {
          throw ParseError(source, field.line, column, e.what());
        }
      }
      decoded.give_back();
    }
  } catch (...) {
    chunk->error = std::current_exception();
  }
}

bool chunk_failed(const TextChunk& chunk) { return chunk.error || !chunk.bad_utf8_field.empty(); }

int text_threads(const TextReadOptions& options, std::size_t chunks) {
  int threads = options.threads;
  if (threads <= 0) threads = static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), chunks));
}

// ---- binary -----------------------------------------------------------------

constexpr uint32_t kNodeTag = gp::internal::WireFormatLite::MakeTag(
    proto::GraphDef::kNodeFieldNumber, gp::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED);

[[noreturn]] void binary_error(const std::string& source, const std::string& what) {
  throw ParseError(source, 0, 0, "not a valid binary GraphDef: " + what);
}

// `where` is e.g. "at node 3 (byte 120)".
[[noreturn]] void decoding_error(const std::string& source, const std::string& where) {
  binary_error(source, "protobuf wire-format decoding failed " + where +
                           " (truncated or corrupt file, a string field that is not UTF-8, messages nested over "
                           "100 deep, or not a GraphDef; text files should end in .pbtxt)");
}

std::string at_node(std::size_t index, int offset) {
  return "at node " + std::to_string(index) + " (byte " + std::to_string(offset) + ")";
}

// Walks the top-level fields of binary GraphDef `bytes`: each node's bytes
// go to on_node(index, bytes, offset); the other fields are copied to `rest`
// when given.
template <class OnNode>
void walk_binary_fields(std::string_view bytes, const std::string& source, gp::io::CodedOutputStream* rest,
                        OnNode&& on_node) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  gp::io::CodedInputStream in(data, size);
  for (std::size_t index = 0;;) {
    const int offset = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {
      if (in.CurrentPosition() == size && offset == size) return;
      decoding_error(source, "at byte " + std::to_string(offset) + ": not a field tag");
    }
    if (tag != kNodeTag) {
      const bool skipped = rest ? gp::internal::WireFormatLite::SkipField(&in, tag, rest)
                                : gp::internal::WireFormatLite::SkipField(&in, tag);
      if (!skipped) decoding_error(source, "in field " + std::to_string(tag >> 3) + " at byte " + std::to_string(offset));
      continue;
    }
    uint32_t length = 0;
    const void* node_bytes = nullptr;
    int available = 0;
    if (!in.ReadVarint32(&length) || (length > 0 && !in.GetDirectBufferPointer(&node_bytes, &available)) ||
        length > static_cast<uint32_t>(available))
      decoding_error(source, at_node(index, offset) + ": its length runs past the end of the file");
    on_node(index++, std::string_view(static_cast<const char*>(node_bytes), length), offset);
    in.Skip(static_cast<int>(length));
  }
}

}  // namespace

Graph read_graphdef_text(std::string_view text, const std::string& source, const TextReadOptions& options) {
  if (text.size() > static_cast<std::size_t>(INT_MAX))
    throw ParseError(source, 0, 0, "GraphDef text larger than protobuf's 2 GiB limit");
  // One scan finds every field; node fields go to the chunks, the others are
  // kept (at their own line numbers) and parsed together at the end, so a
  // repeated `versions` is still an error.
  TextFieldScanner scan(text, options.big_string_bytes);
  std::vector<NodeField> nodes;
  std::string rest;
  int rest_lines = 1;
  std::string storage;
  TextField field;
  while (scan.next(&field)) {
    if (field.is_node) {
      nodes.emplace_back(field);
      continue;
    }
    const std::string_view body = field_text(text, field, &storage);
    for (; rest_lines < field.line; ++rest_lines) rest.push_back('\n');
    rest.append(body);
    for (char c : body) rest_lines += c == '\n';
  }
  std::vector<TextChunk> chunks;
  for (std::size_t f = 0; f < nodes.size();) {
    TextChunk chunk;
    chunk.first = f;
    std::size_t bytes = 0;
    while (f < nodes.size() && (f == chunk.first || bytes < options.chunk_bytes)) {
      bytes += nodes[f].end - nodes[f].begin;
      ++f;
    }
    chunk.last = f;
    chunks.push_back(std::move(chunk));
  }

  Graph graph;
  graph.reserve(nodes.size());
  // Moves a parsed chunk into the graph; throws its error, if any, after
  // the nodes before it, as a serial read would.
  auto join = [&](TextChunk& chunk) {
    for (Node& n : chunk.nodes) graph.add_node(std::move(n));
    std::vector<Node>().swap(chunk.nodes);
    if (!chunk.bad_utf8_field.empty())
      throw ParseError(source, chunk.line, chunk.column,
                       "node " + std::to_string(graph.size()) + ": field " + chunk.bad_utf8_field + kUtf8Hint);
    if (chunk.error) std::rethrow_exception(chunk.error);
  };
  const int threads = text_threads(options, chunks.size());
  if (threads <= 1) {
    for (TextChunk& chunk : chunks) {
      parse_text_chunk(text, nodes, scan.big_strings(), source, &chunk);
      join(chunk);
    }
  } else {
    // Threads take chunks in file order. This thread takes its share too and,
    // between its chunks, joins the ones finished so far in order, so parsed
    // nodes do not pile up beside the graph. After a failed chunk, later
    // ones are skipped: the first error in the file is the one reported.
    const std::size_t count = chunks.size();
    std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[count]());
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> first_failed{count};
    auto parse_one = [&]() -> bool {
      const std::size_t c = next.fetch_add(1);
      if (c >= count) return false;
      if (c <= first_failed.load()) {
        parse_text_chunk(text, nodes, scan.big_strings(), source, &chunks[c]);
        if (chunk_failed(chunks[c])) {
          std::size_t seen = first_failed.load();
          while (c < seen && !first_failed.compare_exchange_weak(seen, c)) {
          }
        }
      }
      done[c].store(true, std::memory_order_release);
      return true;
    };
    std::vector<std::thread> helpers;
    auto stop_helpers = [&] {
      next.store(count);
      for (std::thread& t : helpers) t.join();
      helpers.clear();
    };
    try {
      for (int t = 1; t < threads; ++t) {
        try {
          helpers.emplace_back([&] {
            while (parse_one()) {
            }
          });
        } catch (const std::system_error&) {
          break;  // no more threads: the ones running (and this one) do the rest
        }
      }
      std::size_t joined = 0;
      while (parse_one())
        for (; joined < count && done[joined].load(std::memory_order_acquire); ++joined) join(chunks[joined]);
      stop_helpers();
      for (; joined < count; ++joined) join(chunks[joined]);
    } catch (...) {
      stop_helpers();
      throw;
    }
  }

  if (!rest.empty()) {
    TextFieldParser parser(source);
    proto::GraphDef fields;
    parser.parse(rest, 1, &fields);
    if (const std::string bad = invalid_utf8_field(fields.library()); !bad.empty())
      throw ParseError(source, 0, 0, "library: field " + bad + kUtf8Hint);
    graph_fields_from_proto(fields, &graph);
  }
  return graph;
}

Graph read_graphdef_binary(std::string_view bytes, const std::string& source) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    binary_error(source, "larger than protobuf's 2 GiB limit");
  std::size_t nodes = 0;
  walk_binary_fields(bytes, source, nullptr, [&](std::size_t, std::string_view, int) { ++nodes; });
  Graph graph;
  graph.reserve(nodes);
  std::string rest;
  proto::NodeDef def;  // reused: one node at a time
  {
    gp::io::StringOutputStream rest_stream(&rest);
    gp::io::CodedOutputStream rest_out(&rest_stream);
    walk_binary_fields(bytes, source, &rest_out, [&](std::size_t index, std::string_view node, int offset) {
      if (!def.ParseFromArray(node.data(), static_cast<int>(node.size())))
        decoding_error(source, at_node(index, offset));
      try {
        graph.add_node(node_from_proto(def));
      } catch (const Error& e) {
        throw ParseError(source, 0, 0, e.what());
      }
    });
  }  // rest_out flushes into `rest`
  proto::GraphDef fields;
  if (!fields.ParseFromString(rest))
    decoding_error(source, "outside the nodes (versions, library)");
  // Proto3 keeps unknown fields, so arbitrary bytes can "parse" into an empty
  // message. A GraphDef with nothing but unknown fields is not a GraphDef.
  if (nodes == 0 && !fields.has_versions() && !fields.has_library() && fields.version() == 0 &&
      !fields.GetReflection()->GetUnknownFields(fields).empty())
    binary_error(source, "no GraphDef fields found (a different protobuf message?)");
  graph_fields_from_proto(fields, &graph);
  return graph;
}

}  // namespace flowlens::io_detail
