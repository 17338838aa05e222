#include "ui/editor/tensor_text.h"

#include <QStringList>
#include <vector>

#include "tensor/tensor_format.h"

namespace flowlens::ui {
namespace {

// Recursive descent over nested lists; leaves are collected flat and the
// shape is taken from the first list at each depth, later lists must match.
class NestedListParser {
 public:
  explicit NestedListParser(const QString& text) : text_(text) {}

  bool parse(QString* error) {
    skip_space();
    if (!value(0)) {
      if (error) *error = error_;
      return false;
    }
    skip_space();
    if (pos_ != text_.size()) {
      if (error) *error = QStringLiteral("unexpected '%1' at column %2").arg(text_[pos_]).arg(pos_ + 1);
      return false;
    }
    return true;
  }

  const std::vector<int64_t>& dims() const { return dims_; }
  const QStringList& leaves() const { return leaves_; }

 private:
  bool fail(const QString& message) {
    error_ = QStringLiteral("%1 at column %2").arg(message).arg(pos_ + 1);
    return false;
  }
  void skip_space() {
    while (pos_ < text_.size() && text_[pos_].isSpace()) ++pos_;
  }
  bool value(std::size_t depth) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == QLatin1Char('[')) return list(depth);
    if (depth < dims_.size()) return fail(QStringLiteral("ragged nesting: expected a list"));
    if (leaf_depth_set_ && depth != leaf_depth_) return fail(QStringLiteral("ragged nesting: expected a list"));
    leaf_depth_ = depth;
    leaf_depth_set_ = true;
    const qsizetype start = pos_;
    while (pos_ < text_.size() && !text_[pos_].isSpace() && text_[pos_] != QLatin1Char(',') &&
           text_[pos_] != QLatin1Char(']') && text_[pos_] != QLatin1Char('['))
      ++pos_;
    if (pos_ == start) return fail(QStringLiteral("expected a number"));
    leaves_ << text_.mid(start, pos_ - start);
    return true;
  }
  bool list(std::size_t depth) {
    if (leaf_depth_set_ && depth >= leaf_depth_) return fail(QStringLiteral("ragged nesting: expected a number"));
    ++pos_;  // '['
    if (dims_.size() <= depth) dims_.resize(depth + 1, -1);
    int64_t count = 0;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == QLatin1Char(']')) {
      ++pos_;
    } else {
      for (;;) {
        if (!value(depth + 1)) return false;
        ++count;
        skip_space();
        if (pos_ >= text_.size()) return fail(QStringLiteral("missing ']'"));
        if (text_[pos_] == QLatin1Char(']')) {
          ++pos_;
          break;
        }
        if (text_[pos_] != QLatin1Char(',')) return fail(QStringLiteral("expected ',' or ']'"));
        ++pos_;
      }
    }
    if (dims_[depth] < 0) {
      dims_[depth] = count;
      if (count == 0) {  // an empty list ends the nesting here
        leaf_depth_ = depth + 1;
        leaf_depth_set_ = true;
      }
    } else if (dims_[depth] != count) {
      return fail(QStringLiteral("ragged list: expected %1 values, got %2").arg(dims_[depth]).arg(count));
    }
    return true;
  }

  QString text_;
  qsizetype pos_ = 0;
  std::vector<int64_t> dims_;
  QStringList leaves_;
  std::size_t leaf_depth_ = 0;
  bool leaf_depth_set_ = false;
  QString error_;
};

template <class T>
std::optional<Tensor> typed(const Shape& shape, const QStringList& leaves, QString* error) {
  std::vector<T> values;
  values.reserve(static_cast<std::size_t>(leaves.size()));
  for (const QString& leaf : leaves) {
    bool ok = false;
    if constexpr (std::is_same_v<T, bool>) {
      const QString l = leaf.toLower();
      ok = l == QLatin1String("true") || l == QLatin1String("false") || l == QLatin1String("1") || l == QLatin1String("0");
      values.push_back(l == QLatin1String("true") || l == QLatin1String("1"));
    } else if constexpr (std::is_floating_point_v<T>) {
      values.push_back(static_cast<T>(leaf.toDouble(&ok)));
    } else if constexpr (std::is_same_v<T, int32_t>) {
      values.push_back(leaf.toInt(&ok));
    } else {
      values.push_back(leaf.toLongLong(&ok));
    }
    if (!ok) {
      if (error) *error = QStringLiteral("'%1' is not a %2 value").arg(leaf, QString::fromStdString(dtype_name(DTypeOf<T>::value)));
      return std::nullopt;
    }
  }
  return Tensor::from_vector<T>(shape, values);
}

}  // namespace

std::optional<Tensor> parse_tensor_text(const QString& text, DType dtype, QString* error) {
  NestedListParser parser(text.trimmed());
  if (!parser.parse(error)) return std::nullopt;
  const Shape shape(parser.dims());
  switch (dtype) {
    case DType::Float: return typed<float>(shape, parser.leaves(), error);
    case DType::Double: return typed<double>(shape, parser.leaves(), error);
    case DType::Int32: return typed<int32_t>(shape, parser.leaves(), error);
    case DType::Int64: return typed<int64_t>(shape, parser.leaves(), error);
    case DType::Bool: return typed<bool>(shape, parser.leaves(), error);
    default:
      if (error) *error = QStringLiteral("%1 tensors cannot be typed in; use float32, float64, int32, int64 or bool")
                              .arg(QString::fromStdString(dtype_name(dtype)));
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
