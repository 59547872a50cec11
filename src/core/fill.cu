#include "core/fill.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <limits>

namespace gemmlab {

namespace {

constexpr int kThreads = 256;

int blocks_for(std::int64_t count) {
  const std::int64_t b = (count + kThreads - 1) / kThreads;
  return int(b < 65535 * 8 ? (b > 0 ? b : 1) : 65535 * 8);  // grid-stride loops cover the rest
}

__global__ void fill_kernel(float* dst, std::int64_t count, Init init, std::uint64_t seed, std::uint64_t stream) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    switch (init) {
      case Init::uniform: dst[i] = uniform_value(seed, stream, std::uint64_t(i)); break;
      case Init::linear: dst[i] = linear_value(count, i, false); break;
      case Init::linear_reversed: dst[i] = linear_value(count, i, true); break;
    }
  }
}

__global__ void fill_value_kernel(float* dst, std::int64_t count, float v) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x)
    dst[i] = v;
}

template <class T> __device__ double load_as_double(const T* p, std::int64_t i);
template <> __device__ double load_as_double(const float* p, std::int64_t i) { return p[i]; }
template <> __device__ double load_as_double(const double* p, std::int64_t i) { return p[i]; }
template <> __device__ double load_as_double(const __nv_bfloat16* p, std::int64_t i) { return __bfloat162float(p[i]); }
template <> __device__ double load_as_double(const __half* p, std::int64_t i) { return __half2float(p[i]); }

template <class T> __device__ void store_from_double(T* p, std::int64_t i, double v);
template <> __device__ void store_from_double(float* p, std::int64_t i, double v) { p[i] = float(v); }
template <> __device__ void store_from_double(double* p, std::int64_t i, double v) { p[i] = v; }
// Round once, from float: every 16-bit value is exactly the RNE rounding of the f32 input.
template <> __device__ void store_from_double(__nv_bfloat16* p, std::int64_t i, double v) { p[i] = __float2bfloat16_rn(float(v)); }
template <> __device__ void store_from_double(__half* p, std::int64_t i, double v) { p[i] = __float2half_rn(float(v)); }

template <class S, class D>
__global__ void convert_kernel(const S* src, D* dst, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x)
    store_from_double(dst, i, load_as_double(src, i));
}

template <class S>
void convert_from(const S* src, void* dst, DType dst_t, std::int64_t count, cudaStream_t s) {
  const int b = blocks_for(count);
  switch (dst_t) {
    case DType::f32: convert_kernel<<<b, kThreads, 0, s>>>(src, static_cast<float*>(dst), count); break;
    case DType::f64: convert_kernel<<<b, kThreads, 0, s>>>(src, static_cast<double*>(dst), count); break;
    case DType::bf16: convert_kernel<<<b, kThreads, 0, s>>>(src, static_cast<__nv_bfloat16*>(dst), count); break;
    case DType::f16: convert_kernel<<<b, kThreads, 0, s>>>(src, static_cast<__half*>(dst), count); break;
  }
  GEMMLAB_CHECK_LAUNCH();
}

}  // namespace

void fill_f32(float* dst, std::int64_t count, Init init, std::uint64_t seed, std::uint64_t stream, cudaStream_t s) {
  fill_kernel<<<blocks_for(count), kThreads, 0, s>>>(dst, count, init, seed, stream);
  GEMMLAB_CHECK_LAUNCH();
}

void fill_value_f32(float* dst, std::int64_t count, float value, cudaStream_t s) {
  fill_value_kernel<<<blocks_for(count), kThreads, 0, s>>>(dst, count, value);
  GEMMLAB_CHECK_LAUNCH();
}

void fill_nan(void* dst, DType t, std::int64_t count, cudaStream_t s) {
  // All-ones bit patterns are NaN in every IEEE format gemmlab uses.
  GEMMLAB_CUDA(cudaMemsetAsync(dst, 0xff, std::size_t(count) * dtype_size(t), s));
}

void convert(const void* src, DType src_t, void* dst, DType dst_t, std::int64_t count, cudaStream_t s) {
  switch (src_t) {
    case DType::f32: convert_from(static_cast<const float*>(src), dst, dst_t, count, s); break;
    case DType::f64: convert_from(static_cast<const double*>(src), dst, dst_t, count, s); break;
    case DType::bf16: convert_from(static_cast<const __nv_bfloat16*>(src), dst, dst_t, count, s); break;
    case DType::f16: convert_from(static_cast<const __half*>(src), dst, dst_t, count, s); break;
  }
}

std::vector<float> fill_uniform_host(std::int64_t count, std::uint64_t seed, std::uint64_t stream) {
  std::vector<float> v;
  v.reserve(std::size_t(count));
  for (std::int64_t i = 0; i < count; ++i) v.push_back(uniform_value(seed, stream, std::uint64_t(i)));
  return v;
}

}  // namespace gemmlab
