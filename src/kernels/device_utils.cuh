// Device-side building blocks shared by the FP32 and tensor-core ladders: asynchronous copies
// (cp.async), programmatic dependent launch, and the epilogue that applies alpha and beta.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace gemmlab::dev {

// Shared-memory address as the 32-bit value PTX wants.
__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// cp.async: copy BYTES from global to shared without passing through registers (sm_80+).
// `src_bytes` < BYTES zero-fills the rest: src_bytes = 0 writes zeros and reads nothing, which is
// how out-of-range elements at the matrix edges become zeros in the tile.
template <int BYTES>
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, int src_bytes) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (BYTES == 16) {
    // .cg: cache in L2 only; the tile is reused from shared memory, not from L1.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem),
                 "r"(src_bytes));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_addr(smem)), "l"(gmem), "n"(BYTES),
                 "r"(src_bytes));
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Wait until at most N groups of this thread are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Programmatic dependent launch (sm_90+; no-ops on older GPUs, and in a grid launched without the
// attribute). allow_dependent_launch: once every block of this grid has called it (or exited), the
// next kernel on the stream, if launched with cudaLaunchAttributeProgrammaticStreamSerialization,
// may start its blocks on SMs this grid frees. wait_for_prerequisite_grid: wait until the grid this
// one depends on has finished and its writes are visible.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_prerequisite_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// The first thing each library kernel does, before it touches global memory (the library launches
// its GEMM kernels early on sm_90: detail::KernelLaunch): wait for the kernel ahead of it on the
// stream, then let the kernel behind it place its blocks on the SMs this grid leaves free, where
// they wait in turn. Every block of this grid has started by the time that happens, so they take
// nothing this grid needs. The copies and reductions, launched in plain stream order, call it too:
// there the wait returns at once, and the GEMM kernel behind them may still start early. The
// transpose (transpose.cu) lets the kernel behind it start only at its end: a GEMM's clusters
// placed beside its blocks ran slower than placed after them (docs/api.md).
__device__ __forceinline__ void start_in_stream_order() {
  wait_for_prerequisite_grid();
  allow_dependent_launch();
}

// C = alpha * acc + beta * C for one element; beta == 0 never reads C (it may hold NaN).
__device__ __forceinline__ float epilogue(float acc, float alpha, float beta, const float* c) {
  return beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

// The same for four adjacent outputs in one 16-byte access (out must be 16-byte aligned).
__device__ __forceinline__ void epilogue4(float* out, float a0, float a1, float a2, float a3, float alpha, float beta) {
  float4 v = make_float4(alpha * a0, alpha * a1, alpha * a2, alpha * a3);
  if (beta != 0.0f) {
    const float4 o = *reinterpret_cast<const float4*>(out);
    v.x += beta * o.x, v.y += beta * o.y, v.z += beta * o.z, v.w += beta * o.w;
  }
  *reinterpret_cast<float4*>(out) = v;
}

}  // namespace gemmlab::dev
