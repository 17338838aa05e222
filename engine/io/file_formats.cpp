#include "io/file_formats.h"

#include <algorithm>

#include "common/error.h"

namespace flowlens {

// Each is defined in its io/format_<name>.cpp.
const FormatHandler& saved_model_format();
const FormatHandler& graphdef_text_format();
const FormatHandler& graphdef_binary_format();
const FormatHandler& meta_graph_format();
const FormatHandler& checkpoint_format();
const FormatHandler& event_log_format();
const FormatHandler& onnx_format();
const FormatHandler& dot_format();

namespace {

std::string joined_patterns(const FormatHandler& handler) {
  std::string out;
  for (const auto& p : handler.patterns()) out += (out.empty() ? "" : " ") + p;
  return out;
}

// The first handler with the highest confidence, or null when none has any.
// Stops at the first Certain one: nothing after it can win.
template <typename Ask>
const FormatHandler* most_confident(Ask ask) {
  const FormatHandler* best = nullptr;
  Confidence best_confidence = Confidence::None;
  for (const FormatHandler* handler : file_formats()) {
    const Confidence c = ask(*handler);
    if (c > best_confidence) {
      best = handler;
      best_confidence = c;
      if (c == Confidence::Certain) break;
    }
  }
  return best;
}

}  // namespace

const std::vector<const FormatHandler*>& file_formats() {
  // Match order: a tie goes to the first. Also the order dialogs list them.
  static const std::vector<const FormatHandler*> handlers = {
      &saved_model_format(), &graphdef_text_format(), &graphdef_binary_format(), &meta_graph_format(),
      &checkpoint_format(),  &event_log_format(),     &onnx_format(),           &dot_format(),
  };
  return handlers;
}

const FormatHandler& format_handler(FileFormat format) {
  for (const FormatHandler* handler : file_formats())
    if (handler->format() == format) return *handler;
  throw Error("unknown file format " + std::to_string(static_cast<int>(format)));
}

bool named_for_another_format(const Probe& probe, const FormatHandler& self) {
  for (const FormatHandler* handler : file_formats())
    if (handler != &self && handler->known_name(probe)) return true;
  return false;
}

const FormatHandler& find_format(Probe& probe) {
  // Names and directory layouts first, reading nothing: an event log or a
  // checkpoint shard is never read here, however big.
  if (const FormatHandler* by_name = most_confident([&](const FormatHandler& h) { return h.match_name(probe); }))
    return *by_name;
  if (probe.is_directory()) {
    std::string expected;
    std::vector<std::string> hints;
    for (const FormatHandler* handler : file_formats())
      if (std::string hint = handler->directory_hint(); !hint.empty()) hints.push_back(std::move(hint));
    for (std::size_t k = 0; k < hints.size(); ++k)
      expected += (k == 0 ? "" : k + 1 == hints.size() ? ", or " : ", ") + hints[k];
    throw Error("'" + probe.path() + "' is a directory but holds no model FlowLens can open: expected " + expected);
  }
  if (!probe.exists()) throw Error("cannot open '" + probe.path() + "': No such file or directory");
  if (const FormatHandler* by_content = most_confident([&](const FormatHandler& h) { return h.match(probe); }))
    return *by_content;
  std::string names;
  for (const FormatHandler* handler : file_formats())
    names += (names.empty() ? "" : ", ") + std::string(handler->name());
  throw Error("'" + probe.path() + "' is none of the formats FlowLens opens (" + names + ")");
}

OpenedFile open_file(const std::string& path) {
  auto probe = std::make_shared<Probe>(path);
  return find_format(*probe).open(probe);
}

FileFormat detect_file_format(const std::string& path) {
  Probe probe(path);
  return find_format(probe).format();
}

FileFormat detect_file_format(std::string_view bytes, const std::string& name) {
  Probe probe(name, std::string(bytes));
  return find_format(probe).format();
}

std::string open_dialog_filter() {
  std::string all;
  std::string each;
  for (const FormatHandler* handler : file_formats()) {
    all += (all.empty() ? "" : " ") + joined_patterns(*handler);
    each += ";;" + std::string(handler->name()) + " (" + joined_patterns(*handler) + ")";
  }
  return "All FlowLens files (" + all + ")" + each + ";;All files (*)";
}

std::string formats_help() {
  std::string out;
  for (const FormatHandler* handler : file_formats()) {
    std::string line = "  " + std::string(handler->name());
    line.resize(std::max<std::size_t>(line.size() + 1, 20), ' ');
    out += line + joined_patterns(*handler) + (handler->directory_hint().empty() ? "" : " (or a directory)") +
           " - " + handler->description() + "\n";
  }
  return out;
}

bool has_known_file_name(const std::string& path) {
  // Only the name counts: a Probe of a path that may not exist reads nothing.
  const Probe probe(path, std::string());
  for (const FormatHandler* handler : file_formats())
    if (handler->known_name(probe)) return true;
  return false;
}

}  // namespace flowlens
