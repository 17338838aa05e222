// ONNX models (.onnx); the importer is io/onnx_import.h's. Read only:
// save_graph refuses .onnx.
#include <map>
#include <string>

#include "common/error.h"
#include "io/file_formats.h"
#include "io/onnx_import.h"
#include "io/proto_sniff.h"

namespace flowlens {
namespace {

class OnnxFormat final : public FormatHandler {
 public:
  FileFormat format() const override { return FileFormat::Onnx; }
  const char* name() const override { return "ONNX"; }
  const char* description() const override { return "ONNX model"; }
  std::vector<std::string> patterns() const override { return {"*.onnx"}; }

  Confidence match_name(const Probe& probe) const override {
    return !probe.is_directory() && known_name(probe) ? Confidence::Certain : Confidence::None;
  }
  Confidence match(Probe& probe) const override {
    if (probe.is_text()) return Confidence::None;
    // ModelProto: ir_version (1, varint) and graph (7, message); a GraphDef
    // or MetaGraphDef never has a varint field 1.
    std::map<std::pair<int, int>, int> fields;
    return io_detail::top_level_fields(probe.sniff_bytes(), &fields) && fields.count({1, 0}) &&
                   fields.count({7, 2})
               ? Confidence::Content
               : Confidence::None;
  }

  Graph read_graph(Probe& probe) const override {
    const std::string& bytes = probe.content();
    if (bytes.empty()) throw ParseError(probe.path(), 0, 0, "file is empty; expected an ONNX model");
    // ONNX models always hold control bytes (the first field tag is 0x08).
    if (io_detail::looks_like_text(bytes))
      throw ParseError(probe.path(), 0, 0,
                       "not a valid ONNX model: the file is text, but .onnx models are binary protobuf (GraphDef "
                       "text files should end in .pbtxt)");
    return parse_graph_onnx(bytes, probe.path());
  }
};

}  // namespace

const FormatHandler& onnx_format() {
  static const OnnxFormat handler;
  return handler;
}

}  // namespace flowlens
