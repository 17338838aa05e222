// The optimizers' update formulas, exactly as training_ops.cpp computes them
// on the CPU; scalars are read from device memory where the graph left them.
#include "cuda/gpu_launch.h"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

__global__ void gd_kernel(const float* w, const float* alpha, const float* d, float* o, int64_t n) {
  const float a = *alpha;
  FLOWLENS_GRID_LOOP(i, n) o[i] = w[i] - a * d[i];
}

__global__ void momentum_kernel(const float* w, const float* a0, const float* lr_p, const float* g, const float* mom_p,
                                bool nesterov, float* o, float* a1, int64_t n) {
  const float lr = *lr_p, mom = *mom_p;
  FLOWLENS_GRID_LOOP(i, n) {
    a1[i] = a0[i] * mom + g[i];
    o[i] = nesterov ? w[i] - (g[i] * lr + a1[i] * mom * lr) : w[i] - lr * a1[i];
  }
}

// Keras's form (ResourceApplyKerasMomentum): accum = accum * momentum -
// grad * lr; var += accum (Nesterov: var += accum * momentum - grad * lr).
__global__ void keras_momentum_kernel(const float* w, const float* a0, const float* lr_p, const float* g,
                                      const float* mom_p, bool nesterov, float* o, float* a1, int64_t n) {
  const float lr = *lr_p, mom = *mom_p;
  FLOWLENS_GRID_LOOP(i, n) {
    a1[i] = a0[i] * mom - g[i] * lr;
    o[i] = nesterov ? w[i] + (a1[i] * mom - g[i] * lr) : w[i] + a1[i];
  }
}

__global__ void adam_kernel(const float* w, const float* pm, const float* pv, AdamScalars s, const float* g,
                            bool nesterov, float* o, float* om, float* ov, int64_t n) {
  const float b1p = *s.beta1_power, b2p = *s.beta2_power, lr = *s.lr, b1 = *s.beta1, b2 = *s.beta2, eps = *s.epsilon;
  const float lr_t = lr * sqrtf(1.f - b2p) / (1.f - b1p);
  FLOWLENS_GRID_LOOP(i, n) {
    om[i] = pm[i] + (g[i] - pm[i]) * (1.f - b1);
    ov[i] = pv[i] + (g[i] * g[i] - pv[i]) * (1.f - b2);
    const float num = nesterov ? om[i] * b1 + (1.f - b1) * g[i] : om[i];
    o[i] = w[i] - lr_t * num / (sqrtf(ov[i]) + eps);
  }
}

}  // namespace

void launch_apply_gradient_descent(cudaStream_t stream, const float* var, const float* alpha, const float* delta,
                                   float* out, int64_t n) {
  if (n > 0) gd_kernel<<<blocks_for(n), kThreads, 0, stream>>>(var, alpha, delta, out, n);
}

void launch_apply_momentum(cudaStream_t stream, const float* var, const float* accum, const float* lr,
                           const float* grad, const float* momentum, bool nesterov, float* out_var,
                           float* out_accum, int64_t n) {
  if (n > 0)
    momentum_kernel<<<blocks_for(n), kThreads, 0, stream>>>(var, accum, lr, grad, momentum, nesterov, out_var,
                                                            out_accum, n);
}

void launch_apply_keras_momentum(cudaStream_t stream, const float* var, const float* accum, const float* lr,
                                 const float* grad, const float* momentum, bool nesterov, float* out_var,
                                 float* out_accum, int64_t n) {
  if (n > 0)
    keras_momentum_kernel<<<blocks_for(n), kThreads, 0, stream>>>(var, accum, lr, grad, momentum, nesterov, out_var,
                                                                  out_accum, n);
}

void launch_apply_adam(cudaStream_t stream, const float* var, const float* m, const float* v, const AdamScalars& s,
                       const float* grad, bool nesterov, float* out_var, float* out_m, float* out_v, int64_t n) {
  if (n > 0) adam_kernel<<<blocks_for(n), kThreads, 0, stream>>>(var, m, v, s, grad, nesterov, out_var, out_m, out_v, n);
}

}  // namespace flowlens::cuda
