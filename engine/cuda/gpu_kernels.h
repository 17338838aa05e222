#pragma once
// Registration of the GPU kernels, one function per op family (the files
// gpu_*_kernels.cpp); gpu_backend.cpp calls them all.
#include "ops/framework/op_registry.h"

namespace flowlens::cuda {

void register_gpu_math_kernels(OpRegistry& r);       // gpu_math_kernels.cpp
void register_gpu_reduction_kernels(OpRegistry& r);  // gpu_reduction_kernels.cpp
void register_gpu_nn_kernels(OpRegistry& r);         // gpu_nn_kernels.cpp
void register_gpu_state_kernels(OpRegistry& r);      // gpu_state_kernels.cpp
void register_gpu_pool_kernels(OpRegistry& r);       // gpu_pool_kernels.cpp
void register_gpu_conv_kernels(OpRegistry& r);       // gpu_conv_kernels.cpp
void register_gpu_array_kernels(OpRegistry& r);      // gpu_array_kernels.cpp
void register_gpu_index_kernels(OpRegistry& r);      // gpu_index_kernels.cpp
void register_gpu_compare_kernels(OpRegistry& r);    // gpu_compare_kernels.cpp
// With cuDNN's header only: register_gpu_dnn_batch_norm_kernels (gpu_dnn.h).

}  // namespace flowlens::cuda
