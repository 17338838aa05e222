#include "graph/node.h"

#include <charconv>

namespace flowlens {

std::optional<TensorIdView> TensorIdView::parse(std::string_view text) {
  TensorIdView id;
  if (!text.empty() && text.front() == '^') {
    text.remove_prefix(1);
    if (text.empty() || text.find(':') != std::string_view::npos) return std::nullopt;
    id.node = text;
    id.index = TensorId::kControl;
    return id;
  }
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    if (text.empty()) return std::nullopt;
    id.node = text;
    return id;
  }
  std::string_view port = text.substr(colon + 1);
  if (colon == 0 || port.empty()) return std::nullopt;
  int value = 0;
  auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || ptr != port.data() + port.size() || value < 0) return std::nullopt;
  id.node = text.substr(0, colon);
  id.index = value;
  return id;
}

std::optional<TensorId> TensorId::parse(std::string_view text) {
  auto view = TensorIdView::parse(text);
  if (!view) return std::nullopt;
  return TensorId{std::string(view->node), view->index};
}

std::string TensorId::to_string() const {
  if (is_control()) return "^" + node;
  if (index == 0) return node;
  return node + ":" + std::to_string(index);
}

const AttrValue* Node::find_attr(std::string_view key) const {
  auto it = attrs.find(std::string(key));
  return it == attrs.end() ? nullptr : &it->second;
}

const AttrValue& Node::attr(std::string_view key) const {
  const AttrValue* v = find_attr(key);
  if (!v) throw Error("node '" + name + "' (" + op + "): missing attr '" + std::string(key) + "'");
  return *v;
}

namespace {
template <class T>
const T& typed(const Node& n, std::string_view key, const AttrValue& v, const char* want) {
  const T* p = v.get_if<T>();
  if (!p)
    throw Error("node '" + n.name + "' (" + n.op + "): attr '" + std::string(key) + "' is " + v.kind_name() +
                ", expected " + want);
  return *p;
}
}  // namespace

int64_t Node::attr_int(std::string_view key, int64_t fallback) const {
  const AttrValue* v = find_attr(key);
  return v ? typed<int64_t>(*this, key, *v, "int") : fallback;
}
float Node::attr_float(std::string_view key, float fallback) const {
  const AttrValue* v = find_attr(key);
  return v ? typed<float>(*this, key, *v, "float") : fallback;
}
bool Node::attr_bool(std::string_view key, bool fallback) const {
  const AttrValue* v = find_attr(key);
  return v ? typed<bool>(*this, key, *v, "bool") : fallback;
}
DType Node::attr_type(std::string_view key, DType fallback) const {
  const AttrValue* v = find_attr(key);
  return v ? typed<DType>(*this, key, *v, "type") : fallback;
}
std::string Node::attr_string(std::string_view key, const std::string& fallback) const {
  const AttrValue* v = find_attr(key);
  return v ? typed<std::string>(*this, key, *v, "string") : fallback;
}

}  // namespace flowlens
