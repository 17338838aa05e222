#pragma once
// Graphviz keeps process-wide state (its error handler and error buffer, the
// DOT parser's and the layout's statics): one Graphviz call at a time in the
// whole process. The engine's DOT reader (io/dot_reader) and the GUI's layout
// worker (ui/graphview/graphviz_layout) both hold this one lock around every
// call into cgraph or gvc.
#include <mutex>

namespace flowlens {

std::mutex& graphviz_mutex();

}  // namespace flowlens
