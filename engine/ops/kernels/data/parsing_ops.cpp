// tf.Example parsing: ParseExample, ParseExampleV2 and ParseSingleExample,
// the ops a SavedModel's serving signature puts behind its string input
// (tf.io.parse_example). Semantics follow TensorFlow's kernels
// (tensorflow/core/kernels/example_parsing_ops.cc with
// tensorflow/core/util/example_proto_fast_parsing.cc and
// example_proto_helper.cc): output order, shapes, defaults, padding of
// variable-length dense features, sparse and ragged outputs, which duplicate
// feature wins, and the error texts. The bytes are read by io/example_wire.h.
#include <algorithm>
#include <unordered_map>

#include "io/example_wire.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

namespace wire = example_wire;

constexpr const char* kHostStrings = "strings live in host memory; TensorFlow registers a CPU kernel only";
constexpr const char* kNoGradient = "TensorFlow registers none: the outputs are parsed from strings";
const std::string kUnknownName = "<unknown>";

// TensorFlow's DataTypeString ("float", "int64", "string").
std::string type_string(DType t) {
  switch (t) {
    case DType::Float: return "float";
    case DType::Double: return "double";
    case DType::Half: return "half";
    default: return dtype_name(t);
  }
}

// ---- attrs (example_proto_helper's ParseExampleAttrs / ParseSingleExampleAttrs) ----

struct ExampleAttrs {
  int64_t num_sparse = 0, num_dense = 0, num_ragged = 0;
  std::vector<DType> sparse_types, dense_types, ragged_value_types, ragged_split_types;
  std::vector<Shape> dense_shapes;
  std::vector<bool> variable_length;
  std::vector<int64_t> elements_per_stride;
  std::vector<std::string> sparse_keys, dense_keys;  // ParseSingleExample's come as attrs
};

void check_valid_type(DType t) {
  if (t != DType::Int64 && t != DType::Float && t != DType::String)
    fail("Received input dtype: " + type_string(t));
}

// GetDenseShapes: a dense shape is fully defined, or unknown in its first
// dimension only (a variable-length feature, padded per batch).
void get_dense_shapes(ExampleAttrs& a) {
  for (size_t i = 0; i < a.dense_shapes.size(); ++i) {
    const Shape& s = a.dense_shapes[i];
    const std::string which = "dense_shapes[" + std::to_string(i) + "]";
    bool ok = s.rank_known();
    for (int d = 1; ok && d < s.rank(); ++d)
      if (s.dim(d) < 0) ok = false;
    if (!ok) fail(which + " has unknown rank or unknown inner dimensions: " + s.to_string());
    const bool variable = s.rank() > 0 && s.dim(0) < 0;
    if (variable && s.dim(0) != Shape::kUnknownDim) fail(which + " has a negative dimension: " + s.to_string());
    const std::vector<int64_t> stride_dims(s.dims().begin() + (variable ? 1 : 0), s.dims().end());
    const auto stride = Shape::checked_num_elements(stride_dims);
    if (!stride) fail(which + " " + s.to_string() + " has more elements than int64 can count");
    // TensorFlow divides by this stride; a zero one would divide by zero there.
    if (variable && *stride == 0)
      fail(which + " is a variable length shape whose inner dimensions hold no elements: " + s.to_string());
    a.variable_length.push_back(variable);
    a.elements_per_stride.push_back(*stride);
  }
}

ExampleAttrs example_attrs(const AttrReader& r, int op_version) {
  ExampleAttrs a;
  a.sparse_types = r.list("sparse_types").type;
  a.dense_types = r.list("Tdense").type;
  a.dense_shapes = r.list("dense_shapes").shape;
  get_dense_shapes(a);
  if (op_version == 1) {
    a.num_sparse = r.integer("Nsparse");
    a.num_dense = r.integer("Ndense");
  } else {
    a.ragged_value_types = r.list("ragged_value_types").type;
    a.num_sparse = r.integer("num_sparse");
    a.ragged_split_types = r.list("ragged_split_types").type;
    a.num_dense = static_cast<int64_t>(a.dense_types.size());
    a.num_ragged = static_cast<int64_t>(a.ragged_value_types.size());
  }
  auto differs = [](int64_t n, size_t size) { return n < 0 || static_cast<size_t>(n) != size; };
  if (differs(a.num_sparse, a.sparse_types.size())) fail("len(sparse_keys) != len(sparse_types)");
  if (differs(a.num_dense, a.dense_types.size())) fail("len(dense_keys) != len(dense_types)");
  if (differs(a.num_dense, a.dense_shapes.size())) fail("len(dense_keys) != len(dense_shapes)");
  if (differs(a.num_ragged, a.ragged_value_types.size())) fail("len(ragged_keys) != len(ragged_value_types)");
  if (differs(a.num_ragged, a.ragged_split_types.size())) fail("len(ragged_keys) != len(ragged_split_types)");
  for (DType t : a.dense_types) check_valid_type(t);
  for (DType t : a.sparse_types) check_valid_type(t);
  for (DType t : a.ragged_value_types) check_valid_type(t);
  for (DType t : a.ragged_split_types)
    if (t != DType::Int64 && t != DType::Int32) fail("Invalid ragged_split_type: " + type_string(t));
  return a;
}

ExampleAttrs single_example_attrs(const AttrReader& r) {
  ExampleAttrs a;
  a.sparse_keys = r.list("sparse_keys").s;
  a.sparse_types = r.list("sparse_types").type;
  a.dense_keys = r.list("dense_keys").s;
  a.dense_types = r.list("Tdense").type;
  a.dense_shapes = r.list("dense_shapes").shape;
  const int64_t num_sparse = r.integer("num_sparse");
  if (num_sparse < 0 || static_cast<size_t>(num_sparse) != a.sparse_keys.size() ||
      static_cast<size_t>(num_sparse) != a.sparse_types.size())
    fail("num_sparse (" + std::to_string(num_sparse) + ") must match the size of sparse_keys (" +
         std::to_string(a.sparse_keys.size()) + ") and sparse_types (" + std::to_string(a.sparse_types.size()) + ")");
  get_dense_shapes(a);
  if (a.dense_keys.size() != a.dense_types.size()) fail("len(dense_keys) != len(dense_types)");
  if (a.dense_keys.size() != a.dense_shapes.size()) fail("len(dense_keys) != len(dense_shapes)");
  for (DType t : a.dense_types) check_valid_type(t);
  for (DType t : a.sparse_types) check_valid_type(t);
  a.num_sparse = num_sparse;
  a.num_dense = static_cast<int64_t>(a.dense_keys.size());
  return a;
}

// ---- the parse configuration ------------------------------------------------------

struct DenseFeature {
  std::string key;
  DType dtype = DType::Invalid;
  Shape shape;  // dense_shapes[d]: its first dim is -1 for a variable-length feature
  bool variable_length = false;
  size_t stride = 0;  // elements per row (variable length) or per example
  Tensor default_value;
};

struct ListFeature {  // sparse and ragged features
  std::string key;
  DType dtype = DType::Invalid;
  DType splits_dtype = DType::Invalid;  // ragged only
};

struct Config {
  std::vector<DenseFeature> dense;
  std::vector<ListFeature> sparse, ragged;
};

struct Result {
  std::vector<Tensor> sparse_indices, sparse_values, sparse_shapes, dense_values, ragged_values, ragged_splits;
};

enum class FeatureType { Dense, Sparse, Ragged };
using ConfigIndex = std::unordered_map<std::string_view, std::pair<FeatureType, size_t>>;

ConfigIndex index_config(const Config& config) {
  ConfigIndex index;
  auto insert = [&](const std::string& key, FeatureType type, size_t d) {
    // TensorFlow's config index takes each key once; a repeated key exhausts
    // its rehashing and fails with this text.
    if (!index.emplace(key, std::make_pair(type, d)).second)
      fail("Could not avoid collision. This should not happen. (feature key '" + key + "' is requested twice)");
  };
  for (size_t d = 0; d < config.dense.size(); ++d) insert(config.dense[d].key, FeatureType::Dense, d);
  for (size_t d = 0; d < config.sparse.size(); ++d) insert(config.sparse[d].key, FeatureType::Sparse, d);
  for (size_t d = 0; d < config.ragged.size(); ++d) insert(config.ragged[d].key, FeatureType::Ragged, d);
  return index;
}

// Values of one feature across examples (or of one example), as parsed.
struct ListBuffer {
  std::vector<std::string> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<size_t> ends;  // per example: one past its last value

  size_t size(DType t) const { return t == DType::String ? bytes.size() : t == DType::Float ? floats.size() : ints.size(); }
};

DType kind_dtype(wire::Kind kind) {
  switch (kind) {
    case wire::Kind::Bytes: return DType::String;
    case wire::Kind::Float: return DType::Float;
    case wire::Kind::Int64: return DType::Int64;
    default: return DType::Invalid;
  }
}

bool append_list(DType t, std::string_view feature, ListBuffer& b) {
  switch (t) {
    case DType::String: return wire::read_bytes_list(feature, b.bytes);
    case DType::Float: return wire::read_float_list(feature, b.floats);
    default: return wire::read_int64_list(feature, b.ints);
  }
}

const char* value_word(DType t) { return t == DType::String ? "bytes" : t == DType::Float ? "float" : "int64"; }
std::string list_word(DType t) { return std::string(value_word(t)) + "_list"; }

// Copies values [begin, end) of `b` into `out` from element `offset` on.
void copy_values(const ListBuffer& b, DType t, size_t begin, size_t end, Tensor& out, size_t offset) {
  switch (t) {
    case DType::String: std::copy(b.bytes.begin() + begin, b.bytes.begin() + end, out.strings().begin() + offset); break;
    case DType::Float: std::copy(b.floats.begin() + begin, b.floats.begin() + end, out.data<float>() + offset); break;
    default: std::copy(b.ints.begin() + begin, b.ints.begin() + end, out.data<int64_t>() + offset); break;
  }
}

// Copies all of `in` (a default value) into `out` from element `offset` on.
void copy_tensor(const Tensor& in, Tensor& out, size_t offset) {
  const auto n = static_cast<size_t>(in.num_elements());
  switch (in.dtype()) {
    case DType::String: std::copy_n(in.strings().begin(), n, out.strings().begin() + offset); break;
    case DType::Float: std::copy_n(in.data<float>(), n, out.data<float>() + offset); break;
    default: std::copy_n(in.data<int64_t>(), n, out.data<int64_t>() + offset); break;
  }
}

// Fills `out` with element 0 of `in` (the padding of a variable-length feature).
void fill_with_first(const Tensor& in, Tensor& out) {
  switch (in.dtype()) {
    case DType::String: std::fill(out.strings().begin(), out.strings().end(), in.strings()[0]); break;
    case DType::Float: std::fill_n(out.data<float>(), out.num_elements(), in.data<float>()[0]); break;
    default: std::fill_n(out.data<int64_t>(), out.num_elements(), in.data<int64_t>()[0]); break;
  }
}

Shape with_prefix(std::vector<int64_t> prefix, const std::vector<int64_t>& dims, size_t skip) {
  prefix.insert(prefix.end(), dims.begin() + static_cast<std::ptrdiff_t>(skip), dims.end());
  return Shape(std::move(prefix));
}

std::vector<wire::FeatureEntry> read_entries(const std::string& serialized) {
  std::vector<wire::FeatureEntry> entries;
  if (!wire::read_example(serialized, entries))
    fail("Could not parse example input, value: '" + serialized + "'");
  return entries;
}

// ---- a batch of examples (FastParseExample) --------------------------------------

Result parse_batch(const Config& config, const std::vector<std::string>& serialized,
                   const std::vector<std::string>& names) {
  const ConfigIndex index = index_config(config);
  const size_t batch = serialized.size();
  const auto nd = config.dense.size(), ns = config.sparse.size(), nr = config.ragged.size();

  std::vector<Tensor> dense(nd);
  for (size_t d = 0; d < nd; ++d)
    if (!config.dense[d].variable_length)
      dense[d] = Tensor(config.dense[d].dtype, with_prefix({static_cast<int64_t>(batch)}, config.dense[d].shape.dims(), 0));
  std::vector<ListBuffer> varlen(nd), sparse(ns), ragged(nr);
  std::vector<char> dense_seen(nd), sparse_seen(ns), ragged_seen(nr);

  for (size_t e = 0; e < batch; ++e) {
    const std::string& name = names.empty() ? kUnknownName : names[e];
    const std::vector<wire::FeatureEntry> entries = read_entries(serialized[e]);
    std::fill(dense_seen.begin(), dense_seen.end(), 0);
    std::fill(sparse_seen.begin(), sparse_seen.end(), 0);
    std::fill(ragged_seen.begin(), ragged_seen.end(), 0);

    // The last entry of a key is the one protobuf keeps: walk backwards, first seen wins.
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      const auto found = index.find(it->key);
      if (found == index.end()) continue;
      const auto [type, d] = found->second;
      const std::string key(it->key);
      auto example_error = [&](const std::string& suffix) {
        fail("Name: " + name + ", Key: " + key + ", Index: " + std::to_string(e) + ".  " + suffix);
      };
      const wire::Kind kind = wire::feature_kind(it->feature);
      if (kind == wire::Kind::Unsupported) fail("Unsupported datatype.");
      const DType example_dtype = kind_dtype(kind);

      if (type == FeatureType::Dense) {
        if (kind == wire::Kind::None) continue;
        if (dense_seen[d]) continue;
        dense_seen[d] = 1;
        const DenseFeature& f = config.dense[d];
        if (example_dtype != f.dtype)
          example_error("Data types don't match. Data type: " + type_string(example_dtype) +
                        " but expected type: " + type_string(f.dtype));
        if (!f.variable_length) {
          ListBuffer values;
          if (!append_list(f.dtype, it->feature, values)) example_error("Can't parse serialized Example.");
          const size_t n = values.size(f.dtype);
          // TensorFlow parses strings into the example's fixed slots: one too many fails the parse.
          if (f.dtype == DType::String && n > f.stride) example_error("Can't parse serialized Example.");
          if (n != f.stride)
            example_error("Number of " + std::string(value_word(f.dtype)) + " values != expected.  Values size: " +
                          std::to_string(n) + " but output shape: " + f.shape.to_string());
          copy_values(values, f.dtype, 0, n, dense[d], e * f.stride);
        } else {
          ListBuffer& b = varlen[d];
          const size_t before = b.size(f.dtype);
          if (!append_list(f.dtype, it->feature, b)) example_error("Can't parse serialized Example.");
          const size_t n = b.size(f.dtype) - before;
          if (n % f.stride != 0)
            example_error("Number of " + std::string(value_word(f.dtype)) +
                          " values is not a multiple of stride length. Saw " + std::to_string(n) +
                          " values but output shape is: " + f.shape.to_string());
          b.ends.push_back(b.size(f.dtype));
        }
      } else {
        auto& seen = type == FeatureType::Sparse ? sparse_seen : ragged_seen;
        if (seen[d]) continue;
        seen[d] = 1;
        const ListFeature& f = type == FeatureType::Sparse ? config.sparse[d] : config.ragged[d];
        ListBuffer& b = type == FeatureType::Sparse ? sparse[d] : ragged[d];
        if (kind != wire::Kind::None) {
          if (example_dtype != f.dtype)
            example_error("Data types don't match. Expected type: " + type_string(f.dtype) +
                          ", Actual type: " + type_string(example_dtype));
          if (!append_list(f.dtype, it->feature, b)) example_error("Can't parse serialized Example.");
        }
        b.ends.push_back(b.size(f.dtype));
      }
    }

    // Features this example lacks.
    for (size_t d = 0; d < nd; ++d) {
      if (dense_seen[d]) continue;
      const DenseFeature& f = config.dense[d];
      if (f.variable_length) {
        varlen[d].ends.push_back(varlen[d].size(f.dtype));
        continue;
      }
      if (f.default_value.num_elements() == 0)
        fail("Name: " + name + ", Feature: " + f.key + " (data type: " + type_string(f.dtype) + ")" +
             " is required but could not be found.");
      copy_tensor(f.default_value, dense[d], e * f.stride);
    }
    for (size_t d = 0; d < ns; ++d)
      if (!sparse_seen[d]) sparse[d].ends.push_back(sparse[d].size(config.sparse[d].dtype));
    for (size_t d = 0; d < nr; ++d)
      if (!ragged_seen[d]) ragged[d].ends.push_back(ragged[d].size(config.ragged[d].dtype));
  }

  // The most values any one example has.
  auto longest = [](const ListBuffer& b) {
    size_t most = 0, begin = 0;
    for (size_t end : b.ends) {
      most = std::max(most, end - begin);
      begin = end;
    }
    return most;
  };

  Result result;
  // Variable-length dense features: [batch, longest / stride, inner dims...],
  // padded with the default's one element.
  for (size_t d = 0; d < nd; ++d) {
    const DenseFeature& f = config.dense[d];
    if (!f.variable_length) continue;
    const ListBuffer& b = varlen[d];
    const size_t rows = longest(b) / f.stride;
    Tensor values(f.dtype, with_prefix({static_cast<int64_t>(batch), static_cast<int64_t>(rows)}, f.shape.dims(), 1));
    if (values.num_elements() > 0) {
      fill_with_first(f.default_value, values);
      size_t begin = 0;
      for (size_t e = 0; e < batch; ++e) {
        copy_values(b, f.dtype, begin, b.ends[e], values, e * rows * f.stride);
        begin = b.ends[e];
      }
    }
    dense[d] = std::move(values);
  }
  result.dense_values = std::move(dense);

  // Sparse features: indices [total, 2] of (example, position), values, dense shape [batch, longest].
  for (size_t d = 0; d < ns; ++d) {
    const ListBuffer& b = sparse[d];
    const DType t = config.sparse[d].dtype;
    const size_t total = b.size(t);
    Tensor indices(DType::Int64, Shape{static_cast<int64_t>(total), 2});
    int64_t* ix = indices.data<int64_t>();
    size_t begin = 0;
    for (size_t e = 0; e < b.ends.size(); ++e) {
      for (size_t k = begin; k < b.ends[e]; ++k) {
        *ix++ = static_cast<int64_t>(e);
        *ix++ = static_cast<int64_t>(k - begin);
      }
      begin = b.ends[e];
    }
    Tensor values(t, Shape{static_cast<int64_t>(total)});
    copy_values(b, t, 0, total, values, 0);
    result.sparse_indices.push_back(std::move(indices));
    result.sparse_values.push_back(std::move(values));
    result.sparse_shapes.push_back(
        Tensor::from_vector<int64_t>(Shape{2}, {static_cast<int64_t>(batch), static_cast<int64_t>(longest(b))}));
  }

  // Ragged features: the values of all examples and row_splits [batch + 1].
  for (size_t d = 0; d < nr; ++d) {
    const ListBuffer& b = ragged[d];
    const ListFeature& f = config.ragged[d];
    const size_t total = b.size(f.dtype);
    Tensor values(f.dtype, Shape{static_cast<int64_t>(total)});
    copy_values(b, f.dtype, 0, total, values, 0);
    Tensor splits(f.splits_dtype, Shape{static_cast<int64_t>(batch) + 1});
    for (size_t e = 0; e <= batch; ++e) {
      const size_t split = e == 0 ? 0 : b.ends[e - 1];
      if (f.splits_dtype == DType::Int64) splits.data<int64_t>()[e] = static_cast<int64_t>(split);
      else splits.data<int32_t>()[e] = static_cast<int32_t>(split);
    }
    result.ragged_values.push_back(std::move(values));
    result.ragged_splits.push_back(std::move(splits));
  }
  return result;
}

// ---- one example (FastParseSingleExample) ----------------------------------------

Result parse_single(const Config& config, const std::string& serialized) {
  const ConfigIndex index = index_config(config);
  const auto nd = config.dense.size(), ns = config.sparse.size(), nr = config.ragged.size();
  Result result;
  result.dense_values.resize(nd);
  for (size_t d = 0; d < nd; ++d)
    if (!config.dense[d].variable_length) result.dense_values[d] = Tensor(config.dense[d].dtype, config.dense[d].shape);
  result.sparse_indices.resize(ns);
  result.sparse_values.resize(ns);
  result.sparse_shapes.resize(ns);
  result.ragged_values.resize(nr);
  for (size_t d = 0; d < nr; ++d)  // row splits mean nothing for one example: empty
    result.ragged_splits.emplace_back(config.ragged[d].splits_dtype, Shape{0});

  const std::vector<wire::FeatureEntry> entries = read_entries(serialized);
  std::vector<char> dense_seen(nd), sparse_seen(ns), ragged_seen(nr);
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    const auto found = index.find(it->key);
    if (found == index.end()) continue;
    const auto [type, d] = found->second;
    const std::string key(it->key);
    auto example_error = [&](const std::string& suffix) { fail("Key: " + key + ".  " + suffix); };
    auto parse_error = [&](const std::string& what) { fail("Key: " + key + ".  Can't parse serialized Example: " + what); };
    const wire::Kind kind = wire::feature_kind(it->feature);
    if (kind == wire::Kind::Unsupported) fail("Unsupported datatype.");
    if (kind == wire::Kind::None) continue;
    const DType example_dtype = kind_dtype(kind);
    const bool is_dense = type == FeatureType::Dense;

    if (is_dense && !config.dense[d].variable_length) {
      const DenseFeature& f = config.dense[d];
      if (dense_seen[d]) continue;
      dense_seen[d] = 1;
      if (example_dtype != f.dtype)
        example_error("Data types don't match. Data type: " + type_string(example_dtype) +
                      " but expected type: " + type_string(f.dtype));
      ListBuffer values;
      if (!append_list(f.dtype, it->feature, values)) parse_error("Parsing " + list_word(f.dtype) + " failed.");
      const size_t n = values.size(f.dtype);
      if (f.dtype == DType::String && n > f.stride) parse_error("Parsing bytes_list failed.");
      if (n != f.stride) parse_error("Some " + list_word(f.dtype) + " slice was not parsed.");
      copy_values(values, f.dtype, 0, n, result.dense_values[d], 0);
      continue;
    }

    DType dtype;
    size_t divisor = 1;
    if (is_dense) {
      const DenseFeature& f = config.dense[d];
      if (dense_seen[d]) continue;
      dense_seen[d] = 1;
      if (example_dtype != f.dtype)
        example_error("Data types don't match. Data type: " + type_string(example_dtype) +
                      " but expected type: " + type_string(f.dtype));
      dtype = f.dtype;
      divisor = f.stride;
    } else {
      auto& seen = type == FeatureType::Sparse ? sparse_seen : ragged_seen;
      const ListFeature& f = type == FeatureType::Sparse ? config.sparse[d] : config.ragged[d];
      if (seen[d]) continue;
      seen[d] = 1;
      if (example_dtype != f.dtype)
        example_error("Data types don't match. Expected type: " + type_string(f.dtype) +
                      ", Actual type: " + type_string(example_dtype));
      dtype = f.dtype;
    }
    ListBuffer values;
    if (!append_list(dtype, it->feature, values))
      parse_error(dtype == DType::String ? "Could not get num elements in bytes_list."
                                         : "Parsing " + list_word(dtype) + " failed.");
    const size_t n = values.size(dtype);
    if (n % divisor != 0)
      fail("Error while parsing feature with key " + key + ": number of elements should be divisible by " +
           std::to_string(divisor) + ", found " + std::to_string(n) + " instead");
    const auto count = static_cast<int64_t>(n);
    Tensor out;
    if (is_dense) {
      out = Tensor(dtype, with_prefix({count / static_cast<int64_t>(divisor)}, config.dense[d].shape.dims(), 1));
    } else {
      out = Tensor(dtype, Shape{count});
      if (type == FeatureType::Sparse) {
        Tensor indices(DType::Int64, Shape{count, 1});
        for (int64_t i = 0; i < count; ++i) indices.data<int64_t>()[i] = i;
        result.sparse_indices[d] = std::move(indices);
        result.sparse_shapes[d] = Tensor::from_vector<int64_t>(Shape{1}, {count});
      }
    }
    copy_values(values, dtype, 0, n, out, 0);
    (is_dense ? result.dense_values : type == FeatureType::Sparse ? result.sparse_values : result.ragged_values)[d] =
        std::move(out);
  }

  // Features the example lacks.
  for (size_t d = 0; d < nd; ++d) {
    if (dense_seen[d]) continue;
    const DenseFeature& f = config.dense[d];
    if (f.variable_length) {
      result.dense_values[d] = Tensor(f.dtype, with_prefix({0}, f.shape.dims(), 1));
      continue;
    }
    if (f.default_value.num_elements() == 0)
      fail("Feature: " + f.key + " (data type: " + type_string(f.dtype) + ") is required but could not be found.");
    result.dense_values[d] = f.default_value;
  }
  for (size_t d = 0; d < ns; ++d) {
    if (sparse_seen[d]) continue;
    result.sparse_indices[d] = Tensor(DType::Int64, Shape{0, 1});
    result.sparse_values[d] = Tensor(config.sparse[d].dtype, Shape{0});
    result.sparse_shapes[d] = Tensor::from_vector<int64_t>(Shape{1}, {0});
  }
  for (size_t d = 0; d < nr; ++d)
    if (!ragged_seen[d]) result.ragged_values[d] = Tensor(config.ragged[d].dtype, Shape{0});
  return result;
}

// ---- kernels -----------------------------------------------------------------------

// A node's input tensors, from a kernel or (all constant) from shape inference.
struct Inputs {
  std::string op;
  std::vector<const Tensor*> tensors;

  int size() const { return static_cast<int>(tensors.size()); }
  const Tensor& at(int i) const {
    const Tensor* t = tensors[static_cast<size_t>(i)];
    if (!t || !t->valid()) fail(op + ": input " + std::to_string(i) + " is an empty (uninitialized) tensor");
    return *t;
  }
  const Tensor& strings(int i, const std::string& what) const {
    const Tensor& t = at(i);
    if (t.dtype() != DType::String) fail(op + ": " + what + " must be a string tensor, got " + dtype_name(t.dtype()));
    return t;
  }
  // A key given as one scalar string input (ParseExample's lists of keys).
  std::string key(int i, const std::string& what) const {
    const Tensor& t = strings(i, what);
    if (t.num_elements() != 1)
      fail(op + ": " + what + " must be a scalar string (one key), got shape " + t.shape().to_string());
    return t.strings()[0];
  }
};

// CheckInputShapes' checks on the defaults (and ParseSingleExample's).
void check_dense_defaults(const ExampleAttrs& a, const std::vector<const Tensor*>& defaults) {
  if (defaults.size() != static_cast<size_t>(a.num_dense))
    fail("Expected len(dense_defaults) == len(dense_keys) but got: " + std::to_string(defaults.size()) + " vs. " +
         std::to_string(a.num_dense));
  for (size_t d = 0; d < defaults.size(); ++d) {
    const Tensor& def = *defaults[d];
    const std::string i = std::to_string(d);
    if (a.variable_length[d]) {
      if (def.num_elements() != 1)
        fail("dense_shape[" + i + "] is a variable length shape: " + a.dense_shapes[d].to_string() +
             ", therefore def_value[" + i + "] must contain a single element (the padding element).  But its shape is: " +
             def.shape().to_string());
    } else if (def.num_elements() > 0 && !(def.shape() == a.dense_shapes[d])) {
      fail("def_value[" + i + "].shape() == " + def.shape().to_string() + " is not compatible with dense_shapes_[" + i +
           "] == " + a.dense_shapes[d].to_string());
    }
    if (def.dtype() != a.dense_types[d])
      fail("dense_defaults[" + i + "].dtype() == " + type_string(def.dtype()) + " != dense_types_[" + i +
           "] == " + type_string(a.dense_types[d]));
  }
}

Config make_config(const ExampleAttrs& a, const std::vector<std::string>& dense_keys,
                   const std::vector<std::string>& sparse_keys, const std::vector<std::string>& ragged_keys,
                   const std::vector<const Tensor*>& defaults) {
  Config c;
  for (size_t d = 0; d < dense_keys.size(); ++d)
    c.dense.push_back({dense_keys[d], a.dense_types[d], a.dense_shapes[d], a.variable_length[d],
                       static_cast<size_t>(a.elements_per_stride[d]), *defaults[d]});
  for (size_t d = 0; d < sparse_keys.size(); ++d) c.sparse.push_back({sparse_keys[d], a.sparse_types[d], DType::Invalid});
  for (size_t d = 0; d < ragged_keys.size(); ++d)
    c.ragged.push_back({ragged_keys[d], a.ragged_value_types[d], a.ragged_split_types[d]});
  return c;
}

std::vector<Tensor> outputs_of(Result& r, bool with_ragged) {
  std::vector<Tensor> out;
  for (auto* list : {&r.sparse_indices, &r.sparse_values, &r.sparse_shapes, &r.dense_values})
    for (Tensor& t : *list) out.push_back(std::move(t));
  if (with_ragged)
    for (auto* list : {&r.ragged_values, &r.ragged_splits})
      for (Tensor& t : *list) out.push_back(std::move(t));
  return out;
}

std::vector<Tensor> parse_example(const Inputs& in, const AttrReader& attrs, int op_version) {
  const std::string& op = in.op;
  const ExampleAttrs a = example_attrs(attrs, op_version);
  const int64_t want = op_version == 1 ? 2 + a.num_sparse + 2 * a.num_dense : 5 + a.num_dense;
  if (in.size() != want)
    fail(op + ": these attrs take " + std::to_string(want) + " inputs, the node has " + std::to_string(in.size()));
  const Tensor& serialized = in.strings(0, "serialized");
  const Tensor& names = in.strings(1, "names");

  std::vector<std::string> dense_keys, sparse_keys, ragged_keys;
  std::vector<const Tensor*> defaults;
  int first_default;
  if (op_version == 2) {
    sparse_keys = in.strings(2, "sparse_keys").strings();
    dense_keys = in.strings(3, "dense_keys").strings();
    ragged_keys = in.strings(4, "ragged_keys").strings();
    first_default = 5;
  } else {
    const int ns = static_cast<int>(a.num_sparse), nd = static_cast<int>(a.num_dense);
    for (int i = 0; i < ns; ++i) sparse_keys.push_back(in.key(2 + i, "sparse_keys[" + std::to_string(i) + "]"));
    for (int i = 0; i < nd; ++i) dense_keys.push_back(in.key(2 + ns + i, "dense_keys[" + std::to_string(i) + "]"));
    first_default = 2 + ns + nd;
  }
  for (int i = first_default; i < in.size(); ++i) defaults.push_back(&in.at(i));

  // CheckInputShapes.
  if (op_version == 2) {
    if (serialized.shape().rank() > 1)
      fail("Expected serialized to be a scalar or vector, got shape: " + serialized.shape().to_string());
  } else if (serialized.shape().rank() != 1) {
    fail("Expected serialized to be a vector, got shape: " + serialized.shape().to_string());
  }
  if (names.num_elements() > 0 && !(names.shape() == serialized.shape()))
    fail("Expected names have the same shape as serialized: name.shape=" + names.shape().to_string() +
         ", serialized.shape=" + serialized.shape().to_string());
  if (op_version == 2) {
    auto count = [](const char* what, size_t got, int64_t want) {
      if (got != static_cast<size_t>(want))
        fail(std::string("Expected ") + what + " but got: " + std::to_string(got) + " vs. " + std::to_string(want));
    };
    count("len(dense_keys) == len(dense_types)", dense_keys.size(), a.num_dense);
    count("len(sparse_keys) == num_sparse", sparse_keys.size(), a.num_sparse);
    count("len(ragged_keys) == len(ragged_value_types)", ragged_keys.size(), a.num_ragged);
  }
  check_dense_defaults(a, defaults);

  const Config config = make_config(a, dense_keys, sparse_keys, ragged_keys, defaults);
  Result result = serialized.shape().rank() == 1 ? parse_batch(config, serialized.strings(), names.strings())
                                                 : parse_single(config, serialized.strings()[0]);
  return outputs_of(result, op_version == 2);
}

std::vector<Tensor> parse_single_example(const Inputs& in, const AttrReader& attrs) {
  const ExampleAttrs a = single_example_attrs(attrs);
  const Tensor& serialized = in.strings(0, "serialized");
  std::vector<const Tensor*> defaults;
  for (int i = 1; i < in.size(); ++i) defaults.push_back(&in.at(i));
  if (serialized.shape().rank() != 0)
    fail("Expected serialized to be a scalar, got shape: " + serialized.shape().to_string());
  check_dense_defaults(a, defaults);
  const Config config = make_config(a, a.dense_keys, a.sparse_keys, {}, defaults);
  Result result = parse_single(config, serialized.strings()[0]);
  return outputs_of(result, false);
}

Inputs kernel_inputs(const KernelContext& ctx) {
  Inputs in{ctx.node().op, {}};
  for (int i = 0; i < ctx.num_inputs(); ++i) in.tensors.push_back(&ctx.input(i));
  return in;
}

void set_outputs(KernelContext& ctx, std::vector<Tensor> outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(outputs[i]));
}

void parse_example_kernel(KernelContext& ctx) { set_outputs(ctx, parse_example(kernel_inputs(ctx), ctx.attrs(), 1)); }
void parse_example_v2_kernel(KernelContext& ctx) { set_outputs(ctx, parse_example(kernel_inputs(ctx), ctx.attrs(), 2)); }
void parse_single_example_kernel(KernelContext& ctx) {
  set_outputs(ctx, parse_single_example(kernel_inputs(ctx), ctx.attrs()));
}

// TensorFlow leaves the data-dependent dims unknown; when every input is a
// constant, parsing tells them. Bad data is the kernel's to report: then the
// static shapes stand.
template <class Parse>
void refine_from_constants(ShapeContext& ctx, Parse&& parse) {
  Inputs in{ctx.node().op, {}};
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.constant_input(i)) return;
    in.tensors.push_back(ctx.constant_input(i));
  }
  std::vector<Tensor> out;
  try {
    out = parse(in);
  } catch (const Error&) {
    return;
  }
  if (static_cast<int>(out.size()) != ctx.num_outputs()) return;
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, out[static_cast<size_t>(i)].dtype(), out[static_cast<size_t>(i)].shape());
}

// ---- shape functions ------------------------------------------------------------

Shape with_rank(const Shape& s, int rank) {
  if (!s.rank_known()) return unknown_shape(rank);
  if (s.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
  return s;
}

Shape with_rank_at_most(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() > rank)
    fail("Shape must be at most rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
  return s;
}

// The outputs every Parse*Example op shares: sparse (indices, values,
// shapes), then dense values prefixed by the input's shape.
void sparse_and_dense_shapes(ShapeContext& ctx, const ExampleAttrs& a, const Shape& input, int* o) {
  const int64_t rank = input.rank_known() ? input.rank() + 1 : Shape::kUnknownDim;
  for (int64_t i = 0; i < a.num_sparse; ++i) ctx.set_output((*o)++, DType::Int64, Shape{Shape::kUnknownDim, rank});
  for (int64_t i = 0; i < a.num_sparse; ++i)
    ctx.set_output((*o)++, a.sparse_types[static_cast<size_t>(i)], Shape{Shape::kUnknownDim});
  for (int64_t i = 0; i < a.num_sparse; ++i) ctx.set_output((*o)++, DType::Int64, Shape{rank});
  for (size_t i = 0; i < a.dense_shapes.size(); ++i)
    ctx.set_output((*o)++, a.dense_types[i],
                   input.rank_known() ? with_prefix(input.dims(), a.dense_shapes[i].dims(), 0) : Shape::unknown_rank());
}

void parse_example_shape(ShapeContext& ctx) {
  const ExampleAttrs a = example_attrs(ctx.attrs(), 1);
  const Shape input = with_rank(ctx.input(0).shape, 1);
  with_rank(ctx.input(1).shape, 1);
  int o = 0;
  sparse_and_dense_shapes(ctx, a, input, &o);
  refine_from_constants(ctx, [&](const Inputs& in) { return parse_example(in, ctx.attrs(), 1); });
}

void parse_example_v2_shape(ShapeContext& ctx) {
  const ExampleAttrs a = example_attrs(ctx.attrs(), 2);
  const Shape input = with_rank_at_most(ctx.input(0).shape, 1);
  with_rank_at_most(ctx.input(1).shape, 1);
  const int64_t num_examples = input.rank_known() && input.rank() == 1 ? input.dim(0) : Shape::kUnknownDim;
  int o = 0;
  sparse_and_dense_shapes(ctx, a, input, &o);
  for (int64_t i = 0; i < a.num_ragged; ++i)
    ctx.set_output(o++, a.ragged_value_types[static_cast<size_t>(i)], Shape{Shape::kUnknownDim});
  for (int64_t i = 0; i < a.num_ragged; ++i)
    ctx.set_output(o++, a.ragged_split_types[static_cast<size_t>(i)],
                   Shape{num_examples >= 0 ? num_examples + 1 : Shape::kUnknownDim});
  refine_from_constants(ctx, [&](const Inputs& in) { return parse_example(in, ctx.attrs(), 2); });
}

void parse_single_example_shape(ShapeContext& ctx) {
  const ExampleAttrs a = single_example_attrs(ctx.attrs());
  const Shape input = with_rank(ctx.input(0).shape, 0);
  int o = 0;
  sparse_and_dense_shapes(ctx, a, input, &o);
  refine_from_constants(ctx, [&](const Inputs& in) { return parse_single_example(in, ctx.attrs()); });
}

}  // namespace

void register_decode_raw_op(OpRegistry& r);  // decode_raw_ops.cpp

void register_parsing_ops(OpRegistry& r) {
  register_decode_raw_op(r);
  r.add(OpBuilder("ParseExample")
            .input("serialized: string")
            .input("names: string")
            .input("sparse_keys: Nsparse * string")
            .input("dense_keys: Ndense * string")
            .input("dense_defaults: Tdense")
            .output("sparse_indices: Nsparse * int64")
            .output("sparse_values: sparse_types")
            .output("sparse_shapes: Nsparse * int64")
            .output("dense_values: Tdense")
            .attr("Nsparse: int >= 0")
            .attr("Ndense: int >= 0")
            .attr("sparse_types: list({float,int64,string}) >= 0")
            .attr("Tdense: list({float,int64,string}) >= 0")
            .attr("dense_shapes: list(shape) >= 0")
            .shape(parse_example_shape)
            .cpu(parse_example_kernel)
            .no_gradient(kNoGradient)
            .no_gpu(kHostStrings)
            .category("strings")
            .doc("Parses a vector of serialized tf.Example protos into sparse and dense tensors."));
  r.add(OpBuilder("ParseExampleV2")
            .input("serialized: string")
            .input("names: string")
            .input("sparse_keys: string")
            .input("dense_keys: string")
            .input("ragged_keys: string")
            .input("dense_defaults: Tdense")
            .output("sparse_indices: num_sparse * int64")
            .output("sparse_values: sparse_types")
            .output("sparse_shapes: num_sparse * int64")
            .output("dense_values: Tdense")
            .output("ragged_values: ragged_value_types")
            .output("ragged_row_splits: ragged_split_types")
            .attr("Tdense: list({float,int64,string}) >= 0")
            .attr("num_sparse: int >= 0")
            .attr("sparse_types: list({float,int64,string}) >= 0")
            .attr("ragged_value_types: list({float,int64,string}) >= 0")
            .attr("ragged_split_types: list({int32,int64}) >= 0")
            .attr("dense_shapes: list(shape) >= 0")
            .shape(parse_example_v2_shape)
            .cpu(parse_example_v2_kernel)
            .no_gradient(kNoGradient)
            .no_gpu(kHostStrings)
            .category("strings")
            .doc("Parses serialized tf.Example protos (a scalar or a vector) into sparse, dense and ragged tensors."));
  r.add(OpBuilder("ParseSingleExample")
            .input("serialized: string")
            .input("dense_defaults: Tdense")
            .output("sparse_indices: num_sparse * int64")
            .output("sparse_values: sparse_types")
            .output("sparse_shapes: num_sparse * int64")
            .output("dense_values: Tdense")
            .attr("num_sparse: int >= 0")
            .attr("sparse_keys: list(string) >= 0")
            .attr("dense_keys: list(string) >= 0")
            .attr("sparse_types: list({float,int64,string}) >= 0")
            .attr("Tdense: list({float,int64,string}) >= 0")
            .attr("dense_shapes: list(shape) >= 0")
            .shape(parse_single_example_shape)
            .cpu(parse_single_example_kernel)
            .no_gradient(kNoGradient)
            .no_gpu(kHostStrings)
            .category("strings")
            .doc("Parses one serialized tf.Example proto into sparse and dense tensors."));
}

}  // namespace flowlens::ops
