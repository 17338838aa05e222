#pragma once
// Which palette group an op type belongs to (math, nn, array, state,
// training), the way TensorFlow's API sorts them. The op registry has no
// category field, so the editor keeps this table; an op registered later
// without an entry lands in "other" and still appears in the palette.
#include <QString>
#include <QStringList>
#include <string>

namespace flowlens::ui {

// The groups in palette order ("other" last).
const QStringList& op_group_names();
QString op_group(const std::string& op);
// Internal ops (_Send, _Recv) that partitioning inserts; never offered.
bool op_is_internal(const std::string& op);

}  // namespace flowlens::ui
