#include "model_printing.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "common/error.h"
#include "tensor/npy.h"
#include "tensor/tensor_parse.h"

namespace flowlens::cli {
namespace {

std::string tensor_type(DType dtype, const Shape& shape) {
  return (dtype == DType::Invalid ? std::string("?") : dtype_name(dtype)) + shape.to_string();
}

std::string human_bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  std::ostringstream s;
  if (unit == 0)
    s << bytes << " B";
  else
    s << std::fixed << std::setprecision(1) << value << " " << units[unit];
  return s.str();
}

void print_tensors(std::ostream& out, const char* title, const std::vector<SignatureTensor>& tensors) {
  out << "      " << title << ":\n";
  for (const SignatureTensor& t : tensors) {
    out << "        " << t.key << ": " << tensor_type(t.dtype, t.shape);
    if (!t.tensor_name.empty()) out << "  (" << t.tensor_name << ")";
    if (t.encoding != "name") out << "  [" << t.encoding << "]";
    out << "\n";
  }
}

}  // namespace

void print_signatures(std::ostream& out, const MetaGraph& meta) {
  if (meta.signatures.empty()) {
    out << "  signatures: none\n";
    return;
  }
  out << "  signatures: " << meta.signatures.size() << "\n";
  for (const Signature& sig : meta.signatures) {
    out << "    " << sig.key << "  (" << (sig.method_name.empty() ? "no method" : sig.method_name) << ")\n";
    print_tensors(out, "inputs", sig.inputs);
    print_tensors(out, "outputs", sig.outputs);
  }
}

void print_meta_graph(std::ostream& out, const MetaGraph& meta) {
  out << "  tags: " << meta.tags_text() << "\n";
  if (!meta.tensorflow_version.empty()) out << "  written by: TensorFlow " << meta.tensorflow_version << "\n";
  out << "  nodes: " << meta.graph.size();
  if (!meta.graph.function_names.empty()) out << "  (+ " << meta.graph.function_names.size() << " library functions)";
  out << "\n";
  if (meta.has_object_graph)
    out << "  TF2 object graph: yes (signatures, save and restore run as function calls)\n";
  if (meta.saver) {
    const SaverInfo& s = *meta.saver;
    out << "  saver: restore op " << s.restore_op << ", filename tensor " << s.filename_tensor << ", "
        << (s.version == 2 ? "V2" : s.version == 1 ? "V1" : "legacy") << " checkpoints"
        << (s.sharded ? ", sharded" : "") << "\n";
  } else {
    out << "  saver: none\n";
  }
  print_signatures(out, meta);
  if (!meta.collections.empty()) {
    out << "  collections:\n";
    for (const Collection& c : meta.collections) {
      out << "    " << c.name << " (" << c.values.size() << " " << c.kind << ")";
      const std::size_t shown = std::min<std::size_t>(c.values.size(), 4);
      for (std::size_t k = 0; k < shown; ++k) out << (k ? ", " : ": ") << c.values[k];
      if (c.values.size() > shown) out << ", ...";
      out << "\n";
    }
  }
  for (const AssetFile& a : meta.assets) out << "  asset: " << a.filename << " -> " << a.tensor_name << "\n";
}

void print_checkpoint_entries(std::ostream& out, const CheckpointReader& reader) {
  std::size_t name_width = 4;
  for (const auto& e : reader.entries()) name_width = std::max(name_width, e.name.size());
  int64_t total = 0;
  for (const auto& e : reader.entries()) {
    out << "  " << std::left << std::setw(static_cast<int>(name_width)) << e.name << "  " << std::setw(10)
        << dtype_name(e.dtype) << " " << std::setw(16) << e.shape.to_string() << " " << human_bytes(e.size);
    if (e.num_slices > 0) out << "  (" << e.num_slices << " slices)";
    out << "\n";
    total += e.size;
  }
  out << std::right << "  " << reader.entries().size() << " tensor(s), " << human_bytes(total) << " in "
      << reader.num_shards() << " shard(s) (" << reader.format_name() << ")\n";
}

std::map<std::string, Tensor> parse_signature_inputs(const std::vector<std::string>& specs, const Signature& sig) {
  std::map<std::string, Tensor> inputs;
  for (const std::string& spec : specs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--input '" + spec + "': expected KEY=VALUE or KEY=file.npy");
    const std::string key = spec.substr(0, eq);
    const std::string text = spec.substr(eq + 1);
    const SignatureTensor* in = sig.input(key);
    if (!in) {
      std::string keys;
      for (const auto& t : sig.inputs) keys += (keys.empty() ? "" : ", ") + t.key;
      throw Error("--input '" + key + "': signature '" + sig.key + "' has no such input; its inputs are " +
                  (keys.empty() ? std::string("none") : keys));
    }
    if (inputs.count(key)) throw Error("--input '" + key + "' is given twice");
    if (text.ends_with(".npy")) {
      inputs.emplace(key, read_npy(text));
      continue;
    }
    const DType dtype = in->dtype == DType::Invalid ? DType::Float : in->dtype;
    const bool bare_list = text.find(',') != std::string::npos && text.find('[') == std::string::npos &&
                           dtype != DType::String;
    Tensor value;
    try {
      value = parse_tensor_text(bare_list ? "[" + text + "]" : text, dtype);
    } catch (const Error& e) {
      throw Error("--input '" + key + "': " + e.what());
    }
    // Bare values fill the input's shape: the one unknown (or leading) dim
    // takes what is left, as numpy's reshape(-1, ...) would.
    if (in->shape.rank_known() && value.shape().rank() != in->shape.rank() && value.shape().rank() <= 1) {
      std::vector<int64_t> dims = in->shape.dims();
      int64_t known = 1;
      int unknown = -1;
      for (std::size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] < 0) {
          if (unknown >= 0) dims[k] = 1;
          else unknown = static_cast<int>(k);
        }
        if (dims[k] >= 0) known *= dims[k];
      }
      if (unknown >= 0 && known > 0 && value.num_elements() % known == 0) {
        dims[static_cast<std::size_t>(unknown)] = value.num_elements() / known;
      }
      const Shape target(dims);
      if (target.fully_defined() && target.num_elements() == value.num_elements()) value = value.reshaped(target);
    }
    inputs.emplace(key, std::move(value));
  }
  return inputs;
}

}  // namespace flowlens::cli
