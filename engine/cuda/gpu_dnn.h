#pragma once
// The GPU kernels that call cuDNN (gpu_dnn_*.cpp), built only with its
// header (FLOWLENS_WITH_CUDNN). Everything here finds cuDNN at run time
// (cudnn_library.h) and says so when it is missing.
#if FLOWLENS_WITH_CUDNN
#include "cuda/gpu_kernel_util.h"
#include "ops/kernels/nn/conv_common.h"

namespace flowlens::cuda {

enum class ConvPass { Forward, BackwardData, BackwardFilter };

// One pass of a float32 convolution through cuDNN. Forward: a = input,
// b = HWIO filter, out = output; BackwardData: a = filter, b = d output,
// out = d input; BackwardFilter: a = input, b = d output, out = d filter.
// Returns false, doing nothing, when cuDNN is not loaded (the caller runs
// im2col + cuBLAS instead).
bool dnn_convolution(ConvPass pass, GpuLaunch& gpu, const ops::conv::Geometry& g, const float* a, const float* b,
                     float* out);

// FusedBatchNorm{,V2,V3} and FusedBatchNormGrad{,V2,V3}, float32, when
// cuDNN loads (gpu_dnn_batch_norm.cpp).
void register_gpu_dnn_batch_norm_kernels(OpRegistry& r);

}  // namespace flowlens::cuda
#endif
