#include "io/graphdef_reader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>
#include <cstdint>

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

// Proto3 string fields must hold UTF-8 (see io/utf8.h); the text parser does
// not check. Returns the path of the first offending field below `m`, e.g.
// "attr.value.func.name", or "" when all are valid.
std::string invalid_utf8_field(const gp::Message& m) {
  const gp::Reflection* r = m.GetReflection();
  std::vector<const gp::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const gp::FieldDescriptor* f : fields) {
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
};

// Finds the top-level fields' extents: identifiers, brackets balanced
// outside strings and comments. It never rejects anything: what does not
// look like a field ends the scan with one field reaching to the end of the
// text, whose parse then reports the error exactly as a whole-file parse
// would, since the fields together are the whole text.
class TextFieldScanner {
 public:
  explicit TextFieldScanner(std::string_view text) : t_(text) {}

  bool next(TextField* field) {
    skip_space_and_comments();
    if (pos_ >= t_.size()) return false;
    *field = TextField{pos_, t_.size(), line_, line_start_, false};
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

 private:
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
    const char quote = t_[pos_++];
    while (pos_ < t_.size() && t_[pos_] != quote && t_[pos_] != '\n') {
      if (t_[pos_] == '\\' && pos_ + 1 < t_.size() && t_[pos_ + 1] != '\n') ++pos_;
      ++pos_;
    }
    if (pos_ < t_.size() && t_[pos_] == quote) ++pos_;
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
  void skip_bracketed() {
    int depth = 0;
    while (pos_ < t_.size()) {
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
  // Parses `text`, whose first line is line `first_line` of the file.
  void parse(std::string_view text, int first_line, proto::GraphDef* into) {
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

std::size_t count_text_nodes(std::string_view text) {
  TextFieldScanner scan(text);
  TextField field;
  std::size_t nodes = 0;
  while (scan.next(&field)) nodes += field.is_node;
  return nodes;
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

Graph read_graphdef_text(std::string_view text, const std::string& source) {
  Graph graph;
  graph.reserve(count_text_nodes(text));
  TextFieldParser parser(source);
  proto::GraphDef fields;  // one top-level field at a time
  std::string rest;        // the other fields, at their own line numbers
  int rest_lines = 1;
  std::string storage;
  std::size_t node_index = 0;
  TextFieldScanner scan(text);
  TextField field;
  while (scan.next(&field)) {
    const std::string_view body = field_text(text, field, &storage);
    if (!field.is_node) {
      // Parsed together at the end, so a repeated `versions` is still an error.
      for (; rest_lines < field.line; ++rest_lines) rest.push_back('\n');
      rest.append(body);
      for (char c : body) rest_lines += c == '\n';
      continue;
    }
    parser.parse(body, field.line, &fields);
    const int column = static_cast<int>(field.begin - field.line_start) + 1;
    for (const proto::NodeDef& def : fields.node()) {
      // The name itself may be the invalid string, so the node goes by index.
      if (const std::string bad = invalid_utf8_field(def); !bad.empty())
        throw ParseError(source, field.line, column, "node " + std::to_string(node_index) + ": field " + bad + kUtf8Hint);
      try {
        graph.add_node(node_from_proto(def));
      } catch (const Error& e) {
        throw ParseError(source, field.line, column, e.what());
      }
      ++node_index;
    }
  }
  if (!rest.empty()) {
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
