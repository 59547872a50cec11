// Element types of the tensor-core ladder, per precision, and the output conversions.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/types.hpp"

namespace gemmlab::tc {

// Operand type in memory for each precision (tf32 reads FP32 and rounds in the tensor core path).
template <Precision P> struct Operand;
template <> struct Operand<Precision::bf16> { using type = __nv_bfloat16; };
template <> struct Operand<Precision::fp16> { using type = __half; };
template <> struct Operand<Precision::tf32> { using type = float; };
template <Precision P> using operand_t = typename Operand<P>::type;

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

template <class T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }

// C = alpha * acc + beta * C for one element of output type T; beta == 0 never reads C.
template <class T>
__device__ __forceinline__ void store_output(T* c, float acc, float alpha, float beta) {
  *c = from_float<T>(beta == 0.0f ? alpha * acc : alpha * acc + beta * to_float(*c));
}

}  // namespace gemmlab::tc
