// Filling and converting matrices on the device.
//
// Random inputs come from a counter-based hash (splitmix64) of (seed, stream, index): the same
// seed gives the same matrix on any GPU, any launch shape and on the host (fill_uniform_host),
// and no generator state has to be kept.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "core/buffer.hpp"

namespace gemmlab {

// One uniform value in [-1, 1) for element `index` of random stream `stream` under `seed`.
__host__ __device__ inline float uniform_value(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + index;
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  // 24 random bits -> exactly representable in float
  return float(std::int64_t(z >> 40) - (std::int64_t(1) << 23)) * (1.0f / float(1 << 23));
}

// Seed 004's LinearInit: 0, 1, 2, ... (or size, size-1, ... when reversed), as float.
__host__ __device__ inline float linear_value(std::int64_t size, std::int64_t index, bool reverse) {
  return reverse ? float(size - index) : float(index);
}

enum class Init { uniform, linear, linear_reversed };

// Fill an f32 matrix on the device.
void fill_f32(float* dst, std::int64_t count, Init init, std::uint64_t seed, std::uint64_t stream,
              cudaStream_t s);
void fill_value_f32(float* dst, std::int64_t count, float value, cudaStream_t s);  // NaN poison etc.
void fill_nan(void* dst, DType t, std::int64_t count, cudaStream_t s);

// Element-wise conversions between device matrices (f32 <-> bf16/f16/f64, f16/bf16 -> f64).
void convert(const void* src, DType src_t, void* dst, DType dst_t, std::int64_t count, cudaStream_t s);

// Host copy of the same uniform stream (for CPU tests).
std::vector<float> fill_uniform_host(std::int64_t count, std::uint64_t seed, std::uint64_t stream);

}  // namespace gemmlab
