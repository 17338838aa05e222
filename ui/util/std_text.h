#pragma once
// The engine speaks std::string (UTF-8); widgets speak QString. One spelling
// of the conversion for every UI file (there were twelve file-local copies).
#include <QString>
#include <string>

namespace flowlens::ui {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace flowlens::ui
