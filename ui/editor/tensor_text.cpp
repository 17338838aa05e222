#include "ui/editor/tensor_text.h"

#include <QStringList>
#include <vector>

#include "tensor/tensor_format.h"
#include "tensor/tensor_parse.h"

namespace flowlens::ui {

std::optional<Tensor> parse_tensor_text(const QString& text, DType dtype, QString* error) {
  try {
    return flowlens::parse_tensor_text(text.toStdString(), dtype);
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return std::nullopt;
  }
}

QString tensor_text(const Tensor& tensor) { return QString::fromStdString(format_tensor(tensor)); }

std::optional<Shape> parse_shape_text(const QString& text, QString* error) {
  const QString t = text.trimmed();
  if (t == QLatin1String("?") || t == QLatin1String("<unknown>")) return Shape::unknown_rank();
  if (!t.startsWith(QLatin1Char('[')) || !t.endsWith(QLatin1Char(']'))) {
    if (error) *error = QStringLiteral("a shape looks like [4,3], [?,3], [] or ?; got '%1'").arg(t);
    return std::nullopt;
  }
  std::vector<int64_t> dims;
  const QString inner = t.mid(1, t.size() - 2).trimmed();
  if (!inner.isEmpty()) {
    for (const QString& part : inner.split(QLatin1Char(','))) {
      const QString p = part.trimmed();
      bool ok = false;
      const qlonglong d = p == QLatin1String("?") || p == QLatin1String("-1") ? Shape::kUnknownDim : p.toLongLong(&ok);
      if (p != QLatin1String("?") && p != QLatin1String("-1") && (!ok || d < 0)) {
        if (error) *error = QStringLiteral("shape dimension '%1' is not a size (a number >= 0, or ?)").arg(p);
        return std::nullopt;
      }
      dims.push_back(d);
    }
  }
  return Shape(std::move(dims));
}

}  // namespace flowlens::ui
