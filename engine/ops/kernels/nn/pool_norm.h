#pragma once
// Pooling (pooling_ops.cpp), batch normalization (batch_norm_ops.cpp), LRN
// (lrn_ops.cpp) and resize (resize_ops.cpp): what tests and benchmarks reach
// past the registry. The float32 pooling and batch-norm kernels have two
// implementations, oneDNN and a plain loop that is the reference (and serves
// every other dtype); Auto picks the one measured faster for each op (see the
// comments in pooling_ops.cpp and batch_norm_ops.cpp).
namespace flowlens::ops {

enum class CpuPath { Auto, Reference, OneDnn };
// Process-wide; tests run a kernel both ways and compare.
void set_cpu_path(CpuPath path);
CpuPath cpu_path();
// Whether a float32 kernel takes oneDNN: as cpu_path() forces it, else (Auto)
// `measured_faster`, the kernel's own measurement for this layout.
bool use_onednn(bool measured_faster);

}  // namespace flowlens::ops
