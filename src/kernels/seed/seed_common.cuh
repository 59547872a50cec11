// What the seed ladder's kernels share: the kernel signature, the epilogue, and the launch.
//
// Every seed kernel computes C = alpha * A * B + beta * C on packed row-major matrices
// (A is M x K, B is K x N, C is M x N). Indices are 32-bit: validate_shape() (harness/run.cpp)
// refuses matrices of more than 2^31 - 1 elements, and the kernels form an index only for an
// element that exists (every load and store is guarded first), so no index can overflow.
#pragma once

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "kernels/kernel.hpp"

namespace gemmlab::seed {

// The signature every seed kernel has, so that a kernel file can pick a template instance at run
// time (by block size) and launch it through a pointer.
// (__restrict__ on a parameter is a top-level qualifier: it is not part of the function's type.)
using GemmFunction = void (*)(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C);

// The epilogue. With beta == 0, C is write-only: it may hold anything (the harness fills it with
// NaN to prove it is never read), and 0 * NaN would be NaN, so C must not even be loaded.
__device__ __forceinline__ void store_output(float* __restrict__ C, int index, float acc, float alpha,
                                             float beta) {
  C[index] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[index];
}

// Launches `fn` with the plan's grid and block on the context's stream; a launch error (bad
// configuration, too many resources) is thrown here, not found later.
inline void launch_gemm(GemmFunction fn, const LaunchPlan& plan, const GemmArgs& g, const ExecContext& ctx) {
  int m = int(g.shape.m), n = int(g.shape.n), k = int(g.shape.k);
  float alpha = g.alpha, beta = g.beta;
  const float* a = static_cast<const float*>(g.a);
  const float* b = static_cast<const float*>(g.b);
  float* c = static_cast<float*>(g.c);
  void* args[] = {&m, &n, &k, &alpha, &a, &b, &beta, &c};  // in the order of GemmFunction's parameters
  GEMMLAB_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(fn), plan.grid, plan.block, args, plan.dynamic_smem,
                                ctx.stream));
}

}  // namespace gemmlab::seed
