// String ops: StringToHashBucketFast (FarmHash Fingerprint64, bit-exact with
// TensorFlow) and StringFormat (the template tf.print builds its line with).
// Strings live in host memory, so these run on the CPU wherever placed.
#include <farmhash.h>

#include "ops/op_helpers.h"
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
}

}  // namespace flowlens::ops
