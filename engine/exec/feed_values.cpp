#include "exec/feed_values.h"

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "analysis/infer_shapes.h"
#include "common/error.h"
#include "common/trim.h"
#include "exec/function_body.h"
#include "analysis/graph_analysis.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "ops/framework/dtype_dispatch.h"
#include "tensor/npy.h"
#include "tensor/tensor_parse.h"

namespace flowlens {
namespace {

// The slot's declared shape with every unknown dimension taken as 1 (a
// batch of one); a scalar for an unknown rank.
Shape concrete_shape(const Shape& declared) {
  if (!declared.rank_known()) return Shape{};
  std::vector<int64_t> dims;
  for (int i = 0; i < declared.rank(); ++i) dims.push_back(declared.dim(i) < 0 ? 1 : declared.dim(i));
  return Shape(std::move(dims));
}

enum class Generated { None, Zeros, Ones, Random };

// "random[4,2]" -> Random and [4,2]; "ones" -> Ones and `declared` made concrete.
Generated generated_kind(std::string_view text, const Shape& declared, Shape* shape) {
  static constexpr std::pair<std::string_view, Generated> kWords[] = {
      {"zeros", Generated::Zeros}, {"ones", Generated::Ones}, {"random", Generated::Random}};
  for (const auto& [word, kind] : kWords) {
    if (!text.starts_with(word)) continue;
    const std::string_view rest = trimmed(text.substr(word.size()));
    if (rest.empty()) {
      *shape = concrete_shape(declared);
      return kind;
    }
    if (!rest.starts_with('[')) return Generated::None;  // a longer word: not ours
    *shape = parse_shape_text(rest);
    if (!shape->fully_defined())
      throw Error("'" + std::string(text) + "': a generated value's shape must be fully known, like " +
                  std::string(word) + "[4,2]");
    return kind;
  }
  return Generated::None;
}

// Generated values are typed in by hand: a slip of the keyboard
// (random[100000,100000]) must not allocate tens of GiB.
constexpr int64_t kMaxGeneratedBytes = int64_t{1} << 30;

Tensor generate(Generated kind, DType dtype, const Shape& shape) {
  const std::optional<int64_t> elements = Shape::checked_num_elements(shape.dims());
  const int64_t element_size = static_cast<int64_t>(std::max<std::size_t>(dtype_size(dtype), 1));
  if (!elements || *elements > kMaxGeneratedBytes / element_size)
    throw Error("shape " + shape.to_string() + " is too big to generate (at most 1 GiB; feed a .npy file instead)");
  Tensor t(dtype, shape);
  // Seeded the same every time: a generated feed is reproducible across runs and sessions.
  std::mt19937_64 random(0);
  ops::dispatch<ops::PodTypes>(dtype, "generated feed", [&](auto tag) {
    using T = decltype(tag);
    T* out = t.data<T>();
    for (int64_t i = 0, n = t.num_elements(); i < n; ++i) {
      if (kind == Generated::Zeros) {
        out[i] = T(0);
      } else if (kind == Generated::Ones) {
        out[i] = T(1);
      } else if constexpr (std::is_same_v<T, bool>) {
        out[i] = (random() >> 63) != 0;
      } else if constexpr (std::is_integral_v<T>) {
        out[i] = static_cast<T>(random() % 10);
      } else {
        out[i] = static_cast<T>(static_cast<double>(random() >> 11) * 0x1.0p-53);
      }
    }
  });
  return t;
}

// "1,2,3" is typed as often as "[1,2,3]": a comma outside brackets and
// quotes makes the text a vector.
bool is_bare_list(std::string_view text) {
  if (text.starts_with('[')) return false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ',') {
      return true;
    }
  }
  return false;
}

}  // namespace

bool is_placeholder_op(const std::string& op) { return node_class(op) == NodeClass::Placeholder; }

std::string FeedSlot::describe_type() const { return dtype_name(dtype) + " " + shape.to_string(); }

std::vector<FeedSlot> feed_slots(const Graph& graph, const FunctionBody* body) {
  std::map<std::string_view, const FunctionArg*> args;  // by node name
  if (body)
    for (const FunctionArg& arg : body->args()) args.emplace(arg.node, &arg);
  std::vector<FeedSlot> slots;
  for (const Node& n : graph.nodes()) {  // graph order, whatever the kind
    FeedSlot slot;
    slot.name = n.name;
    if (const auto it = args.find(n.name); it != args.end()) {
      const FunctionArg& arg = *it->second;
      slot.kind = arg.resource ? FeedSlot::Kind::ResourceArg : FeedSlot::Kind::DataArg;
      slot.dtype = arg.resource ? arg.var_dtype : arg.dtype;
      slot.shape = arg.resource ? arg.var_shape : arg.shape;
      if (arg.role) slot.role = arg.role->kind;
    } else if (is_placeholder_op(n.op)) {
      slot.dtype = dtype_base(n.attr_type("dtype", DType::Invalid));
      if (const AttrValue* shape = n.find_attr("shape"))
        if (const Shape* s = shape->get_if<Shape>()) slot.shape = *s;
    } else {
      continue;
    }
    slots.push_back(std::move(slot));
  }
  return slots;
}

std::vector<std::string> missing_feeds(const Graph& graph, const std::vector<std::string>& roots,
                                       const std::vector<std::string>& fed) {
  const EdgeIndex& edges = graph.edges();
  std::set<std::pair<int, int>> fed_tensors;  // (node, port)
  for (const std::string& name : fed)
    if (const auto id = TensorId::parse(name); id && !id->is_control())
      if (const int node = graph.index_of(id->node); node >= 0) fed_tensors.emplace(node, id->index);

  std::vector<char> seen(graph.size(), 0);
  std::vector<int> stack;
  for (const std::string& root : roots) {
    const auto id = TensorId::parse(root);
    if (!id) continue;
    const int node = graph.index_of(id->node);
    if (node < 0 || (!id->is_control() && fed_tensors.contains({node, id->index}))) continue;
    if (!seen[static_cast<std::size_t>(node)]) {
      seen[static_cast<std::size_t>(node)] = 1;
      stack.push_back(node);
    }
  }
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    for (const InputEdge& in : edges.inputs(node)) {
      if (!in.resolved() || seen[static_cast<std::size_t>(in.producer)]) continue;
      if (!in.is_control() && fed_tensors.contains({in.producer, in.port})) continue;
      seen[static_cast<std::size_t>(in.producer)] = 1;
      stack.push_back(in.producer);
    }
  }
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.nodes()[i];
    // A fed placeholder is replaced by its value, control edges from it included.
    const bool fed_itself = fed_tensors.contains({static_cast<int>(i), 0});
    const bool needs_value =
        is_placeholder_op(n.op) || (is_arg(n) && !is_resource_arg(n));
    if (seen[i] && needs_value && !fed_itself) missing.push_back(n.name);
  }
  return missing;
}

DType feed_dtype(const GraphAnalysis& analysis, const std::string& name, const FunctionBody* body) {
  if (body)
    if (const FunctionArg* arg = body->find_arg(name)) return arg->dtype;
  const Graph& graph = analysis.graph();
  const auto id = TensorId::parse(name);
  const int index = id ? graph.index_of(id->node) : -1;
  if (index < 0)
    throw Error("no node named '" + (id ? id->node : name) + "'" +
                (body ? " and no function argument of that name (arg:N feeds by index)" : ""));
  const DType declared = dtype_base(graph.nodes()[static_cast<size_t>(index)].attr_type("dtype", DType::Invalid));
  if (declared != DType::Invalid) return declared;
  // Inference needs a structurally valid graph; the Session reports the errors of one that is not.
  if (const ShapeInferenceResult* inferred = analysis.shapes()) {
    const auto& ports = inferred->outputs[static_cast<size_t>(index)];
    if (id->index >= 0 && id->index < static_cast<int>(ports.size()) &&
        ports[static_cast<size_t>(id->index)].dtype != DType::Invalid)
      return ports[static_cast<size_t>(id->index)].dtype;
  }
  throw Error("cannot tell the tensor's dtype to read the value as; feed a .npy file");
}

Shape feed_declared_shape(const GraphAnalysis& analysis, const std::string& name, const FunctionBody* body) {
  if (body)
    if (const FunctionArg* arg = body->find_arg(name)) return arg->resource ? arg->var_shape : arg->shape;
  const Graph& graph = analysis.graph();
  const auto id = TensorId::parse(name);
  const int index = id ? graph.index_of(id->node) : -1;
  if (index < 0 || id->is_control()) return Shape::unknown_rank();
  const Node& node = graph.nodes()[static_cast<size_t>(index)];
  if (is_placeholder_op(node.op))
    if (const AttrValue* shape = node.find_attr("shape"))
      if (const Shape* s = shape->get_if<Shape>()) return *s;
  if (const ShapeInferenceResult* inferred = analysis.shapes()) {
    const auto& ports = inferred->outputs[static_cast<size_t>(index)];
    if (id->index >= 0 && id->index < static_cast<int>(ports.size())) return ports[static_cast<size_t>(id->index)].shape;
  }
  return Shape::unknown_rank();
}

Tensor parse_feed_value(const std::string& text, DType dtype, const Shape& declared) {
  const std::string_view value = trimmed(text);
  if (value.empty()) throw Error("no value given");
  if (value.ends_with(".npy")) return read_npy(std::string(value));
  if (dtype != DType::String) {
    Shape shape;
    const Generated kind = generated_kind(value, declared, &shape);
    if (kind != Generated::None) return generate(kind, dtype, shape);
  }
  if (is_bare_list(value)) return parse_tensor_text("[" + std::string(value) + "]", dtype);
  return parse_tensor_text(value, dtype);
}

Tensor convert_placeholder_feed(const Tensor& value, DType dtype) {
  if (dtype == DType::Invalid || !value.valid() || value.dtype() == dtype) return value;
  Tensor out;
  try {
    ops::dispatch<ops::PodTypes>(value.dtype(), "feed conversion", [&](auto from) {
      using S = decltype(from);
      ops::dispatch<ops::PodTypes>(dtype, "feed conversion", [&](auto to) {
        using D = decltype(to);
        Tensor t(dtype, value.shape());
        const S* in = value.data<S>();
        D* o = t.data<D>();
        for (int64_t i = 0, n = value.num_elements(); i < n; ++i) {
          if constexpr (std::is_same_v<D, bool>)
            o[i] = static_cast<double>(in[i]) != 0;
          else if constexpr (std::is_same_v<S, bool>)
            o[i] = static_cast<D>(in[i] ? 1 : 0);
          else if constexpr (std::is_integral_v<D> && !std::is_integral_v<S>)
            o[i] = static_cast<D>(static_cast<int64_t>(static_cast<double>(in[i])));  // truncation, as astype
          else
            o[i] = static_cast<D>(in[i]);
        }
        out = std::move(t);
      });
    });
  } catch (const Error&) {
    return value;  // not a number type on one side: the mismatch is reported as such
  }
  return out;
}

bool shape_fits(const Shape& declared, const Shape& shape) {
  if (!declared.rank_known()) return true;
  if (!shape.rank_known() || shape.rank() != declared.rank()) return false;
  for (int i = 0; i < declared.rank(); ++i)
    if (declared.dim(i) >= 0 && declared.dim(i) != shape.dim(i)) return false;
  return true;
}

std::string feed_mismatch(DType dtype, const Shape& declared, const Tensor& value) {
  const bool dtype_ok = dtype == DType::Invalid || value.dtype() == dtype;
  if (dtype_ok && shape_fits(declared, value.shape())) return {};
  return "expected " + (dtype == DType::Invalid ? std::string("a value") : dtype_name(dtype)) + " " +
         declared.to_string() + ", got " + dtype_name(value.dtype()) + " " + value.shape().to_string();
}

}  // namespace flowlens
