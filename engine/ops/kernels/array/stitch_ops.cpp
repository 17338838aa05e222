// DynamicStitch(indices[N], data[N]): merged[indices[m][i], ...] =
// data[m][i, ...], inputs taken in order so a later (m, i) wins. The output
// has max(indices) + 1 rows; rows no index names are zero (TF leaves them
// uninitialized). Any fixed-size dtype and strings are copied.
#include <algorithm>
#include <cstring>

#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

bool starts_with(const Shape& data, const Shape& indices) {
  if (data.rank() < indices.rank()) return false;
  for (int d = 0; d < indices.rank(); ++d)
    if (data.dim(d) != indices.dim(d)) return false;
  return true;
}

std::vector<int64_t> tail(const Shape& s, int from) {
  return std::vector<int64_t>(s.dims().begin() + from, s.dims().end());
}

void stitch_kernel(KernelContext& ctx) {
  const int inputs = ctx.num_inputs();
  if (inputs == 0) fail("DynamicStitchOp: Must have some inputs");
  if (inputs % 2 != 0) fail("DynamicStitchOp: Must have even number of arguments");
  const int n = inputs / 2;
  int64_t max_index = -1;
  for (int m = 0; m < n; ++m) {
    const Tensor& indices = input(ctx, m);
    if (indices.dtype() != DType::Int32)
      fail("DynamicStitch: indices must be int32, got " + dtype_name(indices.dtype()));
    const int32_t* p = indices.data<int32_t>();
    for (int64_t i = 0, e = indices.num_elements(); i < e; ++i) max_index = std::max<int64_t>(max_index, p[i]);
  }
  const Tensor& data0 = input(ctx, n);
  const Tensor& indices0 = ctx.input(0);
  if (data0.dtype() != DType::String) check_copyable("DynamicStitch", data0.dtype());
  for (int m = 0; m < n; ++m) {
    const Tensor& indices = ctx.input(m);
    const Tensor& data = input(ctx, n + m);
    if (data.dtype() != data0.dtype())
      fail("DynamicStitch: all data must have one dtype, got " + dtype_name(data0.dtype()) + " and " +
           dtype_name(data.dtype()));
    const std::string num = std::to_string(m);
    if (!starts_with(data.shape(), indices.shape()))
      fail("data[" + num + "].shape = " + shape_str(data.shape()) + " does not start with indices[" + num +
           "].shape = " + shape_str(indices.shape()));
    if (m > 0 && tail(data.shape(), indices.shape().rank()) != tail(data0.shape(), indices0.shape().rank()))
      fail("Need data[0].shape[" + std::to_string(indices0.shape().rank()) + ":] = data[" + num + "].shape[" +
           std::to_string(indices.shape().rank()) + ":], got data[0].shape = " + shape_str(data0.shape()) +
           ", data[" + num + "].shape = " + shape_str(data.shape()) + ", indices[0].shape = " +
           shape_str(indices0.shape()) + ", indices[" + num + "].shape = " + shape_str(indices.shape()));
  }
  const int64_t rows = max_index + 1;
  std::vector<int64_t> dims{rows};
  const std::vector<int64_t> slice_dims = tail(data0.shape(), indices0.shape().rank());
  dims.insert(dims.end(), slice_dims.begin(), slice_dims.end());
  checked_elements("DynamicStitch", dims);
  const int64_t slice = checked_elements("DynamicStitch", slice_dims);
  Tensor& out = ctx.allocate_output(0, data0.dtype(), Shape(dims));
  if (rows == 0 || slice == 0) return;
  const bool strings = data0.dtype() == DType::String;
  const size_t bytes = strings ? 0 : static_cast<size_t>(slice) * dtype_size(data0.dtype());
  if (!strings) std::memset(out.raw_data(), 0, out.byte_size());
  for (int m = 0; m < n; ++m) {
    const Tensor& indices = ctx.input(m);
    const Tensor& data = ctx.input(n + m);
    const int32_t* p = indices.data<int32_t>();
    for (int64_t i = 0, e = indices.num_elements(); i < e; ++i) {
      const int64_t row = p[i];
      if (row < 0 || row >= rows) fail("indices[" + std::to_string(i) + "] is out of range");
      if (strings) {
        std::copy_n(data.strings().begin() + i * slice, slice, out.strings().begin() + row * slice);
      } else {
        std::memcpy(static_cast<char*>(out.raw_data()) + static_cast<size_t>(row) * bytes,
                    static_cast<const char*>(data.raw_data()) + static_cast<size_t>(i) * bytes, bytes);
      }
    }
  }
}

// TF's DynamicStitchShapeFunction: rows known when every indices input is a
// constant, the slice shape merged across the data inputs.
void stitch_shape(ShapeContext& ctx) {
  const int n = ctx.num_inputs() / 2;
  bool all_constant = true;
  int64_t max_index = -1;
  Shape extra = Shape::unknown_rank();
  for (int m = 0; m < n; ++m) {
    const Tensor* indices_t = ctx.constant_input(m);
    if (!indices_t) all_constant = false;
    const Shape& indices = ctx.input(m).shape;
    const Shape& data = ctx.input(n + m).shape;
    if (!indices.rank_known()) continue;
    if (data.rank_known()) {
      if (data.rank() < indices.rank())
        fail("Shape must be at least rank " + std::to_string(indices.rank()) + " but is rank " +
             std::to_string(data.rank()));
      for (int d = 0; d < indices.rank(); ++d)
        if (data.dim(d) >= 0 && indices.dim(d) >= 0 && data.dim(d) != indices.dim(d))
          fail("Dimensions must be equal, but are " + std::to_string(data.dim(d)) + " and " +
               std::to_string(indices.dim(d)));
      extra = merge_shapes(extra, Shape(tail(data, indices.rank())), "DynamicStitch: data slices differ in shape");
    }
    if (indices_t)
      for (int64_t v : read_ints("DynamicStitch", "indices", *indices_t)) max_index = std::max(max_index, v);
  }
  const DType t = attr_or_input_dtype(ctx, "T", n);
  if (!extra.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  std::vector<int64_t> dims{all_constant ? max_index + 1 : Shape::kUnknownDim};
  dims.insert(dims.end(), extra.dims().begin(), extra.dims().end());
  ctx.set_output(0, t, Shape(std::move(dims)));
}

}  // namespace

void register_stitch_ops(OpRegistry& r) {
  r.add(OpBuilder("DynamicStitch")
            .input("indices: N * int32")
            .input("data: N * T")
            .output("merged: T")
            .attr("N: int >= 1")
            .attr("T: type")
            .shape(stitch_shape)
            .cpu(stitch_kernel)
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("Interleaves data slices into rows named by indices (later entries win)."));
}

}  // namespace flowlens::ops
