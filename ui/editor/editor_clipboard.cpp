#include "ui/editor/editor_clipboard.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>

#include "common/error.h"
#include "io/graph_io.h"

namespace flowlens::ui {
namespace {

const QString kGraphMime = QStringLiteral("application/x-flowlens-graphdef");
const QString kPositionsMime = QStringLiteral("application/x-flowlens-positions");

}  // namespace

QMimeData* editor_state_to_mime(const EditorState& clip) {
  auto* mime = new QMimeData;
  const QByteArray text = QByteArray::fromStdString(graph_to_text(clip.graph));
  mime->setData(kGraphMime, text);
  mime->setText(QString::fromUtf8(text));
  QJsonObject positions;
  for (const auto& [name, pos] : clip.positions) positions[QString::fromStdString(name)] = QJsonArray{pos.x(), pos.y()};
  mime->setData(kPositionsMime, QJsonDocument(positions).toJson(QJsonDocument::Compact));
  return mime;
}

std::optional<EditorState> editor_state_from_mime(const QMimeData* mime) {
  if (!mime) return std::nullopt;
  const QByteArray text = mime->hasFormat(kGraphMime) ? mime->data(kGraphMime) : mime->text().toUtf8();
  if (text.trimmed().isEmpty()) return std::nullopt;
  EditorState clip;
  try {
    clip.graph = parse_graph_text(text.toStdString(), "clipboard");
  } catch (const Error&) {
    return std::nullopt;  // ordinary text, not nodes
  }
  if (clip.graph.size() == 0) return std::nullopt;
  const QJsonObject positions = QJsonDocument::fromJson(mime->data(kPositionsMime)).object();
  for (auto it = positions.begin(); it != positions.end(); ++it) {
    const QJsonArray xy = it.value().toArray();
    if (xy.size() == 2) clip.positions[it.key().toStdString()] = QPointF(xy[0].toDouble(), xy[1].toDouble());
  }
  return clip;
}

}  // namespace flowlens::ui
