#include "ui/editor/tensor_text.h"

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
  try {
    return flowlens::parse_shape_text(text.toStdString());
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return std::nullopt;
  }
}

}  // namespace flowlens::ui
