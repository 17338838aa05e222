// GPU kernels of the indexing ops: Gather, GatherV2, ResourceGather,
// MirrorPad, OneHot and UnsortedSegmentSum. Their index inputs live in host
// memory, so each is checked on the host with the CPU kernel's own plan
// (ops/kernels/array/gather_args.h, ops/kernels/array/pad_args.h, ops/kernels/array/one_hot_args.h,
// ops/kernels/math/segment_args.h): a bad index is the CPU's error, never a device fault.
// The plan's offsets go up once per run through pinned staging; gather.cu
// does the moving.
#include <numeric>

#include "cuda/cuda_check.h"
#include "cuda/gpu_kernel_util.h"
#include "cuda/gpu_kernels.h"
#include "ops/kernels/array/gather_args.h"
#include "ops/framework/kernel_checks.h"
#include "ops/kernels/array/one_hot_args.h"
#include "ops/kernels/array/pad_args.h"
#include "ops/resources/resource_variable.h"
#include "ops/kernels/math/segment_args.h"

namespace flowlens::cuda {
namespace {

// A host vector of offsets in device memory for the kernels queued next.
DeviceBuffer upload(GpuLaunch& gpu, const std::vector<int64_t>& values) {
  return DeviceBuffer(gpu, values.data(), values.size() * sizeof(int64_t));
}

// Rows of params, one table of row offsets (in elements).
void gather_rows(KernelContext& ctx, const ops::GatherPlan& plan, const Tensor& params) {
  const int bytes = word_bytes(ctx, params);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, params.dtype(), Shape(plan.dims));
  if (out.num_elements() == 0 || plan.source_rows.empty()) return;
  std::vector<int64_t> offsets(plan.source_rows.size());
  for (std::size_t r = 0; r < offsets.size(); ++r) offsets[r] = plan.source_rows[r] * plan.inner;
  const DeviceBuffer table = upload(gpu, offsets);
  TableGather g;
  g.rank = 1;
  g.dims[0] = static_cast<int64_t>(offsets.size());
  g.inner = plan.inner;
  launch_table_gather(gpu.stream, bytes, params.device_data(), table.as<int64_t>(), g, out.device_data());
  check_launch(ctx);
}

void gather_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;  // integer params stay in host memory
  gather_rows(ctx, ops::gather_plan(ctx), ops::input(ctx, 0));
}

// ResourceGather: the variable's value moves to this GPU first if it was
// last written on the host (as ReadVariableOp does), then rows as Gather.
void resource_gather_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 2);
  const ResourceHandle& h = ops::handle_input(ctx, 0);
  Variable* v = ops::resource_variable(h);
  GpuLaunch gpu(ctx);
  Tensor params;
  {
    std::lock_guard lock(v->mu);
    params = ops::existing_value_locked(h, *v, ops::ReadFailure::NotFound);
    if (params.on_host() && lives_in_device_memory(params.dtype())) {
      params = gpu.device.accept_input(params);
      v->value = params;
    }
  }
  if (!lives_in_device_memory(params.dtype()))
    ops::fail("ResourceGather on a GPU: the variable holds " + dtype_name(params.dtype()) +
              ", which stays in host memory; place the node on the CPU");
  gather_rows(ctx, ops::resource_gather_plan(ctx, params, ops::input(ctx, 1), ctx.attrs().integer("batch_dims")),
              params);
}

// MirrorPad: a table per dim of the padded indices' input offsets; trailing
// dims without padding are moved as contiguous runs instead.
void mirror_pad_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  const ops::MirrorPadPlan plan = ops::mirror_pad_plan(ctx);
  const Tensor& x = ctx.input(0);
  if (plan.dims.empty()) {
    ctx.set_output(0, x);
    return;
  }
  const int bytes = word_bytes(ctx, x);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(plan.dims));
  if (out.num_elements() == 0) return;
  TableGather g;
  int rank = static_cast<int>(plan.dims.size());
  while (rank > 1 && plan.dims[static_cast<std::size_t>(rank - 1)] == x.shape().dim(rank - 1)) {
    g.inner *= plan.dims[static_cast<std::size_t>(rank - 1)];  // unpadded: the identity table
    --rank;
  }
  std::vector<int64_t> tables;
  for (int d = 0; d < rank; ++d) {
    const std::vector<int64_t>& t = plan.source[static_cast<std::size_t>(d)];
    tables.insert(tables.end(), t.begin(), t.end());
    g.dims[d] = plan.dims[static_cast<std::size_t>(d)];
  }
  g.rank = rank;
  const DeviceBuffer device_tables = upload(gpu, tables);
  launch_table_gather(gpu.stream, bytes, x.device_data(), device_tables.as<int64_t>(), g, out.device_data());
  check_launch(ctx);
}

void one_hot_kernel(KernelContext& ctx) {
  const ops::OneHotArgs args = ops::one_hot_args(ctx);
  const Tensor& on = ctx.input(2);
  const Tensor& off = ctx.input(3);
  const int bytes = word_bytes(ctx, on);
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, on.dtype(), Shape(args.dims));
  if (out.num_elements() == 0) return;
  const DeviceBuffer indices = upload(gpu, args.indices);
  launch_one_hot(gpu.stream, bytes, indices.as<int64_t>(), on.device_data(), off.device_data(), out.device_data(),
                 args.prefix, args.depth, args.suffix);
  check_launch(ctx);
}

// UnsortedSegmentSum: each segment's data rows listed in ascending order on
// the host (a counting sort of the ids), summed on the GPU in that order.
void unsorted_segment_sum_kernel(KernelContext& ctx) {
  if (ran_on_host(ctx)) return;
  const ops::UnsortedSegmentArgs args = ops::unsorted_segment_args(ctx);
  const Tensor& data = ctx.input(0);
  if (data.dtype() != DType::Float) ops::unsupported_dtype("UnsortedSegmentSum", data.dtype());
  GpuLaunch gpu(ctx);
  Tensor& out = ctx.allocate_output(0, data.dtype(), args.out_shape);
  if (out.num_elements() == 0) return;
  std::vector<int64_t> starts(static_cast<std::size_t>(args.segments) + 1, 0);
  const bool reads_data = data.num_elements() > 0;
  if (reads_data)
    for (int64_t id : args.segment_ids)
      if (id >= 0) ++starts[static_cast<std::size_t>(id) + 1];
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  std::vector<int64_t> rows(static_cast<std::size_t>(starts.back()));
  std::vector<int64_t> next(starts.begin(), starts.end() - 1);
  if (reads_data)
    for (std::size_t i = 0; i < args.segment_ids.size(); ++i)
      if (const int64_t id = args.segment_ids[i]; id >= 0)
        rows[static_cast<std::size_t>(next[static_cast<std::size_t>(id)]++)] = static_cast<int64_t>(i);
  const DeviceBuffer device_starts = upload(gpu, starts);
  const DeviceBuffer device_rows = upload(gpu, rows);
  launch_segment_sum(gpu.stream, f32(data), device_starts.as<int64_t>(), device_rows.as<int64_t>(), f32(out), args.segments,
                     args.width);
  check_launch(ctx);
}

bool type_attr_in_device_memory(const Node& n, const char* attr) {
  return lives_in_device_memory(dtype_base(n.attr_type(attr, DType::Invalid)));
}

bool is_device_params_node(const Node& n) {
  return type_attr_in_device_memory(n, "Tparams") || is_host_memory_node(n);
}
bool is_device_dtype_node(const Node& n) { return type_attr_in_device_memory(n, "dtype"); }
bool is_device_t_node(const Node& n) { return type_attr_in_device_memory(n, "T"); }

}  // namespace

void register_gpu_index_kernels(OpRegistry& r) {
  const char* params = "params of a dtype that lives in device memory, or int32/int64/bool in host memory";
  add_gpu_kernel(r, "Gather", gather_kernel, is_device_params_node, params);
  add_gpu_kernel(r, "GatherV2", gather_kernel, is_device_params_node, params);
  add_gpu_kernel(r, "ResourceGather", resource_gather_kernel, is_device_dtype_node,
                 "variables of a dtype that lives in device memory");
  add_gpu_kernel(r, "MirrorPad", mirror_pad_kernel, is_device_or_host_memory_node);
  add_gpu_kernel(r, "OneHot", one_hot_kernel, is_device_t_node,
                 "on/off values of a dtype that lives in device memory (indices stay on the host)");
  add_gpu_kernel(r, "UnsortedSegmentSum", unsorted_segment_sum_kernel, is_float_or_host_memory_node);
}

}  // namespace flowlens::cuda
