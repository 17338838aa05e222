// TensorBoard logs: an events.out.tfevents.* file or a directory of runs
// (io/event_log.h reads them). The graph shown is the log's, when it has one.
#include <filesystem>
#include <string>

#include "common/error.h"
#include "io/event_log.h"
#include "io/file_formats.h"
#include "io/meta_graph.h"

namespace flowlens {
namespace {

namespace fs = std::filesystem;

bool directory_has_event_files(const fs::path& dir, int depth) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && has_event_file_name(it->path().string())) return true;
    if (depth > 0 && it->is_directory(ec) && directory_has_event_files(it->path(), depth - 1)) return true;
  }
  return false;
}

class EventLogFormat final : public FormatHandler {
 public:
  FileFormat format() const override { return FileFormat::EventLog; }
  const char* name() const override { return "TensorBoard log"; }
  const char* description() const override {
    return "TensorBoard event files (events.out.tfevents.*) or a log directory";
  }
  std::vector<std::string> patterns() const override { return {std::string(kEventFileNameMarker) + "*"}; }
  std::string directory_hint() const override {
    return "TensorBoard logs (" + std::string(kEventFileNameMarker) + "*)";
  }

  Confidence match_name(const Probe& probe) const override {
    // Runs are one or two levels down (logs/train/events..., logs/run1/train/...).
    const bool log = probe.is_directory() ? directory_has_event_files(probe.path(), 2) : has_event_file_name(probe.path());
    return log ? Confidence::Certain : Confidence::None;
  }
  Confidence match(Probe& probe) const override {
    return !probe.is_text() && starts_with_event_record(probe.sniff_bytes()) ? Confidence::Certain
                                                                               : Confidence::None;
  }

  // The last graph_def of the first run that has one (a run writes its graph
  // again when it restarts), else the graph of its last meta_graph_def. The
  // log is read by io/event_log.h, which streams records and never needs the
  // whole file at once.
  Graph read_graph(Probe& probe) const override {
    const std::string& path = probe.path();
    const EventLog log = probe.is_directory() ? read_log_directory(path) : read_event_file(path);
    for (const EventRun& run : log.runs) {
      if (!run.graphs.empty()) return parse_event_graph(run.graphs.back());
      if (!run.meta_graphs.empty()) {
        const EventGraph& g = run.meta_graphs.back();
        return parse_meta_graph(g.bytes, false, g.file + "@" + std::to_string(g.offset)).graph;
      }
    }
    std::string runs;
    for (const EventRun& run : log.runs) runs += (runs.empty() ? "" : ", ") + run.name;
    throw Error("the TensorBoard log '" + path + "' holds no graph (runs: " + (runs.empty() ? "none" : runs) +
                "); `flowlens-run events` lists what it holds");
  }
  OpenedFile open(const std::shared_ptr<Probe>& probe) const override {
    // The graph only when asked: `info` describes a log without one.
    OpenedFile file = opened_without_graph(probe);
    file.holds_event_log = true;
    return file;
  }
};

}  // namespace

const FormatHandler& event_log_format() {
  static const EventLogFormat handler;
  return handler;
}

}  // namespace flowlens
