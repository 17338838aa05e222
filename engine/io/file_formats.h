#pragma once
// The registry of file formats: the handlers (io/format_handler.h) in match
// order, and what is built from them. Dispatch (load_graph, save_graph, the
// CLI's info/run/convert, the GUI's documents), the CLI's --help, the GUI's
// Open dialog filter, drag and drop and recent files all read it, so a format
// is added in one place: its io/format_<name>.cpp and one line in
// file_formats.cpp.
//
// Detection looks at names first (a decisive extension, a directory's layout)
// without reading a byte, then at content: a saved_model.pb, a .meta and a
// frozen .pb are all ".pb" files and all binary protobuf, and the extension
// only decides between formats whose bytes cannot be told apart.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/format_handler.h"

namespace flowlens {

// Every handler, in match order (ties go to the first), which is also the
// order dialogs and --help list them.
const std::vector<const FormatHandler*>& file_formats();
const FormatHandler& format_handler(FileFormat format);

// The handler for what `probe` holds. Throws Error naming the path when it
// does not exist or is none of the formats (a directory with no model, logs
// or checkpoint).
const FormatHandler& find_format(Probe& probe);
// True when a handler other than `self` claims the probe's file name, for
// handlers that sniff words any text may start with (DOT's "graph").
bool named_for_another_format(const Probe& probe, const FormatHandler& self);
// find_format on a fresh Probe, then the handler's open: reads the file once.
OpenedFile open_file(const std::string& path);

// What `path` holds (find_format on a Probe of it).
FileFormat detect_file_format(const std::string& path);
// The same for bytes already read (`name` supplies the file name and extension).
FileFormat detect_file_format(std::string_view bytes, const std::string& name);

// "All FlowLens files (*.pbtxt *.pb ...);;GraphDef text (*.pbtxt ...);;...;;All files (*)"
std::string open_dialog_filter();
// One line per format, for --help texts.
std::string formats_help();
// True when the name matches a format's pattern (for drop targets that only
// see names): "*.pbtxt", "saved_model.pb", "events.out.tfevents.*".
bool has_known_file_name(const std::string& path);

}  // namespace flowlens
