// String ops: StringToHashBucketFast (FarmHash Fingerprint64, bit-exact with
// TensorFlow), StringFormat (the template tf.print builds its line with),
// StringJoin, and ShardedFilename / ShardedFilespec (the names a Saver gives
// its shards). Strings live in host memory, so these run on the CPU wherever
// placed.
#include <farmhash.h>

#include <cstdio>

#include "ops/framework/op_helpers.h"
#include "tensor/tensor_format.h"

namespace flowlens::ops {
namespace {

constexpr const char* kHostStrings = "strings live in host memory; TensorFlow registers a CPU kernel only";

const Tensor& string_input(const KernelContext& ctx, int i) {
  const Tensor& t = input(ctx, i);
  if (t.dtype() != DType::String)
    fail(ctx.node().op + ": input " + std::to_string(i) + " must be a string tensor, got " + dtype_name(t.dtype()));
  return t;
}

// ---- StringToHashBucketFast ----------------------------------------------------

void hash_bucket_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Int64, ctx.input(0).shape); }

void hash_bucket_kernel(KernelContext& ctx) {
  const Tensor& in = string_input(ctx, 0);
  const int64_t num_buckets = ctx.attrs().integer("num_buckets");
  if (num_buckets < 1)
    fail("Value for attr 'num_buckets' of " + std::to_string(num_buckets) + " must be at least minimum 1");
  Tensor& out = ctx.allocate_output(0, DType::Int64, in.shape());
  int64_t* o = out.data<int64_t>();
  const auto& strings = in.strings();
  // TensorFlow's Fingerprint64 is FarmHash's (farmhashna::Hash64 over the raw
  // bytes, embedded NULs included); the bucket fits int64 since num_buckets does.
  for (size_t i = 0; i < strings.size(); ++i)
    o[i] = static_cast<int64_t>(util::Fingerprint64(strings[i].data(), strings[i].size()) %
                                static_cast<uint64_t>(num_buckets));
}

// ---- StringFormat --------------------------------------------------------------

// absl::StrSplit(text, delimiter): an empty delimiter splits between every
// character; an empty text is one empty piece.
std::vector<std::string> split_template(const std::string& text, const std::string& delimiter) {
  std::vector<std::string> pieces;
  if (delimiter.empty()) {
    for (char c : text) pieces.emplace_back(1, c);
    if (pieces.empty()) pieces.emplace_back();
    return pieces;
  }
  size_t start = 0;
  for (size_t hit; (hit = text.find(delimiter, start)) != std::string::npos; start = hit + delimiter.size())
    pieces.push_back(text.substr(start, hit - start));
  pieces.push_back(text.substr(start));
  return pieces;
}

std::vector<std::string> template_pieces(const AttrReader& attrs, int num_inputs) {
  std::vector<std::string> pieces = split_template(attrs.string("template"), attrs.string("placeholder"));
  const auto placeholders = static_cast<int64_t>(pieces.size()) - 1;
  if (placeholders != num_inputs)
    fail("num placeholders in template and num inputs must match: " + std::to_string(placeholders) + " vs. " +
         std::to_string(num_inputs));
  return pieces;
}

void string_format_shape(ShapeContext& ctx) {
  template_pieces(ctx.attrs(), ctx.num_inputs());
  ctx.set_output(0, DType::String, Shape{});
}

void string_format_kernel(KernelContext& ctx) {
  const std::vector<std::string> pieces = template_pieces(ctx.attrs(), ctx.num_inputs());
  const int64_t summarize = ctx.attrs().integer("summarize");
  // TensorFlow appends each piece through c_str(): a piece stops at a NUL.
  auto piece = [&](size_t k) { return std::string(pieces[k].c_str()); };
  std::string text = piece(0);
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    text += summarize_value(input(ctx, i), summarize, /*print_v2=*/true);
    text += piece(static_cast<size_t>(i) + 1);
  }
  ctx.allocate_output(0, DType::String, Shape{}).strings()[0] = std::move(text);
}

// ---- StringJoin ----------------------------------------------------------------

// InferenceContext::Merge's checks, with its wording.
Shape merge_equal(const Shape& a, const Shape& b) {
  if (!a.rank_known()) return b;
  if (!b.rank_known()) return a;
  if (a.rank() != b.rank())
    fail("Shapes must be equal rank, but are " + std::to_string(a.rank()) + " and " + std::to_string(b.rank()));
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dim(i) >= 0 && b.dim(i) >= 0 && a.dim(i) != b.dim(i))
      fail("Dimension " + std::to_string(i) + " in both shapes must be equal, but are " + std::to_string(a.dim(i)) +
           " and " + std::to_string(b.dim(i)) + ". Shapes are " + a.to_string() + " and " + b.to_string() + ".");
    if (dims[static_cast<size_t>(i)] < 0) dims[static_cast<size_t>(i)] = b.dim(i);
  }
  return Shape(std::move(dims));
}

// All scalars give a scalar; otherwise the non-scalar inputs (of known rank:
// an unknown one may still be a scalar) merge into the output's shape.
void string_join_shape(ShapeContext& ctx) {
  bool all_scalar = true;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input(i).shape;
    if (!s.rank_known() || s.rank() != 0) all_scalar = false;
  }
  if (all_scalar) {
    ctx.set_output(0, DType::String, Shape{});
    return;
  }
  Shape out = Shape::unknown_rank();
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input(i).shape;
    if (s.rank_known() && s.rank() != 0) out = merge_equal(out, s);
  }
  ctx.set_output(0, DType::String, out);
}

// Joins the inputs element-wise with the separator; scalars stand for every
// element, all other inputs must share one shape (no other broadcasting).
void string_join_kernel(KernelContext& ctx) {
  const std::string& separator = ctx.attrs().string("separator");
  Shape shape;
  std::vector<const std::vector<std::string>*> inputs;
  std::vector<bool> is_scalar;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Tensor& t = string_input(ctx, i);
    inputs.push_back(&t.strings());
    is_scalar.push_back(t.shape().rank() == 0);
    if (t.shape().rank() == 0) continue;
    if (shape.rank() == 0)
      shape = t.shape();
    else if (!(shape == t.shape()))
      fail("Input shapes do not match: " + shape.to_string() + " vs. " + t.shape().to_string());
  }
  Tensor& out = ctx.allocate_output(0, DType::String, shape);
  auto& strings = out.strings();
  for (size_t k = 0; k < strings.size(); ++k) {
    std::string joined;
    for (size_t j = 0; j < inputs.size(); ++j) {
      if (j) joined += separator;
      joined += (*inputs[j])[is_scalar[j] ? 0 : k];
    }
    strings[k] = std::move(joined);
  }
}

// ---- ShardedFilename / ShardedFilespec -------------------------------------------

// ScalarInputsAndOutputs: every input a scalar, one scalar output.
void scalar_inputs_shape(ShapeContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input(i).shape;
    if (s.rank_known() && s.rank() != 0) fail("Shape must be rank 0 but is rank " + std::to_string(s.rank()));
  }
  ctx.set_output(0, DType::String, Shape{});
}

// printf's "%05d".
std::string zero_padded(int32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%05d", v);
  return buf;
}

// The checked scalar inputs of the sharded-name ops: the basename as printf's
// "%s" reads it (up to a NUL), then the int32 inputs.
std::pair<std::string, std::vector<int32_t>> sharded_name_inputs(const KernelContext& ctx,
                                                                 std::initializer_list<const char*> names) {
  int i = 0;
  for (const char* name : names) {
    const Tensor& t = input(ctx, i);
    if (t.shape().rank() != 0) fail(std::string(name) + " must be a scalar, got shape " + t.shape().to_string());
    const DType want = i == 0 ? DType::String : DType::Int32;
    if (t.dtype() != want)
      fail(ctx.node().op + ": " + name + " must be " + dtype_name(want) + ", got " + dtype_name(t.dtype()));
    ++i;
  }
  std::vector<int32_t> ints;
  for (int k = 1; k < i; ++k) ints.push_back(input(ctx, k).data<int32_t>()[0]);
  return {std::string(input(ctx, 0).strings()[0].c_str()), std::move(ints)};
}

void sharded_filename_kernel(KernelContext& ctx) {
  const auto [basename, ints] = sharded_name_inputs(ctx, {"basename", "shard", "num_shards"});
  ctx.allocate_output(0, DType::String, Shape{}).strings()[0] =
      basename + "-" + zero_padded(ints[0]) + "-of-" + zero_padded(ints[1]);
}

void sharded_filespec_kernel(KernelContext& ctx) {
  const auto [basename, ints] = sharded_name_inputs(ctx, {"basename", "num_shards"});
  ctx.allocate_output(0, DType::String, Shape{}).strings()[0] = basename + "-\?\?\?\?\?-of-" + zero_padded(ints[0]);
}

}  // namespace

void register_string_ops(OpRegistry& r) {
  r.add(OpBuilder("StringToHashBucketFast")
            .input("input: string")
            .output("output: int64")
            .attr("num_buckets: int >= 1")
            .shape(hash_bucket_shape)
            .cpu(hash_bucket_kernel)
            .not_differentiable("TensorFlow: ops.NotDifferentiable(\"StringToHashBucketFast\"); strings carry no gradient")
            .no_gpu(kHostStrings)
            .category("strings")
            .doc("Fingerprint64 of each string modulo num_buckets."));
  r.add(OpBuilder("StringFormat")
            .input("inputs: T")
            .output("output: string")
            .attr("T: list(type) >= 0")
            .attr("template: string = '%s'")
            .attr("placeholder: string = '%s'")
            .attr("summarize: int = 3")
            .shape(string_format_shape)
            .cpu(string_format_kernel)
            .no_gradient("TensorFlow registers none: the output is a string")
            .no_gpu(kHostStrings)
            .category("strings")
            .doc("Formats tensors into a template string, as tf.print does."));
  r.add(OpBuilder("StringJoin")
            .input("inputs: N * string")
            .attr("N: int")
            .attr("separator: string = ''")
            .output("output: string")
            .shape(string_join_shape)
            .cpu(string_join_kernel)
            .no_gradient("TensorFlow registers none: the output is a string")
            .no_gpu(kHostStrings)
            .category("strings")
            .doc("Joins N string tensors element-wise with a separator; scalars stand for every element."));
  r.add(OpBuilder("ShardedFilename")
            .input("basename: string")
            .input("shard: int32")
            .input("num_shards: int32")
            .output("filename: string")
            .shape(scalar_inputs_shape)
            .cpu(sharded_filename_kernel)
            .no_gradient("TensorFlow registers none: the output is a string")
            .no_gpu(kHostStrings)
            .category("strings")
            .doc("The name of one checkpoint shard: basename-SSSSS-of-NNNNN."));
  r.add(OpBuilder("ShardedFilespec")
            .input("basename: string")
            .input("num_shards: int32")
            .output("filename: string")
            .shape(scalar_inputs_shape)
            .cpu(sharded_filespec_kernel)
            .no_gradient("TensorFlow registers none: the output is a string")
            .no_gpu(kHostStrings)
            .category("strings")
            .doc("The glob of all checkpoint shards: basename-\?\?\?\?\?-of-NNNNN."));
}

}  // namespace flowlens::ops
