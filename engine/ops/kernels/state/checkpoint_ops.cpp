// The ops tf.train.Saver and SavedModel put in graphs to save and restore
// variables (TensorFlow's io_ops / save_restore_v2_ops): SaveV2, RestoreV2 and
// MergeV2Checkpoints, reading and writing V2 checkpoints through
// io/tensor_bundle.h. They touch files, so they are stateful (never folded,
// never pruned as duplicates) and run on the host.
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "io/checkpoint_reader.h"
#include "io/tensor_bundle.h"
#include "io/tensor_slice_checkpoint.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHostFiles = "checkpoint files are read and written by the host; TensorFlow has CPU kernels only";

const std::string& scalar_string(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = input(ctx, i);
  if (t.dtype() != DType::String || t.num_elements() != 1 || t.shape().rank() != 0)
    fail(ctx.node().op + ": " + what + " must be a string scalar, got " + dtype_name(t.dtype()) +
         t.shape().to_string());
  return t.strings()[0];
}

const std::vector<std::string>& string_vector(const KernelContext& ctx, int i, const char* what, int64_t expected) {
  const Tensor& t = input(ctx, i);
  if (t.dtype() != DType::String || t.shape().rank() != 1)
    fail(ctx.node().op + ": " + what + " must be a 1-D string tensor, got " + dtype_name(t.dtype()) +
         t.shape().to_string());
  if (expected >= 0 && t.num_elements() != expected)
    fail(ctx.node().op + ": " + what + " has " + std::to_string(t.num_elements()) + " elements; expected " +
         std::to_string(expected));
  return t.strings();
}

// A parsed "shape_and_slices" item (checkpoint::ParseShapeAndSlice):
// "d0 d1 ... start,length:start,length" with "-" for a whole dimension.
struct SliceSpec {
  Shape full;
  std::vector<std::pair<int64_t, int64_t>> extents;  // (start, length); length -1: whole
  bool whole() const {
    for (std::size_t k = 0; k < extents.size(); ++k)
      if (extents[k].second != -1 && !(extents[k].first == 0 && extents[k].second == full.dim(static_cast<int>(k))))
        return false;
    return true;
  }
};

int64_t parse_int(const std::string& text, const std::string& spec) {
  std::size_t used = 0;
  int64_t value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < 0)
    fail("invalid shape_and_slices entry '" + spec + "': '" + text + "' is not a non-negative integer");
  return value;
}

SliceSpec parse_slice_spec(const std::string& spec) {
  std::vector<std::string> words;
  for (std::size_t start = 0; start <= spec.size();) {
    const std::size_t space = spec.find(' ', start);
    const std::size_t end = space == std::string::npos ? spec.size() : space;
    if (end > start) words.push_back(spec.substr(start, end - start));
    start = end + 1;
  }
  if (words.size() < 2)
    fail("invalid shape_and_slices entry '" + spec + "': expected the full shape's dims and then a slice");
  SliceSpec out;
  std::vector<int64_t> dims;
  for (std::size_t k = 0; k + 1 < words.size(); ++k) dims.push_back(parse_int(words[k], spec));
  out.full = Shape(dims);
  const std::string& slice = words.back();
  for (std::size_t start = 0; start <= slice.size();) {
    const std::size_t colon = slice.find(':', start);
    const std::size_t end = colon == std::string::npos ? slice.size() : colon;
    const std::string part = slice.substr(start, end - start);
    if (part == "-") {
      out.extents.push_back({0, -1});
    } else {
      const std::size_t comma = part.find(',');
      if (comma == std::string::npos) fail("invalid shape_and_slices entry '" + spec + "': bad extent '" + part + "'");
      out.extents.push_back({parse_int(part.substr(0, comma), spec), parse_int(part.substr(comma + 1), spec)});
    }
    start = end + 1;
  }
  if (out.extents.size() != dims.size())
    fail("invalid shape_and_slices entry '" + spec + "': " + std::to_string(out.extents.size()) +
         " extents for a shape of rank " + std::to_string(dims.size()));
  for (std::size_t k = 0; k < dims.size(); ++k) {
    auto& [start, length] = out.extents[k];
    if (length == -1) continue;
    if (start > dims[k] || length > dims[k] - start)
      fail("invalid shape_and_slices entry '" + spec + "': extent " + std::to_string(start) + "," +
           std::to_string(length) + " outside dimension " + std::to_string(k) + " of size " + std::to_string(dims[k]));
  }
  return out;
}

// Copies the slice `spec` out of a whole tensor of shape spec.full.
Tensor extract_slice(const Tensor& whole, const SliceSpec& spec) {
  const int rank = spec.full.rank();
  std::vector<int64_t> start(static_cast<std::size_t>(rank)), size(static_cast<std::size_t>(rank));
  for (int k = 0; k < rank; ++k) {
    const auto& [s, l] = spec.extents[static_cast<std::size_t>(k)];
    start[static_cast<std::size_t>(k)] = l == -1 ? 0 : s;
    size[static_cast<std::size_t>(k)] = l == -1 ? spec.full.dim(k) : l;
  }
  Tensor out(whole.dtype(), Shape(size));
  std::vector<int64_t> stride(static_cast<std::size_t>(rank), 1);
  for (int k = rank - 2; k >= 0; --k)
    stride[static_cast<std::size_t>(k)] = stride[static_cast<std::size_t>(k) + 1] * spec.full.dim(k + 1);
  const std::size_t element = whole.dtype() == DType::String ? 0 : dtype_size(whole.dtype());
  std::vector<int64_t> index(static_cast<std::size_t>(rank), 0);
  for (int64_t n = 0; n < out.num_elements(); ++n) {
    int64_t source = 0;
    for (int k = 0; k < rank; ++k)
      source += (start[static_cast<std::size_t>(k)] + index[static_cast<std::size_t>(k)]) * stride[static_cast<std::size_t>(k)];
    if (element == 0)
      out.strings()[static_cast<std::size_t>(n)] = whole.strings()[static_cast<std::size_t>(source)];
    else
      std::memcpy(static_cast<char*>(out.raw_data()) + n * static_cast<int64_t>(element),
                  static_cast<const char*>(whole.raw_data()) + source * static_cast<int64_t>(element), element);
    for (int k = rank - 1; k >= 0; --k) {
      if (++index[static_cast<std::size_t>(k)] < size[static_cast<std::size_t>(k)]) break;
      index[static_cast<std::size_t>(k)] = 0;
    }
  }
  return out;
}

// ---- RestoreV2 -------------------------------------------------------------------

void restore_v2_shape(ShapeContext& ctx) {
  const auto& dtypes = ctx.attrs().list("dtypes").type;
  for (int i = 0; i < ctx.num_outputs() && i < static_cast<int>(dtypes.size()); ++i)
    ctx.set_output(i, dtypes[static_cast<std::size_t>(i)], Shape::unknown_rank());
}

void restore_v2_kernel(KernelContext& ctx) {
  const std::string& prefix = scalar_string(ctx, 0, "prefix");
  const auto& dtypes = ctx.attrs().list("dtypes").type;
  const auto n = static_cast<int64_t>(dtypes.size());
  const auto& names = string_vector(ctx, 1, "tensor_names", n);
  const auto& slices = string_vector(ctx, 2, "shape_and_slices", n);
  // As TensorFlow: the V2 bundle at `prefix`, else V1 files matching it.
  std::unique_ptr<CheckpointReader> opened;
  try {
    opened = open_checkpoint(prefix);
  } catch (const Error& e) {
    fail(std::string("RestoreV2: ") + e.what());
  }
  const CheckpointReader& reader = *opened;
  for (int64_t i = 0; i < n; ++i) {
    const std::string& name = names[static_cast<std::size_t>(i)];
    const DType expected = dtypes[static_cast<std::size_t>(i)];
    const CheckpointEntry* entry = reader.find(name);
    if (!entry) {
      // TensorFlow: "Key <name> not found in checkpoint"; read() adds nearby names.
      try {
        reader.read(name);
      } catch (const Error& e) {
        fail("RestoreV2: key " + name + " not found in checkpoint: " + e.what());
      }
      fail("RestoreV2: key " + name + " not found in checkpoint '" + prefix + "'");
    }
    if (entry->dtype != expected)
      fail("RestoreV2: tensor_name = " + name + "; expected dtype " + dtype_name(expected) +
           " does not equal original dtype " + dtype_name(entry->dtype) + " in checkpoint '" + prefix + "'");
    Tensor value = reader.read(name);
    const std::string& spec_text = slices[static_cast<std::size_t>(i)];
    if (!spec_text.empty()) {
      const SliceSpec spec = parse_slice_spec(spec_text);
      if (!(spec.full == value.shape()))
        fail("RestoreV2: tensor " + name + " has shape " + value.shape().to_string() + " in checkpoint '" + prefix +
             "', but shape_and_slices '" + spec_text + "' names a tensor of shape " + spec.full.to_string());
      if (!spec.whole()) value = extract_slice(value, spec);
    }
    ctx.set_output(static_cast<int>(i), std::move(value));
  }
}

// Savers have no outputs; their shape function has nothing to say.
void no_outputs_shape(ShapeContext&) {}

// ---- SaveV2 ----------------------------------------------------------------------

void save_v2_kernel(KernelContext& ctx) {
  const std::string& prefix = scalar_string(ctx, 0, "prefix");
  const int n = ctx.num_inputs() - 3;
  const auto& names = string_vector(ctx, 1, "tensor_names", n);
  const auto& slices = string_vector(ctx, 2, "shape_and_slices", n);
  BundleWriter writer(prefix);
  for (int i = 0; i < n; ++i) {
    const Tensor& value = input(ctx, 3 + i);
    const std::string& spec_text = slices[static_cast<std::size_t>(i)];
    if (!spec_text.empty() && !parse_slice_spec(spec_text).whole())
      fail("SaveV2: saving tensor " + names[static_cast<std::size_t>(i)] + " as the slice '" + spec_text +
           "' (a partitioned variable) is not supported");
    writer.add(names[static_cast<std::size_t>(i)], value.to_host());
  }
  writer.finish();
}

// ---- MergeV2Checkpoints ------------------------------------------------------------

void merge_v2_kernel(KernelContext& ctx) {
  const auto& prefixes = string_vector(ctx, 0, "checkpoint_prefixes", -1);
  const std::string& destination = scalar_string(ctx, 1, "destination_prefix");
  const bool delete_old_dirs = ctx.attrs().boolean("delete_old_dirs");
  std::vector<std::string> present;
  for (const std::string& p : prefixes) {
    if (is_bundle_prefix(p) || !ctx.attrs().boolean("allow_missing_files")) present.push_back(p);
  }
  merge_bundles(present, destination);
  if (!delete_old_dirs) return;
  // The Saver writes shards into "<prefix>_temp_<uuid>/part-NNNNN-of-NNNNN";
  // their directories are removed once empty, as TensorFlow does.
  for (const std::string& p : present) {
    const fs::path dir = fs::path(p).parent_path();
    std::error_code ec;
    if (!dir.empty() && dir != fs::path(destination).parent_path() && fs::is_empty(dir, ec) && !ec)
      fs::remove(dir, ec);
  }
}

// ---- V1: Save, SaveSlices, Restore, RestoreSlice ------------------------------------

void save_v1(KernelContext& ctx, int first_tensor, int slices_input) {
  const std::string& filename = scalar_string(ctx, 0, "filename");
  const int n = ctx.num_inputs() - first_tensor;
  const auto& names = string_vector(ctx, 1, "tensor_names", n);
  std::map<std::string, Tensor> tensors;
  for (int i = 0; i < n; ++i) {
    if (slices_input >= 0) {
      const auto& slices = string_vector(ctx, slices_input, "shapes_and_slices", n);
      const std::string& spec = slices[static_cast<std::size_t>(i)];
      if (!spec.empty() && !parse_slice_spec(spec).whole())
        fail(ctx.node().op + ": saving tensor " + names[static_cast<std::size_t>(i)] + " as the slice '" + spec +
             "' (a partitioned variable) is not supported");
    }
    if (!tensors.emplace(names[static_cast<std::size_t>(i)], input(ctx, first_tensor + i).to_host()).second)
      fail(ctx.node().op + ": tensor " + names[static_cast<std::size_t>(i)] + " is saved twice");
  }
  write_tensor_slice_checkpoint(filename, tensors);
}

void save_kernel(KernelContext& ctx) { save_v1(ctx, 2, -1); }
void save_slices_kernel(KernelContext& ctx) { save_v1(ctx, 3, 2); }

void restore_v1(KernelContext& ctx, bool sliced) {
  const std::string& pattern = scalar_string(ctx, 0, "file_pattern");
  const std::string& name = scalar_string(ctx, 1, "tensor_name");
  const DType expected = ctx.attrs().type("dt");
  std::unique_ptr<CheckpointReader> reader;
  try {
    reader = open_checkpoint(pattern);
  } catch (const Error& e) {
    fail(ctx.node().op + ": " + e.what());
  }
  const CheckpointEntry* entry = reader->find(name);
  if (!entry) fail(ctx.node().op + ": tensor " + name + " not found in checkpoint files " + pattern);
  if (entry->dtype != expected)
    fail(ctx.node().op + ": tensor " + name + " has dtype " + dtype_name(entry->dtype) + " in " + pattern +
         "; expected " + dtype_name(expected));
  Tensor value = reader->read(name);
  if (sliced) {
    const std::string& spec_text = scalar_string(ctx, 2, "shape_and_slice");
    if (!spec_text.empty()) {
      const SliceSpec spec = parse_slice_spec(spec_text);
      if (!(spec.full == value.shape()))
        fail(ctx.node().op + ": tensor " + name + " has shape " + value.shape().to_string() + ", but '" + spec_text +
             "' names a tensor of shape " + spec.full.to_string());
      if (!spec.whole()) value = extract_slice(value, spec);
    }
  }
  ctx.set_output(0, std::move(value));
}

void restore_kernel(KernelContext& ctx) { restore_v1(ctx, false); }
void restore_slice_kernel(KernelContext& ctx) { restore_v1(ctx, true); }

void restore_v1_shape(ShapeContext& ctx) { ctx.set_output(0, ctx.attrs().type("dt"), Shape::unknown_rank()); }

}  // namespace

void register_checkpoint_ops(OpRegistry& r) {
  r.add(OpBuilder("Save")
            .input("filename: string")
            .input("tensor_names: string")
            .input("data: T")
            .attr("T: list(type)")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(save_kernel)
            .no_gradient("writes a checkpoint file; it has no outputs")
            .no_gpu(kHostFiles)
            .category("io")
            .doc("Writes tensors to a V1 checkpoint file (a tensor-slice table)."));
  r.add(OpBuilder("SaveSlices")
            .input("filename: string")
            .input("tensor_names: string")
            .input("shapes_and_slices: string")
            .input("data: T")
            .attr("T: list(type)")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(save_slices_kernel)
            .no_gradient("writes a checkpoint file; it has no outputs")
            .no_gpu(kHostFiles)
            .category("io")
            .doc("Writes tensors (whole slices) to a V1 checkpoint file."));
  r.add(OpBuilder("Restore")
            .input("file_pattern: string")
            .input("tensor_name: string")
            .output("tensor: dt")
            .attr("dt: type")
            .attr("preferred_shard: int = -1")
            .stateful()
            .shape(restore_v1_shape)
            .cpu(restore_kernel)
            .no_gradient("reads a checkpoint file; TensorFlow registers no gradient")
            .no_gpu(kHostFiles)
            .category("io")
            .doc("Reads a tensor from V1 checkpoint files matching file_pattern."));
  r.add(OpBuilder("RestoreSlice")
            .input("file_pattern: string")
            .input("tensor_name: string")
            .input("shape_and_slice: string")
            .output("tensor: dt")
            .attr("dt: type")
            .attr("preferred_shard: int = -1")
            .stateful()
            .shape(restore_v1_shape)
            .cpu(restore_slice_kernel)
            .no_gradient("reads a checkpoint file; TensorFlow registers no gradient")
            .no_gpu(kHostFiles)
            .category("io")
            .doc("Reads a tensor, or a slice of it, from V1 checkpoint files matching file_pattern."));
  r.add(OpBuilder("RestoreV2")
            .input("prefix: string")
            .input("tensor_names: string")
            .input("shape_and_slices: string")
            .output("tensors: dtypes")
            .attr("dtypes: list(type) >= 1")
            .stateful()
            .shape(restore_v2_shape)
            .cpu(restore_v2_kernel)
            .no_gradient("reads a checkpoint file; TensorFlow registers no gradient")
            .no_gpu(kHostFiles)
            .category("io")
            .doc("Reads the named tensors (or slices of them) from a V2 checkpoint."));
  r.add(OpBuilder("SaveV2")
            .input("prefix: string")
            .input("tensor_names: string")
            .input("shape_and_slices: string")
            .input("tensors: dtypes")
            .attr("dtypes: list(type) >= 1")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(save_v2_kernel)
            .no_gradient("writes a checkpoint file; it has no outputs")
            .no_gpu(kHostFiles)
            .category("io")
            .doc("Writes tensors to a V2 checkpoint (PREFIX.index and PREFIX.data-00000-of-00001)."));
  r.add(OpBuilder("MergeV2Checkpoints")
            .input("checkpoint_prefixes: string")
            .input("destination_prefix: string")
            .attr("delete_old_dirs: bool = true")
            .attr("allow_missing_files: bool = false")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(merge_v2_kernel)
            .no_gradient("merges checkpoint files; it has no outputs")
            .no_gpu(kHostFiles)
            .category("io")
            .doc("Merges the V2 checkpoints a sharded Saver wrote into one under destination_prefix."));
}

}  // namespace flowlens::ops
