// DecodeRaw: each string of `bytes` reinterpreted as a vector of out_type
// (TensorFlow's decode_raw_op.cc). All strings must have one length, a
// multiple of the element size; the output is bytes' shape plus that many
// elements (0 for no strings or empty ones). little_endian = false swaps the
// bytes of each element (each half of a complex number); one-byte types are
// copied as they are. bool bytes other than 0 read as true.
#include <algorithm>
#include <bit>
#include <cstring>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

// out_type's allowed set (parsing_ops.cc), in TF's order.
const std::vector<DType>& decode_raw_types() {
  static const std::vector<DType> types = {DType::Half,  DType::Float, DType::Double,    DType::Int32,
                                           DType::UInt16, DType::UInt8, DType::Int16,    DType::Int8,
                                           DType::Int64,  DType::Complex64, DType::Complex128, DType::Bool,
                                           DType::BFloat16};
  return types;
}

// The common length of the strings (-1 when there are none), or TF's error.
int64_t common_size(const std::vector<std::string>& strings) {
  int64_t str_size = -1;
  for (size_t i = 0; i < strings.size(); ++i) {
    const auto size = static_cast<int64_t>(strings[i].size());
    if (str_size == -1) str_size = size;
    else if (str_size != size)
      fail("DecodeRaw requires input strings to all be the same size, but element " + std::to_string(i) +
           " has size " + std::to_string(str_size) + " != " + std::to_string(size));
  }
  return str_size;
}

// The added dimension: 0 for no or empty strings, else length / element size.
int64_t added_dim(int64_t str_size, DType out_type) {
  if (str_size <= 0) return 0;
  const auto elem = static_cast<int64_t>(dtype_size(out_type));
  if (elem <= 0) unsupported_dtype("DecodeRaw", out_type);
  if (str_size % elem != 0)
    fail("Input to DecodeRaw has length " + std::to_string(str_size) + " that is not a multiple of " +
         std::to_string(elem) + ", the size of " + dtype_name(out_type));
  return str_size / elem;
}

void decode_raw_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& in = input(ctx, 0);
  if (in.dtype() != DType::String) fail("DecodeRaw: bytes must be a string tensor, got " + dtype_name(in.dtype()));
  const DType out_type = ctx.attrs().type("out_type");
  const auto& allowed = decode_raw_types();
  if (std::find(allowed.begin(), allowed.end(), out_type) == allowed.end())
    unsupported_dtype("DecodeRaw", out_type);
  const bool little_endian = ctx.attrs().boolean("little_endian");
  const auto& strings = in.strings();
  const int64_t str_size = common_size(strings);
  std::vector<int64_t> dims = in.shape().dims();
  dims.push_back(added_dim(str_size, out_type));
  if (dims.back() == 0) {
    ctx.allocate_output(0, out_type, Shape(dims));
    return;
  }
  const auto elem = static_cast<int64_t>(dtype_size(out_type));
  checked_elements("DecodeRaw", dims);  // strings.size() * str_size bytes already exist, so this holds
  Tensor& out = ctx.allocate_output(0, out_type, Shape(dims));
  auto* o = static_cast<char*>(out.raw_data());
  const bool swap = (std::endian::native == std::endian::little) != little_endian && elem > 1;
  // Complex numbers swap their real and imaginary parts separately.
  const int64_t swap_size = out_type == DType::Complex64 || out_type == DType::Complex128 ? elem / 2 : elem;
  for (const std::string& s : strings) {
    if (!swap) {
      std::memcpy(o, s.data(), static_cast<size_t>(str_size));
    } else {
      for (int64_t p = 0; p < str_size; p += swap_size) std::reverse_copy(s.data() + p, s.data() + p + swap_size, o + p);
    }
    o += str_size;
  }
  if (out_type == DType::Bool) {  // a bool holds 0 or 1 only
    auto* b = static_cast<unsigned char*>(out.raw_data());
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) b[i] = b[i] != 0;
  }
}

// bytes' shape with one more dimension, of unknown size (TensorFlow's);
// known when the strings are a constant.
void decode_raw_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const DType t = ctx.node().attr_type("out_type", DType::Invalid);
  if (!in.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  std::vector<int64_t> dims = in.dims();
  const Tensor* c = ctx.constant_input(0);
  if (c && c->dtype() == DType::String && t != DType::Invalid) dims.push_back(added_dim(common_size(c->strings()), t));
  else dims.push_back(Shape::kUnknownDim);
  ctx.set_output(0, t, Shape(dims));
}

}  // namespace

void register_decode_raw_op(OpRegistry& r) {
  r.add(OpBuilder("DecodeRaw")
            .input("bytes: string")
            .output("output: out_type")
            .attr("out_type: {half,float,double,int32,uint16,uint8,int16,int8,int64,complex64,complex128,bool,bfloat16}")
            .attr("little_endian: bool = true")
            .shape(decode_raw_shape)
            .cpu(decode_raw_kernel, decode_raw_types(), "out_type")
            .not_differentiable("TensorFlow: ops.NotDifferentiable(\"DecodeRaw\")")
            .no_gpu("reads host-memory strings; TensorFlow registers a CPU kernel only")
            .category("strings")
            .doc("The bytes of each string as a vector of out_type (all strings of one length)."));
}

}  // namespace flowlens::ops
